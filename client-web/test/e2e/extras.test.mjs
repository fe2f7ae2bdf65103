// Practice alone, a spectator, a dropped connection that comes back on its
// own (backoff) and resumes, the mute switch, and a keyboard-only path.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser, openPage, screenshot, play, LAPTOP, PHONE } from './harness.mjs';
import { route } from '../route.mjs';

let srv, browser;
serverAndBrowser((s, b) => ([srv, browser] = [s, b]));

test('practice alone: no lobby, timer from the first move, a new board (reduced motion)', async () => {
  const p = await openPage(browser, LAPTOP, srv.url);
  await p.page.emulateMedia({ reducedMotion: 'reduce' });
  await p.page.fill('#name', 'Solo');
  await p.page.selectOption('#size', 'medium');
  await p.page.click('#practice');
  const rs = await p.frame((m) => m.type === 'race_start', { what: 'race_start' });
  assert.equal(rs.board.game, 'ghost');
  assert.equal(rs.board.size, 'medium');
  await p.page.waitForFunction(() => window.__mazerace.game);
  assert.equal(await p.page.textContent('#hud-time'), '0:00.0', 'the clock waits for the first move');
  const line = route(rs.board);
  await play(p, line);
  await p.page.waitForSelector('#results', { state: 'visible' });
  assert.equal(await p.page.isVisible('#rematch'), false);
  // With reduced motion the optimal line is drawn at once, not animated.
  await p.page.click('#watch-line');
  assert.equal(await p.page.textContent('#watch-line'), 'Hide the line');
  await p.page.click('#watch-line');
  assert.equal(await p.page.textContent('#watch-line'), 'Watch the optimal line');
  await p.page.waitForSelector('#again', { state: 'visible' });
  assert.equal(await p.page.textContent('#again'), 'Try this board again');
  const from = p.frames.length;
  await p.page.click('#newboard');
  const again = await p.frame((m) => m.type === 'race_start', { from, what: 'second race_start' });
  assert.notEqual(again.board.seed, rs.board.seed, 'a fresh vault');
  await p.page.waitForFunction(() => {
    const g = window.__mazerace.game;
    return g && g.steps === 0 && document.querySelector('#results').hidden;
  });
  assert.deepEqual(p.problems, []);
  await p.context.close();
});

test('a spectator sees the racers and cannot move', async () => {
  const racer = await openPage(browser, LAPTOP, srv.url);
  await racer.page.fill('#name', 'Racer');
  await racer.page.check('input[name=game][value=maze]');
  await racer.page.click('#make button[type=submit]');
  await racer.page.waitForSelector('body[data-view="lobby"]');
  const code = (await racer.page.textContent('#lobby-code')).trim();
  const fan = await openPage(browser, PHONE, srv.url);
  await fan.page.fill('#name', 'Fan');
  await fan.page.fill('#code', code.toLowerCase());
  await fan.page.click('#watch');
  await fan.page.waitForSelector('body[data-view="lobby"]');
  await racer.page.waitForSelector('#spec-wrap:not([hidden]) #spectators li');
  assert.equal(await racer.page.textContent('#spectators .name'), 'Fan');
  assert.equal(await racer.page.textContent('#count'), '1 / 16', 'a spectator is not a player');
  await racer.page.click('#start');
  const rs = await racer.frame((m) => m.type === 'race_start', { what: 'race_start' });
  await fan.page.waitForFunction(() => window.__mazerace.board && window.__mazerace.view === 'play');
  assert.equal(await fan.page.evaluate(() => window.__mazerace.game), null, 'no game of its own');
  assert.equal(await fan.page.textContent('#hud-run'), 'Watching');
  assert.equal(await fan.page.isVisible('#pad'), false, 'no move buttons for a spectator');
  const line = route(rs.board);
  await play(racer, line, { until: 4 });
  const pos = await racer.page.evaluate(() => window.__mazerace.game.pos);
  await fan.page.waitForFunction(
    ([r, c]) => window.__mazerace.markers.some((m) => m.name === 'Racer' && m.pos[0] === r && m.pos[1] === c),
    pos,
  );
  const sent = fan.frames.length;
  await fan.page.keyboard.press('ArrowRight');
  await play(racer, line.slice(4));
  await fan.page.waitForSelector('#results', { state: 'visible' });
  assert.ok(!fan.frames.slice(sent).some((m) => m.type === 'error'), 'the spectator sent nothing to refuse');
  await screenshot(fan.page, 'phone-11-spectator-results');
  assert.deepEqual(racer.problems, []);
  assert.deepEqual(fan.problems, []);
  await racer.context.close();
  await fan.context.close();
});

