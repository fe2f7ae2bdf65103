// Issue 23, "the client's edges", in Debian's Chromium against the real
// server: one tap loses nothing (leave asks, Leave away from the pad, who
// left is said, a run two that cannot win says so), a race's trail is that
// race's and survives a closed tab, the phone's header and board (swipe, tap
// toward), the lobby's "Race a stored run", the invite card's preview, a new
// league's standing, and no layout shift on home. The server-gone and
// share-link points are in unreachable.test.mjs, the compressed budget in
// budget.test.mjs, axe-core in axe.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser, openPage, screenshot, play, LAPTOP, PHONE } from './harness.mjs';
import { route } from '../route.mjs';
import { parseBoard, newGame, apply, canStillWin, samePos } from '../../public/js/rules.js';

let srv, browser;
serverAndBrowser((s, b) => ([srv, browser] = [s, b]));

const view = (p, name) => p.page.waitForSelector(`body[data-view="${name}"]`);

/** A solo practice race from home; resolves to race_start once the game is on. */
async function practice(p, { game = 'ghost', size = 'small' } = {}) {
  const from = p.frames.length;
  await p.page.check(`input[name=game][value=${game}]`);
  await p.page.selectOption('#size', size);
  await p.page.click('#practice');
  const rs = await p.frame((m) => m.type === 'race_start', { from, what: 'race_start' });
  await p.page.waitForFunction(() => window.__mazerace.game && window.__mazerace.game.steps === 0);
  await p.page.waitForSelector('#overlay', { state: 'hidden' });
  return rs;
}

const box = (p, sel) => p.page.locator(sel).boundingBox();

for (const [label, device] of [
  ['laptop', LAPTOP],
  ['phone', PHONE],
]) {
  test(`${label}: Leave in a practice race asks first, and sits above the board, away from the pad`, async () => {
    const p = await openPage(browser, device, srv.url);
    await p.page.fill('#name', 'Leaver');
    const rs = await practice(p, { game: 'maze', size: 'easy' });
    await play(p, route(rs.board), { until: 1 });
    const leave = await box(p, '#leave-race');
    const board = await box(p, '#board');
    assert.ok(leave.y + leave.height <= board.y, `Leave (bottom ${leave.y + leave.height}) is above the board (top ${board.y})`);
    if (label === 'phone') {
      const up = await box(p, '#pad [data-dir=up]');
      assert.ok(up.y - (leave.y + leave.height) > 200, `the pad's up button is far below Leave (${up.y} vs ${leave.y + leave.height})`);
    }
    const from = p.frames.length;
    await p.page.click('#leave-race');
    await p.page.waitForSelector('#confirm:not([hidden])');
    assert.equal(await p.page.textContent('#confirm-text'), 'Leave the race? Your run ends here and counts as not finished.');
    assert.equal(await p.page.evaluate(() => document.activeElement.id), 'confirm-no', 'the safe answer has the focus');
    await screenshot(p.page, `${label}-60-leave-asks`);
    await p.page.click('#confirm-no');
    assert.equal(await p.page.evaluate(() => document.body.dataset.view), 'play');
    // The browser's Back is one tap too: it asks the same question.
    await p.page.goBack();
    await p.page.waitForSelector('#confirm:not([hidden])');
    assert.match(p.page.url(), /\/r\/LOCAL|\/r\/[A-Z0-9]{5}/, 'still at the room link');
    await p.page.click('#confirm-no');
    assert.equal(await p.page.evaluate(() => document.body.dataset.view), 'play');
    assert.ok(!p.frames.slice(from).some((m) => m.type === 'room'), 'still in the race');
    await play(p, route(rs.board).slice(1), { until: 1 });
    await p.page.click('#leave-race');
    await p.page.click('#confirm-yes');
    await view(p, 'home');
    assert.deepEqual(p.problems, []);
    await p.context.close();
  });
}

