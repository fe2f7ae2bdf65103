// A match of 3 rounds in the browser: Ann (laptop, the host) makes it from
// home, Bob and Cat race on phones (390x844, touch); Cat closes her tab in
// round 2 and opens the game again, resuming into the match; Dan joins
// during round 2, is told he races from the next round, and does. Nobody
// clicks between rounds. Every client's match table equals the server's
// standings after round 1 and its `match_over` at the end (each round from its
// own `match_round`, Dan who joined mid-match and Cat who resumed too); the podium, the
// share line, a round's best line, and "Play another match" (counted down from the podium) with the tally.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, openPage, recordPage, screenshot, play, axe, SHOTS, LAPTOP, PHONE, raceStarts } from './harness.mjs';
import { route } from '../route.mjs';
import { clock } from '../../public/js/format.js';

let srv, browser;
before(async () => {
  // A short intermission: the test waits through two of them.
  srv = await startServer({ args: ['--intermission-secs', '4'] });
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await srv?.stop();
  console.log(`screenshots: ${SHOTS}`);
});

const view = (p, name) => p.page.waitForSelector(`body[data-view="${name}"]`);
/** The phone brings the match card to the top (smoothly): wait for it there. */
const inView = (p, sel) => p.page.waitForFunction((q) => Math.abs(document.querySelector(q).getBoundingClientRect().top) < 40, sel);
const dash = (v) => (v == null ? '–' : String(v));

/** The match card's table as the page shows it: per row the player, rank, points, wins, time and rounds. */
const shownTable = (p) =>
  p.page.$$eval('#m-table tbody tr', (rows) =>
    rows.map((tr) => {
      const c = [...tr.children].map((td) => td.textContent);
      return [Number(tr.dataset.id), c[0], c[2], c[3], c[4], c.slice(5), tr.classList.contains('gone')];
    }),
  );
/** The same from the server's lines, padded to the rounds the table has columns for. */
const expected = (lines, cols) =>
  lines.map((l) => [
    l.player_id,
    String(l.rank),
    String(l.points),
    String(l.wins),
    l.time_ms ? clock(l.time_ms) : '–',
    Array.from({ length: cols }, (_, i) => dash(l.rounds[i])),
    !!l.left,
  ]);

async function joinByLink(device, link, name) {
  const p = await openPage(browser, device, link);
  await p.page.fill('#name', name);
  await p.page.click('#inv-join');
  return p;
}

