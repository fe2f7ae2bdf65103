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

/** Not counted, and why. */
export const EXCLUDED = {
  'js/offline/':
    'the offline stand-in server, board builders and service-worker glue: imported only when going offline (app.js goOffline), or by sw-register.js, itself loaded only to register the worker',
  'js/offlinemode.js':
    'imported by app.js when going offline; on plain http, where no service worker keeps it, also fetched once the page is loaded and idle, so that offline play still starts with the server gone',
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
  for (const e of Object.keys(EXCLUDED))
    assert.ok(
      all.some((f) => (e.endsWith('/') ? f.startsWith(e) : f === e)),
      e,
    );
});

const list = counted();
const total = list.reduce((a, f) => a + f.bytes, 0);

test(`the online client stays under 150 KiB (${BUDGET} bytes): ${total} counted`, (t) => {
  for (const f of list) t.diagnostic(`${String(f.bytes).padStart(6)}  ${f.file}`);
  t.diagnostic(`${total} bytes counted, ${BUDGET - total} to spare; excluded: ${Object.keys(EXCLUDED).join(', ')}`);
  assert.ok(total < BUDGET, `${total} bytes counted: ${total - BUDGET + 1} over issue 12's budget of under ${BUDGET}`);
});
