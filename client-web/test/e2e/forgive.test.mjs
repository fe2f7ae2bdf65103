// Issue 12, "a game that forgives", in Debian's Chromium against the real
// server: the rewind question, try this board again, leave (and its daily
// warning), the practice note, the daily state on home, par in plain words,
// no stale hint, the live region, the invite card, racers from the start with
// progress bars, the phone. Items that need a server feature not yet on main
// are in forgive-next.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser, openPage, screenshot, play, LAPTOP, PHONE } from './harness.mjs';
import { route, bfsPath } from '../route.mjs';
import { parseBoard } from '../../public/js/rules.js';

let srv, browser;
serverAndBrowser((s, b) => ([srv, browser] = [s, b]));

const view = (p, name) => p.page.waitForSelector(`body[data-view="${name}"]`);
const said = (p) => p.page.evaluate(() => window.__announced);

/** A solo practice race from home; returns race_start. */
async function practice(p, { game = 'ghost', size = 'small' } = {}) {
  const from = p.frames.length;
  await p.page.check(`input[name=game][value=${game}]`);
  await p.page.selectOption('#size', size);
  await p.page.click('#practice');
  const rs = await p.frame((m) => m.type === 'race_start', { from, what: 'race_start' });
  await p.page.waitForFunction(() => window.__mazerace.game && window.__mazerace.game.steps === 0);
  return rs;
}

test('1. rewind off the plate asks and says why; try this board again replays the same board', async () => {
  const p = await openPage(browser, LAPTOP, srv.url);
  await p.page.fill('#name', 'Rewinder');
  const rs = await practice(p);
  const line = route(rs.board);
  await play(p, line, { until: 1 });
  const before = p.frames.length;
  await p.page.click('#rewind');
  await p.page.waitForSelector('#confirm:not([hidden])');
  assert.match(await p.page.textContent('#confirm-text'), /not on the plate.*never open/);
  assert.ok(
    (await said(p)).some((t) => /never open the gate/.test(t)),
    'said out loud too',
  );
  assert.equal(await p.page.evaluate(() => window.__mazerace.game.run), 1, 'no rewind yet');
  assert.ok(!p.frames.slice(before).some((m) => m.type === 'rewind_result'), 'nothing sent');
  await screenshot(p.page, 'laptop-20-rewind-question');
  await p.page.click('#confirm-no');
  await p.page.waitForSelector('#confirm', { state: 'hidden' });
  // On the plate the rewind goes at once.
  await play(p, line.slice(1));
  await p.page.waitForSelector('#results', { state: 'visible' });
  assert.equal(await p.page.textContent('#again'), 'Try this board again');
  const from = p.frames.length;
  await p.page.click('#again');
  await p.frame((m) => m.type === 'race_start' && m.board.seed === rs.board.seed, { from, what: 'race_start on the same board' });
  await p.page.waitForFunction(
    (seed) =>
      window.__mazerace.board.seed === seed &&
      window.__mazerace.game &&
      window.__mazerace.game.steps === 0 &&
      document.querySelector('#results').hidden,
    rs.board.seed,
  );
  await screenshot(p.page, 'laptop-21-same-board-again', { racing: true });
  assert.deepEqual(p.problems, []);
  await p.context.close();
});

