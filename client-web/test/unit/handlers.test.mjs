// The message handlers without a browser: feed server messages, assert the state.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createState, DEFAULT_LIMITS, solo, elapsed, canMove, racing } from '../../public/js/state.js';
import { handle, HANDLERS } from '../../public/js/handlers.js';
import { act, request } from '../../public/js/actions.js';
import { fakeFx, VAULT, MAZE, player, room, welcome } from './fakes.mjs';

/** A state welcomed as player 1 and sat in a lobby with `players`. */
function seated(players = [player(1, 'Ann')], roomExtra = {}, fxOpts = {}) {
  const s = createState();
  const fx = fakeFx(fxOpts);
  s.me.helloName = 'Ann';
  handle(s, welcome({ name: 'Ann' }), fx);
  handle(s, { type: 'leagues', leagues: [] }, fx);
  handle(s, room(players, roomExtra), fx);
  fx.drain();
  return { s, fx };
}

function raceOn(s, fx, board = VAULT, extra = {}) {
  handle(s, { ...room(s.room.players, { ...s.room, phase: 'racing' }), type: 'room' }, fx);
  handle(s, { type: 'race_start', board, time_limit_ms: 600000, ...extra }, fx);
}

test('every server message type has a handler', () => {
  const types = [
    'welcome',
    'renamed',
    'room',
    'countdown',
    'race_start',
    'move_result',
    'rewind_result',
    'progress',
    'finished',
    'results',
    'snapshot',
    'daily_result',
    'leaderboard',
    'error',
    'pong',
    'server_shutdown',
  ];
  for (const t of types) assert.equal(typeof HANDLERS[t], 'function', t);
  const s = createState();
  handle(s, { type: 'from_the_future' }, fakeFx()); // ignored, no throw
  handle(s, null, fakeFx());
});

test('welcome: id, token, the confirmed name and the limits; defaults from an older server', () => {
  const s = createState();
  const fx = fakeFx();
  s.me.helloName = 'typed';
  handle(s, welcome({ name: 'Ann', limits: { msgs_per_sec: 10, msgs_burst: 12, max_name_chars: 16, resume_window_ms: 30000 } }), fx);
  assert.equal(s.me.id, 1);
  assert.equal(s.conn.welcomed, true);
  assert.equal(s.me.name, 'Ann', 'the name the server says, not the one typed');
  assert.deepEqual(s.limits, { msgs_per_sec: 10, msgs_burst: 12, max_name_chars: 16, resume_window_ms: 30000 });
  assert.equal(fx.store.token(), '5f0c3a9e1b7d42c8a6e0f1d2c3b4a596');
  const old = createState();
  old.me.helloName = 'Bo';
  handle(old, welcome({ limits: { msgs_per_sec: -1, max_name_chars: 'x' } }), fakeFx());
  assert.deepEqual(old.limits, DEFAULT_LIMITS, 'nonsense and missing limits fall back to the defaults');
  assert.equal(old.me.name, 'Bo', 'an older server: the name from hello');
});

test('welcome sends the kept intent, or joins the room in the address (with its invite key)', () => {
  const s = createState();
  const fx = fakeFx({ path: '/r/ABCDE' });
  handle(s, welcome(), fx);
  assert.deepEqual(fx.drain(), [{ type: 'join_room', code: 'ABCDE' }]);
  const k = createState();
  const kfx = fakeFx({ path: '/r/abcde?k=3F9A0C1D5E7B2A64' });
  handle(k, welcome(), kfx);
  assert.deepEqual(kfx.drain(), [{ type: 'join_room', code: 'ABCDE', key: '3f9a0c1d5e7b2a64' }]);
  handle(k, room([player(1, 'Ann')], { code: 'ABCDE', key: '3f9a0c1d5e7b2a64' }), kfx);
  assert.equal(kfx.path(), '/r/ABCDE?k=3f9a0c1d5e7b2a64', "the address is the room's link");
  const t = createState();
  const fx2 = fakeFx();
  t.intent = { type: 'create_room', game: 'maze', size: 'easy' };
  handle(t, welcome(), fx2);
  assert.deepEqual(fx2.drain(), [{ type: 'create_room', game: 'maze', size: 'easy' }]);
  assert.equal(t.intent, null);
});

test('a welcome that is not a resume while in a room asks for the seat again', () => {
  const { s, fx } = seated();
  s.room.key = '3f9a0c1d5e7b2a64';
  handle(s, welcome({ resumed: false }), fx);
  assert.equal(s.room, null);
  assert.deepEqual(fx.drain(), [{ type: 'join_room', code: 'K7M2Q', key: '3f9a0c1d5e7b2a64' }]);
});

test('a resumed welcome waits for the snapshot; none in 1.5 s carries on', () => {
  const s = createState();
  const fx = fakeFx();
  s.intent = { type: 'join_room', code: 'ZZZZZ' };
  handle(s, welcome({ resumed: true }), fx);
  assert.equal(s.awaitingSnap, true);
  assert.deepEqual(fx.drain(), []);
  fx.tick(1500);
  fx.run();
  assert.deepEqual(fx.drain(), [{ type: 'join_room', code: 'ZZZZZ' }]);
});

