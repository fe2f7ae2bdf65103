// Two players in two browser contexts (a laptop and a phone) make and join a
// room by its link, race a maze and then a vault to the finish with the
// keyboard, see each other, and get results; plus blocked moves, local bests
// across a reload, names with markup, and screenshots of every screen.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, openPage, screenshot, play, LAPTOP, PHONE, SHOTS } from './harness.mjs';
import { route } from '../route.mjs';

// 24 characters, the server's limit: an element that would run script, and a tag.
const MARKUP = '<svg/onload=alert(1)><b>';
let srv, browser, ann, bob;

before(async () => {
  srv = await startServer();
  browser = await launch();
  ann = await openPage(browser, LAPTOP, srv.url);
  bob = await openPage(browser, PHONE);
});

after(async () => {
  await browser?.close();
  await srv?.stop();
  console.log(`screenshots: ${SHOTS}`);
});

const visible = (p, sel) => p.page.waitForSelector(sel, { state: 'visible' });
const view = (p, name) => p.page.waitForSelector(`body[data-view="${name}"]`);
const text = (p, sel) => p.page.textContent(sel);

/** Both pages race `board`'s route; `midway` runs once each has made half its moves. */
async function raceBoth(board, midway) {
  const line = route(board);
  assert.ok(line, 'the test finds a route from the board');
  const half = Math.floor(line.length / 2);
  await play(ann, line, { until: half });
  await play(bob, line, { until: half });
  await midway(line, half);
  await play(ann, line.slice(half), {});
  await play(bob, line.slice(half), {});
  return line;
}

test('home page, then Ann makes a maze room and Bob joins by its link', async () => {
  await view(ann, 'home');
  await screenshot(ann.page, 'laptop-1-home');
  await ann.page.fill('#name', 'Ann');
  await ann.page.check('input[name=game][value=maze]');
  await ann.page.selectOption('#size', 'easy');
  await ann.page.click('#make button[type=submit]');
  await view(ann, 'lobby');
  const code = (await text(ann, '#lobby-code')).trim();
  assert.match(code, /^[A-Z0-9]{5}$/);
  const link = await ann.page.inputValue('#link');
  const key = await ann.page.evaluate(() => window.__mazerace.room.key);
  assert.match(key, /^[0-9a-f]{16}$/);
  assert.ok(link.endsWith(`/r/${code}?k=${key}`), link);
  await visible(ann, '#qr');
  // The QR code of the link loads (an SVG from /api/qr.svg).
  await ann.page.waitForFunction(() => {
    const img = document.querySelector('#qr');
    return img.complete && img.naturalWidth > 0 && img.src.includes(encodeURIComponent(document.querySelector('#link').value));
  });

  await bob.page.goto(link);
  await view(bob, 'home');
  await screenshot(bob.page, 'phone-1-home-invited');
  assert.match(await text(bob, '#inv-kicker'), new RegExp(`room ${code}`));
  assert.equal(await bob.page.inputValue('#code'), code);
  await bob.page.fill('#name', MARKUP);
  await bob.page.click('#inv-join');
  await view(bob, 'lobby');
  await ann.page.waitForFunction(() => document.querySelectorAll('#players li').length === 2);
  // The markup is shown as text, nowhere parsed.
  const names = await ann.page.$$eval('#players .name', (els) => els.map((e) => e.textContent));
  assert.deepEqual(names.sort(), ['Ann', MARKUP].sort());
  assert.equal(await ann.page.$$eval('#players svg, #players b', (e) => e.length), 0);
  assert.equal(await bob.page.$$eval('#lobby svg, #lobby b, #racers svg, #racers b', (e) => e.length), 0);
  await bob.page.click('#ready');
  await ann.page.waitForSelector('#players .badge.ok');
  await screenshot(ann.page, 'laptop-2-lobby');
  await screenshot(bob.page, 'phone-2-lobby');
});