test('a dropped connection reconnects by itself and resumes the race', async () => {
  const p = await openPage(browser, PHONE, srv.url);
  await p.page.fill('#name', 'Wobbly');
  await p.page.click('#practice');
  const rs = await p.frame((m) => m.type === 'race_start', { what: 'race_start' });
  const line = route(rs.board);
  await p.page.waitForFunction(() => window.__mazerace.game);
  await play(p, line, { until: 3 });
  const from = p.frames.length;
  // Cut the socket as a flaky network would.
  await p.page.evaluate(() => window.__sockets.at(-1).close());
  await p.page.waitForSelector('#overlay:not([hidden])');
  assert.match(await p.page.textContent('#overlay'), /Reconnecting/);
  assert.match(await p.page.textContent('#conn'), /Reconnecting in \d+ s/);
  const welcome = await p.frame((m) => m.type === 'welcome', { from, what: 'welcome after the drop' });
  assert.equal(welcome.resumed, true);
  const snap = await p.frame((m) => m.type === 'snapshot', { from, what: 'snapshot' });
  assert.equal(snap.you.steps, line.slice(0, 3).filter((x) => x !== 'rewind').length);
  await p.page.waitForSelector('#overlay', { state: 'hidden' });
  assert.equal(await p.page.textContent('#conn'), 'Online');
  await play(p, line.slice(3));
  await p.page.waitForSelector('#results', { state: 'visible' });
  assert.deepEqual(p.problems, []);
  await p.context.close();
});

test('keyboard only: name, make a room, start, race; visible focus; mute toggle', async () => {
  const p = await openPage(browser, LAPTOP, srv.url);
  const k = p.page.keyboard;
  // Skip link first, then the brand, the mute switch, the name field.
  await k.press('Tab');
  assert.equal(await p.page.evaluate(() => document.activeElement.className), 'skip');
  const outline = await p.page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);
  assert.equal(outline, 'solid', 'focus is visible');
  await p.page.focus('#mute');
  await k.press('Enter');
  assert.equal(await p.page.getAttribute('#mute', 'aria-pressed'), 'true');
  assert.equal(await p.page.textContent('#mute'), 'Sound off');
  await k.press('Tab');
  assert.equal(await p.page.evaluate(() => document.activeElement.id), 'name');
  await k.type('Keys');
  await k.press('Tab'); // the game: Ghost
  await k.press('ArrowRight'); // Maze Escape (arrows belong to the radio group here)
  assert.equal(await p.page.evaluate(() => document.querySelector('input[name=game]:checked').value), 'maze');
  await k.press('Tab'); // size
  await k.press('Tab'); // rank by
  await k.press('Tab'); // play: one race or a match (its boards only once a match is chosen)
  await k.press('Tab'); // Make room
  await k.press('Enter');
  await p.page.waitForSelector('body[data-view="lobby"]');
  await p.page.focus('#start');
  await k.press('Enter');
  const rs = await p.frame((m) => m.type === 'race_start', { what: 'race_start' });
  await p.page.waitForFunction(() => window.__mazerace.game);
  const line = route(rs.board);
  // WASD works as well as the arrows.
  const wasd = { up: 'w', down: 's', left: 'a', right: 'd' };
  for (const a of line) {
    const from = p.frames.length;
    await k.press(wasd[a]);
    await p.frame((m) => m.type === 'move_result', { from, what: 'move_result' });
  }
  await p.page.waitForSelector('#results', { state: 'visible' });
  const live = await p.page.textContent('#announce');
  assert.match(live, /Race over\. You placed 1st\./, 'the live region announces the rank');
  assert.equal(await p.page.evaluate(() => localStorage.getItem('mazerace.muted')), 'true');
  assert.deepEqual(p.problems, []);
  await p.context.close();
});

