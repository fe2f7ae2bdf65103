// The daily challenge from the page: the panel with its UTC countdown, a
// ranked run with rank, streak and share text, a practice run clearly marked,
// and the leaderboard, for two players.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser, openPage, screenshot, play, LAPTOP, PHONE } from './harness.mjs';
import { clock } from '../../public/js/format.js';
import { route } from '../route.mjs';

let srv, browser;
serverAndBrowser((s, b) => ([srv, browser] = [s, b]));

/** Plays one of today's boards (maze easy unless told) from the daily panel; returns race_start and daily_result. */
async function playDaily(p, board = 'Maze Escape · Easy 11×11') {
  const from = p.frames.length;
  await p.page.click(`button[aria-label="Play today's ${board}"]`);
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
  await daisy.page.waitForSelector('#daily[data-loaded] #daily-list li');
  assert.equal(await daisy.page.$$eval('#daily-list li:not(.game)', (li) => li.length), 6, 'three sizes of each game');
  assert.match(await daisy.page.textContent('#daily'), /New boards in \d+:\d\d:\d\d \(at 00:00 UTC\)/);
  await daisy.page.fill('#name', 'Daisy');

  const first = await playDaily(daisy);
  assert.equal(first.dr.ranked, true);
  assert.equal(await daisy.page.textContent('#daily-head'), `Today's rank: #1 of ${first.dr.entrants}`);
  assert.match(await daisy.page.textContent('#daily-meta'), /Streak: 1 day\b/);
  const share = await daisy.page.textContent('#share');
  // The server's line, and the site's address under it (on loopback with no LAN: the page's own).
  assert.equal(share, `${first.dr.share}\n${srv.url}/`);
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
  await pat.page.waitForSelector('#daily[data-loaded] #daily-list li');
  await screenshot(pat.page, 'phone-12-home-daily');
  await pat.page.fill('#name', 'Pat');
  const other = await playDaily(pat);
  assert.equal(other.dr.entrants, 2);
  assert.ok([1, 2].includes(other.dr.rank));
  await pat.page.waitForFunction(() => document.querySelectorAll('#lb tr').length === 2);
  await screenshot(pat.page, 'phone-13-daily-result');
  await pat.page.locator('#lb-wrap').scrollIntoViewIfNeeded();
  await screenshot(pat.page, 'phone-13b-daily-leaderboard');

  // The table from the home page.
  await daisy.page.click('#leave2');
  await daisy.page.waitForSelector('body[data-view="home"]');
  await daisy.page.click('button[aria-label="Top: leaderboard for today\'s Maze Escape · Easy 11×11"]');
  await daisy.page.waitForSelector('body[data-view="ranks"]');
  await daisy.page.waitForFunction(() => document.querySelectorAll('#ranks-rows tr').length === 2);
  const names = await daisy.page.$$eval('#ranks-rows td:nth-child(2)', (td) => td.map((t) => t.textContent));
  assert.deepEqual([...names].sort(), ['Daisy', 'Pat']);
  assert.match(await daisy.page.textContent('#ranks-meta'), /2 entrants/);
  await screenshot(daisy.page, 'laptop-13-leaderboard');
  assert.deepEqual(daisy.problems, []);
  assert.deepEqual(pat.problems, []);
});

