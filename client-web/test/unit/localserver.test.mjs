// The offline stand-in for the server (public/js/offline/localserver.js):
// whole solo races, a Ghost vault and a maze, played to the finish with the
// Rust solver's lines, asserting the exact messages the real server would
// send (PROTOCOL.md), plus the refusals and the timers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { LocalServer, rank } from '../../public/js/offline/localserver.js';

const BOARDS = JSON.parse(readFileSync(new URL('../fixtures/boards.json', import.meta.url), 'utf8'));
const RULES = JSON.parse(readFileSync(new URL('../fixtures/rules.json', import.meta.url), 'utf8'));
const PROTOCOL = readFileSync(new URL('../../../PROTOCOL.md', import.meta.url), 'utf8');
const LETTER = { u: 'up', d: 'down', l: 'left', r: 'right', x: 'rewind' };
const fixture = (size, seed) => BOARDS.boards.find((b) => b.size === size && b.seed === seed);
const line = (fx) => Array.from(fx.solution, (ch) => LETTER[ch]);

// Every example in PROTOCOL.md, by type: the order its fields come in, merged
// over the examples (one has `reason`, another the Ghost fields).
const ORDER = {};
for (const m of PROTOCOL.matchAll(/```json\n(.*?)\n```/gs)) {
  const keys = Object.keys(JSON.parse(m[1]));
  const order = (ORDER[JSON.parse(m[1]).type] ||= []);
  keys.forEach((k, i) => {
    if (!order.includes(k)) order.splice(i === 0 ? 0 : order.indexOf(keys[i - 1]) + 1, 0, k);
  });
}
ORDER.welcome.push('offline'); // the one field only the offline server sends
/** The message has only fields PROTOCOL.md shows for its type, in that order. */
function assertWireOrder(msg) {
  const order = ORDER[msg.type];
  assert.ok(order, `PROTOCOL.md has no ${msg.type}`);
  const at = Object.keys(msg).map((k) => order.indexOf(k));
  const fits = at.every((i, k) => i >= 0 && (k === 0 || i > at[k - 1]));
  assert.ok(fits, `${JSON.stringify(msg)} does not fit PROTOCOL.md's field order ${order}`);
}

/** A server on a fake clock: messages delivered at once, timers run by advance(). */
function harness({ seeds = ['1'] } = {}) {
  let t = 0,
    nextId = 1;
  const timers = new Map();
  const out = [];
  const states = [];
  const seedQueue = seeds.slice();
  const srv = new LocalServer({
    hello: () => ({ type: 'hello', name: ' Ann ' }),
    onMessage: (m) => {
      assertWireOrder(m);
      out.push(m);
    },
    onState: (s) => states.push(s),
    now: () => t,
    setTimer: (fn, ms) => {
      const id = nextId++;
      timers.set(id, { at: t + ms, fn });
      return id;
    },
    clearTimer: (id) => timers.delete(id),
    defer: (fn) => fn(),
    seed: () => seedQueue.shift() ?? '999',
  });
  const advance = (ms) => {
    const until = t + ms;
    for (;;) {
      const due = [...timers].filter(([, x]) => x.at <= until).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      timers.delete(due[0]);
      t = due[1].at;
      due[1].fn();
    }
    t = until;
  };
  /** Everything sent since the last call, as wire text. */
  const take = () => out.splice(0).map((m) => JSON.stringify(m));
  return { srv, advance, take, timers, states, send: (m) => assert.equal(srv.send(m), true) };
}

function startRace(h, create) {
  h.srv.connect();
  assert.deepEqual(h.states, ['connecting', 'open']);
  assert.deepEqual(h.take(), [
    '{"type":"welcome","player_id":1,"resumed":false,"name":"Ann","limits":{"msgs_per_sec":40,"msgs_burst":80,"max_name_chars":24,"resume_window_ms":60000},"offline":true}',
  ]);
  h.send(create);
  const room = (phase) =>
    `{"type":"room","code":"LOCAL","host":1,"game":"${create.game}","size":"${create.size}","phase":"${phase}","rank_by":"${create.rank_by || 'time'}","max_players":16,"players":[{"id":1,"name":"Ann","ready":false,"spectator":false,"connected":true}]}`;
  assert.deepEqual(h.take(), [room('lobby')]);
  h.send({ type: 'start' });
  const [cr, c3] = h.take();
  assert.equal(cr, room('countdown'));
  const board = JSON.parse(c3).board;
  const countdown = (n) => JSON.stringify({ type: 'countdown', seconds: n, board });
  assert.equal(c3, countdown(3), 'the board comes with the countdown');
  h.advance(999);
  assert.deepEqual(h.take(), []);
  h.advance(1);
  assert.deepEqual(h.take(), [countdown(2)]);
  h.advance(1000);
  assert.deepEqual(h.take(), [countdown(1)]);
  h.advance(1000);
  const [r, start] = h.take();
  assert.equal(r, room('racing'));
  return { start: JSON.parse(start), room };
}

