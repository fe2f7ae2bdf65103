// The page over the wire: a cold load of the home page in Chromium, every
// response's encoded bytes as the network saw them (headers included,
// Network.loadingFinished's encodedDataLength), summed against the budget.
// The page's own requests count; the service worker's precache of the
// offline files runs beside the page once it has loaded and is printed
// apart (client-web/README.md, "Size").
import { test } from 'node:test';
import { request } from 'node:http';
import assert from 'node:assert/strict';
import { serverAndBrowser, openPage, LAPTOP, PHONE } from './harness.mjs';

let srv, browser;
serverAndBrowser((s, b) => ([srv, browser] = [s, b]));

/** The home page's budget over the wire (issue 23): 64 KiB. */
export const BUDGET = 64 * 1024;

/** The bytes `path` takes over the wire (status line, headers, brotli body) from the server at `base`. */
function wireBytes(base, path) {
  return new Promise((ok, fail) => {
    const req = request(new URL(path, base), { headers: { 'accept-encoding': 'br, gzip' } }, (res) => {
      let n = Buffer.byteLength(`HTTP/1.1 ${res.statusCode} ${res.statusMessage}\r\n\r\n`);
      for (let i = 0; i < res.rawHeaders.length; i += 2) n += Buffer.byteLength(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}\r\n`);
      res.on('data', (d) => (n += d.length));
      res.on('end', () => ok(n));
    });
    req.on('error', fail);
    req.end();
  });
}

/** Loads `url` in a fresh context; resolves to [{url, bytes, encoding, type}]. */
async function coldLoad(device, url) {
  const p = await openPage(browser, device);
  const cdp = await p.context.newCDPSession(p.page);
  await cdp.send('Network.enable');
  // Nothing from a cache: this is a first visit.
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  const seen = new Map();
  cdp.on('Network.responseReceived', (e) => {
    const h = Object.fromEntries(Object.entries(e.response.headers).map(([k, v]) => [k.toLowerCase(), v]));
    seen.set(e.requestId, { url: e.response.url, encoding: h['content-encoding'] || '', type: e.type, bytes: 0 });
  });
  const done = [];
  cdp.on('Network.loadingFinished', (e) => {
    const r = seen.get(e.requestId);
    if (r) done.push({ ...r, bytes: e.encodedDataLength });
  });
  await p.page.goto(url, { waitUntil: 'networkidle' });
  // The daily panel is the last thing home asks for.
  await p.page.waitForSelector('#daily[data-loaded]');
  await p.page.waitForLoadState('networkidle');
  assert.deepEqual(p.problems, []);
  await p.context.close();
  return done;
}

for (const [label, device] of [
  ['laptop', LAPTOP],
  ['phone', PHONE],
]) {
  test(`${label}: the home page is at most 64 KiB over the wire, every text file compressed`, async (t) => {
    const got = await coldLoad(device, srv.url);
    const total = got.reduce((a, r) => a + r.bytes, 0);
    for (const r of got) t.diagnostic(`${String(r.bytes).padStart(6)}  ${r.encoding.padEnd(4)}  ${new URL(r.url).pathname}`);
    t.diagnostic(`${got.length} responses, ${total} bytes over the wire (budget ${BUDGET}, ${BUDGET - total} to spare)`);
    assert.ok(got.length > 10, `${got.length} responses seen`);
    const files = got.filter((r) => /\.(js|css)$|\/$/.test(new URL(r.url).pathname));
    for (const r of files) assert.equal(r.encoding, 'br', `${r.url} is sent brotli-compressed`);
    assert.ok(total <= BUDGET, `${total} bytes over the wire: ${total - BUDGET} over the budget of ${BUDGET}`);
    // Not counted: the service worker's precache of the files the page did not load (README, "Size").
    const sw = await (await fetch(`${srv.url}/sw.js`)).text();
    const precached = JSON.parse(/const FILES = (\[.*?\]);/s.exec(sw)[1]);
    const loaded = new Set(got.map((r) => new URL(r.url).pathname));
    const rest = precached.filter((f) => !loaded.has(f));
    let precache = 0;
    for (const f of rest) precache += await wireBytes(srv.url, f);
    t.diagnostic(
      `the service worker's precache, beside the page: ${rest.length} more files, ${precache} bytes (the page's own come back as 304s)`,
    );
  });
}
