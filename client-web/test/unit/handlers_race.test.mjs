// A race's messages without a browser, from the countdown to the results,
// and a resume's snapshot: feed server messages, assert the state (the
// connection, the lobby and the errors are in handlers.test.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createState, solo, elapsed, canMove, racing } from '../../public/js/state.js';
import { handle } from '../../public/js/handlers.js';
import { act } from '../../public/js/actions.js';
import { fakeFx, VAULT, MAZE, player, room, welcome, seated, raceOn } from './fakes.mjs';

test('countdown: the board to study when the server sends it, none from an older one', () => {
  const { s, fx } = seated([player(1, 'Ann'), player(2, 'Bob')]);
  handle(s, { type: 'countdown', seconds: 3 }, fx);
  assert.equal(s.race.board, null);
  assert.equal(s.view, 'play');
  handle(s, { type: 'countdown', seconds: 2, board: VAULT }, fx);
  assert.equal(s.race.board.seed, '0');
  assert.equal(s.race.countdown, 2);
  assert.equal(racing(s), false, 'studying is not racing');
  assert.equal(canMove(s), false);
  assert.deepEqual(fx.said, ['3', '2']);
});

test('race_start clock "first_move": my clock waits for my first move', () => {
  const { s, fx } = seated([player(1, 'Ann'), player(2, 'Bob')]);
  raceOn(s, fx, MAZE, { clock: 'first_move' });
  assert.equal(solo(s), true, 'the race says first_move, whatever the members');
  fx.tick(5000);
  assert.equal(elapsed(s, fx.now()), 0);
  act(s, fx, 'right');
  fx.tick(2000);
  assert.equal(elapsed(s, fx.now()), 2000);
});

test('race_start clock "start": from the start signal, even alone', () => {
  const { s, fx } = seated([player(1, 'Ann')]);
  raceOn(s, fx, MAZE, { clock: 'start' });
  assert.equal(solo(s), false);
  fx.tick(3000);
  assert.equal(elapsed(s, fx.now()), 3000);
});

test('an opponent leaving mid-race does not change the clock rule', () => {
  const { s, fx } = seated([player(1, 'Ann'), player(2, 'Bob')]);
  raceOn(s, fx, MAZE, { clock: 'start' });
  fx.tick(4000);
  handle(s, room([player(1, 'Ann')], { phase: 'racing' }), fx); // Bob left
  handle(s, { type: 'progress', players: [{ id: 2, pos: [0, 0], steps: 0, status: 'left' }] }, fx);
  assert.equal(solo(s), false);
  assert.equal(elapsed(s, fx.now()), 4000, 'no jump');
  handle(s, { type: 'results', rankings: [], reveal: { game: 'maze', shortest: 8, solution: [] } }, fx);
  fx.tick(3000);
  assert.equal(elapsed(s, fx.now()), 4000, 'stopped at the results');
  // An older server (no clock): the rule is decided at the start from the racers then, and kept.
  const o = seated([player(1, 'Ann'), player(2, 'Bob')]);
  raceOn(o.s, o.fx, MAZE);
  assert.equal(o.s.race.clock, 'start');
  handle(o.s, room([player(1, 'Ann')], { phase: 'racing' }), o.fx);
  assert.equal(o.s.race.clock, 'start');
  const alone = seated([player(1, 'Ann')], { daily: true });
  raceOn(alone.s, alone.fx, MAZE);
  assert.equal(alone.s.race.clock, 'first_move', 'a daily room without the field: first move');
});

test('move_result: agreement keeps the prediction; a refusal snaps back with a hint; a win stops my clock', () => {
  const { s, fx } = seated([player(1, 'Ann'), player(2, 'Bob')]);
  raceOn(s, fx, MAZE, { clock: 'start' });
  act(s, fx, 'right');
  const [mv] = fx.drain();
  assert.deepEqual(mv, { type: 'move', dir: 'right', seq: 1 });
  handle(s, { type: 'move_result', seq: 1, ok: true, pos: [0, 1], steps: 1, status: 'playing' }, fx);
  assert.deepEqual(s.game.pred.game.pos, [0, 1]);
  act(s, fx, 'down');
  handle(s, { type: 'move_result', seq: 2, ok: false, reason: 'wall', pos: [0, 1], steps: 1, status: 'playing' }, fx);
  assert.deepEqual(s.game.pred.game.pos, [0, 1], 'snapped back');
  assert.equal(s.ui.hint, 'A wall is in the way.');
  assert.equal(s.ui.hintWarn, true);
  fx.tick(1000);
  handle(s, { type: 'move_result', seq: 3, ok: true, pos: [4, 4], steps: 9, status: 'won' }, fx);
  assert.equal(s.race.doneMs, 1000);
});

test('a move the server dropped over the message rate is a refusal: snapped back, the moves after it replayed', () => {
  const { s, fx } = seated([player(1, 'Ann'), player(2, 'Bob')]);
  raceOn(s, fx, MAZE, { clock: 'start' });
  act(s, fx, 'right');
  act(s, fx, 'left');
  handle(s, { type: 'move_result', seq: 1, ok: false, reason: 'rate_limited', pos: [0, 0], steps: 0, status: 'playing' }, fx);
  assert.deepEqual(s.game.pred.game.pos, [0, 0], 'the dropped move undone, the pending one replayed (a wall from the start)');
  assert.equal(s.ui.hint, 'Too many moves at once: slow down.');
  handle(s, { type: 'move_result', seq: 2, ok: false, reason: 'wall', pos: [0, 0], steps: 0, status: 'playing' }, fx);
  assert.deepEqual(s.game.pred.game.pos, [0, 0]);
});