test('a solo Ghost race to the flag, message for message', () => {
  const h = harness({ seeds: ['150'] });
  const { start, room } = startRace(h, { type: 'create_room', game: 'ghost', size: 'small', seed: '1' });
  // PROTOCOL.md's race_start example is this very board.
  const doc = PROTOCOL.match(/```json\n(\{"type":"race_start","board":\{"game":"ghost".*?)\n```/s)[1];
  // A lone racer's clock starts at the first move, whatever the doc's example races.
  assert.equal(start.clock, 'first_move');
  assert.equal(JSON.stringify({ ...start, clock: JSON.parse(doc).clock }), doc);
  // A refused move costs nothing and does not start the clock.
  h.advance(5000);
  h.send({ type: 'move', dir: 'up', seq: 1 });
  assert.deepEqual(h.take(), [
    '{"type":"move_result","seq":1,"ok":false,"reason":"wall","pos":[0,0],"steps":0,"status":"playing","run":1,"steps_left":17,"gate_open":false}',
  ]);
  h.advance(3000);
  const fx = fixture('small', '1');
  const actions = line(fx);
  const want = RULES.find((c) => c.board.seed === '1' && c.board.size === 'small' && c.actions.join() === actions.join());
  assert.ok(want, 'rules.json plays the same line');
  let seq = 2;
  actions.forEach((a, i) => {
    if (i > 0) h.advance(250);
    h.send(a === 'rewind' ? { type: 'rewind', seq } : { type: 'move', dir: a, seq });
    const got = h.take().map((m) => JSON.parse(m));
    const { ok, reason, ...rest } = want.expect[i];
    assert.deepEqual(got[0], { type: a === 'rewind' ? 'rewind_result' : 'move_result', seq, ok, ...(reason ? { reason } : {}), ...rest });
    seq += 1;
    if (i < actions.length - 1) assert.equal(got.length, 1);
    else {
      // Timed from the first accepted move: 11 more actions, 250 ms apart.
      assert.deepEqual(
        got.slice(1).map((m) => JSON.stringify(m)),
        [
          '{"type":"finished","player_id":1,"steps":11,"time_ms":2750,"rank":1}',
          room('results'),
          '{"type":"results","rankings":[{"rank":1,"player_id":1,"name":"Ann","status":"finished","steps":11,"time_ms":2750,"efficiency":100}],"reveal":{"game":"ghost","par":11,"true_par":11,"solution":["down","right","right","up","rewind","down","right","right","down","down","down","left"]}}',
        ],
      );
    }
  });
  assert.equal(h.timers.size, 0, 'the time limit is cleared with the results');
  h.send({ type: 'move', dir: 'up', seq: 99 });
  assert.deepEqual(h.take(), ['{"type":"error","code":"not_racing","message":"no race is on"}']);
  // Rematch: a new board from a fresh seed, back to the lobby.
  h.send({ type: 'rematch' });
  assert.deepEqual(h.take(), [room('lobby')]);
  h.send({ type: 'start' });
  h.advance(3000);
  const next = h
    .take()
    .map((m) => JSON.parse(m))
    .find((m) => m.type === 'race_start');
  const { l: _l, true_par: _t, solution: _s, ...board150 } = fixture('small', '150');
  assert.equal(JSON.stringify(next.board), JSON.stringify(board150));
});

test('a solo maze race, ranked by steps, with a refused rewind', () => {
  const h = harness();
  const { start, room } = startRace(h, { type: 'create_room', game: 'maze', size: 'easy', seed: '42', rank_by: 'steps' });
  const doc = PROTOCOL.match(/```json\n(\{"type":"race_start","board":\{"game":"maze".*?)\n```/s)[1];
  // A lone racer's clock starts at the first move, whatever the doc's example races;
  // the doc's maze is a daily board, shown without its seed.
  assert.equal(start.clock, 'first_move');
  assert.equal(start.board.seed, '42', 'a practice board keeps its seed');
  const { seed, ...unseeded } = start.board;
  assert.ok(seed);
  assert.equal(JSON.stringify({ ...start, board: unseeded, clock: JSON.parse(doc).clock }), doc);
  h.send({ type: 'rewind', seq: 1 });
  assert.deepEqual(h.take(), ['{"type":"rewind_result","seq":1,"ok":false,"reason":"no_rewind","pos":[0,0],"steps":0,"status":"playing"}']);
  const fx = fixture('easy', '42');
  const moves = line(fx);
  assert.equal(moves.length, fx.shortest);
  let last;
  moves.forEach((dir, i) => {
    h.advance(100);
    h.send({ type: 'move', dir, seq: i + 2 });
    last = h.take();
    assert.equal(JSON.parse(last[0]).steps, i + 1);
  });
  const [r, finished, roomMsg, results] = last;
  assert.equal(JSON.parse(r).status, 'won');
  assert.deepEqual(JSON.parse(r).pos, [10, 10]);
  const ms = (moves.length - 1) * 100;
  assert.equal(finished, `{"type":"finished","player_id":1,"steps":${moves.length},"time_ms":${ms},"rank":1}`);
  assert.equal(roomMsg, room('results'));
  assert.equal(
    results,
    `{"type":"results","rankings":[{"rank":1,"player_id":1,"name":"Ann","status":"finished","steps":${moves.length},"time_ms":${ms},"efficiency":100}],"reveal":{"game":"maze","shortest":${fx.shortest},"solution":${JSON.stringify(moves)}}}`,
  );
});