test('2. Leave during a race asks first (a ranked daily says its try is used); practice says why', async () => {
  const p = await openPage(browser, LAPTOP, srv.url);
  await p.page.fill('#name', 'Leaver');
  await practice(p, { game: 'maze', size: 'easy' });
  await p.page.waitForSelector('#leave-race', { state: 'visible' });
  await p.page.click('#leave-race');
  await p.page.waitForSelector('#confirm:not([hidden])');
  assert.match(await p.page.textContent('#confirm-text'), /^Leave the race\?/);
  await p.page.click('#confirm-yes');
  await view(p, 'home');

  await p.page.waitForSelector('#daily[data-loaded] #daily-list li');
  let from = p.frames.length;
  await p.page.click('button[aria-label="Play today\'s Maze Escape · Easy 11×11"]');
  let rs = await p.frame((m) => m.type === 'race_start', { from, what: 'daily race_start' });
  await p.page.waitForFunction(() => window.__mazerace.game);
  const line = route(rs.board);
  await play(p, line, { until: 2 });
  await p.page.click('#leave-race');
  await p.page.waitForSelector('#confirm:not([hidden])');
  assert.match(await p.page.textContent('#confirm-text'), /ranked try for today/);
  await screenshot(p.page, 'laptop-22-leave-daily-warning');
  await p.page.click('#confirm-no');
  assert.equal(await p.page.evaluate(() => window.__mazerace.view), 'play', 'still playing');
  await play(p, line.slice(2));
  const dr = await p.frame((m) => m.type === 'daily_result', { from, what: 'daily_result' });
  assert.equal(dr.ranked, true);
  // The same board again is practice, and says why.
  from = p.frames.length;
  await p.page.click('#again');
  await p.frame((m) => m.type === 'race_start', { from, what: 'practice race_start' });
  await p.page.waitForSelector('#practice-note:not([hidden])');
  assert.match(await p.page.textContent('#practice-note'), /^Practice: not ranked \(your ranked try today was at \d\d:\d\d\)\.$/);
  await screenshot(p.page, 'laptop-23-practice-says-why', { racing: true });
  // Leaving practice asks too (the run still ends), without the ranked warning.
  await p.page.click('#leave-race');
  await p.page.waitForSelector('#confirm:not([hidden])');
  assert.doesNotMatch(await p.page.textContent('#confirm-text'), /ranked/);
  await p.page.click('#confirm-yes');
  await view(p, 'home');
  assert.deepEqual(p.problems, []);
  await p.context.close();
});

