// Leagues in Debian's Chromium (issue 15): Ann makes a league (its name has
// markup, shown as text), Bob opens its /l/CODE link on a phone and joins
// from the join card, both play today's maze, and the league's table and
// standings list Ann first and Bob second; the daily card says each one's
// place in the league, and Bob leaves.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser, openPage, screenshot, playDailyMaze, LAPTOP, PHONE } from './harness.mjs';

let srv, browser;
serverAndBrowser((s, b) => ([srv, browser] = [s, b]));

const LEAGUE = '<b>Friday</b> club';

/** Today's easy maze (harness.mjs `playDailyMaze`), then its result card. */
async function playMaze(p, opts) {
  const dr = await playDailyMaze(p, opts);
  await p.page.waitForSelector('#daily-card', { state: 'visible' });
  return dr;
}

const texts = (page, sel) => page.$$eval(sel, (els) => els.map((e) => e.textContent));

test('a league: make, join by link, play the daily, the table and standings in order, leave', async () => {
  const ann = await openPage(browser, LAPTOP, srv.url);
  await ann.page.fill('#name', 'Ann');
  await ann.page.fill('#lname', LEAGUE);
  await ann.page.click('#lmake button[type=submit]');
  const made = await ann.frame((m) => m.type === 'league', { what: 'league' });
  assert.equal(made.name, LEAGUE);
  assert.equal(made.members, 1);
  await ann.page.waitForSelector('body[data-view="league"]');
  assert.equal(new URL(ann.page.url()).pathname, `/l/${made.code}`);
  assert.equal(await ann.page.textContent('#lg-h'), LEAGUE, 'the name is text');
  assert.equal(await ann.page.$$eval('#lg-h b, #league b', (b) => b.length), 0, 'no markup from the name');
  const link = await ann.page.inputValue('#lg-link');
  assert.match(made.key, /^[0-9a-f]{16}$/);
  assert.equal(link, `${srv.url}/l/${made.code}?k=${made.key}`, 'the link carries the invite key');

  // Bob opens the link on a phone: the join card names the league and who is in; Enter joins.
  const bob = await openPage(browser, PHONE, link);
  await bob.page.waitForFunction((name) => document.querySelector('#linvite:not([hidden])')?.textContent.includes(name), LEAGUE);
  assert.match(await bob.page.textContent('#linvite'), /In it \(1\): Ann/);
  await screenshot(bob.page, 'phone-50-league-invite');
  await bob.page.fill('#name', 'Bob');
  await bob.page.press('#name', 'Enter');
  const joined = await bob.frame((m) => m.type === 'league', { what: 'league after the join' });
  assert.equal(joined.code, made.code);
  assert.equal(joined.members, 2);
  await bob.page.waitForSelector('body[data-view="league"]');

  // Both play today's easy maze: Ann the shortest route, Bob two moves more.
  await ann.page.click('#lg-back');
  await ann.page.waitForSelector('body[data-view="home"] #daily-list li');
  const a = await playMaze(ann);
  assert.deepEqual(
    a.leagues.map((l) => [l.code, l.rank, l.entrants]),
    [[made.code, 1, 1]],
  );
  await bob.page.click('#lg-back');
  await bob.page.waitForSelector('body[data-view="home"] #daily-list li');
  const b = await playMaze(bob, { detour: true });
  assert.equal(b.steps, a.steps + 2);
  assert.deepEqual(
    b.leagues.map((l) => [l.code, l.rank, l.entrants]),
    [[made.code, 2, 2]],
  );
  // The daily card says both places, and the league's share line with its place.
  const places = await texts(bob.page, '#daily-places li');
  assert.deepEqual(places, [`Everyone#2 of ${b.entrants}`, `${LEAGUE}#2 of 2Copy`]);
  assert.match(b.leagues[0].share, /#2 of 2$/);
  await bob.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: srv.url });
  await bob.page.click('#daily-places button');
  // The league's line, and the site's address on a line of its own.
  assert.equal(await bob.page.evaluate(() => navigator.clipboard.readText()), `${b.leagues[0].share}\n${srv.url}/`);
  await screenshot(bob.page, 'phone-51-league-daily-result');

  // Ann's home shows her standing today; her league's page lists Ann then Bob.
  await ann.page.click('#leave2');
  await ann.page.waitForFunction(() => /#1 of 2 today/.test(document.querySelector('#league-list').textContent));
  await screenshot(ann.page, 'laptop-50-home-leagues');
  await ann.page.click(`#league-list li[data-league="${made.code}"] button`);
  await ann.page.waitForSelector('body[data-view="league"]');
  await ann.page.waitForFunction(() => document.querySelectorAll('#lg-stand tr').length === 2);
  const stand = await ann.page.$$eval('#lg-stand tr', (tr) => tr.map((r) => [...r.cells].map((c) => c.textContent)));
  // Points: 1 for the board + 1 for each member beaten there; one day played, one win for Ann.
  // Ann made the league: she owns it, and may remove Bob (not herself).
  assert.deepEqual(stand, [
    ['1', 'Ann', '2', '1', '1', '1', ''],
    ['2', 'Bob', '1', '0', '1', '1', 'Remove'],
  ]);
  assert.equal(await ann.page.getAttribute('#lg-stand tr:first-child', 'class'), 'me');
  const maze = '#lg-boards [data-board="maze.easy"] tbody tr';
  await ann.page.waitForFunction((sel) => document.querySelectorAll(sel).length === 2, maze);
  const table = await ann.page.$$eval(maze, (tr) => tr.map((r) => [...r.cells].map((c) => c.textContent).slice(0, 3)));
  assert.deepEqual(table, [
    ['1', 'Ann', String(a.steps)],
    ['2', 'Bob', String(b.steps)],
  ]);
  assert.match(await ann.page.textContent('#lg-boards [data-board="ghost.small"]'), /Nobody has played it yet/);
  await screenshot(ann.page, 'laptop-51-league-page');

  // The 30-day window asks again and says the same.
  const from = ann.frames.length;
  await ann.page.click('#lg-30');
  const s30 = await ann.frame((m) => m.type === 'league_standings' && m.days === 30, { from, what: 'the 30-day standings' });
  assert.deepEqual(
    s30.lines.map((l) => l.name),
    ['Ann', 'Bob'],
  );
  assert.equal(await ann.page.getAttribute('#lg-30', 'aria-pressed'), 'true');

  // Bob leaves from the league page: home, and no league in his list.
  await bob.page.click('#leave2');
  await bob.page.waitForSelector(`#league-list li[data-league="${made.code}"]`);
  await bob.page.click(`#league-list li[data-league="${made.code}"] button`);
  await bob.page.waitForSelector('body[data-view="league"]');
  await screenshot(bob.page, 'phone-52-league-page');
  await bob.page.waitForFunction(() => document.querySelectorAll('#lg-stand tr').length === 2);
  assert.equal(await bob.page.$$eval('#lg-stand button', (b) => b.length), 0, 'only the owner has Remove buttons');
  await bob.page.click('#lg-leave');
  await bob.frame((m) => m.type === 'league_left' && m.left === true, { what: 'league_left' });
  await bob.page.waitForSelector('body[data-view="home"]');
  await bob.page.waitForFunction(() => /No leagues yet/.test(document.querySelector('#league-list').textContent));

  assert.deepEqual(ann.problems, []);
  assert.deepEqual(bob.problems, []);
  await ann.context.close();
  await bob.context.close();
});