test('out of steps, and the time limit: listed without a rank', () => {
  const h = harness();
  const { room } = startRace(h, { type: 'create_room', game: 'ghost', size: 'small', seed: '1' });
  // Back and forth between [0,0] and [1,0] until the 17-step allowance is spent.
  for (let i = 0; i < 17; i++) h.send({ type: 'move', dir: i % 2 ? 'up' : 'down', seq: i + 1 });
  const out = h.take();
  assert.equal(out.length, 19);
  assert.equal(JSON.parse(out[16]).status, 'out_of_steps');
  assert.equal(out[17], room('results'));
  assert.equal(
    out[18],
    '{"type":"results","rankings":[{"player_id":1,"name":"Ann","status":"out_of_steps","steps":17}],"reveal":{"game":"ghost","par":11,"true_par":11,"solution":["down","right","right","up","rewind","down","right","right","down","down","down","left"]}}',
  );

  const t = harness();
  startRace(t, { type: 'create_room', game: 'maze', size: 'easy', seed: '42' });
  t.send({ type: 'move', dir: 'right', seq: 1 });
  t.take();
  t.advance(600000);
  const [, res] = t.take();
  assert.match(res, /"rankings":\[\{"player_id":1,"name":"Ann","status":"timed_out","steps":1\}\]/);
});

test('what needs the server is refused with an offline: error; the rest as the server does', () => {
  const h = harness();
  assert.equal(h.srv.send({ type: 'ping' }), false, 'not open before connect');
  h.srv.connect();
  h.take();
  const errors = (msg) => {
    h.send(msg);
    return h.take();
  };
  assert.deepEqual(errors({ type: 'create_room', game: 'ghost', size: 'medium', daily: true }), [
    '{"type":"error","code":"internal","message":"offline: the daily challenge needs the server"}',
  ]);
  assert.deepEqual(errors({ type: 'join_room', code: 'K7M2Q' }), [
    '{"type":"error","code":"room_not_found","message":"offline: joining a room needs the server"}',
  ]);
  assert.deepEqual(errors({ type: 'leaderboard', game: 'maze', size: 'easy' }), [
    '{"type":"error","code":"internal","message":"offline: the leaderboard needs the server"}',
  ]);
  assert.deepEqual(errors({ type: 'create_room', game: 'ghost', size: 'easy' }), [
    '{"type":"error","code":"bad_size","message":"easy is not a size of ghost"}',
  ]);
  assert.deepEqual(errors({ type: 'create_room', game: 'maze', size: 'easy', seed: '18446744073709551616' }), [
    '{"type":"error","code":"bad_seed","message":"a seed is a string of decimal digits up to 2^64 - 1"}',
  ]);
  assert.deepEqual(errors({ type: 'start' }), ['{"type":"error","code":"not_in_room","message":"you are not in a room"}']);
  assert.deepEqual(errors({ type: 'hello', name: 'Ann' }), ['{"type":"error","code":"hello_first","message":"you already said hello"}']);
  assert.deepEqual(errors({ type: 'ping' }), ['{"type":"pong"}']);
  h.send({ type: 'create_room', game: 'ghost', size: 'large', max_players: 500 });
  assert.equal(JSON.parse(h.take()[0]).max_players, 64);
  assert.deepEqual(errors({ type: 'join_room', code: 'K7M2Q' }), [
    '{"type":"error","code":"already_in_room","message":"leave your room first"}',
  ]);
  assert.deepEqual(errors({ type: 'move', dir: 'up', seq: 1 }), ['{"type":"error","code":"not_racing","message":"no race is on"}']);
  assert.deepEqual(errors({ type: 'rematch' }), ['{"type":"error","code":"wrong_phase","message":"a rematch comes after the results"}']);
  h.send({ type: 'start' });
  h.take();
  assert.equal(h.timers.size, 1);
  assert.deepEqual(errors({ type: 'leave_room' }), [], 'leave_room has no answer');
  assert.equal(h.timers.size, 0, 'the countdown is cancelled');
  h.advance(5000);
  assert.deepEqual(h.take(), []);
});

