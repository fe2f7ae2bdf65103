// The engine's inbox (engine.js) without a browser: a message carrying a
// board, and whatever follows it, waits until the engine has loaded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inbox } from '../../public/js/engine.js';

test('a message carrying a board waits for the engine, and whatever came after it waits behind it', async () => {
  let ready = false;
  let loads = 0;
  let arrive;
  const engine = new Promise((ok) => (arrive = ok));
  const handled = [];
  let renders = 0;
  const receive = inbox({
    ready: () => ready,
    load: () => (loads++, engine),
    each: (m) => handled.push(m.type),
    after: () => renders++,
  });
  receive({ type: 'welcome' });
  receive({ type: 'room' });
  assert.deepEqual(handled, ['welcome', 'room'], 'nothing to wait for: handled at once');
  receive({ type: 'snapshot' });
  receive({ type: 'progress' });
  receive({ type: 'move_result' });
  assert.deepEqual(handled, ['welcome', 'room'], 'the board, and what follows it, wait');
  assert.ok(loads >= 1, 'the engine is asked for');
  ready = true;
  arrive();
  await engine;
  await null;
  assert.deepEqual(handled, ['welcome', 'room', 'snapshot', 'progress', 'move_result'], 'then all of them, in order');
  receive({ type: 'countdown' });
  assert.deepEqual(handled.at(-1), 'countdown', 'the engine here: a board is handled at once');
  assert.ok(renders >= 6);
});

test('an engine that failed to load is asked for again by the next message', async () => {
  let ready = false;
  const tries = [];
  const handled = [];
  const receive = inbox({
    ready: () => ready,
    load: () => {
      tries.push(tries.length);
      return tries.length === 1 ? Promise.reject(new Error('offline')) : Promise.resolve((ready = true));
    },
    each: (m) => handled.push(m.type),
    after: () => {},
  });
  receive({ type: 'race_start' });
  await new Promise((ok) => setTimeout(ok, 0));
  assert.deepEqual(handled, [], 'still waiting');
  receive({ type: 'progress' });
  await new Promise((ok) => setTimeout(ok, 0));
  assert.deepEqual(tries.length, 2);
  assert.deepEqual(handled, ['race_start', 'progress']);
});
