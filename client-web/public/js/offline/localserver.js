// An offline stand-in for the server, for SOLO PRACTICE only. It has the
// interface of net.js's Connection and speaks the server's messages
// (PROTOCOL.md, same fields in the same order), so the client's handlers need
// no special case: hello -> welcome (with "offline": true and no token),
// create_room -> room "LOCAL", start -> countdown 3, 2, 1 (with the board)
// then race_start (clock "first_move", as for any lone racer), move/rewind
// judged by rules.js, give_up, finished and results ranked by racerules.js
// (the server's race rules, held to its fixtures), rematch (same_board too),
// rename, leave_room, ping -> pong. The board is
// built in the browser (board.js), equal to the server's for the same seed.
// Anything that needs other people or the store (daily, joining a room, the
// leaderboard) answers an `error` whose message starts with "offline:".
// Messages go out asynchronously (like frames off a socket), as JSON copies.

import { buildBoard, parseSeed, randomSeed, reveal } from './board.js';
import { parseBoard, newGame, apply, view, progressOf, DIRS, distancesToGoal } from '../rules.js';
import { gameOf, gameOfSize } from '../games/index.js';
import { clockFor, rank } from '../racerules.js';

export { efficiency, rank } from '../racerules.js';

export const LOCAL_CODE = 'LOCAL';
export const PLAYER_ID = 1;
const MAX_PLAYERS = 16; // the server's default; capped as it caps
const MAX_PLAYERS_CAP = 64;
const COUNTDOWN_SECS = 3;
const RACE_TIME_LIMIT_MS = 600000;
/** The server's default limits (PROTOCOL.md): what the client paces with. */
const LIMITS = { msgs_per_sec: 40, msgs_burst: 80, max_name_chars: 24, resume_window_ms: 60000 };

/** server/src/names.rs validate(): the trimmed name, or {error}. */
export function validateName(raw) {
  const name = typeof raw === 'string' ? raw.trim() : '';
  if (!name) return { error: 'a name cannot be empty' };
  if (Array.from(name).length > 24) return { error: 'a name is at most 24 characters' };
  if (/\p{Cc}/u.test(name)) return { error: 'a name cannot contain control characters' };
  if (/[\u202A-\u202E\u2066-\u2069]/.test(name)) {
    return { error: 'a name cannot contain bidirectional control characters' };
  }
  return { name };
}

/** `left` as progress reports it: rules.js's BFS. */
export function goalDistances(board) {
  const dist = distancesToGoal(board);
  return (p) => Math.max(0, dist[p[0] * board.n + p[1]]);
}

const isU32 = (v) => Number.isInteger(v) && v >= 0 && v <= 0xffffffff;

export class LocalServer {
  /**
   * As Connection: hello() gives the hello message, onMessage(msg),
   * onState('connecting' | 'open'). For tests: now() (ms), setTimer(fn, ms),
   * clearTimer(id), defer(fn) (delivery of each message), seed() (a random
   * u64 decimal string), countdownStepMs (1000).
   */
  constructor({
    url = 'local:',
    hello,
    onMessage,
    onState = () => {},
    now,
    setTimer,
    clearTimer,
    defer,
    seed,
    countdownStepMs = 1000,
  } = {}) {
    Object.assign(this, { url, hello, onMessage, onState, countdownStepMs });
    this.now = now || (() => (globalThis.performance ? performance.now() : Date.now()));
    this.setTimer = setTimer || ((fn, ms) => setTimeout(fn, ms));
    this.clearTimer = clearTimer || ((id) => clearTimeout(id));
    // Wrapped: called as a method, a bare queueMicrotask is an "Illegal invocation".
    this.defer = defer || ((fn) => queueMicrotask(fn));
    this.seed = seed || randomSeed;
    this.isOpen = false;
    this.reset();
  }

  reset() {
    this.closeRoom();
    this.name = null; // set by hello
  }

  connect() {
    this.reset();
    this.starting = true;
    this.onState('connecting');
    this.defer(() => {
      this.starting = false;
      this.isOpen = true;
      this.onState('open');
      if (this.hello) this.receive(this.hello());
    });
  }

  /** A fresh hello, as a reconnect would be: the room (and the race) is gone. */
  restart() {
    this.isOpen = false;
    this.connect();
  }

  /** Stops: timers cleared, nothing more is sent. */
  close() {
    this.isOpen = this.starting = false;
    this.reset();
  }

  get open() {
    return this.isOpen;
  }

  /** As Connection.active: connecting or open (fx.connect() then does nothing). */
  get active() {
    return this.isOpen || !!this.starting;
  }

  /** As Connection.send: false when not open. */
  send(msg) {
    if (!this.isOpen) return false;
    this.receive(msg);
    return true;
  }

  // ---- the "wire" ----