test("replay: watch my own run to the end; another player's run today is hidden until tomorrow", async () => {
  const rita = await openPage(browser, LAPTOP, srv.url);
  await rita.page.waitForSelector('#daily[data-loaded] #daily-list li');
  await rita.page.fill('#name', 'Rita');
  const { rs, dr } = await playDaily(rita);
  assert.equal(dr.ranked, true);
  assert.ok(Number.isInteger(dr.run_id), 'daily_result names the stored run');

  // Watch my run: it plays by itself (no reduced motion here); 4x to keep the test short.
  await rita.page.click('#watch-mine');
  await rita.page.waitForSelector('body[data-view="replay"]');
  await rita.page.waitForFunction(() => window.__mazerace.replay && window.__mazerace.replay.last > 0);
  assert.equal(await rita.page.textContent('#rp-who'), 'Rita');
  assert.equal(await rita.page.textContent('#rp-h'), 'Maze Escape Easy 11×11');
  assert.match(await rita.page.textContent('#rp-chips'), new RegExp(`Ranked.*${dr.steps} moves.*${clock(dr.time_ms).replace('.', '\\.')}`));
  const early = await rita.page.evaluate(() => window.__mazerace.replay);
  assert.equal(early.playing, true, 'the replay starts playing');
  assert.ok(early.i < early.last);
  await rita.page.selectOption('#rp-speed', '4');
  await rita.page.waitForFunction(
    () => {
      const r = window.__mazerace.replay;
      return r.i === r.last && !r.playing;
    },
    null,
    { timeout: 30000 },
  );
  const end = await rita.page.evaluate(() => window.__mazerace.replay);
  assert.equal(end.last, dr.steps, 'one frame per stored move');
  assert.equal(end.frame.steps, dr.steps, 'the replay ends on the steps the server counted');
  assert.equal(end.frame.status, 'won');
  assert.deepEqual(end.frame.pos, rs.board.exit);
  assert.equal(await rita.page.textContent('#rp-move'), `Move ${dr.steps} of ${dr.steps}`);
  assert.match(await rita.page.textContent('#rp-note'), new RegExp(`reaches the exit in ${dr.steps} moves, as recorded`));
  assert.equal(await rita.page.textContent('#rp-toggle'), 'Play again');
  await screenshot(rita.page, 'laptop-14-replay-end');
  // Step with the buttons and the keyboard.
  await rita.page.click('#rp-first');
  await rita.page.waitForFunction(() => window.__mazerace.replay.i === 0);
  assert.equal(await rita.page.textContent('#rp-move'), `Move 0 of ${dr.steps}`);
  assert.equal(await rita.page.isDisabled('#rp-prev'), true);
  await rita.page.focus('#rp-h');
  await rita.page.keyboard.press('ArrowRight');
  await rita.page.keyboard.press('ArrowRight');
  await rita.page.click('#rp-prev');
  await rita.page.waitForFunction(() => window.__mazerace.replay.i === 1 && window.__mazerace.replay.frame.steps === 1);
  await rita.page.fill('#rp-seek', String(Math.floor(dr.steps / 2)));
  await rita.page.waitForFunction((k) => window.__mazerace.replay.i === k, Math.floor(dr.steps / 2));
  assert.equal(await rita.page.evaluate(() => window.__mazerace.replay.playing), false, 'seeking pauses');
  await screenshot(rita.page, 'laptop-15-replay-mid');

  // Back to the results; another player's run on today's board is not shown before tomorrow:
  // its Watch is disabled with that reason beside it (issue 23), and the server agrees (403).
  await rita.page.click('#rp-back');
  await rita.page.waitForSelector('body[data-view="play"] #results:not([hidden])');
  const lb = await rita.frame((m) => m.type === 'leaderboard' && m.entries.length >= 3, { what: 'leaderboard with three' });
  await rita.page.waitForSelector('#lb tr:not(.me) button.watch');
  const other = await rita.page.$eval('#lb tr:not(.me) td:nth-child(2)', (td) => td.textContent);
  assert.ok(['Daisy', 'Pat'].includes(other), other);
  const theirs = lb.entries.find((e) => e.name === other);
  const res = await fetch(`${srv.url}/api/daily/runs/${theirs.run_id}`);
  assert.equal(res.status, 403);
  assert.match((await res.json()).error, /shown from tomorrow/);
  const watch = await rita.page.$eval('#lb tr:not(.me) button.watch', (b) => ({
    disabled: b.disabled,
    why: document.getElementById(b.getAttribute('aria-describedby'))?.textContent,
  }));
  assert.deepEqual(watch, { disabled: true, why: 'from tomorrow' });
  assert.equal(await rita.page.isDisabled('#lb tr.me button.watch'), false, 'my own run is watchable at once');
  await screenshot(rita.page, 'laptop-16-watch-from-tomorrow');
  assert.deepEqual(rita.problems, [], 'no refused fetch: the page never asks for a hidden run');
  await rita.context.close();
});

test('replay on a phone with reduced motion: a vault run with its rewind, opened at the end', async () => {
  const gus = await openPage(browser, PHONE, srv.url);
  await gus.page.emulateMedia({ reducedMotion: 'reduce' });
  await gus.page.waitForSelector('#daily[data-loaded] #daily-list li');
  await gus.page.fill('#name', 'Gus');
  const { rs, dr } = await playDaily(gus, 'Ghost · Small 6×6');
  assert.equal(dr.finished, true);
  await gus.page.click('#watch-mine');
  await gus.page.waitForFunction(() => window.__mazerace.replay && window.__mazerace.replay.last > 0);
  // Reduced motion: no animation, the whole run at once.
  const r = await gus.page.evaluate(() => window.__mazerace.replay);
  assert.equal(r.playing, false);
  assert.equal(r.i, r.last);
  assert.equal(r.last, dr.steps + 1, 'every step and the rewind');
  assert.deepEqual([r.frame.steps, r.frame.status, r.frame.run], [dr.steps, 'won', 2]);
  assert.deepEqual(r.frame.pos, rs.board.flag);
  assert.equal(await gus.page.textContent('#rp-move'), `Step ${dr.steps} of ${dr.steps}`);
  assert.equal(await gus.page.textContent('#rp-run'), 'Run 2 of 2');
  await screenshot(gus.page, 'phone-14-replay-ghost');
  // Back to the start of run one with the seek bar (a phone has no start and end buttons), then
  // played (a person asked for it) at 4x to the flag again.
  assert.equal(await gus.page.isVisible('#rp-first'), false);
  await gus.page.fill('#rp-seek', '0');
  await gus.page.waitForFunction(() => window.__mazerace.replay.i === 0);
  assert.equal(await gus.page.textContent('#rp-run'), 'Run 1 of 2');
  await gus.page.selectOption('#rp-speed', '4');
  await gus.page.click('#rp-toggle');
  await gus.page.waitForFunction(() => window.__mazerace.replay.frame.run === 2);
  await screenshot(gus.page, 'phone-15-replay-ghost-run-two');
  await gus.page.waitForFunction(
    () => {
      const x = window.__mazerace.replay;
      return x.i === x.last && !x.playing;
    },
    null,
    { timeout: 30000 },
  );
  assert.equal(await gus.page.evaluate(() => window.__mazerace.replay.frame.steps), dr.steps);
  assert.deepEqual(gus.problems, []);
  await gus.context.close();
});