test('a link to a room that does not exist says so and goes home', async () => {
  const p = await openPage(browser, PHONE, srv.url);
  await p.page.fill('#name', 'Lost');
  await p.page.goto(`${srv.url}/r/QQQQQ`);
  const err = await p.frame((m) => m.type === 'error', { what: 'error' });
  assert.equal(err.code, 'room_not_found');
  await p.page.waitForSelector('#toast:not([hidden])');
  assert.equal(await p.page.textContent('#toast'), err.message);
  await p.page.waitForFunction(() => location.pathname === '/' && document.body.dataset.view === 'home');
  assert.deepEqual(p.problems, []);
  await p.context.close();
});

test('a second tab of the same browser is a second player, not a tug of war over one', async () => {
  const one = await openPage(browser, LAPTOP, srv.url);
  await one.page.fill('#name', 'Twin');
  await one.page.click('#make button[type=submit]');
  await one.page.waitForSelector('body[data-view="lobby"]');
  const link = await one.page.inputValue('#link');
  const two = await one.context.newPage();
  await two.goto(link);
  await two.waitForSelector('body[data-view="lobby"]');
  await one.page.waitForFunction(() => document.querySelectorAll('#players li').length === 2);
  const ids = [await one.page.evaluate(() => window.__mazerace.room.host), await two.evaluate(() => window.__mazerace.room.host)];
  assert.equal(ids[0], ids[1], 'the same room');
  assert.equal(await one.page.textContent('#conn'), 'Online');
  assert.equal(await two.textContent('#conn'), 'Online');
  assert.deepEqual(one.problems, []);
  await one.context.close();
});

test('touch: tap the square next to you, or use the on-screen arrows', async () => {
  const p = await openPage(browser, PHONE, srv.url);
  await p.page.fill('#name', 'Thumbs');
  await p.page.check('input[name=game][value=maze]');
  await p.page.click('#practice');
  const rs = await p.frame((m) => m.type === 'race_start', { what: 'race_start' });
  await p.page.waitForFunction(() => window.__mazerace.game);
  await p.page.waitForSelector('#pad', { state: 'visible' });
  const line = route(rs.board);
  const n = rs.board.n;
  const box = await p.page.locator('#board').boundingBox();
  const step = { up: [-1, 0], down: [1, 0], left: [0, -1], right: [0, 1] };
  for (let i = 0; i < line.length; i++) {
    const from = p.frames.length;
    if (i % 2 === 0) {
      // Tap the middle of the neighbouring square.
      const [r, c] = await p.page.evaluate(() => window.__mazerace.game.pos);
      const [dr, dc] = step[line[i]];
      await p.page.touchscreen.tap(box.x + ((c + dc + 0.5) * box.width) / n, box.y + ((r + dr + 0.5) * box.height) / n);
    } else {
      await p.page.tap(`#pad [data-dir="${line[i]}"]`);
    }
    const r = await p.frame((m) => m.type === 'move_result', { from, what: `move_result ${i}` });
    assert.ok(r.ok);
  }
  await p.page.waitForSelector('#results', { state: 'visible' });
  assert.deepEqual(p.problems, []);
  await p.context.close();
});

test('a page opened on localhost shares the LAN address from /api/urls', async () => {
  const p = await openPage(browser, LAPTOP);
  await p.page.route('**/api/urls', (r) =>
    r.fulfill({
      contentType: 'application/json',
      body: JSON.stringify({ local: 'http://127.0.0.1:7878', lan: ['http://192.168.1.5:7878/'] }),
    }),
  );
  await p.page.goto(srv.url);
  await p.page.fill('#name', 'Lan');
  await p.page.click('#make button[type=submit]');
  await p.page.waitForSelector('body[data-view="lobby"]');
  const code = (await p.page.textContent('#lobby-code')).trim();
  const key = await p.page.evaluate(() => window.__mazerace.room.key);
  const want = `http://192.168.1.5:7878/r/${code}?k=${key}`;
  await p.page.waitForFunction((w) => document.querySelector('#link').value === w, want);
  const qr = await p.page.getAttribute('#qr', 'src');
  assert.equal(qr, `/api/qr.svg?text=${encodeURIComponent(want)}`);
  assert.deepEqual(p.problems, []);
  await p.context.close();
});