test('three players race a match of 3 rounds to the podium, one dropping and resuming in round 2, no click between rounds', async () => {
  const ann = await openPage(browser, LAPTOP, srv.url);
  await ann.page.fill('#name', 'Ann');
  await ann.page.check('input[name=game][value=maze]');
  await ann.page.selectOption('#size', 'easy');
  await ann.page.selectOption('#rounds', '3');
  await ann.page.selectOption('#plan', 'same');
  await ann.page.click('#make button[type=submit]');
  await view(ann, 'lobby');
  assert.match(await ann.page.textContent('#lobby-game'), /Match of 3 rounds/);
  assert.equal(await ann.page.inputValue('#m-rounds'), '3', 'the lobby shows the server’s settings');
  const link = await ann.page.inputValue('#link');
  const bob = await joinByLink(PHONE, link, 'Bob');
  let cat = await joinByLink(PHONE, link, 'Cat');
  await view(bob, 'lobby');
  await view(cat, 'lobby');
  assert.match(await bob.page.textContent('#lobby-game'), /Maze Escape\s*Easy 11×11\s*Match of 3 rounds/);
  assert.ok(await bob.page.isHidden('#m-choose'), 'only the host chooses');
  await ann.page.waitForFunction(() => document.querySelectorAll('#players li').length === 3);

  // Round 1: everyone finishes; the intermission counts down by itself.
  let froms = [ann, bob, cat].map((p) => p.frames.length);
  await ann.page.click('#start');
  let board = await raceStarts([ann, bob, cat], froms);
  const seen = { bob: bob.sent.length, cat: cat.sent.length };
  await Promise.all([ann, bob, cat].map((p) => play(p, route(board))));
  const im = await Promise.all(
    [ann, bob, cat].map((p) => p.frame((m) => m.type === 'intermission' && m.round === 2, { what: 'intermission' })),
  );
  assert.ok(im.every((m) => m.seconds > 0));
  for (const p of [ann, bob, cat]) {
    await p.page.waitForSelector('#match:not([hidden])');
    await p.page.waitForFunction(() => /Round 2 starts in \d+ seconds?\./.test(document.querySelector('#m-status').textContent));
    const st = [...p.frames].reverse().find((m) => m.type === 'room' && m.standings).standings;
    await p.page.waitForFunction(() => /after round 1/.test(document.querySelector('#m-table caption').textContent));
    assert.deepEqual(await shownTable(p), expected(st.lines, 1), 'the table after round 1 is the server’s');
  }
  assert.ok(await bob.page.isHidden('#m-host'), 'Hold and Start now are the host’s');
  assert.ok(await ann.page.isVisible('#m-hold'));
  await inView(bob, '#match');
  await screenshot(bob.page, 'phone-80-match-intermission');
  await screenshot(ann.page, 'laptop-80-match-intermission');
  assert.deepEqual(await axe(bob.page), [], 'the intermission on a phone');

  // Round 2 starts with no click. Cat drops mid-round and comes back; Dan joins and watches.
  froms = [ann, bob, cat].map((p) => p.frames.length);
  board = await raceStarts([ann, bob, cat], froms);
  const line = route(board);
  await play(cat, line, { until: 2 });
  await cat.page.close();
  const dan = await joinByLink(LAPTOP, link, 'Dan');
  await view(dan, 'play');
  await dan.page.waitForFunction(() => /race from the next one/.test(document.querySelector('#m-status').textContent));
  const catSentBefore = cat.sent.slice(seen.cat);
  cat = await recordPage(cat.context, link);
  cat.sent.unshift(...catSentBefore);
  seen.cat = 0;
  await cat.page.waitForFunction(() => window.__mazerace.game && window.__mazerace.game.steps === 2);
  assert.equal(cat.frames.find((m) => m.type === 'welcome').resumed, true, 'Cat resumed her seat');
  await cat.page.waitForFunction(() => /Round 2 of 3/.test(document.querySelector('#m-h').textContent));
  await Promise.all([play(ann, line), play(bob, line), play(cat, line.slice(2))]);
  await Promise.all(
    [ann, bob, cat, dan].map((p) => p.frame((m) => m.type === 'intermission' && m.round === 3, { what: 'intermission 3' })),
  );

  // Round 3: Dan races too. Then the podium.
  froms = [ann, bob, cat, dan].map((p) => p.frames.length);
  board = await raceStarts([ann, bob, cat, dan], froms);
  await Promise.all([ann, bob, cat, dan].map((p) => play(p, route(board))));
  const overs = await Promise.all([ann, bob, cat, dan].map((p) => p.frame((m) => m.type === 'match_over', { what: 'match_over' })));
  const over = overs[0];
  assert.equal(over.played, 3);
  assert.deepEqual(over.lines.find((l) => l.name === 'Dan').rounds.slice(0, 2), [null, null], 'Dan raced round 3 only');
  for (const [i, p] of [ann, bob, cat, dan].entries()) {
    assert.deepEqual(overs[i], over, 'everyone is sent the same match_over');
    await p.page.waitForSelector('#m-podium:not([hidden]) li');
    assert.deepEqual(await shownTable(p), expected(over.lines, 3), 'the final table is the server’s');
    const podium = await p.page.$$eval('#m-podium li', (li) =>
      li.map((x) => [Number(x.dataset.id), x.querySelector('.place').textContent]),
    );
    const ord = (n) => ({ 1: '1st', 2: '2nd', 3: '3rd' })[n];
    assert.deepEqual(
      podium,
      over.lines.filter((l) => l.rank <= 3).map((l) => [l.player_id, ord(l.rank)]),
    );
    assert.equal(await p.page.textContent('#m-share'), over.share);
    assert.equal(await p.page.$$eval('#m-rounds-out details', (d) => d.length), 3);
  }
  // No click between rounds: the guests sent moves only (and the connection's own hello, pings, leagues).
  for (const p of [bob, cat]) {
    const asked = new Set(p.sent.slice(seen[p === bob ? 'bob' : 'cat']).map((m) => m.type));
    for (const t of ['start', 'ready', 'rematch', 'next_round']) assert.ok(!asked.has(t), `no ${t} from a guest`);
  }
  await inView(bob, '#match');
  await screenshot(bob.page, 'phone-81-match-podium');
  await screenshot(ann.page, 'laptop-81-match-podium');
  assert.deepEqual(await axe(bob.page), [], 'the podium on a phone');

  // A round's best line, on the replay screen, and back.
  await ann.page.click('#m-rounds-out details:first-child summary');
  await ann.page.click('#m-rounds-out details:first-child button');
  await view(ann, 'replay');
  await ann.page.waitForSelector('#rp-play:not([hidden])');
  assert.match(await ann.page.textContent('#rp-kind'), /Match round 1/);
  assert.deepEqual(await axe(ann.page), [], 'a round’s best line');
  await ann.page.click('#rp-back');
  await view(ann, 'play');

  // Play another match: from the podium, its round 1 counted down like the rounds between and
  // started with no click (nobody goes back to the lobby); the settings kept, the tally counted.
  assert.ok(await bob.page.isHidden('#m-again'), 'only the host starts another');
  froms = [ann, bob, cat, dan].map((p) => p.frames.length);
  await ann.page.click('#m-again');
  await bob.page.waitForFunction(() => /Round 1 starts in/.test(document.querySelector('#m-status').textContent));
  assert.match(await bob.page.textContent('#m-h'), /A new match of 3 rounds/);
  const winners = over.winners.map((id) => over.lines.find((l) => l.player_id === id).name);
  await bob.page.waitForSelector('#m-tally2:not([hidden])');
  for (const w of winners) assert.match(await bob.page.textContent('#m-tally2'), new RegExp(`${w} 1`));
  await raceStarts([ann, bob, cat, dan], froms);
  for (const [i, p] of [ann, bob, cat, dan].entries()) {
    assert.ok(!p.frames.slice(froms[i]).some((m) => m.type === 'room' && m.phase === 'lobby'), 'no trip through the lobby');
  }
  assert.deepEqual(
    bob.sent.filter((m) => ['start', 'next_round'].includes(m.type)),
    [],
    'nobody but the host clicked, and the host only once',
  );
  for (const p of [ann, bob, cat, dan]) assert.deepEqual(p.problems, []);
  for (const p of [ann, bob, cat, dan]) await p.context.close();
});