  emit(msg) {
    const text = JSON.stringify(msg);
    this.defer(() => {
      if (this.isOpen) this.onMessage(JSON.parse(text));
    });
  }

  error(code, message) {
    this.emit({ type: 'error', code, message });
  }

  receive(raw) {
    let msg;
    try {
      msg = JSON.parse(JSON.stringify(raw));
    } catch {
      msg = null;
    }
    if (!msg || typeof msg !== 'object' || typeof msg.type !== 'string') {
      return this.error('bad_message', 'expected a JSON object with a "type"');
    }
    if (msg.type === 'ping') return this.emit({ type: 'pong' });
    if (msg.type === 'hello') return this.onHello(msg);
    if (this.name === null) return this.error('hello_first', 'say hello first: {"type":"hello","name":"..."}');
    switch (msg.type) {
      case 'create_room':
        return this.onCreate(msg);
      case 'join_room':
        if (this.room) return this.error('already_in_room', 'leave your room first');
        return this.error('room_not_found', 'offline: joining a room needs the server');
      case 'leaderboard':
        return this.error('internal', 'offline: the leaderboard needs the server');
      case 'rename':
        return this.onRename(msg);
      case 'leave_room':
      case 'ready':
      case 'start':
      case 'move':
      case 'rewind':
      case 'give_up':
      case 'rematch':
        if (!this.room) return this.error('not_in_room', 'you are not in a room');
        return this[ROOM_HANDLERS[msg.type]](msg);
      default:
        return this.error('bad_message', `unknown message type ${JSON.stringify(msg.type)}`);
    }
  }

  onHello(msg) {
    if (this.name !== null) return this.error('hello_first', 'you already said hello');
    const v = validateName(msg.name);
    if (v.error) return this.error('bad_name', v.error);
    this.name = v.name;
    // No token: nothing offline may stand in for the server's identity.
    this.emit({ type: 'welcome', player_id: PLAYER_ID, resumed: false, name: this.name, limits: LIMITS, offline: true });
  }

  onRename(msg) {
    const v = validateName(msg.name);
    if (v.error) return this.error('bad_name', v.error);
    if (
      this.room &&
      this.room.racer &&
      this.room.phase !== 'lobby' &&
      this.room.phase !== 'results' &&
      this.room.racer.status === 'racing'
    ) {
      return this.error('wrong_phase', 'you can change your name after the race');
    }
    this.name = v.name;
    if (this.room) this.emitRoom();
    this.emit({ type: 'renamed', name: this.name });
  }

  onCreate(msg) {
    if (this.room) return this.error('already_in_room', 'leave your room first');
    const of = gameOfSize(msg.size);
    if (!gameOf(msg.game) || !of) return this.error('bad_message', 'unknown game or size');
    const game = of.name;
    if (game !== msg.game) return this.error('bad_size', `${msg.size} is not a size of ${msg.game}`);
    if (msg.daily) return this.error('internal', 'offline: the daily challenge needs the server');
    if (msg.rank_by !== undefined && msg.rank_by !== 'time' && msg.rank_by !== 'steps') {
      return this.error('bad_message', 'rank_by is time or steps');
    }
    if (msg.max_players !== undefined && !isU32(msg.max_players)) {
      return this.error('bad_message', 'max_players is a whole number');
    }
    const seed = msg.seed === undefined ? this.seed() : parseSeed(msg.seed);
    if (seed === null) return this.error('bad_seed', 'a seed is a string of decimal digits up to 2^64 - 1');
    const built = this.build(msg.size, seed);
    if (!built) return this.error('internal', 'could not build that board; try another seed');
    this.room = {
      game,
      size: msg.size,
      phase: 'lobby',
      rank_by: msg.rank_by || 'time',
      max_players: Math.min(MAX_PLAYERS_CAP, Math.max(1, msg.max_players ?? MAX_PLAYERS)),
      ready: false,
      built,
      racer: null,
      timer: 0,
    };
    this.emitRoom();
  }

  build(size, seed) {
    try {
      return buildBoard(size, seed);
    } catch {
      return null;
    }
  }

  roomInfo() {
    const r = this.room;
    return {
      code: LOCAL_CODE,
      host: PLAYER_ID,
      game: r.game,
      size: r.size,
      phase: r.phase,
      rank_by: r.rank_by,
      max_players: r.max_players,
      players: [{ id: PLAYER_ID, name: this.name, ready: r.ready, spectator: false, connected: true }],
    };
  }

  emitRoom() {
    this.emit({ type: 'room', ...this.roomInfo() });
  }

  closeRoom() {
    if (this.room && this.room.timer) this.clearTimer(this.room.timer);
    this.room = null;
  }

  onLeave() {
    this.closeRoom(); // no answer, as on the server; the room of one is gone
  }

