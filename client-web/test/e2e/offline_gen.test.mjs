// The offline builder in a real browser: 200 large vaults built by the page
// (the modules as the server serves them) equal the Rust fixtures, with the
// build time per vault printed (p50/p99; measured, never asserted on). Then
// the service worker: registered from the served page, it caches this
// version's files, and with the server stopped the page reloads from the
// cache and still builds boards.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { serverAndBrowser, openPage, screenshot, LAPTOP } from './harness.mjs';

const F = JSON.parse(readFileSync(new URL('../fixtures/boards.json', import.meta.url), 'utf8'));
const LETTER = { u: 'up', d: 'down', l: 'left', r: 'right', x: 'rewind' };
const genOf = (fx) => JSON.stringify({ ...fx, solution: Array.from(fx.solution, (ch) => LETTER[ch]) });

let srv, browser;
serverAndBrowser((s, b) => ([srv, browser] = [s, b]));

/** In the page: build each (size, seed) with the served board.js; the lines and the time of each build. */
async function buildInPage(page, size, seeds, warmup = 0) {
  return page.evaluate(
    async ({ size, seeds, warmup }) => {
      const { genLine } = await import('/js/offline/board.js');
      for (let i = 0; i < warmup; i++) genLine(size, String(10_000_000 + i));
      const lines = [],
        ms = [];
      for (const seed of seeds) {
        const t0 = performance.now();
        const line = genLine(size, seed);
        ms.push(performance.now() - t0);
        lines.push(JSON.stringify(line));
      }
      return { lines, ms };
    },
    { size, seeds, warmup },
  );
}

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

test('200 large vaults built in Chromium equal the Rust fixtures; build time printed', async () => {
  const p = await openPage(browser, LAPTOP, srv.url);
  const fixtures = F.boards.filter((b) => b.size === 'large').slice(0, 200);
  assert.equal(fixtures.length, 200);
  // The first build pays for compiling the modules; 500 more let the JIT
  // settle, so the 200 measured are the steady state a player meets.
  const cold = await buildInPage(p.page, 'large', ['0']);
  const { lines, ms } = await buildInPage(
    p.page,
    'large',
    fixtures.map((f) => f.seed),
    500,
  );
  lines.forEach((line, i) => assert.equal(line, genOf(fixtures[i]), `large seed ${fixtures[i].seed}`));
  const sorted = ms.slice().sort((a, b) => a - b);
  const agent = await p.page.evaluate(() => navigator.userAgent);
  console.log(
    `large vault build in Chromium (${agent.match(/Chrome\/[\d.]+/)?.[0]}), 200 vaults after 500 warm-up builds: ` +
      `p50 ${pct(sorted, 50).toFixed(3)} ms, p99 ${pct(sorted, 99).toFixed(3)} ms, max ${sorted.at(-1).toFixed(3)} ms; ` +
      `the very first build ${cold.ms[0].toFixed(1)} ms. Load average ${loadavg()
        .map((x) => x.toFixed(1))
        .join(' ')} ` +
      `(a busy machine shows as spikes; the page's timer is coarsened to 0.1 ms)`,
  );
  // A few of every other size too, the hard maze the largest.
  for (const size of ['small', 'medium', 'easy', 'normal', 'hard']) {
    const some = F.boards.filter((b) => b.size === size).slice(-5);
    const got = await buildInPage(
      p.page,
      size,
      some.map((f) => f.seed),
    );
    got.lines.forEach((line, i) => assert.equal(line, genOf(some[i]), `${size} seed ${some[i].seed}`));
  }
  assert.deepEqual(p.problems, []);
  await p.context.close();
});

test('the service worker caches the client; with the server gone the page reloads and still builds', async () => {
  const p = await openPage(browser, LAPTOP, srv.url);
  const { version } = await (await fetch(`${srv.url}/version.json`)).json();
  const state = await p.page.evaluate(async () => {
    const { registerServiceWorker, checkVersion, pageVersion } = await import('/js/offline/sw-register.js');
    const reg = await registerServiceWorker();
    await navigator.serviceWorker.ready;
    return { registered: !!reg, secure: isSecureContext, page: pageVersion(), check: await checkVersion(), caches: await caches.keys() };
  });
  assert.equal(state.secure, true, '127.0.0.1 is a secure context');
  assert.equal(state.registered, true);
  assert.equal(state.page, version, 'the served version.js carries the version');
  assert.deepEqual(state.check, { reachable: true, server: version, page: version, reload: false });
  assert.deepEqual(state.caches, [`mazerace-${version}`]);
  assert.deepEqual(p.problems, []);

  await srv.stop();
  await p.page.reload();
  await p.page.waitForSelector('body');
  const offline = await p.page.evaluate(async () => {
    const { checkVersion } = await import('/js/offline/sw-register.js');
    const { genLine } = await import('/js/offline/board.js');
    return { check: await checkVersion(), line: JSON.stringify(genLine('small', '1')), title: document.title };
  });
  assert.equal(offline.check.reachable, false, 'the server is gone');
  assert.equal(offline.line, genOf(F.boards.find((b) => b.size === 'small' && b.seed === '1')));
  assert.ok(offline.title.length > 0, 'index.html came from the cache');
  await screenshot(p.page, 'offline-reloaded-laptop');
  await p.context.close();
});
