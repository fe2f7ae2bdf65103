// The party screen (issue 37) in the browser: a TV at 1920x1080 makes a
// party room from home; three phones (390x844, touch) join through its QR
// link; the first is the host (the VIP) and plays a 3-round match from the
// phone to the podium; one phone drops and comes back; the TV's socket drops
// and it resumes by itself. The screen is checked at 1920x1080, 1280x720 and
// 1024x768 in its lobby, mid-race, in the intermission and at the podium: no
// scrolling, no text under 24 px, nothing cut off; axe finds nothing. Then
// the same screen view of an ordinary room through "Show on a big screen".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  serverAndBrowser,
  startServer,
  openPage,
  recordPage,
  screenshot,
  play,
  axe,
  LAPTOP,
  PHONE,
  TV,
  TV_SIZES,
  raceStarts,
} from './harness.mjs';
import { route } from '../route.mjs';

let srv, browser;
serverAndBrowser((s, b) => ((srv = s), (browser = b)));

const view = (p, name) => p.page.waitForSelector(`body[data-view="${name}"]`);
const pane = (p, id) => p.page.waitForSelector(`#${id}:not([hidden])`);

/**
 * The screen at each size: the page does not scroll, no text in the view is
 * under 24 px, no line of a list or table is cut off at its box's edge, and
 * a screenshot of each (`name`-1920 ...). Back at 1920x1080 after.
 */