test('a room view shows once its screen has loaded: never an empty lobby to read', async () => {
  // No service worker: its cache would serve lobby.js past the route below.
  const p = await openPage(browser, { ...LAPTOP, serviceWorkers: 'block' });
  // The room screens load on the way to a room (a slow network, a busy
  // machine): lobby.js is held here until the page knows its room.
  let release;
  const held = new Promise((ok) => (release = ok));
  await p.page.route('**/js/lobby.js', async (r) => {
    await held;
    await r.continue();
  });
  await p.page.goto(srv.url);
  await p.page.fill('#name', 'Early');
  await p.page.click('#make button[type=submit]');
  const room = await p.frame((m) => m.type === 'room', { what: 'room' });
  await p.page.waitForFunction(() => window.__mazerace.room);
  assert.equal(await p.page.getAttribute('body', 'data-view'), 'home', 'the lobby waits for its screen');
  assert.equal(await p.page.isVisible('#lobby'), false, 'no empty lobby section');
  release();
  await view(p, 'lobby');
  assert.equal((await p.page.textContent('#lobby-code')).trim(), room.code, 'the code is there as the lobby shows');
  assert.deepEqual(p.problems, []);
  await p.context.close();
});

test('the others see who left: a toast, the racer list during the race and after a resume, the results after', async () => {
  const ann = await openPage(browser, LAPTOP, srv.url);
  const bob = await openPage(browser, PHONE, srv.url);
  await ann.page.fill('#name', 'Ann');
  await ann.page.check('input[name=game][value=maze]');
  await ann.page.selectOption('#size', 'easy');
  await ann.page.click('#make button[type=submit]');
  await view(ann, 'lobby');
  await bob.page.goto(await ann.page.inputValue('#link'));
  await bob.page.fill('#name', 'Bob');
  await bob.page.click('#inv-join');
  await view(bob, 'lobby');
  await ann.page.waitForFunction(() => document.querySelectorAll('#players li').length === 2);
  const from = ann.frames.length;
  await ann.page.click('#start');
  const rs = await ann.frame((m) => m.type === 'race_start', { from, what: 'race_start' });
  await bob.frame((m) => m.type === 'race_start', { what: 'race_start (Bob)' });
  await bob.page.waitForFunction(() => window.__mazerace.game && window.__mazerace.game.steps === 0);
  await bob.page.click('#leave-race');
  await bob.page.click('#confirm-yes');
  await view(bob, 'home');
  const bobId = await bob.page.evaluate(() => window.__mazerace.me.id);
  await ann.page.waitForSelector('#toast:not([hidden])');
  assert.equal(await ann.page.textContent('#toast'), 'Bob left the race.');
  assert.ok((await ann.page.evaluate(() => window.__announced)).includes('Bob left.'), 'said to a screen reader too');
  await ann.page.waitForSelector(`#racers li[data-id="${bobId}"]`);
  assert.match(await ann.page.textContent(`#racers li[data-id="${bobId}"] .stat`), /^left/);
  await screenshot(ann.page, 'laptop-61-bob-left', { racing: true });
  // A resume mid-race (a reload): Bob is in no `room` any more, the snapshot names him.
  await ann.page.reload();
  await ann.page.waitForFunction(() => window.__mazerace.game && document.querySelector('#hud-run').textContent !== '');
  await ann.page.waitForSelector(`#racers li[data-id="${bobId}"]`);
  assert.equal(await ann.page.textContent(`#racers li[data-id="${bobId}"] .name`), 'Bob');
  assert.match(await ann.page.textContent(`#racers li[data-id="${bobId}"] .stat`), /^left/, 'still marked left after the resume');
  await play(ann, route(rs.board));
  await ann.page.waitForSelector('#results', { state: 'visible' });
  assert.match(await ann.page.textContent('#rankings'), /Bob\s*0\s*Left/);
  assert.match(await ann.page.textContent(`#racers li[data-id="${bobId}"] .stat`), /^left/, 'and after the results');
  assert.deepEqual(ann.problems, []);
  assert.deepEqual(bob.problems, []);
  await ann.context.close();
  await bob.context.close();
});

