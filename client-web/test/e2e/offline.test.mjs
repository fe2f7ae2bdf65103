// Issue 18 in Debian's Chromium: a page that has loaded keeps working with
// the server gone. Solo practice is built and judged in the page (the
// offline stand-in server), a Ghost vault and a maze are played to the end,
// the local best is kept and marked offline, and when the server comes back
// (on the same address) the page says so and real rooms work again.
// The page's own state is watched (window.__mazerace), since offline there
// are no WebSocket frames to wait on.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, openPage, screenshot, LAPTOP } from './harness.mjs';
import { route } from '../route.mjs';

let srv, browser;
after(async () => {
  await browser?.close();
  await srv?.stop();
});

const keyOf = { up: 'ArrowUp', down: 'ArrowDown', left: 'ArrowLeft', right: 'ArrowRight' };

/** Waits for a fresh race on this page's board and plays the optimal line to the results. */
async function playToTheEnd(page) {
  await page.waitForFunction(() => window.__mazerace.board && window.__mazerace.game && window.__mazerace.game.steps === 0);
  await page.waitForSelector('#overlay', { state: 'hidden' });
  const board = await page.evaluate(() => window.__mazerace.board);
  for (const a of route(board)) {
    const before = await page.evaluate(() => window.__mazerace.game.steps);
    if (a === 'rewind') {
      await page.focus('#rewind');
      await page.keyboard.press('Enter');
      await page.waitForFunction(() => window.__mazerace.game.run === 2);
    } else {
      await page.keyboard.press(keyOf[a]);
      await page.waitForFunction((n) => window.__mazerace.game.steps > n, before);
    }
  }
  await page.waitForSelector('#results', { state: 'visible' });
  return board;
}

test('offline: a vault and a maze with the server gone, the best kept, then rooms again', async () => {
  srv = await startServer();
  browser = await launch();
  const port = Number(new URL(srv.url).port);
  const p = await openPage(browser, LAPTOP, srv.url);
  const { page } = p;
  await page.fill('#name', 'Solo');
  // Offline play is loaded when going offline: from the service worker's cache (127.0.0.1 is a secure context).
  await page.evaluate(() => navigator.serviceWorker.ready);
  await srv.stop();
  srv = null;

  // The server is gone: Play offline builds the vault in the page.
  await page.check('input[name=game][value=ghost]');
  await page.selectOption('#size', 'small');
  await page.click('#offline');
  await page.waitForFunction(() => document.querySelector('#conn').textContent.startsWith('Offline'));
  const vault = await playToTheEnd(page);
  assert.equal(vault.game, 'ghost');
  assert.match(await page.textContent('#mybest'), /\(offline\)/);
  const best = await page.evaluate(() =>
    JSON.parse(localStorage.getItem('mazerace.best.ghost.small') || localStorage.getItem('best.ghost.small') || 'null'),
  );
  assert.equal(best && best.offline, true, 'the local best is kept, marked offline');
  await screenshot(page, 'laptop-40-offline-vault');

  // A maze too, from home.
  await page.click('#leave2');
  await page.waitForSelector('body[data-view="home"]');
  await page.check('input[name=game][value=maze]');
  await page.selectOption('#size', 'easy');
  await page.click('#practice');
  const maze = await playToTheEnd(page);
  assert.equal(maze.game, 'maze');
  await screenshot(page, 'laptop-41-offline-maze');
  const token = await page.evaluate(() =>
    Object.keys(localStorage)
      .filter((k) => /token/.test(k))
      .map((k) => localStorage.getItem(k)),
  );
  assert.ok(
    token.every((t) => t && t !== 'undefined'),
    `no token was clobbered: ${token}`,
  );

  // The server comes back on the same address: the page says so over the
  // results, which stay (issue 35, item 2), and goes online once they are left.
  srv = await startServer({ port });
  await page.waitForFunction(() => /the server is back/.test(document.querySelector('#conn').textContent), null, { timeout: 20000 });
  assert.equal(await page.isVisible('#results'), true, 'the results stay up');
  await page.click('#leave2');
  await page.waitForFunction(() => document.querySelector('#conn').textContent === 'Online', null, { timeout: 20000 });
  await page.waitForSelector('body[data-view="home"]');
  await screenshot(page, 'laptop-42-back-online');
  const from = p.frames.length;
  await page.click('#practice');
  const rs = await p.frame((m) => m.type === 'race_start', { from, what: 'a race_start from the real server' });
  assert.equal(rs.board.game, 'maze');
  await playToTheEnd(page);
  const results = await p.frame((m) => m.type === 'results', { from, what: 'results from the server' });
  assert.equal(results.rankings[0].status, 'finished');
  // The page asked for /version.json while the server was away: those refusals are expected.
  assert.deepEqual(
    p.problems.filter((x) => !/ERR_CONNECTION_REFUSED/.test(x)),
    [],
  );
  await p.context.close();
});
