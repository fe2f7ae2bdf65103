// Racing a stored run (issue 16) from the page: after today's daily, "Race
// the #1" on the result card races the day's best run (Ann's, who played
// first and faster) as a rival drawn like any racer with a "replay" mark,
// and the results rank me against its stored time; "Race" on my line of the
// day's table races my own run from the home page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser, openPage, screenshot, play, playDailyMaze, LAPTOP } from './harness.mjs';
import { route } from '../route.mjs';
import { clock } from '../../public/js/format.js';

let srv, browser;
serverAndBrowser((s, b) => ([srv, browser] = [s, b]));

/** As `name`, today's easy maze from the home panel (harness.mjs `playDailyMaze`). */
async function playDaily(p, name, opts) {
  await p.page.waitForSelector('#daily[data-loaded] #daily-list li');
  await p.page.fill('#name', name);
  return playDailyMaze(p, opts);
}

test('race the #1 after a daily: the rival races beside me and the results rank us', async () => {
  const ann = await openPage(browser, LAPTOP, srv.url);
  const best = await playDaily(ann, 'Ann');
  assert.equal(best.rank, 1);
  await ann.page.close();

  const p = await openPage(browser, LAPTOP, srv.url);
  const dr = await playDaily(p, 'Vera', { detour: true });
  assert.equal(dr.rank, 2, 'two steps more than Ann');
  await p.page.waitForSelector('#race-rival:not([hidden])');
  assert.equal(await p.page.textContent('#race-rival'), 'Race the #1');

  let from = p.frames.length;
  await p.page.click('#race-rival');
  const room = await p.frame((m) => m.type === 'room' && m.players.some((x) => x.rival), { from, what: 'room with the rival' });
  const rival = room.players.find((x) => x.rival);
  assert.equal(rival.run_id, best.run_id, "the #1 is Ann's stored run");
  assert.equal(room.ranked, false, 'never a ranked attempt');
  const rs2 = await p.frame((m) => m.type === 'race_start', { from, what: 'the rival race' });
  assert.equal(rs2.clock, 'start');
  await p.page.waitForFunction(() => window.__mazerace.game && window.__mazerace.game.steps === 0);
  // A person's reaction: the first move when the race's clock (from the start signal) shows 0:00.6.
  await p.page.waitForFunction(() => /^0:00\.[6-9]|^0:0[1-9]/.test(document.querySelector('#hud-time').textContent));
  const line = route(rs2.board);
  await play(p, line, { until: Math.floor(line.length / 2) });
  await p.page.waitForSelector(`#racers li[data-id="${rival.id}"] .badge`);
  assert.equal(await p.page.textContent(`#racers li[data-id="${rival.id}"] .badge`), 'replay');
  assert.equal(await p.page.textContent(`#racers li[data-id="${rival.id}"] .name`), 'Ann');
  await screenshot(p.page, 'laptop-40-rival-race', { racing: true });
  const fin = await p.frame((m) => m.type === 'finished' && m.player_id === rival.id, { from, what: 'the rival finishes' });
  assert.equal(fin.time_ms, best.time_ms, 'at exactly its stored time');
  await play(p, line.slice(Math.floor(line.length / 2)));
  const res = await p.frame((m) => m.type === 'results', { from, what: 'results' });
  const r = res.rankings.find((x) => x.rival);
  assert.equal(r.time_ms, best.time_ms);
  assert.equal(r.steps, best.steps);
  assert.equal(res.rankings.length, 2);
  await p.page.waitForSelector('#rankings .badge');
  assert.match(await p.page.textContent('#rankings'), /Ann\s*replay/);
  // One time per run: the card under the results says the table's time for my run (issue 23).
  const mine = res.rankings.find((x) => !x.rival && x.name === 'Vera');
  // The server's two clocks for this one run: the race's (from the start signal) and the stored daily's (from the first move).
  const stored = await p.frame((m) => m.type === 'daily_result', { from, what: "the practice run's daily_result" });
  assert.notEqual(clock(stored.time_ms), clock(mine.time_ms), 'the two differ by the reaction time');
  await p.page.waitForSelector('#daily-card:not([hidden]) #daily-meta .pill');
  const chips = await p.page.$$eval('#daily-meta .pill', (ps) => ps.map((x) => x.textContent));
  const shown = await p.page.$eval('#rankings tr.me td:nth-child(4)', (td) => td.textContent);
  assert.ok(chips.includes(shown), `the card (${chips}) says the table's ${shown}`);
  assert.equal(shown, clock(mine.time_ms));
  await screenshot(p.page, 'laptop-41-rival-results');

  // "Race" on my line of today's table, from the home page's leaderboard.
  await p.page.click('#leave2');
  await p.page.waitForSelector('body[data-view="home"]');
  await p.page.click('button[aria-label="Top: leaderboard for today\'s Maze Escape · Easy 11×11"]');
  await p.page.waitForSelector('#ranks-rows button[aria-label="Race my run"]');
  from = p.frames.length;
  await p.page.click('#ranks-rows button[aria-label="Race my run"]');
  const room3 = await p.frame((m) => m.type === 'room' && m.players.some((x) => x.rival), { from, what: 'a room with my run' });
  assert.equal(room3.players.find((x) => x.rival).run_id, dr.run_id);
  await p.frame((m) => m.type === 'race_start', { from, what: 'the race from the table' });
  assert.deepEqual(p.problems, []);
});
