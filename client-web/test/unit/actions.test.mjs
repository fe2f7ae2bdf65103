// The player's actions and their answers without a browser: rename, rematch
// (and try this board again), give up, leave, the rewind question, pacing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createState, pacing, canMove } from '../../public/js/state.js';
import { handle } from '../../public/js/handlers.js';
import { act, request, rename, giveUp, leave, tryAgain, rematch, sendPaced } from '../../public/js/actions.js';
import { fakeFx, VAULT, MAZE, player, room, welcome } from './fakes.mjs';

function seated(players = [player(1, 'Ann')], roomExtra = {}) {
  const s = createState();
  const fx = fakeFx();
  s.me.helloName = 'Ann';
  handle(s, welcome({ name: 'Ann' }), fx);
  handle(s, room(players, roomExtra), fx);
  fx.drain();
  return { s, fx };
}
function raceOn(s, fx, board = VAULT, clock = 'start') {
  handle(s, room(s.room.players, { ...s.room, phase: 'racing' }), fx);
  handle(s, { type: 'race_start', board, time_limit_ms: 600000, clock }, fx);
  fx.drain();
}
const results = (rankings, reveal = { game: 'ghost', par: 14, true_par: 16, solution: [] }) => ({ type: 'results', rankings, reveal });

test('rename after connecting: a rename message, and the page takes the name the server confirms', () => {
  const { s, fx } = seated();
  assert.equal(rename(s, fx, ' Bo '), true);
  assert.deepEqual(fx.drain(), [{ type: 'rename', name: 'Bo' }]);
  assert.equal(s.me.name, 'Ann', 'not before the server says so');
  assert.equal(rename(s, fx, 'Bo'), true);
  assert.deepEqual(fx.drain(), [], 'the same rename is not sent twice');
  handle(s, { type: 'renamed', name: 'Bo' }, fx);
  assert.equal(s.me.name, 'Bo');
  assert.equal(s.me.helloName, 'Bo', 'a reconnect says the new name');
  assert.equal(fx.store.name(), 'Bo');
  handle(s, room([player(1, 'Bo')]), fx);
  assert.equal(s.me.name, 'Bo');
  fx.sent.length = 0;
  handle(s, { type: 'renamed', name: 'Cy' }, fx);
  assert.deepEqual(fx.sent, [], 'no leagues, nothing more to ask');
  s.leagues.mine = [{ code: 'AAAA2222', name: 'Club', members: 2 }];
  handle(s, { type: 'renamed', name: 'Di' }, fx);
  assert.deepEqual(fx.sent, [{ type: 'my_leagues' }], 'listing my leagues renames me in them');
});

test('a room message under a changed name renames first, then sends it', () => {
  const { s, fx } = seated();
  request(s, fx, { type: 'create_room', game: 'maze', size: 'easy' }, 'Cy');
  assert.deepEqual(fx.drain(), [
    { type: 'rename', name: 'Cy' },
    { type: 'create_room', game: 'maze', size: 'easy' },
  ]);
});

test('renaming is refused while racing, here and by the server; a bad name says why', () => {
  const { s, fx } = seated([player(1, 'Ann'), player(2, 'Bob')]);
  raceOn(s, fx);
  assert.equal(rename(s, fx, 'Bo'), false);
  assert.match(s.ui.nameError, /after the race/);
  assert.deepEqual(fx.drain(), []);
  const t = seated();
  rename(t.s, t.fx, 'x\u202ey');
  assert.match(t.s.ui.nameError, /not allowed/);
  rename(t.s, t.fx, 'Dee');
  handle(t.s, { type: 'error', code: 'bad_name', message: 'that name is taken by a rule' }, t.fx);
  assert.equal(t.s.ui.nameError, 'that name is taken by a rule');
  assert.equal(t.s.me.name, 'Ann');
  assert.equal(t.s.view, 'lobby', 'a refused rename does not leave the room');
  rename(t.s, t.fx, 'Eve');
  handle(t.s, { type: 'error', code: 'wrong_phase', message: '' }, t.fx);
  assert.match(t.s.ui.nameError, /after the race/);
});

test('rematch: host only; everyone goes back to the lobby and the next race forgets the last', () => {
  const { s, fx } = seated([player(1, 'Ann'), player(2, 'Bob')]);
  raceOn(s, fx, MAZE);
  handle(s, { type: 'finished', player_id: 2, steps: 8, time_ms: 900, rank: 1 }, fx);
  handle(s, results([{ rank: 1, player_id: 2, name: 'Bob', status: 'finished', steps: 8, time_ms: 900, efficiency: 100 }]), fx);
  rematch(s, fx);
  assert.deepEqual(fx.drain(), [{ type: 'rematch' }]);
  handle(s, room(s.room.players, { phase: 'lobby' }), fx);
  assert.equal(s.view, 'lobby');
  assert.equal(s.race.results, null);
  assert.deepEqual(fx.drain(), [], 'no start: a room of two waits for ready or the host');
  handle(s, { type: 'countdown', seconds: 3, board: MAZE }, fx);
  handle(s, { type: 'race_start', board: MAZE, time_limit_ms: 600000, clock: 'start' }, fx);
  assert.equal(s.race.finished.size, 0, "the last race's finishes are gone, even on the same board");
  const b = seated([player(1, 'Ann'), player(2, 'Bob')], { host: 2 });
  rematch(b.s, b.fx);
  assert.deepEqual(b.fx.drain(), [], 'not the host');
});

