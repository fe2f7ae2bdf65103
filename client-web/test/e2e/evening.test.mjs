// Issue 35, "a friend's first minute": the group's evening as it happened.
// Ann hosts on a laptop: a 3-round match, getting harder. Bob opens the
// invite link on a phone (390x844, touch), types his name and taps the most
// prominent button, the way he did; Cat (a phone too) presses Enter; Dan
// opens the link on a laptop and says "Not now". The phones say ready and race
// the match by tapping the pad. Then Bob, the day's first, plays the daily.
// The second test is the evening's offline part, with a server of its own that
// it stops and starts: the home page says the server is gone before anything
// is pressed, a room asked for offline is not made, and a race begun offline
// ends offline with its result kept when the server comes back mid-race.
// The page links a web app manifest (installable). Screenshots `*-90..93-*`;
// axe-core on every screen it shows.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, openPage, screenshot, playDailyMaze, axe, SHOTS, LAPTOP, PHONE, raceStarts } from './harness.mjs';
import { route } from '../route.mjs';

let srv, browser;
after(async () => {
  await browser?.close();
  await srv?.stop();
  console.log(`screenshots: ${SHOTS}`);
});

const view = (p, name) => p.page.waitForSelector(`body[data-view="${name}"]`);

async function clean(p, screen) {
  assert.deepEqual(await axe(p.page), [], `${screen}: no axe-core violation`);
}

/**
 * The button a person taps first: of the filled buttons and links wholly in
 * view, the largest. Resolves to a selector for it (marked `data-first`).
 */
function mostProminent(page) {
  return page.evaluate(() => {
    for (const e of document.querySelectorAll('[data-first]')) e.removeAttribute('data-first');
    const filled = (e) => !/^(rgba\(0, 0, 0, 0\)|rgb\(255, 255, 255\))$/.test(getComputedStyle(e).backgroundColor);
    const seen = [...document.querySelectorAll('button, a[href], input[type=submit]')]
      .map((e) => ({ e, r: e.getBoundingClientRect() }))
      .filter(({ e, r }) => r.width > 0 && r.height > 0 && r.top >= 0 && r.bottom <= innerHeight && filled(e));
    seen.sort((a, b) => b.r.width * b.r.height - a.r.width * a.r.height);
    if (!seen.length) return null;
    seen[0].e.setAttribute('data-first', '');
    return '[data-first]';
  });
}

/** Plays `line` by tapping the on-screen pad (a phone's touch), waiting for the server's answer to each. */
async function tapRoute(p, line) {
  for (const [i, dir] of line.entries()) {
    const from = p.frames.length;
    await p.page.tap(`#pad [data-dir="${dir}"]`);
    const r = await p.frame((m) => m.type === 'move_result', { from, what: `move_result for tap ${i} (${dir})` });
    if (!r.ok) throw new Error(`the server refused tap ${i} (${dir}): ${JSON.stringify(r)}`);
  }
}