test('the same player opened in another browser (4003): this one stops, says so, and takes it back on a click', async () => {
  const one = await openPage(browser, LAPTOP);
  // Every close code this page's sockets see.
  await one.context.addInitScript(() => {
    window.__closes = [];
    const Native = window.WebSocket;
    window.WebSocket = class extends Native {
      constructor(...a) {
        super(...a);
        this.addEventListener('close', (e) => window.__closes.push(e.code));
      }
    };
  });
  await one.page.goto(srv.url);
  await one.page.fill('#name', 'Twice');
  await one.page.check('input[name=game][value=maze]');
  await one.page.click('#practice');
  const rs = await one.frame((m) => m.type === 'race_start', { what: 'race_start' });
  await one.page.waitForFunction(() => window.__mazerace.game);
  const line = route(rs.board);
  await play(one, line, { until: 2 });
  const token = await one.page.evaluate(() => JSON.parse(localStorage.getItem('mazerace.token')));
  assert.equal(typeof token, 'string');

  // A second browser (its own storage) with the same reconnect token resumes the same player.
  const two = await openPage(browser, PHONE);
  await two.context.addInitScript((t) => {
    try {
      localStorage.setItem('mazerace.token', JSON.stringify(t));
      localStorage.setItem('mazerace.name', JSON.stringify('Twice'));
    } catch {
      /* about:blank has no storage */
    }
  }, token);
  await two.page.goto(srv.url);
  const welcome = await two.frame((m) => m.type === 'welcome', { what: 'welcome in the second browser' });
  assert.equal(welcome.resumed, true);
  await two.page.waitForFunction(() => window.__mazerace.game && window.__mazerace.game.steps === 2);

  // The first one was closed with 4003, says where the game went, and does not fight for it.
  await one.page.waitForFunction(() => window.__closes.includes(4003));
  await one.page.waitForFunction(() => document.querySelector('#conn').textContent === 'Playing in another tab');
  await one.page.waitForSelector('#overlay:not([hidden])');
  assert.match(await one.page.textContent('#overlay'), /continued in another tab\. Click here to play in this one/);
  await screenshot(one.page, 'laptop-17-taken-over');
  await play(two, line.slice(2)); // a round trip per move: ample time for a reconnect that must not come
  await two.page.waitForSelector('#results', { state: 'visible' });
  assert.equal(await one.page.evaluate(() => window.__sockets.length), 1, 'no reconnect after 4003');
  assert.equal(await two.page.evaluate(() => window.__sockets.filter((s) => s.readyState !== WebSocket.OPEN).length), 0);

  // A click on the board takes the game back here; now the other one is told.
  const from = one.frames.length;
  await one.page.click('#overlay');
  const back = await one.frame((m) => m.type === 'welcome', { from, what: 'welcome on taking it back' });
  assert.equal(back.resumed, true);
  await one.page.waitForFunction(() => document.querySelector('#conn').textContent === 'Online');
  await two.page.waitForFunction(() => document.querySelector('#conn').textContent === 'Playing in another tab');
  assert.deepEqual(one.problems, []);
  assert.deepEqual(two.problems, []);
  await one.context.close();
  await two.context.close();
});