async function atEverySize(tv, name, ready = () => Promise.resolve()) {
  for (const size of TV_SIZES) {
    await tv.page.setViewportSize(size);
    await tv.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    await ready();
    const got = await tv.page.evaluate(() => {
      const doc = document.scrollingElement;
      const small = [];
      const cut = [];
      for (const e of document.querySelectorAll('#tv *')) {
        if (!e.offsetParent && getComputedStyle(e).position !== 'fixed') continue;
        const own = [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
        if (own && parseFloat(getComputedStyle(e).fontSize) < 24) small.push(`${e.tagName}.${e.className}: ${e.textContent.slice(0, 30)}`);
      }
      // A row of a list or table entirely inside the box it is shown in.
      for (const row of document.querySelectorAll('#tv li, #tv tr')) {
        if (!row.offsetParent) continue;
        const box = row.closest('.tv-list, .tv-box, .tv-podium, .tv-col') || document.getElementById('tv');
        const a = row.getBoundingClientRect();
        const b = box.getBoundingClientRect();
        if (a.bottom > b.bottom + 1 || a.top < b.top - 1) cut.push(row.textContent.slice(0, 30));
      }
      const tv = document.getElementById('tv').getBoundingClientRect();
      return {
        scrolls: doc.scrollHeight > innerHeight + 1 || doc.scrollWidth > innerWidth + 1,
        outside: tv.bottom > innerHeight + 1 || tv.right > innerWidth + 1,
        small,
        cut,
      };
    });
    await screenshot(tv.page, `tv-${name}-${size.width}`);
    const at = `${size.width}x${size.height}`;
    assert.equal(got.scrolls, false, `${name} at ${at}: the page scrolls`);
    assert.equal(got.outside, false, `${name} at ${at}: the view is larger than the window`);
    assert.deepEqual(got.small, [], `${name} at ${at}: text under 24 px`);
    assert.deepEqual(got.cut, [], `${name} at ${at}: rows cut off`);
  }
  await tv.page.setViewportSize(TV_SIZES[0]);
}

/** A phone opens the invite link (the QR's) and joins with a name. */
async function joinByLink(link, name) {
  const p = await openPage(browser, PHONE, link);
  await p.page.fill('#name', name);
  await p.page.click('#inv-join');
  await view(p, 'lobby');
  return p;
}

/** race_start on every page; the TV has no game, so the phones' games are waited for apart (`gameReady`). */
const raceStartsOn = (pages, froms) => raceStarts(pages, froms, { ready: [] });
const gameReady = (pages) =>
  Promise.all(pages.map((p) => p.page.waitForFunction(() => window.__mazerace.game && window.__mazerace.game.steps === 0)));

test('a TV hosts a party room; three phones join by its QR link; the first hosts a 3-round match to the podium', async () => {
  const tv = await openPage(browser, TV, srv.url);
  await tv.page.check('input[name=game][value=maze]');
  await tv.page.selectOption('#size', 'easy');
  await tv.page.selectOption('#rounds', '3');
  await tv.page.selectOption('#plan', 'same');
  await tv.page.click('#host-tv');
  await view(tv, 'tv');
  const made = await tv.frame((m) => m.type === 'room', { what: 'the party room' });
  assert.equal(made.party, true);
  assert.deepEqual(made.players, [], 'the screen has no seat');
  const create = tv.sent.find((m) => m.type === 'create_room');
  assert.equal(create.party, true);
  assert.deepEqual(create.match, { rounds: 3, plan: 'same' });
  await pane(tv, 'tv-lobby');
  assert.match(await tv.page.url(), /\/tv\/[A-Z0-9]+\?k=[0-9a-f]{16}$/, 'a reload of the TV finds its room');
  assert.equal(await tv.page.textContent('#tv-code'), made.code);
  assert.match(await tv.page.textContent('#tv-tags'), /Match of 3 rounds/);
  assert.match(await tv.page.textContent('#tv-next'), /first one in is the host/);
  // The QR's link: the invite link with its key.
  const qr = await tv.page.getAttribute('#tv-qr', 'src');
  const link = new URL(decodeURIComponent(qr.split('text=')[1]));
  assert.equal(link.pathname, `/r/${made.code}`);
  assert.equal(link.searchParams.get('k'), made.key);

  const bob = await joinByLink(link.href, 'Bob');
  const cat = await joinByLink(link.href, 'Cat');
  let dan = await joinByLink(link.href, 'Dan');
  // The first phone in is the host (the VIP): Start and the match are on it.
  await bob.page.waitForSelector('#start:not([hidden])');
  await bob.page.waitForSelector('#m-choose:not([hidden])');
  assert.ok(await cat.page.isHidden('#start'));
  // Phones with a screen in the room: no code, QR or who-is-in; the name in its colour.
  for (const p of [bob, cat, dan]) {
    await p.page.waitForSelector('#lobby-share', { state: 'hidden' });
    assert.ok(await p.page.isHidden('#lobby-who'));
    assert.ok(await p.page.isVisible('#ready'));
  }
  assert.match(await bob.page.textContent('#lobby-h'), /Bob/);
  await cat.page.click('#ready');
  await dan.page.click('#ready');
  await tv.page.waitForFunction(() => document.querySelectorAll('#tv-people li').length === 3);
  await tv.page.waitForFunction(() => /2 of 3 ready/.test(document.querySelector('#tv-next').textContent));
  assert.match(await tv.page.textContent('#tv-next'), /Bob is the host/);
  assert.match(await tv.page.textContent('#tv-people'), /Bob.*host.*Cat.*ready.*Dan.*ready/);
  // Every racer's colour on the screen is the server's.
  const room = [...tv.frames].reverse().find((m) => m.type === 'room');
  const dots = await tv.page.$$eval('#tv-people li', (li) =>
    li.map((x) => [Number(x.dataset.id), x.querySelector('.dot').style.background]),
  );
  const palette = ['rgb(0, 114, 178)', 'rgb(230, 159, 0)', 'rgb(204, 121, 167)'];
  assert.deepEqual(
    dots,
    room.players.map((p) => [p.id, palette[p.colour]]),
  );
  await atEverySize(tv, '01-lobby');
  assert.deepEqual(await axe(tv.page), [], 'the screen’s lobby');
  await screenshot(bob.page, 'tv-phone-01-vip-lobby');
  await screenshot(cat.page, 'tv-phone-02-guest-lobby');

  // Round 1, started from the VIP's phone. The screen shows the countdown and then the race.
  const phones = [bob, cat, dan];
  let froms = [tv, ...phones].map((p) => p.frames.length);
  await bob.page.click('#start');
  await tv.frame((m) => m.type === 'countdown', { from: froms[0], what: 'the countdown on the screen' });
  await pane(tv, 'tv-race');
  await tv.page.waitForSelector('#tv-count-big:not([hidden])');
  await screenshot(tv.page, 'tv-02-countdown');
  let board = await raceStartsOn([tv, ...phones], froms);
  await gameReady(phones);
  const line = route(board);
  // Mid-race: each phone a few steps in; the screen's standings follow the server's progress.
  await play(bob, line, { until: 4 });
  await play(cat, line, { until: 2 });
  await tv.page.waitForFunction(() => /4 moves/.test(document.querySelector('#tv-stand').textContent));
  const stand = await tv.page.$$eval('#tv-stand li', (li) => li.map((x) => x.querySelector('.nm').textContent));
  assert.deepEqual(stand, ['Bob', 'Cat', 'Dan'], 'nearest the goal first');
  await tv.page.waitForFunction(() => window.__mazerace.markers.length === 3);
  await atEverySize(tv, '02-race');
  assert.deepEqual(await axe(tv.page), [], 'the screen mid-race');
  await screenshot(bob.page, 'tv-phone-03-vip-race', { racing: true });
  // Bob finishes first: the screen lists him 1st with the server's time.
  await play(bob, line.slice(4));
  const fin = await tv.frame((m) => m.type === 'finished' && m.rank === 1, { what: 'Bob finished' });
  await tv.page.waitForFunction(() => document.querySelector('#tv-stand li .pl').textContent === '1st');
  const { clock } = await import('../../public/js/format.js');
  assert.equal(await tv.page.textContent('#tv-stand li:first-child .st'), clock(fin.time_ms));
  await Promise.all([play(cat, line.slice(2)), play(dan, line)]);
  await tv.frame((m) => m.type === 'intermission' && m.round === 2, { what: 'intermission' });
  await pane(tv, 'tv-after');
  await tv.page.waitForFunction(() => /Round 2 starts in \d+ seconds?\./.test(document.querySelector('#tv-status').textContent));
  await tv.page.waitForSelector('#tv-match tbody tr');
  const st = [...tv.frames].reverse().find((m) => m.type === 'room' && m.standings).standings;
  const shown = await tv.page.$$eval('#tv-match tbody tr', (rows) =>
    rows.map((tr) => [
      Number(tr.dataset.id),
      ...[...tr.children].map((td, i) => (i === 1 ? td.querySelector('.nm').textContent : td.textContent)),
    ]),
  );
  assert.deepEqual(
    shown,
    st.lines.map((l) => [l.player_id, String(l.rank), l.name, String(l.points), String(l.rounds[0])]),
    'the screen’s match table is the server’s',
  );
  await atEverySize(tv, '03-intermission');
  assert.deepEqual(await axe(tv.page), [], 'the screen’s intermission');

  // The TV's connection drops: it resumes into the room by itself, nobody at it.
  const tvFrom = tv.frames.length;
  await tv.page.evaluate(() => window.__sockets.at(-1).close());
  const back = await tv.frame((m) => m.type === 'welcome', { from: tvFrom, what: 'the screen welcomed again' });
  assert.equal(back.resumed, true, 'the screen resumed its place');
  await tv.frame((m) => m.type === 'snapshot', { from: tvFrom, what: 'the snapshot' });

  // Round 2: Dan drops mid-round and comes back.
  froms = [tv, ...phones].map((p) => p.frames.length);
  board = await raceStartsOn([tv, ...phones], froms);
  await gameReady(phones);
  const line2 = route(board);
  await play(dan, line2, { until: 2 });
  const danLink = dan.page.url();
  await dan.page.close();
  await tv.page.waitForFunction(() => /offline/.test(document.querySelector('#tv-stand').textContent));
  dan = await recordPage(dan.context, danLink);
  await dan.page.waitForFunction(() => window.__mazerace.game && window.__mazerace.game.steps === 2);
  await view(dan, 'play'); // the race screen (its keys) loaded, not only the state
  assert.equal(dan.frames.find((m) => m.type === 'welcome').resumed, true, 'Dan resumed his seat');
  await Promise.all([play(bob, line2), play(cat, line2), play(dan, line2.slice(2))]);
  await tv.frame((m) => m.type === 'intermission' && m.round === 3, { what: 'intermission 3' });

  // Round 3, then the podium on the screen.
  froms = [tv, bob, cat, dan].map((p) => p.frames.length);
  board = await raceStartsOn([tv, bob, cat, dan], froms);
  await gameReady([bob, cat, dan]);
  const line3 = route(board);
  await play(cat, line3);
  await Promise.all([play(bob, line3), play(dan, line3)]);
  const over = await tv.frame((m) => m.type === 'match_over', { what: 'match_over' });
  await tv.page.waitForSelector('#tv-podium:not([hidden]) li');
  const podium = await tv.page.$$eval('#tv-podium li', (li) => li.map((x) => [Number(x.dataset.id), x.querySelector('.pl').textContent]));
  const ord = (n) => ({ 1: '1st', 2: '2nd', 3: '3rd' })[n];
  assert.deepEqual(
    podium,
    over.lines.filter((l) => l.rank <= 3).map((l) => [l.player_id, ord(l.rank)]),
  );
  assert.match(await tv.page.textContent('#tv-h'), /Match over/);
  assert.equal(await tv.page.$$eval('#tv-match thead th', (th) => th.length), 6, 'every round’s column');
  await atEverySize(tv, '04-podium');
  assert.deepEqual(await axe(tv.page), [], 'the screen’s podium');
  await bob.page.waitForSelector('#m-again:not([hidden])');
  await screenshot(bob.page, 'tv-phone-04-vip-podium');

  // Another match, from the VIP's phone: the screen follows into its round 1.
  froms = [tv, bob, cat, dan].map((p) => p.frames.length);
  await bob.page.click('#m-again');
  await tv.page.waitForFunction(() => /Round 1 starts in/.test(document.querySelector('#tv-status').textContent));
  await raceStartsOn([tv, bob, cat, dan], froms);
  await pane(tv, 'tv-race');
  // The screen never asked to race or host, and the server never refused it.
  assert.deepEqual(
    tv.sent.filter((m) => ['start', 'ready', 'move', 'rematch', 'next_round', 'hold', 'set_match'].includes(m.type)),
    [],
  );
  assert.ok(!tv.frames.some((m) => m.type === 'error'), 'no error on the screen');
  for (const p of [tv, bob, cat, dan]) assert.deepEqual(p.problems, []);
  for (const p of [tv, bob, cat, dan]) await p.context.close();
});

test('"Show on a big screen" shows an ordinary room on a TV with no input; a reload of the TV is the same screen', async () => {
  const ann = await openPage(browser, LAPTOP, srv.url);
  await ann.page.fill('#name', 'Ann');
  await ann.page.check('input[name=game][value=ghost]');
  await ann.page.click('#make button[type=submit]');
  await view(ann, 'lobby');
  const href = await ann.page.getAttribute('#tv-link', 'href');
  assert.match(href, /\/tv\/[A-Z0-9]+\?k=[0-9a-f]{16}$/);
  const code = await ann.page.textContent('#lobby-code');
  const tv = await openPage(browser, { ...TV, viewport: TV_SIZES[1] }, href);
  await view(tv, 'tv');
  await pane(tv, 'tv-lobby');
  const join = tv.sent.find((m) => m.type === 'join_room');
  assert.deepEqual(join, { type: 'join_room', code, key: new URL(href).searchParams.get('k'), screen: true });
  assert.equal(await tv.page.textContent('#tv-code'), code);
  await tv.page.waitForFunction(() => /Ann/.test(document.querySelector('#tv-people').textContent));
  assert.match(await tv.page.textContent('#tv-h'), /Ann’s room/);
  // With the screen in, the laptop's lobby leaves the code and QR to it.
  await ann.page.waitForSelector('#lobby-share', { state: 'hidden' });
  const bob = await joinByLink(await ann.page.inputValue('#link'), 'Bob');
  await tv.page.waitForFunction(() => document.querySelectorAll('#tv-people li').length === 2);
  // A reload of the TV (someone pressed the remote's refresh): the same screen again, not a player.
  const before = tv.frames.length;
  await tv.page.reload();
  const reloaded = await tv.frame((m) => m.type === 'welcome', { from: before, what: 'the reloaded screen’s welcome' });
  assert.equal(reloaded.resumed, true, 'the screen resumed from its own token');
  await pane(tv, 'tv-lobby');
  await tv.page.waitForFunction(() => document.querySelectorAll('#tv-people li').length === 2);
  assert.ok(!tv.frames.slice(before).some((m) => m.type === 'room' && m.players.length > 2), 'the screen never got a seat');
  await screenshot(tv.page, 'tv-10-show-lobby');
  assert.deepEqual(await axe(tv.page), [], 'an ordinary room on the screen');
  const froms = [tv, ann, bob].map((p) => p.frames.length);
  await ann.page.click('#start');
  const board = await raceStartsOn([tv, ann, bob], froms);
  await gameReady([ann, bob]);
  await pane(tv, 'tv-race');
  const line = route(board);
  await Promise.all([play(ann, line), play(bob, line)]);
  await tv.frame((m) => m.type === 'results', { what: 'results' });
  await pane(tv, 'tv-after');
  await tv.page.waitForFunction(() => document.querySelectorAll('#tv-results tbody tr').length === 2);
  assert.match(await tv.page.textContent('#tv-status'), /Waiting for Ann to start a rematch/);
  await screenshot(tv.page, 'tv-11-show-results');
  assert.deepEqual(await axe(tv.page), [], 'the results on the screen');
  // A rematch: the screen follows into the next race by itself.
  const again = [tv, ann, bob].map((p) => p.frames.length);
  await ann.page.click('#rematch');
  const next = await tv.frame((m) => m.type === 'room' && m.phase !== 'results', { from: again[0], what: 'the rematch' });
  await pane(tv, next.phase === 'lobby' ? 'tv-lobby' : 'tv-race');
  for (const p of [tv, ann, bob]) assert.deepEqual(p.problems, []);
  for (const p of [tv, ann, bob]) await p.context.close();
});

test('64 racers: the screen’s lobby and standings show the first places and count the rest, nothing cut off at any size', async () => {
  // A server of its own: 64 joins from one address in a burst.
  const big = await startServer({ args: ['--room-joins', '100', '--drain-secs', '1'] });
  const crowd = await openPage(browser, LAPTOP, `${big.url}/version.json`);
  try {
    // 64 racers over plain sockets (a page of its own drives them): the first makes the room.
    const made = await crowd.page.evaluate(async (url) => {
      const ws = url.replace(/^http/, 'ws') + '/ws';
      const next = (sock, type) =>
        new Promise((ok) => {
          const on = (e) => {
            const m = JSON.parse(e.data);
            if (m.type === type) (sock.removeEventListener('message', on), ok(m));
          };
          sock.addEventListener('message', on);
        });
      const open = async (name) => {
        const sock = new WebSocket(ws);
        await new Promise((ok) => sock.addEventListener('open', ok));
        const hi = next(sock, 'welcome');
        sock.send(JSON.stringify({ type: 'hello', name }));
        await hi;
        return sock;
      };
      window.__crowd = [await open('Racer 01')];
      const first = next(window.__crowd[0], 'room');
      window.__crowd[0].send(JSON.stringify({ type: 'create_room', game: 'maze', size: 'normal', max_players: 64 }));
      const room = await first;
      for (let i = 2; i <= 64; i++) {
        const sock = await open(`Racer ${String(i).padStart(2, '0')}`);
        const joined = next(sock, 'room');
        sock.send(JSON.stringify({ type: 'join_room', code: room.code, key: room.key }));
        await joined;
        window.__crowd.push(sock);
      }
      return { code: room.code, key: room.key };
    }, big.url);
    const tv = await openPage(browser, TV, `${big.url}/tv/${made.code}?k=${made.key}`);
    await pane(tv, 'tv-lobby');
    await tv.page.waitForFunction(() => /64 \/ 64/.test(document.querySelector('#tv-count').textContent));
    await tv.page.waitForFunction(() => /and \d+ more/.test(document.querySelector('#tv-people').textContent));
    await atEverySize(tv, '20-crowd-lobby');
    const from = tv.frames.length;
    await crowd.page.evaluate(() => window.__crowd[0].send(JSON.stringify({ type: 'start' })));
    await tv.frame((m) => m.type === 'race_start', { from, timeout: 30000, what: 'race_start' });
    await pane(tv, 'tv-race');
    await tv.page.waitForFunction(() => /and \d+ more racing/.test(document.querySelector('#tv-stand').textContent));
    await tv.page.waitForFunction(() => window.__mazerace.markers.length === 64);
    await atEverySize(tv, '20-crowd-race');
    // The count and the rows shown add up to everyone.
    const { shown, more } = await tv.page.evaluate(() => {
      const li = [...document.querySelectorAll('#tv-stand li')];
      return { shown: li.length - 1, more: Number(/and (\d+) more/.exec(li.at(-1).textContent)[1]) };
    });
    assert.equal(shown + more, 64);
    assert.ok(shown >= 8, `${shown} places shown at 1920x1080`);
    assert.deepEqual(await axe(tv.page), [], 'a crowded race on the screen');
    assert.deepEqual(tv.problems, []);
    await tv.context.close();
  } finally {
    // Everyone leaves: the server's drain on stop waits for no race.
    await crowd.page.evaluate(() => (window.__crowd || []).forEach((w) => w.send(JSON.stringify({ type: 'leave_room' }))));
    await crowd.context.close();
    await big.stop();
  }
});