test('run two after a rewind off the plate: the hint says it cannot win, Give up and Try this board again', async () => {
  const p = await openPage(browser, LAPTOP, srv.url);
  await p.page.fill('#name', 'Doomed');
  let rs, b;
  // A vault whose plate is not beside its gate (else the player could hold it).
  for (let i = 0; ; i++) {
    rs = await practice(p);
    b = parseBoard(rs.board);
    const beside = Math.abs(b.plate[0] - b.gate[0]) + Math.abs(b.plate[1] - b.gate[1]) === 1;
    if (!beside) break;
    assert.ok(i < 15, 'a vault with its plate away from the gate');
    await p.page.click('#leave-race');
    await p.page.click('#confirm-yes');
    await view(p, 'home');
  }
  // One step that is not onto the plate, then the rewind (answering its question).
  const g = newGame(b);
  const step = ['up', 'down', 'left', 'right'].find((d) => {
    const x = newGame(b);
    return apply(x, d).ok && !samePos(x.pos, b.plate);
  });
  await play(p, [step]);
  apply(g, step);
  await p.page.click('#rewind');
  await p.page.click('#confirm-yes');
  await p.frame((m) => m.type === 'rewind_result', { what: 'rewind_result' });
  apply(g, 'rewind');
  assert.equal(canStillWin(g), false, 'the ghost walks one step off the start and never holds the plate');
  await p.page.waitForSelector('#again-now:not([hidden])');
  assert.equal(
    await p.page.textContent('#hint'),
    'This run cannot reach the flag: your ghost never stands on the plate, so the gate stays shut. Give up, or try this board again.',
  );
  assert.equal(await p.page.isVisible('#giveup'), true);
  await screenshot(p.page, 'laptop-62-run-two-cannot-win', { racing: true });
  const from = p.frames.length;
  await p.page.click('#again-now');
  const again = await p.frame((m) => m.type === 'race_start', { from, what: 'the same board again' });
  assert.equal(again.board.seed, rs.board.seed);
  assert.ok(
    p.frames.slice(from).some((m) => m.type === 'results'),
    'the doomed run ended as given up first',
  );
  assert.deepEqual(p.problems, []);
  await p.context.close();
});

test("a maze race's trail is that race's: back after the tab is closed and opened again, gone in a re-run", async () => {
  const one = await openPage(browser, LAPTOP, srv.url);
  await one.page.fill('#name', 'Trail');
  const rs = await practice(one, { game: 'maze', size: 'easy' });
  const line = route(rs.board);
  await play(one, line, { until: 3 });
  const crossed = await one.page.evaluate(() => window.__mazerace.visited);
  assert.equal(crossed.length, 4, 'the start and three cells');
  // The tab closes; a new one (same browser profile, new sessionStorage) resumes the player.
  const context = one.context;
  await one.page.close();
  const two = await context.newPage();
  const frames = [];
  two.on('websocket', (ws) => ws.on('framereceived', (f) => frames.push(JSON.parse(f.payload))));
  await two.goto(srv.url);
  await two.waitForFunction(() => window.__mazerace.game && window.__mazerace.game.steps === 3);
  assert.deepEqual(await two.evaluate(() => window.__mazerace.visited), crossed, 'the trail came back with the race');
  await screenshot(two, 'laptop-63-trail-after-reopening', { racing: true });
  // Finish, then the same board again: a fresh race starts with no trail.
  const keyOf = { up: 'ArrowUp', down: 'ArrowDown', left: 'ArrowLeft', right: 'ArrowRight' };
  await two.focus('#stage');
  for (const [i, d] of line.slice(3).entries()) {
    await two.keyboard.press(keyOf[d]);
    await two.waitForFunction((n) => window.__mazerace.game && window.__mazerace.game.steps >= n, 4 + i);
  }
  await two.waitForSelector('#again:not([hidden])');
  await two.click('#again');
  await two.waitForFunction((seed) => window.__mazerace.board?.seed === seed && window.__mazerace.game?.steps === 0, rs.board.seed);
  assert.deepEqual(await two.evaluate(() => window.__mazerace.visited), ['0,0'], 'a re-run does not give the route away');
  await context.close();
});