test('3. home shows each daily board played today, result, rank, streak and countdown; a click shows the card', async () => {
  const p = await openPage(browser, PHONE, srv.url);
  await p.page.fill('#name', 'Streaker');
  await p.page.waitForSelector('#daily[data-loaded] #daily-list li');
  const from = p.frames.length;
  await p.page.click('button[aria-label="Play today\'s Ghost · Small 6×6"]');
  const rs = await p.frame((m) => m.type === 'race_start', { from, what: 'race_start' });
  await p.page.waitForFunction(() => window.__mazerace.game);
  await play(p, route(rs.board));
  const dr = await p.frame((m) => m.type === 'daily_result', { from, what: 'daily_result' });
  await p.page.click('#leave2');
  await view(p, 'home');
  const row = '#daily-list li[data-board="ghost.small"]';
  await p.page.waitForFunction((sel) => /Played: #\d+ of \d+/.test(document.querySelector(sel).textContent), row);
  const text = await p.page.textContent(row);
  assert.match(text, new RegExp(`Played: #${dr.rank} of ${dr.entrants} · ${dr.steps} steps`));
  assert.match(await p.page.textContent('#daily-list li[data-board="maze.easy"]'), /Not played today/);
  assert.equal(await p.page.textContent('#daily-streak'), `Your streak: ${dr.streak} day${dr.streak === 1 ? '' : 's'}`);
  assert.match(await p.page.textContent('#daily-count'), /^\d+:\d\d:\d\d$/);
  // The same from the server's `you` alone (GET /api/daily with the token), without what this browser kept.
  const token = await p.page.evaluate(() => JSON.parse(localStorage.getItem('mazerace.token')));
  const day = await (await fetch(`${srv.url}/api/daily`, { headers: { authorization: `Bearer ${token}` } })).json();
  const mine = day.you.boards.find((x) => x.game === 'ghost' && x.size === 'small');
  assert.deepEqual([mine.played, mine.rank, mine.steps], [true, dr.rank, dr.steps]);
  await p.page.evaluate((d) => {
    localStorage.removeItem(`mazerace.daily.${d}`);
    localStorage.removeItem('mazerace.streak');
  }, dr.date);
  await p.page.reload();
  await p.page.waitForFunction((sel) => /Played: #\d+ of \d+/.test(document.querySelector(sel)?.textContent || ''), row);
  assert.equal(await p.page.textContent('#daily-streak'), `Your streak: ${day.you.streak} day${day.you.streak === 1 ? '' : 's'}`);
  await p.page.click(`${row} button[aria-label^="Result: mine"]`);
  await p.page.waitForSelector('#dcard-wrap:not([hidden])');
  assert.equal(await p.page.textContent('#dcard [data-f=head]'), `Today's rank: #${dr.rank} of ${dr.entrants}`);
  await p.page.locator('#dcard').scrollIntoViewIfNeeded();
  await screenshot(p.page, 'phone-20-home-daily-played');
  assert.deepEqual(p.problems, []);
  await p.context.close();
});

test("4. results: par in plain words (the why on demand), the server's efficiency (rounded, not floored), 'Out of steps' fits", async () => {
  const p = await openPage(browser, LAPTOP, srv.url);
  await p.page.fill('#name', 'Wanderer');
  // A vault walked into the ground: back and forth until the budget is gone.
  const rs = await practice(p);
  const b = parseBoard(rs.board);
  const out = bfsPath(b, b.start, b.plate, b.gate).slice(0, 1);
  const back = { up: 'down', down: 'up', left: 'right', right: 'left' }[out[0]];
  const walk = Array.from({ length: rs.board.allowance }, (_, i) => (i % 2 ? back : out[0]));
  await play(p, walk);
  const res = await p.frame((m) => m.type === 'results', { what: 'results' });
  await p.page.waitForSelector('#results', { state: 'visible' });
  const why = await p.page.$eval('#rankings td.why', (td) => ({
    text: td.textContent,
    fits: td.scrollWidth <= td.clientWidth,
    span: td.colSpan,
  }));
  assert.deepEqual(why, { text: 'Out of steps', fits: true, span: 2 });
  const rv = res.reveal;
  assert.equal(await p.page.textContent('#reveal'), `Best possible: ${rv.true_par} steps.`, 'plain words: no builder in the sentence');
  // The builder's count and why it differs, only when asked (and only when it differs).
  assert.equal(await p.page.isVisible('#reveal-why'), rv.true_par !== rv.par);
  if (rv.true_par !== rv.par) {
    assert.equal(await p.page.isVisible('#reveal-because'), false, 'folded until asked');
    await p.page.click('#reveal-ask');
    assert.match(await p.page.textContent('#reveal-because'), new RegExp(`counted ${rv.par} steps`));
  }
  await screenshot(p.page, 'laptop-24-results-out-of-steps');

  // A maze with a detour: two moves too many, never 100%.
  await p.page.click('#leave2');
  await view(p, 'home');
  const ms = await practice(p, { game: 'maze', size: 'easy' });
  const line = route(ms.board);
  const mb = parseBoard(ms.board);
  const detour = ['up', 'down', 'left', 'right'].find((d) => bfsPath(mb, mb.start, mb.start) && d !== line[0] && isOpen(mb, d));
  const back2 = { up: 'down', down: 'up', left: 'right', right: 'left' };
  const first = detour || line[0];
  // As many detours as it takes for rounding and flooring to differ (15/22 is 68.2%, 15/24 62.5%).
  const short = line.length;
  const k = [1, 2, 3, 4, 5, 6, 7, 8].find(
    (n) => Math.round((short * 100) / (short + 2 * n)) !== Math.floor((short * 100) / (short + 2 * n)),
  );
  const walk2 = [...Array.from({ length: k }, () => [first, back2[first]]).flat(), ...line];
  await play(p, walk2);
  const res2 = await p.frame((m) => m.type === 'results' && m.reveal.game === 'maze', { what: 'maze results' });
  await p.page.waitForSelector('#results', { state: 'visible' });
  const mine = res2.rankings[0];
  assert.equal(mine.steps, line.length + 2 * k);
  const floored = Math.floor((res2.reveal.shortest * 100) / mine.steps);
  assert.equal(mine.efficiency, Math.round((res2.reveal.shortest * 100) / mine.steps), 'the server rounds (RULES.md)');
  assert.notEqual(mine.efficiency, floored);
  assert.equal(await p.page.textContent('#rankings tr td:nth-child(5)'), `${mine.efficiency}%`, "the server's figure, not the page's own");
  assert.match(await p.page.textContent('#mybest'), new RegExp(`^Your best on Maze Escape Easy 11×11: ${mine.efficiency}% ·`));
  assert.equal(await p.page.textContent('#reveal'), `Best possible: ${res2.reveal.shortest} moves (the shortest route).`);
  await screenshot(p.page, 'laptop-25-results-efficiency');
  assert.deepEqual(p.problems, []);
  await p.context.close();
});

/** Whether a move from the start in `d` is open (a maze passage). */
function isOpen(b, d) {
  const bit = { up: 1, right: 2, down: 4, left: 8 }[d];
  return !!(b.bits[b.start[0]][b.start[1]] & bit);
}

test('5. no stale hint or warning after the finish', async () => {
  const p = await openPage(browser, LAPTOP, srv.url);
  await p.page.fill('#name', 'Bumper');
  const rs = await practice(p, { game: 'maze', size: 'easy' });
  await p.page.keyboard.press('ArrowUp'); // the edge of the board
  assert.match(await p.page.textContent('#hint'), /wall/i);
  await play(p, route(rs.board)); // well inside the warning's 1.8 s
  await p.page.waitForSelector('#results', { state: 'visible' });
  assert.doesNotMatch(await p.page.textContent('#hint'), /wall/i);
  assert.equal(await p.page.$eval('#hint', (h) => h.classList.contains('warn')), false);
  assert.equal(await p.page.isVisible('#confirm'), false);
  await screenshot(p.page, 'laptop-26-finish-no-stale-hint');
  assert.deepEqual(p.problems, []);
  await p.context.close();
});

test('6. the live region: moves (throttled), wall bumps, an opponent finishing, the result; the position in words', async () => {
  const ann = await openPage(browser, LAPTOP, srv.url);
  await ann.page.fill('#name', 'Ann');
  await ann.page.check('input[name=game][value=maze]');
  await ann.page.click('#make button[type=submit]');
  await view(ann, 'lobby');
  const bob = await openPage(browser, LAPTOP, await ann.page.inputValue('#link'));
  await bob.page.fill('#name', 'Bob');
  await bob.page.click('#inv-join');
  await view(bob, 'lobby');
  const from = ann.frames.length;
  await ann.page.click('#start');
  const rs = await ann.frame((m) => m.type === 'race_start', { from, what: 'race_start' });
  await ann.page.waitForFunction(() => window.__mazerace.game);
  await bob.page.waitForFunction(() => window.__mazerace.game);
  await ann.page.keyboard.press('ArrowUp');
  const line = route(rs.board);
  await play(ann, line, { until: 3 });
  const words = await ann.page.textContent('#where');
  assert.match(words, /^Row \d+, column \d+\. The exit at row \d+, column \d+\.$/);
  assert.match(await ann.page.getAttribute('#stage', 'aria-label'), /You are at Row \d+, column \d+/);
  await play(bob, line);
  await play(ann, line.slice(3));
  await ann.page.waitForSelector('#results', { state: 'visible' });
  const a = await said(ann);
  assert.ok(a.includes('A wall is in the way.'), 'the bump');
  const moved = a.filter((t) => /^Row \d+, column \d+\.$/.test(t));
  assert.ok(moved.length >= 1 && moved.length < line.length, `moves said, throttled (${moved.length} of ${line.length})`);
  assert.ok(a.includes('Bob finished 1st.'), 'the opponent finishing');
  assert.ok(
    a.some((t) => /^Race over\. You placed 2nd\./.test(t)),
    'the result',
  );
  await screenshot(ann.page, 'laptop-27-live-region-results');
  assert.deepEqual(ann.problems, []);
  assert.deepEqual(bob.problems, []);
  await ann.context.close();
  await bob.context.close();
});

test('7. an invite link opens a join card (game, size, host, who is in); Enter in the name field joins', async () => {
  const host = await openPage(browser, LAPTOP, srv.url);
  await host.page.fill('#name', 'Hostess');
  await host.page.check('input[name=game][value=maze]');
  await host.page.selectOption('#size', 'normal');
  await host.page.click('#make button[type=submit]');
  await view(host, 'lobby');
  const code = (await host.page.textContent('#lobby-code')).trim();
  const guest = await openPage(browser, PHONE);
  // The room preview is not served yet (GET /api/rooms/{code} is not in PROTOCOL-NEXT): its
  // answer here is what the server knows of this room.
  const room = await host.page.evaluate(() => window.__mazerace.room);
  let asked = null;
  await guest.page.route(
    (u) => u.pathname === `/api/rooms/${code}`,
    (r) => {
      asked = new URL(r.request().url()).searchParams.get('k');
      const body = { code, game: room.game, size: room.size, phase: room.phase, host: 'Hostess', players: room.players.map((p) => p.name) };
      return r.fulfill({ contentType: 'application/json', body: JSON.stringify(body) });
    },
  );
  const sent = [];
  guest.page.on('websocket', (ws) => ws.on('framesent', (f) => sent.push(JSON.parse(f.payload))));
  await guest.page.goto(`${srv.url}/r/${code}?k=${room.key}`);
  await guest.page.waitForSelector('#invite:not([hidden]) >> text=Maze Escape');
  assert.equal(asked, room.key, "the preview is asked with the link's key");
  const card = await guest.page.textContent('#invite');
  assert.equal(await guest.page.textContent('#inv-kicker'), `Invitation · room ${code}`);
  assert.match(card, /Normal 17×17/);
  await guest.page.waitForFunction(() => document.querySelector('#home-h').textContent === 'Hostess invites you to a race');
  assert.match(card, /In the room \(1\): Hostess/);
  await screenshot(guest.page, 'phone-21-invite-card');
  await guest.page.fill('#name', 'Guest');
  const from = guest.frames.length;
  await guest.page.press('#name', 'Enter');
  await view(guest, 'lobby');
  await guest.frame((m) => m.type === 'room', { from, what: 'room after the keyed join' });
  assert.deepEqual(
    sent.find((m) => m.type === 'join_room'),
    { type: 'join_room', code, key: room.key },
    "the link's key goes with the join",
  );
  await host.page.waitForFunction(() => document.querySelectorAll('#players li').length === 2);
  assert.deepEqual(guest.problems, []);
  await host.context.close();
  await guest.context.close();
});

test('8. every racer drawn from the start, labelled, with a progress bar; a finisher leaves the goal visible', async () => {
  const ann = await openPage(browser, LAPTOP, srv.url);
  await ann.page.fill('#name', 'Ann');
  await ann.page.check('input[name=game][value=maze]');
  await ann.page.click('#make button[type=submit]');
  await view(ann, 'lobby');
  const bob = await openPage(browser, PHONE, await ann.page.inputValue('#link'));
  await bob.page.fill('#name', 'Bob');
  await bob.page.click('#inv-join');
  await view(bob, 'lobby');
  const from = ann.frames.length;
  await ann.page.click('#start');
  const rs = await ann.frame((m) => m.type === 'race_start', { from, what: 'race_start' });
  await bob.page.waitForFunction(() => window.__mazerace.game);
  // Before anyone moves, Bob sees Ann at the start, by name.
  await bob.page.waitForFunction(
    ([r, c]) => window.__mazerace.markers.some((m) => m.name === 'Ann' && m.pos[0] === r && m.pos[1] === c),
    rs.board.start,
  );
  assert.equal(await bob.page.$$eval('#racers .bar', (b) => b.length), 2, 'a bar per racer');
  const line = route(rs.board);
  await play(ann, line, { until: Math.floor(line.length / 2) });
  await bob.page.waitForFunction(() => {
    const li = [...document.querySelectorAll('#racers li')].find((l) => l.textContent.includes('Ann'));
    return li && Number(li.querySelector('.bar').getAttribute('aria-valuenow')) > 0;
  });
  assert.match(await bob.page.getAttribute('#racers li:not(.me) .bar', 'aria-label'), /^Ann: \d+ moves from the goal$/);
  await screenshot(bob.page, 'phone-22-racers-progress', { racing: true });
  await play(ann, line.slice(Math.floor(line.length / 2)));
  await bob.page.waitForFunction(() => /1st/.test(document.querySelector('#racers').textContent));
  await bob.page.waitForFunction(() => !window.__mazerace.markers.some((m) => m.name === 'Ann'));
  await screenshot(bob.page, 'phone-23-finisher-off-the-goal', { racing: true });
  await play(bob, line);
  await bob.page.waitForSelector('#results', { state: 'visible' });
  assert.deepEqual(ann.problems, []);
  assert.deepEqual(bob.problems, []);
  await ann.context.close();
  await bob.context.close();
});

test('9. phone: the results and the optimal line come where the player looks; landscape is playable', async () => {
  const p = await openPage(browser, PHONE, srv.url);
  await p.page.fill('#name', 'Pocket');
  const rs = await practice(p, { game: 'maze', size: 'normal' });
  await play(p, route(rs.board));
  await p.page.waitForSelector('#results', { state: 'visible' });
  const inView = (sel) =>
    p.page.$eval(sel, (e) => {
      const r = e.getBoundingClientRect();
      return r.top >= -1 && r.top < innerHeight && r.bottom > 0;
    });
  await p.page.waitForFunction(() => document.querySelector('#results-h').getBoundingClientRect().top >= -1);
  assert.ok(await inView('#results-h'), 'the results are on screen');
  await p.page.click('#watch-line');
  await p.page.waitForFunction(() => {
    const r = document.querySelector('#board').getBoundingClientRect();
    return r.top >= -1 && r.bottom <= innerHeight + 1;
  });
  assert.equal(await p.page.evaluate(() => window.__mazerace.line.playing), true, 'playing where it can be seen');
  await screenshot(p.page, 'phone-24-optimal-line-in-view');
  await p.context.close();

  const land = await openPage(browser, { ...PHONE, viewport: { width: 844, height: 390 } }, srv.url);
  await land.page.fill('#name', 'Sideways');
  await practice(land);
  const box = async (sel) => land.page.locator(sel).boundingBox();
  const fits = (b) => b && b.y >= 0 && b.x >= 0 && b.y + b.height <= 391 && b.x + b.width <= 845;
  assert.ok(fits(await box('#board')), `the board is on screen: ${JSON.stringify(await box('#board'))}`);
  for (const d of ['up', 'down', 'left', 'right']) assert.ok(fits(await box(`#pad [data-dir=${d}]`)), `the ${d} button is on screen`);
  assert.ok(fits(await box('#rewind')), 'and the rewind');
  assert.equal(await land.page.evaluate(() => document.documentElement.scrollWidth <= innerWidth), true);
  await screenshot(land.page, 'phone-25-landscape-race', { racing: true });
  assert.deepEqual(land.problems, []);
  await land.context.close();
});
