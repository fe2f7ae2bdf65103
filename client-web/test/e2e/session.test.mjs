// Issue 12's bugs and the items that use the server's PROTOCOL-NEXT
// features: a tab closed mid-race and opened again resumes the seat every
// time (one entry per player); renaming after connecting; the clock rule
// from the race when an opponent leaves; give up; the board during the
// countdown; a rematch that starts when everyone is ready.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser, openPage, screenshot, play, LAPTOP, PHONE } from './harness.mjs';
import { route } from '../route.mjs';

let srv, browser;
serverAndBrowser((s, b) => ([srv, browser] = [s, b]));

const view = (p, name) => p.page.waitForSelector(`body[data-view="${name}"]`);

/** Ann makes a `game` room, Bob joins by the link; returns both and the link. */
async function pair(game = 'maze') {
  const ann = await openPage(browser, LAPTOP, srv.url);
  await ann.page.fill('#name', 'Ann');
  await ann.page.check(`input[name=game][value=${game}]`);
  await ann.page.click('#make button[type=submit]');
  await view(ann, 'lobby');
  const link = await ann.page.inputValue('#link');
  const bob = await openPage(browser, PHONE, link);
  await bob.page.fill('#name', 'Bob');
  await bob.page.click('#inv-join');
  await view(bob, 'lobby');
  await ann.page.waitForFunction(() => document.querySelectorAll('#players li').length === 2);
  return { ann, bob, link };
}

async function start(host, other) {
  const from = other.frames.length;
  await host.page.click('#start');
  const rs = await other.frame((m) => m.type === 'race_start', { from, what: 'race_start' });
  await host.page.waitForFunction(() => window.__mazerace.game && window.__mazerace.room.phase === 'racing');
  await other.page.waitForFunction(() => window.__mazerace.game);
  return rs;
}

test('a tab closed mid-race and opened again resumes the seat, every time, and is listed once', async () => {
  const { ann, bob, link } = await pair();
  const rs = await start(ann, bob);
  const line = route(rs.board);
  await play(ann, line, { until: 2 });
  let tab = ann;
  for (let round = 1; round <= 3; round++) {
    await tab.page.close();
    // The same browser (context), a new tab, the room's link, at once.
    const page = await ann.context.newPage();
    const frames = [];
    let onResult = null;
    page.on('websocket', (ws) =>
      ws.on('framereceived', (f) => {
        const m = JSON.parse(f.payload);
        frames.push(m);
        if (m.type === 'move_result' && onResult) onResult(m);
      }),
    );
    await page.goto(link);
    await page.waitForFunction((n) => window.__mazerace.game && window.__mazerace.game.steps === n, 1 + round);
    const welcome = frames.find((m) => m.type === 'welcome');
    assert.equal(welcome.resumed, true, `round ${round}: resumed`);
    const players = await page.evaluate(() => window.__mazerace.room.players.map((p) => [p.name, p.spectator]));
    assert.deepEqual(
      players.sort(),
      [
        ['Ann', false],
        ['Bob', false],
      ],
      `round ${round}: one Ann, racing`,
    );
    await bob.page.waitForFunction(
      () => [...document.querySelectorAll('#racers .name')].filter((n) => n.textContent === 'Ann').length === 1,
    );
    // The race screen is loaded with the room (app.js loadRoomScreens): wait for its HUD.
    await page.waitForFunction(() => document.querySelector('#hud-run').textContent !== '');
    assert.equal(await page.textContent('#hud-run'), 'Easy 11×11', 'racing, not watching');
    tab = { page };
    // One more move on the resumed seat, answered before the tab closes again.
    const answered = new Promise((ok) => (onResult = ok));
    await page.keyboard.press({ up: 'ArrowUp', down: 'ArrowDown', left: 'ArrowLeft', right: 'ArrowRight' }[line[1 + round]]);
    assert.equal((await answered).ok, true);
  }
  await screenshot(tab.page, 'laptop-30-tab-reopened-resumed', { racing: true });
  await ann.context.close();
  await bob.context.close();
});