test('phone: the header stays one line with the name whole, and a hard maze fills the width, moved by swipe and tap', async () => {
  const p = await openPage(browser, PHONE, srv.url);
  await p.page.fill('#name', 'Bea');
  await p.page.press('#name', 'Enter');
  const rs = await practice(p, { game: 'maze', size: 'hard' });
  const head = await p.page.$eval('.top', (e) => e.getBoundingClientRect().height);
  const name = await p.page.$eval('#me-name', (e) => ({
    text: e.textContent,
    whole: e.scrollWidth <= e.clientWidth,
    shown: e.offsetWidth > 0,
  }));
  assert.deepEqual(name, { text: 'Bea', whole: true, shown: true });
  assert.ok(head < 64, `the header is one line (${head} px)`);
  const board = await box(p, '#board');
  assert.ok(board.width >= 380, `the 23x23 board uses the width (${board.width} of 390 px)`);
  await screenshot(p.page, 'phone-64-hard-maze', { racing: true });
  const b = parseBoard(rs.board);
  const line = route(rs.board);
  const cell = board.width / b.n;
  const at = (r, c) => [board.x + (c + 0.5) * cell, board.y + (r + 0.5) * cell];
  // A tap far away, along the first move's axis: one step that way.
  const far = { right: [0, b.n - 1], down: [b.n - 1, 0] }[line[0]];
  await p.page.touchscreen.tap(...at(...far));
  await p.frame((m) => m.type === 'move_result' && m.seq === 1, { what: 'the tap moved' });
  // A swipe (press, drag 60 px, release) the second move's way.
  const [dx, dy] = { up: [0, -60], down: [0, 60], left: [-60, 0], right: [60, 0] }[line[1]];
  const [x0, y0] = at(b.n / 2, b.n / 2);
  await p.page.mouse.move(x0, y0);
  await p.page.mouse.down();
  await p.page.mouse.move(x0 + dx, y0 + dy, { steps: 4 });
  await p.page.mouse.up();
  const second = await p.frame((m) => m.type === 'move_result' && m.seq === 2, { what: 'the swipe moved' });
  assert.equal(second.ok, true);
  const g = newGame(b);
  apply(g, line[0]);
  apply(g, line[1]);
  assert.deepEqual(second.pos, g.pos, 'the tap and the swipe made the route’s first two moves');
  assert.deepEqual(p.problems, []);
  await p.context.close();
});

test('the lobby offers "Race a stored run" by what it races, a run number only on asking', async () => {
  const p = await openPage(browser, LAPTOP, srv.url);
  await p.page.fill('#name', 'Host');
  await p.page.check('input[name=game][value=maze]');
  await p.page.selectOption('#size', 'easy');
  await p.page.click('#make button[type=submit]');
  await view(p, 'lobby');
  await p.page.waitForSelector('#rival-form:not([hidden])');
  // Folded (issue 35, item 6): a friends' room shows one line until the host asks.
  assert.equal(await p.page.textContent('#rival-form summary'), 'Race a stored run');
  assert.equal(await p.page.isVisible('#rival-pick'), false);
  await p.page.click('#rival-form summary');
  const offered = await p.page.$$eval('#rival-pick option', (os) => os.filter((o) => !o.disabled).map((o) => o.textContent));
  assert.deepEqual(offered, ['A run by its number'], 'a room with no race yet, not a daily: only a run by its number');
  assert.match(await p.page.textContent('#rival-what'), /stored daily run by its number/);
  assert.equal(await p.page.isVisible('#rival-run'), true);
  await p.page.fill('#rival-run', '999999');
  const from = p.frames.length;
  await p.page.click('#rival-add');
  const err = await p.frame((m) => m.type === 'error', { from, what: 'the refusal' });
  assert.equal(err.code, 'rival_not_found');
  await screenshot(p.page, 'laptop-65-lobby-race-a-stored-run');
  assert.deepEqual(
    p.problems.filter((x) => !/rival_not_found|no stored run/i.test(x)),
    [],
  );
  await p.context.close();
});