test('maze race: blocked moves do not count, markers and progress are seen, results ranked', async () => {
  const start = ann.frames.length;
  const bobStart = bob.frames.length;
  await ann.page.focus('#start');
  await ann.page.keyboard.press('Enter');
  // The server's 3-2-1 shows over the board.
  await bob.frame((m) => m.type === 'countdown' && m.seconds === 3, { from: bobStart, what: 'countdown' });
  await bob.page.waitForSelector('#overlay:not([hidden]) >> text=Get ready');
  const rs = await ann.frame((m) => m.type === 'race_start', { from: start, what: 'race_start' });
  await bob.frame((m) => m.type === 'race_start', { from: bobStart, what: "Bob's race_start" });
  assert.equal(rs.board.game, 'maze');
  await ann.page.waitForFunction(() => window.__mazerace.game && window.__mazerace.room.phase === 'racing');
  // Crisp on the 3x phone: the backing store is the CSS size times the pixel
  // ratio, and every cell a whole number of device pixels.
  const px = await bob.page.$eval('#board', (c) => [c.width, parseFloat(c.style.width), devicePixelRatio]);
  assert.equal(px[2], 3);
  assert.equal(px[0], Math.round(px[1] * 3));
  assert.equal(px[0] % rs.board.n, 0, `${px[0]} device pixels make ${rs.board.n} whole cells`);
  assert.ok(px[1] >= 300 && px[1] <= 390, `the board fits the phone's width (${px[1]}px)`);

  // Up from the top-left start is the edge of the board: refused on the spot.
  await ann.page.keyboard.press('ArrowUp');
  await ann.page.keyboard.press('w');
  assert.match(await text(ann, '#hint'), /wall/i);
  assert.equal(await text(ann, '#hud-steps'), 'Moves 0');
  // Ctrl+arrow belongs to the browser: no move.
  await ann.page.keyboard.press('Control+ArrowRight');
  assert.equal(await text(ann, '#hud-steps'), 'Moves 0');

  const line = await raceBoth(rs.board, async (line, half) => {
    // Each sees the other's marker where the other stands.
    const annPos = await ann.page.evaluate(() => window.__mazerace.game.pos);
    await bob.page.waitForFunction(
      ([pos]) => window.__mazerace.markers.some((m) => m.pos[0] === pos[0] && m.pos[1] === pos[1] && m.name === 'Ann'),
      [annPos],
    );
    await ann.page.waitForFunction(() => window.__mazerace.markers.some((m) => m.name.includes('<svg')));
    await ann.page.waitForFunction(
      (n) => [...document.querySelectorAll('#racers li')].some((li) => li.textContent.includes(`${n} moves`)),
      half,
    );
    assert.equal(await text(ann, '#hud-steps'), `Moves ${half}`);
    await screenshot(ann.page, 'laptop-3-race-maze', { racing: true });
    await screenshot(bob.page, 'phone-3-race-maze', { racing: true });
  });

  const res = await ann.frame((m) => m.type === 'results', { from: start, what: 'results' });
  await visible(ann, '#results');
  await visible(bob, '#results');
  const mine = res.rankings.find((r) => r.name === 'Ann');
  assert.equal(mine.rank, 1, 'Ann moved first at each half, so she finished first');
  assert.equal(mine.steps, line.length, 'the refused moves were not counted');
  assert.equal(res.reveal.shortest, line.length);
  assert.equal(mine.efficiency, 100);
  const rows = await ann.page.$$eval('#rankings tr', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
  assert.deepEqual(
    rows.map((r) => r[1]),
    ['Ann', MARKUP],
  );
  assert.deepEqual(
    rows.map((r) => r[0]),
    ['1', '2'],
  );
  assert.equal(rows[0][2], String(line.length));
  assert.equal(await text(ann, '#reveal'), `Best possible: ${line.length} moves (the shortest route).`);
  assert.match(await text(ann, '#mybest'), /New best!/);
  assert.match(await text(ann, '#mybest'), new RegExp(`Maze Escape Easy 11×11: 100% · ${line.length} moves`));
  await visible(ann, '#rematch');
  await visible(bob, '#rematch-note');
  await screenshot(ann.page, 'laptop-4-results-maze');
  await screenshot(bob.page, 'phone-4-results-maze');
});

test('the best survives a reload, kept per game and size', async () => {
  await ann.page.reload();
  // The token resumes Ann in her room, still on the results.
  await visible(ann, '#results');
  await ann.page.click('#leave2');
  await view(ann, 'home');
  await ann.page.check('input[name=game][value=maze]');
  await ann.page.selectOption('#size', 'easy');
  assert.match(await text(ann, '#best-here'), /Your best here: 100% · \d+ moves/);
  await ann.page.selectOption('#size', 'normal');
  assert.equal(await text(ann, '#best-here'), 'No best on this size yet.');
  await ann.page.check('input[name=game][value=ghost]');
  assert.equal(await text(ann, '#best-here'), 'No best on this size yet.');
  assert.equal(await ann.page.inputValue('#name'), 'Ann', 'the name is remembered');
});

test('vault race with the keyboard: rewind, the ghost opens the gate, a reload mid-race resumes', async () => {
  await bob.page.click('#leave2');
  await view(bob, 'home');
  const start = ann.frames.length;
  await ann.page.selectOption('#size', 'small');
  await ann.page.selectOption('#rankby', 'steps');
  await ann.page.click('#make button[type=submit]');
  await view(ann, 'lobby');
  const link = await ann.page.inputValue('#link');
  // Bob's name is remembered now: the link opens straight into the room.
  await bob.page.goto(link);
  await view(bob, 'lobby');
  await ann.page.waitForFunction(() => document.querySelectorAll('#players li').length === 2);
  await ann.page.click('#start');
  const rs = await ann.frame((m) => m.type === 'race_start', { from: start, what: 'race_start' });
  assert.equal(rs.board.game, 'ghost');
  await bob.page.waitForFunction(() => window.__mazerace.game);
  await ann.page.waitForFunction(() => window.__mazerace.game);
  assert.equal(await text(ann, '#hud-run'), 'Run 1 of 2');
  assert.equal(await text(ann, '#hud-gate'), 'Gate shut');
  await visible(ann, '#rewind');

  const line = route(rs.board);
  const rw = line.indexOf('rewind');
  // Ann walks run one, rewinds from the keyboard and takes two steps of run two.
  await play(ann, line, { until: rw + 3 });
  assert.equal(await text(ann, '#hud-run'), 'Run 2 of 2');
  assert.equal(await ann.page.isVisible('#rewind'), false, 'no rewind in run two');
  const before = await ann.page.evaluate(() => ({ ...window.__mazerace.game, board: undefined }));
  assert.ok(before.ghost, 'the ghost is on the board');
  await play(bob, line, { until: rw + 3 });
  await screenshot(ann.page, 'laptop-5-race-ghost', { racing: true });
  await screenshot(bob.page, 'phone-5-race-ghost', { racing: true });

  // A reload mid-race: the token resumes Ann with her recording and the ghost mid-replay.
  // (On a vault with the plate two steps from the start the gate is already open here.)
  const saidBefore = await ann.page.evaluate(() => window.__announced);
  const snapFrom = ann.frames.length;
  await ann.page.reload();
  const snap = await ann.frame((m) => m.type === 'snapshot', { from: snapFrom, what: 'snapshot after reload' });
  assert.deepEqual(snap.recording, line.slice(0, rw));
  await ann.page.waitForFunction(() => window.__mazerace.game);
  const after = await ann.page.evaluate(() => ({ ...window.__mazerace.game, board: undefined }));
  assert.deepEqual(after.pos, before.pos);
  assert.deepEqual(after.ghost, before.ghost);
  assert.equal(after.steps, before.steps);
  assert.equal(await text(ann, '#hud-run'), 'Run 2 of 2');

  // The rest of run two; the gate shows open once the ghost holds the plate.
  let sawOpen = false;
  for (let i = rw + 3; i < line.length; i++) {
    await play(ann, line.slice(i), { until: 1 });
    sawOpen ||= (await text(ann, '#hud-gate')) === 'Gate open';
  }
  assert.ok(sawOpen, 'the gate opened for Ann during run two');
  const said = [...saidBefore, ...(await ann.page.evaluate(() => window.__announced))];
  assert.ok(said.includes('Gate open.'), `the live region said the gate opened: ${JSON.stringify(said)}`);
  assert.ok(
    said.some((t) => /^You finished (1st|2nd)/.test(t)),
    'and that Ann finished',
  );
  await play(bob, line.slice(rw + 3));

  const res = await ann.frame((m) => m.type === 'results', { from: start, what: 'results' });
  await visible(ann, '#results');
  await visible(bob, '#results');
  assert.equal(res.reveal.game, 'ghost');
  const steps = line.filter((a) => a !== 'rewind').length;
  for (const r of res.rankings) assert.equal(r.steps, steps, `${r.name}'s steps`);
  assert.deepEqual(
    res.rankings.map((r) => r.rank),
    [1, 2],
  );
  const reveal = await text(ann, '#reveal');
  // The best possible in plain words; the builder's count (par) only on asking, when it differs.
  assert.match(reveal, res.reveal.true_par == null ? /unknown/ : new RegExp(`^Best possible: ${res.reveal.true_par} steps\\.$`));
  if (res.reveal.true_par !== rs.board.par) {
    await ann.page.click('#reveal-ask');
    assert.match(await text(ann, '#reveal-because'), new RegExp(`builder (counted|gave up)[^.]*\\b${rs.board.par}\\b`));
  } else assert.equal(await ann.page.isVisible('#reveal-why'), false);
  assert.match(await text(bob, '#mybest'), /Your best on Ghost Small 6×6/);
  await screenshot(ann.page, 'laptop-6-results-ghost');
  await screenshot(bob.page, 'phone-6-results-ghost');

  // Watch the optimal line: the replay runs to its end.
  await ann.page.click('#watch-line');
  await ann.page.waitForFunction(() => document.querySelector('#watch-line').textContent === 'Watch again', null, { timeout: 20000 });
  await screenshot(ann.page, 'laptop-7-optimal-line');

  // Rematch: the host sends everyone back to the lobby.
  await ann.page.click('#rematch');
  await view(ann, 'lobby');
  await view(bob, 'lobby');
});

test('no page errors, no dialogs', () => {
  assert.deepEqual(ann.problems, []);
  assert.deepEqual(bob.problems, []);
});
