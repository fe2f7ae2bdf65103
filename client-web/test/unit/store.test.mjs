// Local storage: bests per game AND size, the name, the token shared between tabs safely.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeStore, memoryStorage, channelLocks } from '../../public/js/store.js';

test('bests are kept per game and size, best efficiency then time then steps', () => {
  const s = makeStore(memoryStorage(), memoryStorage());
  assert.equal(s.best('ghost', 'small'), null);
  assert.ok(s.recordFinish('ghost', 'small', { steps: 18, time_ms: 40000, efficiency: 89 }).improved);
  assert.equal(s.best('ghost', 'medium'), null, 'another size is not touched');
  assert.equal(s.best('maze', 'small'), null);
  const worse = s.recordFinish('ghost', 'small', { steps: 20, time_ms: 10000, efficiency: 80 });
  assert.equal(worse.improved, false);
  assert.equal(worse.best.steps, 18);
  const faster = s.recordFinish('ghost', 'small', { steps: 18, time_ms: 30000, efficiency: 89 });
  assert.ok(faster.improved);
  assert.equal(faster.previous.time_ms, 40000);
  assert.ok(s.recordFinish('ghost', 'small', { steps: 16, time_ms: 90000, efficiency: 100 }).improved);
  assert.equal(s.best('ghost', 'small').steps, 16);
});

test('bests survive a new store on the same storage (a reload)', () => {
  const ls = memoryStorage();
  makeStore(ls, memoryStorage()).recordFinish('maze', 'hard', { steps: 300, time_ms: 95000, efficiency: 71 });
  const again = makeStore(ls, memoryStorage());
  assert.equal(again.best('maze', 'hard').efficiency, 71);
});

test('junk and throwing storage read as nothing', () => {
  const ls = memoryStorage();
  ls.setItem('mazerace.best.ghost.small', '{not json');
  ls.setItem('mazerace.name', '42');
  const s = makeStore(ls, memoryStorage());
  assert.equal(s.best('ghost', 'small'), null);
  assert.equal(s.name(), '');
  const broken = {
    getItem() {
      throw new Error('denied');
    },
    setItem() {
      throw new Error('full');
    },
    removeItem() {},
  };
  const b = makeStore(broken, broken);
  b.setName('Ann');
  assert.equal(b.name(), '');
  assert.equal(b.recordFinish('maze', 'easy', { steps: 30, efficiency: 100 }).improved, true);
});

test('name and mute round-trip', () => {
  const s = makeStore(memoryStorage(), memoryStorage());
  s.setName('<b>x</b>');
  assert.equal(s.name(), '<b>x</b>');
  assert.equal(s.muted(), false);
  s.setMuted(true);
  assert.equal(s.muted(), true);
});

/** navigator.locks as far as the store uses it: named locks, held until released. */
function fakeLocks() {
  const held = new Set();
  return {
    held,
    async request(name, opts, cb) {
      if (held.has(name)) {
        if (opts.signal) throw new Error('AbortError');
        return cb(null);
      }
      held.add(name);
      await cb({ name });
      held.delete(name);
    },
  };
}
const settle = () => new Promise((r) => setTimeout(r, 0));

test('a reload resumes with the tab token; a second live tab starts fresh; a closed tab leaves its player to the next one', async () => {
  const ls = memoryStorage();
  const locks = fakeLocks();
  const tabA = memoryStorage();
  const a = makeStore(ls, tabA, undefined, locks);
  assert.equal(await a.claim(), null, 'nothing stored: a new player');
  a.setToken('tok-A');
  await settle();
  assert.ok(locks.held.has('mazerace.token.tok-A'), 'tab A holds its token');
  const b = makeStore(ls, memoryStorage(), undefined, locks);
  assert.equal(await b.claim(), null, 'tab A is alive: tab B is a new player');
  b.setToken('tok-B');
  assert.equal(b.token(), 'tok-B');
  assert.equal(a.token(), 'tok-A');
  assert.equal(JSON.parse(ls.getItem('mazerace.token')), 'tok-A', "the shared (daily) identity stays the first tab's");
  // Tab A closes: the browser drops its lock at once (no 10 s claim to wait out).
  locks.held.delete('mazerace.token.tok-A');
  const c = makeStore(ls, memoryStorage(), undefined, locks);
  assert.equal(await c.claim(), 'tok-A', 'a new tab opened right after resumes that player');
  const dup = makeStore(ls, memoryStorage(), undefined, locks);
  assert.equal(await dup.claim(), null, 'but not while another live tab plays it');
  // A reload of tab B: its own token (the lock went with the page, the tab's storage stayed).
  const tabB = memoryStorage();
  tabB.setItem('mazerace.token', JSON.stringify('tok-B'));
  locks.held.delete('mazerace.token.tok-B');
  assert.equal(await makeStore(ls, tabB, undefined, locks).claim(), 'tok-B');
  c.setToken(null);
  assert.equal(JSON.parse(ls.getItem('mazerace.token') || 'null'), null, 'a refused token is forgotten');
});

test('without Web Locks (plain HTTP): a live tab answers for its token on a BroadcastChannel, a closed one cannot', async () => {
  const ls = memoryStorage();
  const tabA = channelLocks(globalThis.BroadcastChannel, 30);
  const a = makeStore(ls, memoryStorage(), undefined, tabA);
  await a.claim();
  a.setToken('tok-A');
  await new Promise((r) => setTimeout(r, 60));
  const tabB = channelLocks(globalThis.BroadcastChannel, 30);
  assert.equal(await makeStore(ls, memoryStorage(), undefined, tabB).claim(), null, 'tab A is alive');
  tabA.close(); // the tab closed
  const tabC = channelLocks(globalThis.BroadcastChannel, 30);
  assert.equal(await makeStore(ls, memoryStorage(), undefined, tabC).claim(), 'tok-A', 'the next tab resumes the player');
  tabB.close();
  tabC.close();
});