test("room: the address follows the room, my name is the room's, a daily room says ranked or practice", () => {
  const { s, fx } = seated([player(1, 'Ann2'), player(2, 'Bob')]);
  assert.equal(fx.path(), '/r/K7M2Q');
  assert.equal(s.view, 'lobby');
  assert.equal(s.me.name, 'Ann2', "the server's name wins");
  handle(s, room([player(1, 'Ann')], { daily: true, ranked: false, ranked_at: '2026-12-01T09:12:31Z' }), fx);
  assert.equal(s.daily.ranked, false);
  assert.equal(s.daily.rankedAt, '2026-12-01T09:12:31Z');
  handle(s, room([player(1, 'Ann')], { daily: true }), fx);
  assert.equal(s.daily.ranked, null, 'an older server does not say');
});

test('a room of one asked for solo starts as soon as its lobby appears', () => {
  const s = createState();
  const fx = fakeFx();
  s.soloNext = true;
  handle(s, welcome(), fx);
  handle(s, room([player(1, 'Ann')]), fx);
  assert.deepEqual(fx.drain(), [{ type: 'start' }]);
  assert.equal(s.view, 'play');
  assert.equal(s.soloNext, false);
});

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

test('daily_result is kept for the home page and asks for the leaderboard; leaderboard is stored', () => {
  const { s, fx } = seated([player(1, 'Ann')], { daily: true });
  const dr = {
    type: 'daily_result',
    date: '2026-11-29',
    game: 'ghost',
    size: 'small',
    ranked: true,
    finished: true,
    steps: 16,
    time_ms: 42000,
    rank: 3,
    entrants: 57,
    streak: 4,
    share: 'x',
    run_id: 17,
  };
  handle(s, dr, fx);
  assert.equal(s.daily.result, dr);
  assert.deepEqual(fx.drain(), [{ type: 'leaderboard', game: 'ghost', size: 'small', date: '2026-11-29' }]);
  assert.equal(fx.store.dailyDay('2026-11-29')['ghost.small'].rank, 3);
  assert.deepEqual(fx.store.streak(), { date: '2026-11-29', streak: 4 });
  handle(s, { ...dr, ranked: false, rank: undefined }, fx);
  assert.equal(fx.store.dailyDay('2026-11-29')['ghost.small'].rank, 3, 'a practice run does not replace the ranked one');
  const lb = { type: 'leaderboard', date: '2026-11-29', game: 'ghost', size: 'small', entrants: 1, entries: [] };
  handle(s, lb, fx);
  assert.equal(s.daily.table, lb);
});

test('errors: retry after already_in_room, bad_name back home, room_not_found leaves, rate_limited is quiet', () => {
  const { s, fx } = seated();
  s.lastIntent = { type: 'create_room', game: 'maze', size: 'easy' };
  handle(s, { type: 'error', code: 'already_in_room', message: '' }, fx);
  assert.deepEqual(fx.drain(), [{ type: 'leave_room' }, { type: 'create_room', game: 'maze', size: 'easy' }]);
  handle(s, { type: 'error', code: 'rate_limited', message: 'slow down' }, fx);
  assert.deepEqual(fx.toasts, []);
  handle(s, { type: 'error', code: 'room_not_found', message: 'no such room' }, fx);
  assert.equal(s.room, null);
  assert.equal(s.view, 'home');
  assert.equal(fx.path(), '/');
  assert.deepEqual(fx.toasts, ['no such room']);
  handle(s, { type: 'error', code: 'bad_name', message: 'names are 1 to 24 characters' }, fx);
  assert.equal(s.ui.nameError, 'names are 1 to 24 characters');
});

test('pong is nothing; server_shutdown says it is coming back', () => {
  const s = createState();
  const fx = fakeFx();
  handle(s, { type: 'pong' }, fx);
  handle(s, { type: 'server_shutdown' }, fx);
  assert.deepEqual(fx.toasts, ['The server is restarting. Reconnecting…']);
});

test('request before connecting keeps the intent and connects with the typed name', () => {
  const s = createState();
  const fx = fakeFx();
  fx.open = false;
  assert.equal(request(s, fx, { type: 'create_room', game: 'ghost', size: 'small' }, '  '), false);
  assert.match(s.ui.nameError, /Enter a name/);
  assert.equal(request(s, fx, { type: 'create_room', game: 'ghost', size: 'small' }, ' Ann '), true);
  assert.equal(s.me.helloName, 'Ann');
  assert.equal(fx.connects, 1);
  assert.deepEqual(fx.sent, []);
  s.limits.max_name_chars = 3;
  assert.equal(request(s, fx, { type: 'ready', ready: true }, 'Anne'), false, 'the limit from welcome');
  assert.match(s.ui.nameError, /at most 3 characters/);
});

