// Rivals on the page without a browser: which rival the results offer, and
// the race started only once the room lists the rival.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createState } from '../../public/js/state.js';
import { handle } from '../../public/js/handlers.js';
import { choice, race } from '../../public/js/rival.js';
import { fakeFx, player, room, welcome } from './fakes.mjs';

function inRoom(extra = {}) {
  const s = createState();
  const fx = fakeFx();
  s.me.helloName = 'Ann';
  handle(s, welcome({ name: 'Ann' }), fx);
  handle(s, room([player(1, 'Ann')], extra), fx);
  fx.drain();
  return { s, fx };
}

const results = (status) => ({
  type: 'results',
  rankings: [{ rank: 1, player_id: 1, name: 'Ann', status, steps: 36, time_ms: 9000 }],
  reveal: { game: 'maze', shortest: 36, solution: [] },
});

test('the results offer the #1 after a ranked try, or my last run in practice', () => {
  const { s } = inRoom({ daily: true, ranked: true, game: 'maze', size: 'easy', phase: 'results' });
  s.race.results = results('finished');
  s.daily.result = { ranked: true, finished: true, rank: 1 };
  assert.deepEqual(
    choice(s),
    ['Race my ranked run', { pick: 'mine' }],
    'the #1 is not offered "Race the #1": their own run (issue 35, item 9)',
  );
  s.daily.result = { ranked: true, finished: true, rank: 4 };
  assert.deepEqual(choice(s), ['Race the #1', { pick: 'best' }], "today's #1 is someone else's: raceable once my try is spent");
  s.daily.result = { ranked: true, finished: false };
  assert.deepEqual(choice(s), ['Race the #1', { pick: 'best' }], 'a spent try that did not finish');
  s.daily.result = { ranked: false, finished: true };
  assert.deepEqual(choice(s), ['Race my last run', { pick: 'last' }], 'practice');
  s.race.results = results('gave_up');
  assert.equal(choice(s), null, 'no finish, nothing to race');
  s.room.host = 2;
  s.race.results = results('finished');
  assert.equal(choice(s), null, 'only the host adds rivals');
});

test('racing a rival: back to the lobby, add it, and start once the room lists it; a refusal stops waiting', () => {
  const { s, fx } = inRoom({ phase: 'results' });
  s.race.results = results('finished');
  race(s, fx, { pick: 'last' });
  assert.deepEqual(fx.drain(), [
    { type: 'rematch', same_board: true },
    { type: 'add_rival', pick: 'last' },
  ]);
  handle(s, room([player(1, 'Ann')]), fx);
  assert.deepEqual(fx.drain(), [], 'not before the rival is in');
  handle(s, room([player(1, 'Ann'), player(4294967295, 'Ann', { ready: true, rival: true })]), fx);
  assert.deepEqual(fx.drain(), [{ type: 'start' }]);
  assert.equal(s.rivalNext, false);

  race(s, fx, { run_id: 17 });
  fx.drain();
  handle(s, { type: 'error', code: 'rival_hidden', message: 'from tomorrow' }, fx);
  assert.equal(s.rivalNext, false);
  handle(s, room([player(1, 'Ann'), player(4294967295, 'Ann', { ready: true, rival: true })]), fx);
  assert.deepEqual(fx.drain(), [], 'no start after the refusal');
});
