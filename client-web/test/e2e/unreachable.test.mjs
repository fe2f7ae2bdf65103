// Issue 23, "the server is unreachable" and the share line's link, each with
// a server of its own (this file stops one): a reload served by the service
// worker with the server gone says so in a banner that offers offline play,
// Practice alone goes offline by itself, and offline the header keeps the
// player's name on one line; a server run with --public-url puts that
// address in the invite link and the daily share line.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, openPage, screenshot, playDailyMaze, LAPTOP, PHONE } from './harness.mjs';

let srv, browser;
after(async () => {
  await browser?.close();
  await srv?.stop();
});

test('the server gone: a banner offers offline play, Practice alone goes offline by itself, the name stays in the header', async () => {
  srv = await startServer();
  browser = await launch();
  const p = await openPage(browser, PHONE, srv.url);
  const { page } = p;
  // A first visit: no name yet, so the page has not even tried the socket.
  await page.evaluate(() => navigator.serviceWorker.ready);
  // Let the worker's precache finish, so that the reload below is served from it.
  await page.waitForFunction(
    async () => (await caches.keys()).length > 0 && (await (await caches.open((await caches.keys())[0])).keys()).length > 30,
  );
  assert.equal(await page.isVisible('#down'), false, 'no banner while the server answers');
  await srv.stop();
  srv = null;

  await page.reload();
  await page.waitForSelector('#down:not([hidden])');
  assert.match(await page.textContent('#down'), /Can't reach the server\./);
  assert.equal(await page.textContent('#down-offline'), 'Play offline');
  await screenshot(page, 'phone-70-server-gone-banner');

  // Practice alone: no server to make the room, so the page plays it offline.
  await page.fill('#name', 'Bartholomew');
  await page.check('input[name=game][value=maze]');
  await page.selectOption('#size', 'easy');
  await page.click('#practice');
  await page.waitForFunction(() => document.querySelector('#conn').textContent.startsWith('Offline'));
  await page.waitForFunction(() => window.__mazerace.game && window.__mazerace.board && window.__mazerace.board.game === 'maze');
  assert.equal(await page.isVisible('#down'), false, 'offline now: the banner has done its job');
  const head = await page.$eval('.top', (e) => e.getBoundingClientRect().height);
  assert.ok(head < 64, `the header is one line offline too (${head} px)`);
  assert.equal(await page.textContent('#me-name'), 'Bartholomew');
  assert.equal(await page.$eval('#me-name', (e) => e.offsetWidth > 0), true, "offline, the header shows the player's name");
  await screenshot(page, 'phone-71-offline-practice', { racing: true });
  const unexpected = p.problems.filter((x) => !/ERR_CONNECTION_REFUSED|Failed to fetch|WebSocket/.test(x));
  assert.deepEqual(unexpected, []);
  await p.context.close();
});

test('with --public-url, the invite link and the daily share line carry the public address', async () => {
  srv = await startServer({ args: ['--public-url', 'https://race.example.org/'] });
  browser ||= await launch();
  const p = await openPage(browser, LAPTOP, srv.url);
  await p.page.waitForSelector('#daily[data-loaded] #daily-list li');
  await p.page.fill('#name', 'Sharer');
  const dr = await playDailyMaze(p);
  await p.page.waitForSelector('#share:not([hidden])');
  assert.equal(await p.page.textContent('#share'), `${dr.share}\nhttps://race.example.org/`);
  await screenshot(p.page, 'laptop-72-share-with-link');
  await p.page.click('#leave2');
  await p.page.waitForSelector('body[data-view="home"]');
  await p.page.click('#make button[type=submit]');
  await p.page.waitForSelector('body[data-view="lobby"]');
  assert.match(await p.page.inputValue('#link'), /^https:\/\/race\.example\.org\/r\/[A-Z0-9]{5}\?k=[0-9a-f]{16}$/);
  assert.deepEqual(p.problems, []);
  await p.context.close();
});
