// Issue 12's size budget: "the client stays under 150 KiB uncompressed",
// counted over what the page loads for online play: every file in public/
// except the offline-play modules, which load only when going offline
// (README, "Size"). The lists below are the whole of public/: a new file
// must be put in one of them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const PUBLIC = new URL('../../public/', import.meta.url).pathname;
export const BUDGET = 150 * 1024; // 153,600 bytes: issue 12's limit
/**
 * Issue 12's limit is not met yet: until it is, the count is held at the
 * figure reached, rounded up to the next 1,000 bytes (README, "Size"), so a
 * change that adds bytes fails here. Lower it as the count falls; once the
 * count is under BUDGET, assert BUDGET instead.
 */
export const RATCHET = 160_000;

/** Not counted, and why. */
export const EXCLUDED = {
  'js/offline/': 'the offline stand-in server, board builders and service-worker glue: imported only when going offline (app.js goOffline), or by sw-register.js, itself loaded only to register the worker',
  'js/offlinemode.js': 'imported by app.js only when going offline',
  'js/racerules.js': 'the race rules for the offline stand-in (offline/localserver.js); the online page takes them from the server',
  'sw.js': 'the service worker: run by the browser beside the page, never loaded by it',
};

function files(dir) {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : [relative(PUBLIC, p)];
  });
}

const excluded = (f) => Object.keys(EXCLUDED).some((e) => (e.endsWith('/') ? f.startsWith(e) : f === e));

export function counted() {
  return files(PUBLIC)
    .filter((f) => !excluded(f))
    .sort()
    .map((f) => ({ file: f, bytes: statSync(join(PUBLIC, f)).size }));
}

test('every excluded path exists (a rename must not silently count or uncount a file)', () => {
  const all = files(PUBLIC);
  for (const e of Object.keys(EXCLUDED)) assert.ok(all.some((f) => (e.endsWith('/') ? f.startsWith(e) : f === e)), e);
});

const list = counted();
const total = list.reduce((a, f) => a + f.bytes, 0);

test(`the online client stays within its ratchet of ${RATCHET} bytes (issue 12's ${BUDGET} is not met yet: ${total} counted, ${total - BUDGET} over)`, (t) => {
  for (const f of list) t.diagnostic(`${String(f.bytes).padStart(6)}  ${f.file}`);
  t.diagnostic(`${total} bytes counted; ratchet ${RATCHET}; issue 12's budget ${BUDGET}; excluded: ${Object.keys(EXCLUDED).join(', ')}`);
  assert.ok(RATCHET > BUDGET, 'the budget is met: assert BUDGET itself, not a ratchet');
  assert.ok(total <= RATCHET, `${total} bytes counted: ${total - RATCHET} over the ${RATCHET}-byte ratchet (issue 12's budget is ${BUDGET})`);
});