test('a player joining mid-race watches until the next race, then races', async () => {
  const early = await openPage(browser, LAPTOP, srv.url);
  await early.page.fill('#name', 'Early');
  await early.page.check('input[name=game][value=maze]');
  await early.page.click('#make button[type=submit]');
  await early.page.waitForSelector('body[data-view="lobby"]');
  const link = await early.page.inputValue('#link');
  await early.page.click('#start');
  const rs = await early.frame((m) => m.type === 'race_start', { what: 'race_start' });
  await early.page.waitForFunction(() => window.__mazerace.game);
  const line = route(rs.board);
  await play(early, line, { until: 3 });

  // Late asks to race (not to watch), by the link, after the start.
  const late = await openPage(browser, PHONE, link);
  await late.page.fill('#name', 'Late');
  await late.page.click('#inv-join');
  const snap = await late.frame((m) => m.type === 'snapshot', { what: 'snapshot on joining mid-race' });
  assert.equal(snap.you ?? null, null, 'no game of its own in this race');
  await late.page.waitForFunction(() => window.__mazerace.view === 'play' && window.__mazerace.board);
  const me = await late.page.evaluate(() => window.__mazerace.room.players.find((p) => p.name === 'Late'));
  assert.equal(me.spectator, true, 'the server seats Late as a spectator for now');
  assert.equal(await late.page.evaluate(() => window.__mazerace.game), null);
  assert.equal(await late.page.textContent('#hud-run'), 'Watching');
  assert.equal(await late.page.textContent('#hint'), 'The race had already started: you are watching, and you race in the next one.');
  assert.equal(await late.page.isVisible('#pad'), false);
  const pos = await early.page.evaluate(() => window.__mazerace.game.pos);
  await late.page.waitForFunction(
    ([r, c]) => window.__mazerace.markers.some((m) => m.name === 'Early' && m.pos[0] === r && m.pos[1] === c),
    pos,
  );
  await early.page.waitForFunction(() => /1 watching/.test(document.querySelector('#racers').textContent));
  await screenshot(late.page, 'phone-16-joined-mid-race', { racing: true });

  await play(early, line.slice(3));
  await late.page.waitForSelector('#results', { state: 'visible' });
  const res = await late.frame((m) => m.type === 'results', { what: 'results' });
  assert.deepEqual(
    res.rankings.map((r) => r.name),
    ['Early'],
    'Late was not in this race',
  );

  // The next race has Late in it.
  await early.page.click('#rematch');
  await late.page.waitForSelector('body[data-view="lobby"]');
  await late.page.waitForSelector('#ready', { state: 'visible' });
  await early.page.waitForFunction(() => document.querySelector('#count').textContent === '2 / 16');
  const from = late.frames.length;
  await early.page.click('#start');
  await late.frame((m) => m.type === 'race_start', { from, what: 'the next race_start' });
  await late.page.waitForFunction(() => window.__mazerace.game && window.__mazerace.game.steps === 0);
  assert.equal(await late.page.textContent('#hud-run'), 'Easy 11×11');
  assert.deepEqual(early.problems, []);
  assert.deepEqual(late.problems, []);
  await early.context.close();
  await late.context.close();
});

/** Whether each of home's demo canvases has been drawn on (a pixel that is not transparent). */
const demosDrawn = (p) =>
  p.page.evaluate(() =>
    [...document.querySelectorAll('canvas.demo')].map((c) => {
      if (!c.width || !c.height) return false;
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      for (let i = 3; i < d.length; i += 4) if (d[i]) return true;
      return false;
    }),
  );
/** Two animation frames: whatever the page does after its load has had its turn. */
const settle = (p) => p.page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));

test("home's demo boards are drawn once they scroll near the view, and never on a phone that hides them", async () => {
  const laptop = await openPage(browser, LAPTOP, srv.url);
  await settle(laptop);
  const below = await laptop.page.evaluate(() =>
    [...document.querySelectorAll('canvas.demo')].every((c) => c.getBoundingClientRect().top > innerHeight + 200),
  );
  assert.ok(below, '"How to play" starts below the fold at 1280x800');
  assert.deepEqual(await demosDrawn(laptop), [false, false], 'nothing drawn before a scroll');
  await laptop.page.evaluate(() => document.querySelector('#how-h').scrollIntoView());
  await laptop.page.waitForFunction(() =>
    [...document.querySelectorAll('canvas.demo')].every((c) => {
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      for (let i = 3; i < d.length; i += 4) if (d[i]) return true;
      return false;
    }),
  );
  assert.deepEqual(laptop.problems, []);
  await laptop.context.close();

  // A phone's layout hides the demos (too narrow beside the text): no time spent drawing them.
  const phone = await openPage(browser, PHONE, srv.url);
  await phone.page.evaluate(() => document.querySelector('#how-h').scrollIntoView());
  await settle(phone);
  await settle(phone);
  assert.deepEqual(await demosDrawn(phone), [false, false]);
  assert.deepEqual(phone.problems, []);
  await phone.context.close();
});