test('hello comes first and names are checked as the server checks them', () => {
  const h = harness();
  h.srv.hello = () => ({ type: 'hello', name: '   ' });
  h.srv.connect();
  assert.deepEqual(h.take(), ['{"type":"error","code":"bad_name","message":"a name cannot be empty"}']);
  h.send({ type: 'create_room', game: 'maze', size: 'easy' });
  assert.deepEqual(h.take(), [
    '{"type":"error","code":"hello_first","message":"say hello first: {\\"type\\":\\"hello\\",\\"name\\":\\"...\\"}"}',
  ]);
  h.send({ type: 'hello', name: 'x'.repeat(25) });
  assert.match(h.take()[0], /bad_name/);
  h.send({ type: 'hello', name: 'é'.repeat(24) });
  assert.match(h.take()[0], /"type":"welcome"/);
});

test('rank() orders as server/src/results.rs does', () => {
  const e = (id, status, steps, time_ms = null) => ({ id, name: `p${id}`, status, steps, time_ms });
  const es = [e(1, 'finished', 20, 9000), e(2, 'finished', 30, 5000), e(3, 'out_of_steps', 20), e(4, 'finished', 18, 9000)];
  assert.deepEqual(
    rank(es, 'time', 18).map((x) => [x.player_id, x.rank, x.efficiency]),
    [
      [2, 1, 60],
      [4, 2, 100],
      [1, 3, 90],
      [3, undefined, undefined],
    ],
  );
  const tie = [e(1, 'finished', 20, 9000), e(2, 'finished', 20, 9000), e(3, 'finished', 21, 9000)];
  assert.deepEqual(
    rank(tie, 'steps', null).map((x) => x.rank),
    [1, 1, 3],
  );
  assert.ok(rank(tie, 'steps', null).every((x) => !('efficiency' in x)));
});

test('with the real timers and microtasks: a countdown then race_start', async () => {
  const got = [];
  let done;
  const raced = new Promise((r) => {
    done = r;
  });
  const srv = new LocalServer({
    hello: () => ({ type: 'hello', name: 'Ann' }),
    onMessage: (m) => {
      got.push(m.type);
      if (m.type === 'race_start') done(m);
    },
    countdownStepMs: 5,
  });
  srv.connect();
  assert.deepEqual(got, [], 'nothing is delivered synchronously');
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(srv.send({ type: 'create_room', game: 'maze', size: 'hard' }), true);
  srv.send({ type: 'start' });
  const m = await raced;
  assert.match(m.board.seed, /^[0-9]+$/);
  assert.deepEqual(got, ['welcome', 'room', 'room', 'countdown', 'countdown', 'countdown', 'room', 'race_start']);
  srv.close();
  assert.equal(srv.open, false);
});

test('give up ends the run at once, then the same board again, and renaming', () => {
  const h = harness({ seeds: ['77'] });
  const { room } = startRace(h, { type: 'create_room', game: 'maze', size: 'easy', seed: '42' });
  h.send({ type: 'rename', name: 'Bo' });
  assert.deepEqual(h.take(), ['{"type":"error","code":"wrong_phase","message":"you can change your name after the race"}']);
  h.send({ type: 'move', dir: 'right', seq: 1 });
  h.take();
  h.send({ type: 'give_up' });
  const got = h.take().map((m) => JSON.parse(m));
  assert.deepEqual(got[0], { type: 'progress', players: [{ id: 1, pos: [0, 1], steps: 1, status: 'gave_up', left: 35 }] });
  assert.equal(JSON.stringify(got[1]), room('results'));
  assert.deepEqual(got[2].rankings, [{ player_id: 1, name: 'Ann', status: 'gave_up', steps: 1 }]);
  h.send({ type: 'give_up' });
  assert.deepEqual(h.take(), ['{"type":"error","code":"not_racing","message":"no race is on"}']);
  h.send({ type: 'rematch', same_board: true });
  h.take();
  h.send({ type: 'start' });
  const [, c3] = h.take();
  assert.equal(JSON.parse(c3).board.seed, '42', 'the same board, not seed 77');
  h.send({ type: 'leave_room' });
  h.send({ type: 'rename', name: 'Bo' });
  assert.deepEqual(h.take(), ['{"type":"renamed","name":"Bo"}']);
});
