// axe-core (the npm devDependency, injected into the page) finds no
// violation on any screen: home, lobby, race, results, the daily result and
// leaderboard, a league, the replay; a match's (the lobby's choice, a
// round, the intermission and its hold, the podium); home and the race on a
// phone too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser, openPage, play, playDailyMaze, axe, LAPTOP, PHONE } from './harness.mjs';
import { route } from '../route.mjs';

let srv, browser;
serverAndBrowser((s, b) => ([srv, browser] = [s, b]));

const view = (p, name) => p.page.waitForSelector(`body[data-view="${name}"]`);

/** Every violation on the page now, named by screen, in one assertion. */
async function clean(p, screen) {
  const v = await axe(p.page);
  assert.deepEqual(v, [], `${screen}: ${JSON.stringify(v, null, 1)}`);
}

test('laptop: no axe-core violation on home, lobby, race, results, daily, leaderboard, league and replay', async () => {
  const p = await openPage(browser, LAPTOP, srv.url);
  await p.page.waitForSelector('#daily[data-loaded] #daily-list li');
  await clean(p, 'home');

  await p.page.fill('#name', 'Axel');
  await p.page.check('input[name=game][value=maze]');
  await p.page.selectOption('#size', 'easy');
  await p.page.click('#make button[type=submit]');
  await view(p, 'lobby');
  await p.page.waitForSelector('#rival-form:not([hidden])');
  await p.page.click('#rival-form summary'); // unfolded, so its fields are checked too
  await clean(p, 'lobby');

  const from = p.frames.length;
  await p.page.click('#start');
  const rs = await p.frame((m) => m.type === 'race_start', { from, what: 'race_start' });
  await p.page.waitForFunction(() => window.__mazerace.game && window.__mazerace.game.steps === 0);
  await p.page.waitForSelector('#overlay', { state: 'hidden' });
  const line = route(rs.board);
  await play(p, line, { until: 2 });
  await clean(p, 'race');
  await p.page.click('#leave-race');
  await p.page.waitForSelector('#confirm:not([hidden])');
  await clean(p, 'race, the leave question');
  await p.page.click('#confirm-no');
  await play(p, line.slice(2));
  await p.page.waitForSelector('#results', { state: 'visible' });
  await clean(p, 'results');
  await p.page.click('#leave2');
  await view(p, 'home');

  // The daily: its result card and today's table under the results, then home's leaderboard.
  await playDailyMaze(p);
  await p.page.waitForSelector('#daily-card:not([hidden])');
  await p.page.waitForSelector('#lb-wrap:not([hidden]) #lb tr');
  await clean(p, 'daily result');
  await p.page.click('#watch-mine');
  await view(p, 'replay');
  await p.page.waitForFunction(() => window.__mazerace.replay && window.__mazerace.replay.last > 0);
  await clean(p, 'replay');
  await p.page.click('#rp-back');
  await p.page.click('#leave2');
  await view(p, 'home');
  await p.page.click(`button[aria-label="Top: leaderboard for today's Maze Escape · Easy 11×11"]`);
  await p.page.waitForSelector('#ranks-rows tr');
  await clean(p, 'leaderboard');
  await p.page.click('#ranks-back');

  await p.page.fill('#lname', 'Axe club');
  await p.page.click('#lmake button[type=submit]');
  await view(p, 'league');
  await p.page.waitForFunction(() => !/Loading/.test(document.querySelector('#lg-stand').textContent));
  await clean(p, 'league');
  await p.page.click('#lg-back');
  await view(p, 'home');
  await p.page.waitForSelector('#league-list [data-league]');
  await clean(p, 'home, with a league and a daily played');
  assert.deepEqual(p.problems, []);
  await p.context.close();
});

test('phone: no axe-core violation on home and in a race', async () => {
  const p = await openPage(browser, PHONE, srv.url);
  await p.page.waitForSelector('#daily[data-loaded] #daily-list li');
  await clean(p, 'home (phone)');
  await p.page.fill('#name', 'Pia');
  await p.page.check('input[name=game][value=ghost]');
  await p.page.click('#practice');
  await p.frame((m) => m.type === 'race_start', { what: 'race_start' });
  await p.page.waitForFunction(() => window.__mazerace.game && window.__mazerace.game.steps === 0);
  await p.page.waitForSelector('#overlay', { state: 'hidden' });
  await clean(p, 'race (phone)');
  assert.deepEqual(p.problems, []);
  await p.context.close();
});

test("laptop: no axe-core violation on a match's screens: the lobby's choice, a round, the intermission, held, the podium", async () => {
  const p = await openPage(browser, LAPTOP, srv.url);
  await p.page.fill('#name', 'Mia');
  await p.page.check('input[name=game][value=maze]');
  await p.page.selectOption('#size', 'easy');
  await p.page.click('#make button[type=submit]');
  await view(p, 'lobby');
  await p.page.selectOption('#m-rounds', '3');
  await p.page.waitForFunction(() => window.__mazerace.room.match && window.__mazerace.room.match.rounds === 3);
  await p.page.waitForSelector('#m-plan-wrap:not([hidden])');
  await clean(p, 'lobby, a match chosen');
  let from = p.frames.length;
  await p.page.click('#start');
  for (let round = 1; round <= 3; round++) {
    const rs = await p.frame((m) => m.type === 'race_start', { from, what: `race_start of round ${round}` });
    await p.page.waitForFunction(() => window.__mazerace.game && window.__mazerace.game.steps === 0);
    await p.page.waitForSelector('#overlay', { state: 'hidden' });
    if (round === 1) await clean(p, 'a round under way');
    await play(p, route(rs.board));
    if (round === 3) break;
    await p.page.waitForSelector('#m-host:not([hidden])');
    if (round === 1) {
      await clean(p, 'the intermission');
      const at = p.frames.length;
      await p.page.click('#m-hold');
      await p.frame((m) => m.type === 'intermission' && m.held, { from: at, what: 'the hold' });
      await p.page.waitForFunction(() => /holds the match/.test(document.querySelector('#m-status').textContent));
      assert.ok(await p.page.isDisabled('#m-hold'), 'held once');
      await clean(p, 'the intermission, held');
    }
    from = p.frames.length;
    await p.page.click('#m-next');
  }
  await p.page.waitForSelector('#m-podium:not([hidden]) li');
  await clean(p, 'the podium');
  assert.deepEqual(p.problems, []);
  await p.context.close();
});