test("an invite link's card shows the room from GET /api/rooms/{code}: game, size, host, who is in", async () => {
  const ann = await openPage(browser, LAPTOP, srv.url);
  await ann.page.fill('#name', 'Ann');
  await ann.page.check('input[name=game][value=ghost]');
  await ann.page.selectOption('#size', 'medium');
  await ann.page.click('#make button[type=submit]');
  await view(ann, 'lobby');
  const link = await ann.page.inputValue('#link');
  const answers = [];
  const cat = await openPage(browser, PHONE);
  cat.page.on('response', (r) => r.url().includes('/api/rooms/') && answers.push(r.status()));
  await cat.page.goto(link);
  await cat.page.waitForFunction(() => document.querySelector('#home-h').textContent === 'Ann invites you to a race');
  assert.deepEqual(answers, [200]);
  const card = await cat.page.textContent('#invite');
  assert.match(card, /Ghost/);
  assert.match(card, /Medium 7×7/);
  assert.match(card, /In the room \(1\): Ann/);
  await screenshot(cat.page, 'phone-66-invite-card');
  assert.deepEqual(cat.problems, []);
  await ann.context.close();
  await cat.context.close();
});

test('a new league says nobody has played today, never "#1 of 0"', async () => {
  const p = await openPage(browser, LAPTOP, srv.url);
  await p.page.fill('#name', 'Founder');
  await p.page.fill('#lname', 'Tuesday club');
  await p.page.click('#lmake button[type=submit]');
  await view(p, 'league');
  await p.page.waitForFunction(() => /Nobody has played today/.test(document.querySelector('#lg-meta').textContent));
  assert.doesNotMatch(await p.page.textContent('#lg-meta'), /of 0/);
  await p.page.click('#lg-back');
  await p.page.waitForFunction(() => /Nobody has played today/.test(document.querySelector('#league-list').textContent));
  assert.doesNotMatch(await p.page.textContent('#league-list'), /of 0/);
  assert.deepEqual(p.problems, []);
  await p.context.close();
});

// The home page's game choice and daily rows are made from the games' table
// once its module runs: on every screen width they must not push the page about.
const DESKTOP = { viewport: { width: 1920, height: 1080 }, deviceScaleFactor: 1 };
for (const [name, device] of [
  ['phone', PHONE],
  ['laptop', LAPTOP],
  ['desktop', DESKTOP],
]) {
  test(`${name}: home does not shift when the games, the daily panel and the leagues arrive (CLS under 0.02)`, async () => {
    const p = await openPage(browser, device);
    await p.context.addInitScript(() => {
      window.__shift = 0;
      new PerformanceObserver((l) => {
        for (const e of l.getEntries()) if (!e.hadRecentInput) window.__shift += e.value;
      }).observe({ type: 'layout-shift', buffered: true });
    });
    await p.page.goto(srv.url, { waitUntil: 'networkidle' });
    await p.page.waitForSelector('#daily[data-loaded]');
    await p.page.waitForLoadState('networkidle');
    const cls = await p.page.evaluate(() => window.__shift);
    assert.ok(cls < 0.02, `cumulative layout shift ${cls}`);
    assert.deepEqual(p.problems, []);
    await p.context.close();
  });
}
