// The daily challenge from the page: the panel with its UTC countdown, a
// ranked run with rank, streak and share text, a practice run clearly marked,
// and the leaderboard, for two players.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, openPage, screenshot, play, LAPTOP, PHONE, SHOTS } from './harness.mjs';
import { route } from '../route.mjs';

let srv, browser;
before(async () => {
  srv = await startServer();
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await srv?.stop();
  console.log(`screenshots: ${SHOTS}`);
});

/** Plays today's maze easy board from the daily panel; returns the daily_result. */
async function playDaily(p) {
  const from = p.frames.length;
  await p.page.click('button[aria-label="Play today\'s Maze Escape · Easy 11×11"]');
  const rs = await p.frame((m) => m.type === 'race_start', { from, what: 'race_start' });
  await p.page.waitForFunction(() => window.__mazerace.game && window.__mazerace.game.steps === 0);
  await play(p, route(rs.board));
  const dr = await p.frame((m) => m.type === 'daily_result', { from, what: 'daily_result' });
  await p.page.waitForSelector('#daily-card', { state: 'visible' });
  return { rs, dr };
}

test('daily panel, a ranked run, a practice run, the leaderboard', async () => {
  const daisy = await openPage(browser, LAPTOP, srv.url);
  await daisy.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: srv.url });
  await daisy.page.waitForSelector('#daily:not([hidden]) #daily-list li');
  assert.equal(await daisy.page.$$eval('#daily-list li:not(.game)', (li) => li.length), 6, 'three sizes of each game');
  assert.match(await daisy.page.textContent('#daily'), /New boards in \d+:\d\d:\d\d \(at 00:00 UTC\)/);
  await daisy.page.fill('#name', 'Daisy');

  const first = await playDaily(daisy);
  assert.equal(first.dr.ranked, true);
  assert.equal(await daisy.page.textContent('#daily-head'), `#1 of ${first.dr.entrants} today`);
  assert.match(await daisy.page.textContent('#daily-meta'), /Streak: 1 day\b/);
  const share = await daisy.page.textContent('#share');
  assert.equal(share, first.dr.share);
  assert.ok(share.includes(first.dr.date));
  await daisy.page.click('#copy-share');
  assert.equal(await daisy.page.evaluate(() => navigator.clipboard.readText()), share);
  await daisy.page.waitForSelector('#lb tr.me');
  assert.equal(await daisy.page.textContent('#lb tr.me td:nth-child(2)'), 'Daisy');
  await screenshot(daisy.page, 'laptop-12-daily-result');

  // A second try the same day is practice, and says so.
  const from = daisy.frames.length;
  await daisy.page.click('#again');
  const rs2 = await daisy.frame((m) => m.type === 'race_start', { from, what: 'practice race_start' });
  assert.equal(rs2.board.seed, first.rs.board.seed, 'the same daily board');
  await daisy.page.waitForFunction(() => window.__mazerace.game && window.__mazerace.game.steps === 0);
  await play(daisy, route(rs2.board));
  const dr2 = await daisy.frame((m) => m.type === 'daily_result', { from, what: 'practice daily_result' });
  assert.equal(dr2.ranked, false);
  await daisy.page.waitForFunction(() => document.querySelector('#daily-head').textContent === 'Practice run (not ranked)');

  // Someone else on a phone.
  const pat = await openPage(browser, PHONE, srv.url);
  await pat.page.waitForSelector('#daily:not([hidden]) #daily-list li');
  await screenshot(pat.page, 'phone-12-home-daily');
  await pat.page.fill('#name', 'Pat');
  const other = await playDaily(pat);
  assert.equal(other.dr.entrants, 2);
  assert.ok([1, 2].includes(other.dr.rank));
  await pat.page.waitForFunction(() => document.querySelectorAll('#lb tr').length === 2);
  await screenshot(pat.page, 'phone-13-daily-result');

  // The table from the home page.
  await daisy.page.click('#leave2');
  await daisy.page.waitForSelector('body[data-view="home"]');
  await daisy.page.click('button[aria-label="Leaderboard for today\'s Maze Escape · Easy 11×11"]');
  await daisy.page.waitForSelector('body[data-view="ranks"]');
  await daisy.page.waitForFunction(() => document.querySelectorAll('#ranks-rows tr').length === 2);
  const names = await daisy.page.$$eval('#ranks-rows td:nth-child(2)', (td) => td.map((t) => t.textContent));
  assert.deepEqual([...names].sort(), ['Daisy', 'Pat']);
  assert.match(await daisy.page.textContent('#ranks-meta'), /2 entrants/);
  await screenshot(daisy.page, 'laptop-13-leaderboard');
  assert.deepEqual(daisy.problems, []);
  assert.deepEqual(pat.problems, []);
});