test('the evening: an invite link on a phone joins the room its button says, the phone lobby puts ready first, a match to the podium, the daily', async () => {
  srv = await startServer({ args: ['--intermission-secs', '4'] });
  browser = await launch();

  // Ann, the host, on a laptop: a match of 3 rounds, getting harder.
  const ann = await openPage(browser, LAPTOP, srv.url);
  await ann.page.fill('#name', 'Ann');
  await ann.page.check('input[name=game][value=maze]');
  await ann.page.selectOption('#size', 'easy');
  await ann.page.selectOption('#rounds', '3');
  await ann.page.selectOption('#plan', 'harder');
  await ann.page.click('#make button[type=submit]');
  await view(ann, 'lobby');
  const room = await ann.page.evaluate(() => window.__mazerace.room);
  const link = await ann.page.inputValue('#link');

  // Bob's phone opens the link: the invitation, first and only.
  const bob = await openPage(browser, PHONE, link);
  await bob.page.waitForFunction(() => document.querySelector('#home-h').textContent === 'Ann invites you to a race');
  await bob.page.waitForSelector('#invite >> text=In the room (1): Ann');
  assert.equal(await bob.page.textContent('#inv-kicker'), `Invitation · room ${room.code}`);
  assert.match(await bob.page.textContent('#invite'), /Maze Escape\s*Easy 11×11/);
  for (const other of ['#make', '#join', '#daily', '#leagues', '#pitch'])
    assert.equal(await bob.page.isVisible(other), false, `${other} waits one tap away`);
  assert.equal(await bob.page.isVisible('#inv-home'), true, '"Not now: go to the home page"');
  assert.equal(await bob.page.textContent('#inv-home'), 'Not now: go to the home page');
  await screenshot(bob.page, 'phone-90-invite');
  await clean(bob, 'the invitation (phone)');

  // He types his name and taps the most prominent button: it joins Ann's room, it makes none.
  await bob.page.fill('#name', 'Bob');
  const first = await mostProminent(bob.page);
  assert.equal(await bob.page.getAttribute(first, 'id'), 'inv-join', 'the big button is Join');
  const at = bob.frames.length;
  await bob.page.tap(first);
  await view(bob, 'lobby');
  const joined = await bob.frame((m) => m.type === 'room', { from: at, what: "Bob's room" });
  assert.equal(joined.code, room.code, "Bob is in Ann's room");
  assert.deepEqual(
    bob.sent.filter((m) => /_room$/.test(m.type)),
    [{ type: 'join_room', code: room.code, key: room.key }],
    'a keyed join, and no create_room',
  );

  // Dan opens it on a laptop and says "Not now": the whole home page, one tap away.
  const dan = await openPage(browser, LAPTOP, link);
  await dan.page.waitForFunction(() => /invites you/.test(document.querySelector('#home-h').textContent));
  await dan.page.waitForSelector('#invite >> text=Bob');
  await screenshot(dan.page, 'laptop-90-invite');
  await clean(dan, 'the invitation (laptop)');
  await dan.page.click('#inv-home');
  await dan.page.waitForSelector('#make', { state: 'visible' });
  assert.equal(new URL(dan.page.url()).pathname, '/');
  assert.equal(await dan.page.textContent('#home-h'), 'Race your friends through the same maze.');
  assert.equal(await dan.page.isVisible('#inv-join'), false);
  assert.equal(await dan.page.inputValue('#code'), room.code, 'the Join card keeps the code');
  assert.deepEqual(dan.problems, []);
  await dan.context.close();

  // Cat's phone: her name and Enter.
  const cat = await openPage(browser, PHONE, link);
  await cat.page.waitForSelector('#inv-join', { state: 'visible' });
  await cat.page.fill('#name', 'Cat');
  await cat.page.press('#name', 'Enter');
  await view(cat, 'lobby');
  await ann.page.waitForFunction(() => document.querySelectorAll('#players li').length === 3);

  // A guest's phone lobby: "I'm ready" first, in view; the code and link after.
  await bob.page.waitForFunction(() => document.querySelectorAll('#players li').length === 3);
  const ready = await bob.page.$eval('#ready', (b) => ({
    ...b.getBoundingClientRect().toJSON(),
    primary: b.classList.contains('primary'),
  }));
  assert.ok(ready.bottom <= PHONE.viewport.height, `"I'm ready" above the fold (bottom at ${ready.bottom})`);
  assert.ok(ready.primary, "the guest's main button");
  const order = await bob.page.$$eval('#lobby > .card', (cards) => cards.map((c) => c.id));
  assert.deepEqual(order, ['lobby-me', 'lobby-who', 'lobby-share'], 'what I do, who is in, then what to share');
  assert.equal(await bob.page.textContent('#lobby-h'), 'Ann’s room');
  await screenshot(bob.page, 'phone-91-lobby-guest');
  await clean(bob, 'the lobby (phone, a guest)');
  // The same lobby at a laptop's width: two columns, what to do and who is in on the left.
  await bob.page.setViewportSize(LAPTOP.viewport);
  await bob.page.waitForFunction(() => document.querySelector('#lobby-share').getBoundingClientRect().left > 500);
  await screenshot(bob.page, 'laptop-91-lobby-guest');
  await clean(bob, 'the lobby (laptop width, a guest)');
  await bob.page.setViewportSize(PHONE.viewport);

  // The host's lobby: the boards said as the match plays them, a folded stored run, nothing cut off.
  const tags = await ann.page.textContent('#lobby-game');
  assert.match(tags, /Getting harder, small to large/);
  assert.doesNotMatch(tags, /Easy 11×11/, 'no one size for a match that changes it');
  assert.equal(await ann.page.$eval('#rival-form', (d) => d.open), false, '"Race a stored run" folded');
  assert.equal(await ann.page.isVisible('#rival-run'), false, 'no empty run-number box');
  const plan = await ann.page.$eval('#m-plan', (sel) => {
    const cs = getComputedStyle(sel);
    const c = document.createElement('canvas').getContext('2d');
    c.font = `${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
    const room = sel.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - 16; // the arrow
    return { text: c.measureText(sel.selectedOptions[0].text).width, room };
  });
  assert.ok(plan.text <= plan.room, `the Boards choice is whole (${plan.text} px of text in ${plan.room})`);
  // Only the others' readiness counts: the host starts the race.
  await ann.page.waitForFunction(() => /\(2 not ready yet\)/.test(document.querySelector('#lobby-note').textContent));
  await bob.page.tap('#ready');
  await ann.page.waitForFunction(() => /\(1 not ready yet\)/.test(document.querySelector('#lobby-note').textContent));
  await cat.page.tap('#ready');
  await ann.page.waitForFunction(() => document.querySelector('#lobby-note').textContent === 'Everyone is ready: start the race.');
  await screenshot(ann.page, 'laptop-91-lobby-host');
  await clean(ann, 'the lobby (laptop, the host)');

  // The match: the phones race by touch. No "after round 0" while round 1 counts down.
  const all = [ann, bob, cat];
  let froms = all.map((p) => p.frames.length);
  await ann.page.click('#start');
  await bob.frame((m) => m.type === 'countdown', { from: froms[1], what: 'the first countdown' });
  await bob.page.waitForSelector('#m-table caption');
  assert.equal(await bob.page.evaluate(() => window.__mazerace.room.phase), 'countdown');
  assert.equal(await bob.page.textContent('#m-table caption'), 'Match table: no round played yet');
  for (let round = 1; round <= 3; round++) {
    const board = await raceStarts(all, froms);
    assert.equal(board.size, ['easy', 'normal', 'hard'][round - 1], 'getting harder');
    if (round === 3) {
      // The start line of a hard maze: every racer on one square, mine on top and ringed, the tags inside the board.
      // Each racer is one colour on every screen: Cat is the same on Ann's laptop and on Bob's phone.
      const colours = (p) => p.page.evaluate(() => Object.fromEntries(window.__mazerace.markers.map((m) => [m.name, m.colour])));
      const [onAnn, onBob, onCat] = await Promise.all(all.map(colours));
      assert.ok(onAnn.Cat && onAnn.Cat === onBob.Cat, `Cat: ${onAnn.Cat} on Ann's screen, ${onBob.Cat} on Bob's`);
      assert.ok(onAnn.Bob && onAnn.Bob === onCat.Bob, 'Bob is one colour on every screen');
      assert.ok(onBob.Ann && onBob.Ann === onCat.Ann, 'and so is Ann');
      assert.equal(new Set([onAnn.Bob, onAnn.Cat, onBob.Ann]).size, 3, 'three racers, three colours');
      await screenshot(bob.page, 'phone-94-start-line-hard', { racing: true });
      await screenshot(ann.page, 'laptop-94-start-line-hard', { racing: true });
    }
    const line = route(board);
    froms = all.map((p) => p.frames.length);
    await Promise.all([
      (async () => {
        for (const dir of line) {
          const from = ann.frames.length;
          await ann.page.keyboard.press({ up: 'ArrowUp', down: 'ArrowDown', left: 'ArrowLeft', right: 'ArrowRight' }[dir]);
          await ann.frame((m) => m.type === 'move_result', { from });
        }
      })(),
      tapRoute(bob, line),
      tapRoute(cat, line),
    ]);
    if (round === 1) {
      await bob.page.waitForFunction(() => /after round 1/.test(document.querySelector('#m-table caption').textContent));
    }
  }
  await Promise.all(all.map((p) => p.page.waitForSelector('#m-podium:not([hidden]) li')));
  await screenshot(bob.page, 'phone-95-podium');
  await screenshot(ann.page, 'laptop-95-podium');

  // The daily: Bob, out of the room, is the day's first. Nobody offers him "Race the #1": he is it.
  await bob.page.click('#leave2');
  await view(bob, 'home');
  await bob.page.waitForSelector('#daily[data-loaded] #daily-list li button:not([disabled])');
  const dr = await playDailyMaze(bob);
  assert.equal(dr.rank, 1);
  await bob.page.waitForSelector('#race-rival:not([hidden])');
  assert.equal(await bob.page.textContent('#race-rival'), 'Race my ranked run');
  // Installable: Chromium finds the page's manifest and has nothing to say against it.
  const app = await (await bob.context.newCDPSession(bob.page)).send('Page.getAppManifest');
  assert.equal(app.url, `${srv.url}/manifest.webmanifest`);
  assert.deepEqual(app.errors, []);
  assert.equal(JSON.parse(app.data).display, 'standalone');
  for (const p of all) assert.deepEqual(p.problems, []);
  for (const p of all) await p.context.close();
  await srv.stop();
  srv = null;
});

test('offline: home says the server is gone before anything is pressed, no room for friends offline, and a race begun offline keeps its result when the server returns', async () => {
  srv = await startServer();
  browser ||= await launch();
  const port = Number(new URL(srv.url).port);
  const p = await openPage(browser, PHONE, srv.url);
  const { page } = p;
  // A returning player (her name kept): connected from the start.
  await page.fill('#name', 'Eve');
  await page.reload();
  await page.waitForFunction(() => document.querySelector('#conn').textContent === 'Online');
  await page.waitForSelector('#daily[data-loaded] #daily-list li button:not([disabled])');
  // Offline play comes from the service worker's cache: let its precache finish.
  await page.evaluate(() => navigator.serviceWorker.ready);
  await page.waitForFunction(
    async () => (await caches.keys()).length > 0 && (await (await caches.open((await caches.keys())[0])).keys()).length > 30,
  );

  // The server goes. Before anything is pressed: the banner, and what needs the server held, saying why.
  await srv.stop();
  srv = null;
  await page.waitForSelector('#down:not([hidden])');
  assert.match(await page.textContent('#down'), /Can't reach the server\./);
  // The server said it was restarting as it went; the banner overtakes that (issue 35, item 9).
  assert.ok(p.frames.some((m) => m.type === 'server_shutdown'));
  assert.equal(await page.isVisible('#toast'), false, '"restarting, reconnecting…" does not linger under the banner');
  const daily = await page.$$eval('#daily-list button[data-server]', (bs) => bs.map((b) => b.disabled));
  assert.ok(daily.length >= 6 && daily.every(Boolean), `the daily's Play and Top are held (${daily})`);
  assert.equal(await page.isVisible('#daily-off'), true);
  assert.equal(await page.isDisabled('#make-go'), true, 'Make room is held');
  assert.match(await page.textContent('#make-off'), /^Can't reach the server: a room needs it\./);
  await clean(p, 'home, the server gone (phone)');

  // A Make room that got in as the server went (before the page knew), then Play offline: no LOCAL lobby.
  await page.evaluate(() => document.querySelector('#make').requestSubmit());
  await page.click('#down-offline');
  await page.waitForFunction(() => document.querySelector('#conn').textContent.startsWith('Offline'));
  await page.waitForFunction(() => window.__announced.some((x) => /^You are offline: a room needs the server/.test(x)));
  assert.equal(await page.evaluate(() => window.__mazerace.room), null, 'no room for friends offline');
  await view(p, 'home');
  assert.match(await page.textContent('#down'), /You are offline\./);
  assert.match(await page.textContent('#make-off'), /^You are offline: a room needs the server, and nobody could join one now\./);
  assert.equal(await page.isVisible('#make-off'), true, 'said where Make room was pressed');
  assert.equal(await page.$eval('#practice', (b) => b.classList.contains('primary')), true, 'solo play offered');
  await screenshot(page, 'phone-92-offline-home');
  await clean(p, 'home, offline (phone)');

  // Solo practice offline, by touch; the server comes back mid-race.
  await page.check('input[name=game][value=maze]');
  await page.selectOption('#size', 'easy');
  await page.click('#practice');
  await page.waitForFunction(() => window.__mazerace.board && window.__mazerace.game && window.__mazerace.game.steps === 0);
  await page.waitForSelector('#overlay', { state: 'hidden' });
  const board = await page.evaluate(() => window.__mazerace.board);
  const line = route(board);
  const step = async (dir) => {
    const n = await page.evaluate(() => window.__mazerace.game.steps);
    await page.tap(`#pad [data-dir="${dir}"]`);
    await page.waitForFunction((k) => window.__mazerace.game.steps > k, n);
  };
  for (const dir of line.slice(0, 3)) await step(dir);
  srv = await startServer({ port });
  await page.waitForFunction(() => /the server is back/.test(document.querySelector('#conn').textContent), null, { timeout: 20000 });
  assert.equal(await page.isVisible('#toast'), false, 'nothing over the board and its hint mid-race');
  assert.equal(await page.isVisible('#hint'), true);
  for (const dir of line.slice(3)) await step(dir);

  // The finish: the results stay up, through the page's next look at the server, with the best kept.
  await page.waitForSelector('#results', { state: 'visible' });
  await page.waitForResponse((r) => r.url().endsWith('/version.json') && r.status() === 200);
  await page.waitForFunction(() => /leave this room to play online/.test(document.querySelector('#toast').textContent));
  assert.equal(await page.isVisible('#results'), true, 'not thrown home');
  assert.equal(await page.evaluate(() => document.body.dataset.view), 'play');
  assert.match(await page.textContent('#mybest'), /\(offline\)/);
  assert.equal(await page.isVisible('#race-rival'), false, 'offline, no stored run to race');
  assert.doesNotMatch(page.url(), /LOCAL/, 'the offline room has no address');
  await screenshot(page, 'phone-93-offline-results-server-back');

  // Leaving is when the page goes online; nothing asks for the room "LOCAL".
  await page.click('#leave2');
  await page.waitForFunction(() => document.querySelector('#conn').textContent === 'Online', null, { timeout: 20000 });
  await view(p, 'home');
  await page.waitForSelector('#daily-list li button[data-server]:not([disabled])');
  assert.equal(await page.isDisabled('#make-go'), false);
  assert.equal(
    p.sent.some((m) => m.code === 'LOCAL'),
    false,
    'no join_room "LOCAL"',
  );
  assert.equal(
    p.frames.some((m) => m.type === 'error'),
    false,
    `no error from the server: ${JSON.stringify(p.frames.filter((m) => m.type === 'error'))}`,
  );
  assert.deepEqual(
    p.problems.filter((x) => !/ERR_CONNECTION_REFUSED|Failed to fetch|WebSocket/.test(x)),
    [],
  );
  await p.context.close();
});