  onReady(msg) {
    if (typeof msg.ready !== 'boolean') return this.error('bad_message', 'ready is true or false');
    if (this.room.phase !== 'lobby') return this.error('wrong_phase', 'ready is for the lobby');
    this.room.ready = msg.ready;
    this.emitRoom();
  }

  onStart() {
    const r = this.room;
    if (r.phase !== 'lobby') return this.error('wrong_phase', 'the race has already started');
    r.racer = { game: newGame(parseBoard(r.built.board)), status: 'racing', time_ms: null, first_move: null };
    r.phase = 'countdown';
    this.emitRoom();
    let left = COUNTDOWN_SECS;
    const tick = () => {
      if (this.room !== r) return;
      if (left === 0) return this.beginRace();
      this.emit({ type: 'countdown', seconds: left, board: r.built.board });
      left -= 1;
      r.timer = this.setTimer(tick, this.countdownStepMs);
    };
    tick();
  }

  beginRace() {
    const r = this.room;
    r.phase = 'racing';
    this.emitRoom();
    this.emit({ type: 'race_start', board: r.built.board, time_limit_ms: RACE_TIME_LIMIT_MS, clock: clockFor(false, 1) });
    r.timer = this.setTimer(() => {
      if (this.room !== r || r.phase !== 'racing') return;
      if (r.racer.status === 'racing') r.racer.status = 'timed_out';
      this.finishRace();
    }, RACE_TIME_LIMIT_MS);
  }

  onAct(msg) {
    const action = msg.type === 'rewind' ? 'rewind' : msg.dir;
    if (!isU32(msg.seq) || (msg.type === 'move' && !DIRS.includes(msg.dir))) {
      return this.error('bad_message', `a ${msg.type} needs ${msg.type === 'move' ? 'a dir and ' : ''}a seq`);
    }
    const r = this.room;
    if (r.phase !== 'racing') return this.error('not_racing', 'no race is on');
    const racer = r.racer;
    const now = this.now();
    const result = racer.status === 'racing' ? apply(racer.game, action) : { ok: false, reason: 'game_over' };
    if (result.ok) {
      if (racer.first_move === null) racer.first_move = now;
      const st = racer.game.status;
      if (st === 'won') {
        // RULES.md: a lone racer's clock starts at the first accepted move.
        racer.status = 'finished';
        racer.time_ms = Math.max(0, Math.floor(now - racer.first_move));
      } else if (st === 'out_of_steps') racer.status = 'out_of_steps';
    }
    const reply = { type: msg.type === 'move' ? 'move_result' : 'rewind_result', seq: msg.seq, ok: result.ok };
    if (!result.ok) reply.reason = result.reason;
    this.emit({ ...reply, ...view(racer.game) });
    if (result.ok && racer.status === 'finished') {
      this.emit({ type: 'finished', player_id: PLAYER_ID, steps: racer.game.steps, time_ms: racer.time_ms, rank: 1 });
    }
    if (racer.status !== 'racing') this.finishRace();
  }

  onGiveUp() {
    const r = this.room;
    if (r.phase !== 'racing' || r.racer.status !== 'racing') {
      return this.error('not_racing', r.phase === 'racing' ? 'you are not racing in this race' : 'no race is on');
    }
    r.racer.status = 'gave_up';
    // As the server: the change reaches everyone, the giver too, then results.
    const g = r.racer.game;
    const p = { id: PLAYER_ID, pos: g.pos, steps: g.steps, ...progressOf(g) };
    Object.assign(p, { status: 'gave_up', left: goalDistances(parseBoard(r.built.board))(g.pos) });
    this.emit({ type: 'progress', players: [p] });
    this.finishRace();
  }

  finishRace() {
    const r = this.room;
    if (r.timer) this.clearTimer(r.timer);
    r.timer = 0;
    r.phase = 'results';
    const racer = r.racer;
    const entry = { id: PLAYER_ID, name: this.name, status: racer.status, steps: racer.game.steps, time_ms: racer.time_ms };
    this.emitRoom();
    this.emit({ type: 'results', rankings: rank([entry], r.rank_by, r.built.best), reveal: reveal(r.built) });
  }

  onRematch(msg) {
    const r = this.room;
    if (r.phase !== 'results') return this.error('wrong_phase', 'a rematch comes after the results');
    const built = msg.same_board ? r.built : this.build(r.size, this.seed());
    if (!built) return this.error('internal', 'could not build a new board; try again');
    Object.assign(r, { built, phase: 'lobby', racer: null, ready: false });
    this.emitRoom();
  }
}

const ROOM_HANDLERS = {
  leave_room: 'onLeave',
  ready: 'onReady',
  start: 'onStart',
  move: 'onAct',
  rewind: 'onAct',
  give_up: 'onGiveUp',
  rematch: 'onRematch',
};
