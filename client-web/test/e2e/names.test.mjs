// Hostile names (24 W's, right-to-left text, emoji, markup) do not break the
// layout of the lobby, the race or the results, on a phone and a laptop.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, openPage, screenshot, play, LAPTOP, PHONE, SHOTS } from './harness.mjs';
import { route } from '../route.mjs';

const NAMES = ['W'.repeat(24), 'مرحبا بالعالم يا صديقي', '🦄🔥👻 Ghostly 🧙‍♀️🎉', '<i>hi</i>&amp;<br>'];
let srv, browser, pages;

before(async () => {
  srv = await startServer();
  browser = await launch();
  pages = [
    await openPage(browser, PHONE, srv.url),
    await openPage(browser, LAPTOP, srv.url),
    await openPage(browser, PHONE, srv.url),
    await openPage(browser, LAPTOP, srv.url),
  ];
});
after(async () => {
  await browser?.close();
  await srv?.stop();
  console.log(`screenshots: ${SHOTS}`);
});

/** Nothing sticks out sideways: no page-wide scroll, every name inside its row. */
async function assertTidy(p, where) {
  const report = await p.page.evaluate(() => {
    const bad = [];
    if (document.documentElement.scrollWidth > innerWidth + 1) bad.push(`page ${document.documentElement.scrollWidth} > ${innerWidth}`);
    for (const n of document.querySelectorAll('.name, #rankings td:nth-child(2)')) {
      if (!n.offsetParent) continue;
      const row = n.closest('li, tr').getBoundingClientRect();
      const r = n.getBoundingClientRect();
      if (r.right > row.right + 1 || r.left < row.left - 1) bad.push(`"${n.textContent}" spills out of its row`);
      if (r.height > 40) bad.push(`"${n.textContent}" wraps (${r.height}px tall)`);
    }
    return bad;
  });
  assert.deepEqual(report, [], `${where}: ${report.join('; ')}`);
}

test('hostile names in the lobby, the race and the results', async () => {
  const [host, ...rest] = pages;
  await host.page.fill('#name', NAMES[0]);
  await host.page.click('#make button[type=submit]');
  await host.page.waitForSelector('body[data-view="lobby"]');
  const link = await host.page.inputValue('#link');
  for (const [i, p] of rest.entries()) {
    await p.page.goto(link);
    await p.page.fill('#name', NAMES[i + 1]);
    await p.page.click('#inv-join');
    await p.page.waitForSelector('body[data-view="lobby"]');
  }
  await host.page.waitForFunction((n) => document.querySelectorAll('#players li').length === n, NAMES.length);
  const shown = await host.page.$$eval('#players .name', (els) => els.map((e) => e.textContent));
  assert.deepEqual(shown.sort(), [...NAMES].sort(), 'every name shown exactly as typed');
  for (const p of pages) await assertTidy(p, 'lobby');
  await screenshot(host.page, 'phone-8-lobby-hostile-names');
  await screenshot(pages[1].page, 'laptop-8-lobby-hostile-names');

  const from = host.frames.length;
  await host.page.click('#start');
  const rs = await host.frame((m) => m.type === 'race_start', { from, what: 'race_start' });
  const line = route(rs.board);
  for (const p of pages) await p.page.waitForFunction(() => window.__mazerace.game);
  for (const p of pages) await play(p, line, { until: 3 });
  await host.page.waitForFunction((n) => window.__mazerace.markers.length === n, NAMES.length - 1);
  for (const p of pages) await assertTidy(p, 'race');
  await screenshot(host.page, 'phone-9-race-hostile-names', { racing: true });
  await screenshot(pages[1].page, 'laptop-9-race-hostile-names');

  for (const p of pages) await play(p, line.slice(3));
  for (const p of pages) await p.page.waitForSelector('#results', { state: 'visible' });
  await host.page.waitForFunction((n) => document.querySelectorAll('#rankings tr').length === n, NAMES.length);
  const rows = await host.page.$$eval('#rankings td:nth-child(2)', (tds) => tds.map((td) => td.textContent));
  assert.deepEqual([...rows].sort(), [...NAMES].sort());
  for (const p of pages) await assertTidy(p, 'results');
  await screenshot(host.page, 'phone-10-results-hostile-names');
  for (const p of pages) assert.deepEqual(p.problems, []);
});
