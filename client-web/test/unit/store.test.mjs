// Local storage: bests per game AND size, the name, the token shared between tabs safely.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeStore, memoryStorage } from '../../public/js/store.js';

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
  const broken = { getItem() { throw new Error('denied'); }, setItem() { throw new Error('full'); }, removeItem() {} };
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

test('a reload resumes with the tab token; a second live tab starts fresh', () => {
  let t = 1000;
  const ls = memoryStorage();
  const tabA = memoryStorage();
  const a = makeStore(ls, tabA, () => t);
  assert.equal(a.token(), null);
  a.setToken('tok-A');
  assert.equal(makeStore(ls, tabA, () => t).token(), 'tok-A', 'same tab after reload');
  const b = makeStore(ls, memoryStorage(), () => t);
  assert.equal(b.token(), null, 'tab A still holds the shared token');
  b.setToken('tok-B');
  assert.equal(b.token(), 'tok-B');
  assert.equal(a.token(), 'tok-A');
  t += 60000; // tab A closed long ago: its claim lapsed
  const c = makeStore(ls, memoryStorage(), () => t);
  assert.equal(c.token(), 'tok-A', 'a new tab takes over the shared (daily streak) identity');
  c.setToken(null);
  assert.equal(makeStore(ls, memoryStorage(), () => t).token(), null, 'a refused token is forgotten');
});