test('renaming after connecting reaches the server; the page shows the confirmed name', async () => {
  const p = await openPage(browser, LAPTOP, srv.url);
  await p.page.fill('#name', 'Ann');
  await p.page.click('#make button[type=submit]');
  await view(p, 'lobby');
  assert.equal(await p.page.textContent('#me-name'), 'Ann');
  await p.page.click('#leave');
  await view(p, 'home');
  await p.page.fill('#name', 'Bo');
  const from = p.frames.length;
  await p.page.press('#name', 'Enter');
  const renamed = await p.frame((m) => m.type === 'renamed', { from, what: 'renamed' });
  assert.equal(renamed.name, 'Bo');
  await p.page.waitForFunction(() => document.querySelector('#me-name').textContent === 'Bo');
  await p.page.click('#make button[type=submit]');
  await view(p, 'lobby');
  assert.equal(await p.page.textContent('#players .name'), 'Bo');
  // A reload resumes as Bo (the hello says the new name, the welcome confirms it).
  const reload = p.frames.length;
  await p.page.reload();
  const w = await p.frame((m) => m.type === 'welcome', { from: reload, what: 'welcome' });
  assert.equal(w.name, 'Bo');
  assert.equal(w.resumed, true);
  await screenshot(p.page, 'laptop-31-renamed');
  // A refused name says why and keeps the old one.
  await p.page.click('#leave');
  await view(p, 'home');
  await p.page.fill('#name', 'x\u202ey');
  await p.page.press('#name', 'Enter');
  await p.page.waitForSelector('#name-err:not([hidden])');
  assert.equal(await p.page.textContent('#me-name'), 'Bo');
  assert.deepEqual(p.problems, []);
  await p.context.close();
});

test('the clock rule comes from the race: an opponent leaving mid-race does not make it jump', async () => {
  const { ann, bob } = await pair();
  const rs = await start(ann, bob);
  assert.equal(rs.clock, 'start');
  await play(ann, route(rs.board), { until: 2 });
  await bob.page.click('#leave-race');
  await bob.page.click('#confirm-yes'); // leaving a race asks first
  await view(bob, 'home');
  await ann.page.waitForFunction(() => window.__mazerace.room.players.length === 1);
  assert.equal(await ann.page.evaluate(() => window.__mazerace.clock), 'start', 'the rule of the race');
  const t1 = await ann.page.textContent('#hud-time');
  await ann.page.waitForFunction((t) => document.querySelector('#hud-time').textContent > t, t1);
  assert.notEqual(await ann.page.textContent('#hud-time'), '0:00.0', 'no reset to a first-move clock');
  assert.deepEqual(ann.problems, []);
  await ann.context.close();
  await bob.context.close();
});

test('1. give up in run two ends the run at once, not finished', async () => {
  const p = await openPage(browser, LAPTOP, srv.url);
  await p.page.fill('#name', 'Quitter');
  await p.page.click('#practice');
  const rs = await p.frame((m) => m.type === 'race_start', { what: 'race_start' });
  assert.equal(rs.clock, 'first_move');
  await p.page.waitForFunction(() => window.__mazerace.game);
  await play(p, route(rs.board), { until: 1 });
  await p.page.click('#rewind');
  await p.page.click('#confirm-yes');
  await p.page.waitForSelector('#giveup', { state: 'visible' });
  await screenshot(p.page, 'laptop-32-give-up-button', { racing: true });
  await p.page.click('#giveup');
  const res = await p.frame((m) => m.type === 'results', { what: 'results' });
  assert.equal(res.rankings[0].status, 'gave_up');
  await p.page.waitForSelector('#results', { state: 'visible' });
  assert.equal(await p.page.textContent('#rankings td.why'), 'Gave up');
  await screenshot(p.page, 'laptop-33-gave-up-results');
  assert.deepEqual(p.problems, []);
  await p.context.close();
});

test('8. the board during the countdown; a rematch keeps everyone and starts when all are ready', async () => {
  const { ann, bob } = await pair('ghost');
  const from = bob.frames.length;
  await ann.page.click('#start');
  const cd = await bob.frame((m) => m.type === 'countdown', { from, what: 'countdown' });
  assert.ok(cd.board, 'the countdown carries the board');
  await bob.page.waitForFunction(() => window.__mazerace.board && document.querySelector('#overlay.study:not([hidden])'));
  await screenshot(bob.page, 'phone-30-countdown-study-board');
  const rs = await bob.frame((m) => m.type === 'race_start', { from, what: 'race_start' });
  assert.equal(rs.board.seed, cd.board.seed);
  await ann.page.waitForFunction(() => window.__mazerace.game);
  await bob.page.waitForFunction(() => window.__mazerace.game);
  const line = route(rs.board);
  await play(ann, line);
  await play(bob, line);
  await ann.page.waitForSelector('#results', { state: 'visible' });
  await ann.page.click('#rematch');
  await view(ann, 'lobby');
  await view(bob, 'lobby');
  const again = bob.frames.length;
  await bob.page.click('#ready');
  await ann.page.click('#ready');
  const cd2 = await bob.frame((m) => m.type === 'countdown', { from: again, what: 'countdown without a start' });
  assert.ok(cd2.board);
  await bob.frame((m) => m.type === 'race_start', { from: again, what: 'the rematch race_start' });
  await ann.page.waitForFunction(() => window.__mazerace.game && window.__mazerace.game.steps === 0);
  assert.equal(await ann.page.evaluate(() => window.__mazerace.room.players.length), 2, 'everyone is still in the room');
  assert.deepEqual(ann.problems, []);
  assert.deepEqual(bob.problems, []);
  await ann.context.close();
  await bob.context.close();
});