test('rewind_result reconciles like a move', () => {
  const { s, fx } = seated();
  raceOn(s, fx, VAULT, { clock: 'first_move' });
  for (const d of ['down', 'down', 'down', 'down', 'down']) act(s, fx, d);
  act(s, fx, 'rewind');
  assert.equal(s.game.pred.game.run, 2);
  handle(s, { type: 'rewind_result', seq: 6, ok: false, reason: 'rewind_used', pos: [5, 0], steps: 5, status: 'playing' }, fx);
  assert.equal(s.game.pred.game.run, 1, 'the server said no');
});

test('progress: others stored with `left`; my own gave_up ends my moves', () => {
  const { s, fx } = seated([player(1, 'Ann'), player(2, 'Bob')]);
  raceOn(s, fx, VAULT, { clock: 'start' });
  handle(s, { type: 'progress', players: [{ id: 2, pos: [1, 0], steps: 1, run: 1, status: 'racing', left: 9 }] }, fx);
  assert.equal(s.others.progress.get(2).left, 9);
  handle(s, { type: 'progress', players: [{ id: 1, pos: [0, 0], steps: 0, run: 2, status: 'gave_up' }] }, fx);
  assert.equal(s.game.givenUp, true);
  assert.equal(canMove(s), false);
});

test("finished: mine stops my clock at the server's time; others are announced by name", () => {
  const { s, fx } = seated([player(1, 'Ann'), player(2, '<b>Bob</b>')]);
  raceOn(s, fx, MAZE, { clock: 'start' });
  handle(s, { type: 'finished', player_id: 2, steps: 8, time_ms: 9250, rank: 1 }, fx);
  assert.equal(fx.said.at(-1), '<b>Bob</b> finished 1st.');
  handle(s, { type: 'finished', player_id: 1, steps: 9, time_ms: 12004, rank: 2 }, fx);
  assert.equal(s.race.doneMs, 12004);
  assert.match(fx.said.at(-1), /^You finished 2nd in 0:12\.0 with 9 steps\.$/);
});

test('results: the race is over, no stale hint, the result said', () => {
  const { s, fx } = seated([player(1, 'Ann'), player(2, 'Bob')]);
  raceOn(s, fx, MAZE, { clock: 'start' });
  act(s, fx, 'up'); // the edge: a warning hint
  assert.equal(s.ui.hintWarn, true);
  handle(
    s,
    {
      type: 'results',
      rankings: [{ player_id: 1, name: 'Ann', status: 'out_of_steps', steps: 3 }],
      reveal: { game: 'maze', shortest: 8, solution: [] },
    },
    fx,
  );
  assert.equal(s.race.live, false);
  assert.equal(s.ui.hint, '');
  assert.equal(s.ui.hintWarn, false);
  assert.equal(fx.said.at(-1), 'Race over. You did not finish (out of steps).');
  fx.tick(5000);
  assert.equal(elapsed(s, fx.now()), 0, 'the clock stopped at the results');
  assert.equal(canMove(s), false);
});

test('snapshot: a resume rebuilds my game; joining mid-race watches; a lobby snapshot is just the room', () => {
  const s = createState();
  const fx = fakeFx({ path: '/r/K7M2Q' });
  handle(s, welcome({ resumed: true }), fx);
  const snapRoom = { ...room([player(1, 'Ann')], { phase: 'racing' }) };
  delete snapRoom.type;
  handle(
    s,
    {
      type: 'snapshot',
      room: snapRoom,
      board: VAULT,
      you: { pos: [2, 0], steps: 2, status: 'playing', run: 1, steps_left: 18, gate_open: false },
      recording: ['down', 'down'],
      players: [{ id: 1, pos: [2, 0], steps: 2, run: 1, status: 'racing' }],
      elapsed_ms: 5000,
    },
    fx,
  );
  assert.equal(s.awaitingSnap, false);
  assert.deepEqual(s.game.pred.game.pos, [2, 0]);
  assert.deepEqual(s.game.pred.game.recording, ['down', 'down']);
  assert.equal(s.race.clock, 'first_move', 'alone, no clock field: first move (an older server)');
  assert.equal(elapsed(s, fx.now()), 5000);
  assert.equal(s.view, 'play');

  const w = createState();
  const wfx = fakeFx();
  handle(w, welcome({ player_id: 3 }), wfx);
  handle(
    w,
    {
      type: 'snapshot',
      room: { ...snapRoom, players: [player(1, 'Ann'), player(3, 'Late', { spectator: true })] },
      board: VAULT,
      players: [],
      elapsed_ms: 100,
    },
    wfx,
  );
  assert.equal(w.game.pred, null, 'no game of my own: watching');
  assert.ok(w.race.board);

  const l = createState();
  const lfx = fakeFx();
  handle(l, welcome(), lfx);
  handle(l, { type: 'snapshot', room: { ...snapRoom, phase: 'lobby' }, players: [] }, lfx);
  assert.equal(l.view, 'lobby');
  assert.equal(l.race.board, null);
});