test('try this board again: rematch same_board, started at once', () => {
  const { s, fx } = seated();
  raceOn(s, fx, VAULT, 'first_move');
  handle(s, results([{ player_id: 1, name: 'Ann', status: 'out_of_steps', steps: 20 }]), fx);
  tryAgain(s, fx);
  assert.deepEqual(fx.drain(), [{ type: 'rematch', same_board: true }]);
  handle(s, room([player(1, 'Ann')], { phase: 'lobby' }), fx);
  assert.deepEqual(fx.drain(), [{ type: 'start' }], 'a room of one starts again by itself');
  handle(s, { type: 'race_start', board: VAULT, time_limit_ms: 600000, clock: 'first_move' }, fx);
  assert.equal(s.game.pred.game.steps, 0);
});

test('rewind off the plate asks first and says why; on the plate it goes at once', () => {
  const { s, fx } = seated();
  raceOn(s, fx, VAULT);
  act(s, fx, 'down');
  fx.drain();
  act(s, fx, 'rewind');
  assert.equal(s.game.confirm, 'rewind');
  assert.match(fx.said.at(-1), /never open the gate/);
  assert.deepEqual(fx.drain(), [], 'nothing sent');
  assert.equal(s.game.pred.game.run, 1);
  act(s, fx, 'rewind', { force: true });
  assert.equal(s.game.confirm, null);
  assert.deepEqual(fx.drain(), [{ type: 'rewind', seq: 2 }]);
  const t = seated();
  raceOn(t.s, t.fx, VAULT);
  for (const d of ['down', 'down', 'down', 'down', 'down']) act(t.s, t.fx, d);
  act(t.s, t.fx, 'rewind');
  assert.equal(t.s.game.confirm, null);
  assert.equal(t.s.game.pred.game.run, 2);
});

test('give up: sent after the queued moves, no more moves, the run ends not finished', () => {
  const { s, fx } = seated([player(1, 'Ann'), player(2, 'Bob')]);
  raceOn(s, fx, VAULT);
  for (const d of ['down', 'down', 'down', 'down', 'down']) act(s, fx, d);
  act(s, fx, 'rewind', { force: true });
  act(s, fx, 'right');
  giveUp(s, fx);
  assert.deepEqual(fx.drain().at(-1), { type: 'give_up' });
  assert.equal(canMove(s), false);
  act(s, fx, 'right');
  assert.deepEqual(fx.drain(), []);
});

test('leaving any race with my run still on asks first (a ranked daily says its try is used); a finished run leaves at once', () => {
  const { s, fx } = seated([player(1, 'Ann')], { daily: true });
  raceOn(s, fx, MAZE, 'first_move');
  leave(s, fx);
  assert.equal(s.game.confirm, 'leave');
  assert.match(fx.said.at(-1), /ranked try/);
  assert.deepEqual(fx.drain(), []);
  leave(s, fx, { force: true });
  assert.deepEqual(fx.drain(), [{ type: 'leave_room' }]);
  assert.equal(s.room, null);
  assert.equal(s.view, 'home');
  const p = seated([player(1, 'Ann')], { daily: true, ranked: false, ranked_at: '2026-12-01T09:12:31Z' });
  raceOn(p.s, p.fx, MAZE, 'first_move');
  leave(p.s, p.fx);
  assert.equal(p.s.game.confirm, 'leave', 'practice: the run still ends, so it asks');
  assert.match(p.fx.said.at(-1), /ends your run/);
  assert.deepEqual(p.fx.drain(), []);
  const r = seated([player(1, 'Ann'), player(2, 'Bob')]);
  raceOn(r.s, r.fx, MAZE);
  leave(r.s, r.fx);
  assert.equal(r.s.game.confirm, 'leave', 'a race with friends asks too');
  assert.deepEqual(r.fx.drain(), []);
  giveUp(r.s, r.fx);
  r.fx.drain();
  leave(r.s, r.fx);
  assert.deepEqual(r.fx.drain(), [{ type: 'leave_room' }], 'given up: nothing left to lose');
});

test('moves are paced with welcome.limits, queued and never dropped', () => {
  assert.deepEqual(pacing({ msgs_per_sec: 40, msgs_burst: 80 }), { cap: 40, perSec: 25 }, "the defaults: today's pacing");
  const s = createState();
  const fx = fakeFx();
  handle(s, welcome({ limits: { msgs_per_sec: 8, msgs_burst: 6, max_name_chars: 24, resume_window_ms: 60000 } }), fx);
  fx.drain();
  for (let i = 0; i < 10; i++) sendPaced(s, fx, { type: 'move', dir: 'up', seq: i + 1 });
  assert.equal(fx.drain().length, 3, 'half the burst at once');
  assert.equal(s.outbox.queue.length, 7);
  fx.tick(1000);
  fx.run();
  assert.equal(fx.drain().length, 3, 'then 5/8 of the rate a second (capped by the bucket)');
  fx.tick(2000);
  fx.run(true);
  while (fx.timers.length) {
    fx.tick(1000);
    fx.run(true);
  }
  assert.equal(s.outbox.queue.length, 0);
});