test('wrong_node: reconnect once, naming the room, and ask again there', () => {
  const s = createState();
  const fx = fakeFx();
  s.me.helloName = 'Ann';
  handle(s, welcome({ name: 'Ann' }), fx);
  const join = { type: 'join_room', code: 'BK7M2', key: '3f9a0c1d5e7b2a64' };
  s.lastIntent = join;
  handle(s, { type: 'error', code: 'wrong_node', message: 'room BK7M2 is on node B' }, fx);
  assert.equal(fx.reconnects, 1);
  assert.deepEqual(s.intent, join, 'sent again after the next welcome');
  assert.equal(fx.toasts.length, 0);
  // Misrouted again: say so instead of looping.
  s.lastIntent = join;
  handle(s, { type: 'error', code: 'wrong_node', message: 'room BK7M2 is on node B' }, fx);
  assert.equal(fx.reconnects, 1);
  assert.deepEqual(fx.toasts, ['room BK7M2 is on node B']);
  handle(s, room([player(1, 'Ann')]), fx);
  assert.equal(s.conn.rerouted, false, 'in the room: a later misroute may reroute again');
});

test('draining: a new room is asked for again on a new connection, once', () => {
  const s = createState();
  const fx = fakeFx();
  s.me.helloName = 'Ann';
  handle(s, welcome({ name: 'Ann' }), fx);
  const create = { type: 'create_room', game: 'maze', size: 'easy' };
  s.lastIntent = create;
  const why = 'this server is restarting and makes no new rooms; reconnect to make it on another';
  handle(s, { type: 'error', code: 'draining', message: why }, fx);
  assert.equal(fx.reconnects, 1);
  assert.deepEqual(s.intent, create, 'sent again after the next welcome');
  assert.equal(fx.toasts.length, 0);
  // Draining again (every node restarting): say so instead of looping.
  s.lastIntent = create;
  handle(s, { type: 'error', code: 'draining', message: why }, fx);
  assert.equal(fx.reconnects, 1);
  assert.deepEqual(fx.toasts, [why]);
});

test('a room whose node is gone: offered again with its settings, named by `replaces`', () => {
  const s = createState();
  const fx = fakeFx();
  s.me.helloName = 'Ann';
  handle(s, welcome({ name: 'Ann' }), fx);
  const info = room([player(1, 'Ann'), player(2, 'Bob')], {
    code: 'AK7M2',
    key: '3f9a0c1d5e7b2a64',
    game: 'maze',
    size: 'easy',
    max_players: 8,
    match: { rounds: 5, plan: 'alternate' },
  });
  handle(s, info, fx);
  // The node dies: the reconnect lands on another node, which does not know us.
  handle(s, welcome({ name: 'Ann', resumed: false }), fx);
  const join = { type: 'join_room', code: 'AK7M2', key: '3f9a0c1d5e7b2a64' };
  assert.deepEqual(s.lastIntent, join);
  handle(s, { type: 'error', code: 'wrong_node', message: 'room AK7M2 is on node A' }, fx);
  assert.equal(fx.reconnects, 1, 'first, the reroute');
  assert.equal(s.ui.lost, null);
  handle(s, welcome({ name: 'Ann', resumed: false }), fx);
  s.lastIntent = join;
  handle(s, { type: 'error', code: 'wrong_node', message: 'room AK7M2 is on node A' }, fx);
  assert.equal(fx.reconnects, 1, 'no loop');
  assert.equal(fx.toasts.length, 0, 'the banner says it, not a toast');
  assert.equal(s.view, 'home');
  assert.deepEqual(s.ui.lost.create, {
    type: 'create_room',
    game: 'maze',
    size: 'easy',
    rank_by: 'time',
    max_players: 8,
    match: { rounds: 5, plan: 'alternate' },
    replaces: { code: 'AK7M2', key: '3f9a0c1d5e7b2a64' },
  });
  // In the new room, the offer is gone.
  handle(s, room([player(1, 'Ann')], { code: 'BQ4R7', key: 'aa' }), fx);
  assert.equal(s.ui.lost, null);
});

test('an offline welcome keeps the daily identity and marks the page offline', () => {
  const s = createState();
  const fx = fakeFx();
  fx.store.setToken('5f0c3a9e1b7d42c8a6e0f1d2c3b4a596');
  handle(s, { type: 'welcome', player_id: 1, resumed: false, name: 'Ann', limits: DEFAULT_LIMITS, offline: true }, fx);
  assert.equal(s.conn.offline, true);
  assert.equal(fx.store.token(), '5f0c3a9e1b7d42c8a6e0f1d2c3b4a596', 'no token offline: the kept one stays');
  handle(s, welcome({ name: 'Ann' }), fx);
  assert.equal(s.conn.offline, false);
});

test('a ranked daily try is paced under the server floor; practice keeps the message rate', async () => {
  const { pacing, RANKED_MOVES_PER_SEC } = await import('../../public/js/state.js');
  const open = pacing(DEFAULT_LIMITS);
  const ranked = pacing(DEFAULT_LIMITS, true);
  assert.deepEqual(open, { cap: 40, perSec: 25 });
  assert.ok(ranked.perSec <= RANKED_MOVES_PER_SEC);
  assert.ok(1000 / ranked.perSec > 25, 'slower than one move per 25 ms');
  assert.ok(ranked.cap < 3, 'a smaller burst than the server allows');
});
