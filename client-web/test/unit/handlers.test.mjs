// The message handlers without a browser: feed server messages, assert the
// state. The connection, the lobby, the daily and the errors here; a race's
// messages (countdown to results, a resume's snapshot) in handlers_race.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createState, DEFAULT_LIMITS, overtakesRestart } from '../../public/js/state.js';
import { handle, HANDLERS } from '../../public/js/handlers.js';
import { readLimits } from '../../public/js/roomhandlers.js';
import { request } from '../../public/js/actions.js';
import { fakeFx, player, room, welcome, seated } from './fakes.mjs';

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
    'room_moved',
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
  const limits = {
    msgs_per_sec: 10,
    msgs_burst: 12,
    max_name_chars: 16,
    resume_window_ms: 30000,
    ranked_move_ms: 120,
    ranked_move_burst: 2,
  };
  handle(s, welcome({ name: 'Ann', limits }), fx);
  assert.equal(s.me.id, 1);
  assert.equal(s.conn.welcomed, true);
  assert.equal(s.me.name, 'Ann', 'the name the server says, not the one typed');
  assert.deepEqual(s.limits, limits);
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

test('room_moved: the room follows to its new code on a new connection, with no click', () => {
  const { s, fx } = seated([player(1, 'Ann'), player(2, 'Bob')], { code: 'AK7M2', key: 'oldkey' });
  handle(s, { type: 'room_moved', code: 'BQ4XZ', key: 'newkey' }, fx);
  assert.equal(fx.reconnects, 1, 'reconnected by itself');
  assert.equal(s.room.code, 'BQ4XZ', 'the new connection names the new code (/ws?room=BQ4XZ)');
  assert.equal(s.room.key, 'newkey');
  assert.equal(s.room.players.length, 2, 'the room as it was until the new node says more');
  assert.deepEqual(fx.toasts, [], 'nothing to read, nothing to click');
  // The new node had no seat for us (say, the resume window passed): the
  // welcome asks to join the new room with its key.
  handle(s, welcome({ name: 'Ann', resumed: false }), fx);
  assert.deepEqual(s.lastIntent, { type: 'join_room', code: 'BQ4XZ', key: 'newkey' }, 'asked at once');
});

test('room_moved: an old invite link asks the new room instead', () => {
  const s = createState();
  const fx = fakeFx();
  s.me.helloName = 'Cat';
  handle(s, welcome({ name: 'Cat' }), fx);
  s.lastIntent = { type: 'join_room', code: 'AK7M2', key: 'oldkey' };
  handle(s, { type: 'room_moved', code: 'BQ4XZ', key: 'newkey' }, fx);
  assert.deepEqual(s.intent, { type: 'join_room', code: 'BQ4XZ', key: 'newkey' });
  assert.equal(fx.reconnects, 1);
  // Not in a room and not joining: nothing to follow.
  const lone = createState();
  const fx2 = fakeFx();
  handle(lone, { type: 'room_moved', code: 'BQ4XZ', key: 'newkey' }, fx2);
  assert.equal(fx2.reconnects, 0);
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
  // The node dies (saying so first): the reconnect lands on another node, which does not know us.
  handle(s, { type: 'server_shutdown' }, fx);
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
  // The banner says it, not a toast; "restarting, reconnecting…" (issue 35, item 9) is taken down now (ui.js).
  assert.deepEqual(fx.toasts, ['The server is restarting. Reconnecting…']);
  assert.equal(overtakesRestart(s), true);
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

test('a ranked daily try is paced under the floor welcome names; practice keeps the message rate', async () => {
  const { pacing } = await import('../../public/js/state.js');
  const open = pacing(DEFAULT_LIMITS);
  assert.deepEqual(open, { cap: 40, perSec: 25 });
  // As the server announces them (welcome.limits), not as the page assumes.
  for (const [ms, burst] of [
    [80, 3],
    [200, 2],
    [25, 5],
  ]) {
    const limits = readLimits({ ...DEFAULT_LIMITS, ranked_move_ms: ms, ranked_move_burst: burst });
    const ranked = pacing(limits, true);
    assert.ok(1000 / ranked.perSec > ms, `slower than one move per ${ms} ms (the server floor)`);
    assert.ok(ranked.cap < burst && ranked.cap >= 1, 'a smaller burst than the server allows');
  }
});
