// Test doubles for the handlers and actions: an `fx` that records what it is
// asked to do (sent messages, announcements, toasts, timers) on a clock the
// test moves, and a few boards and messages.
import { makeStore, memoryStorage } from '../../public/js/store.js';
import { createState } from '../../public/js/state.js';
import { handle } from '../../public/js/handlers.js';
import { load as loadEngine } from '../../public/js/engine.js';

// The handlers read boards with the engine, which the page loads with its room screens (app.js holds a board until then).
await loadEngine();

export function fakeFx({ path = '/' } = {}) {
  let t = 1000;
  let p = path;
  const fx = {
    sent: [],
    said: [],
    toasts: [],
    timers: [],
    connects: 0,
    open: true,
    send: (m) => (fx.sent.push(m), fx.open),
    connect: () => fx.connects++,
    reconnects: 0,
    reconnect: () => fx.reconnects++,
    connected: () => fx.open,
    now: () => t,
    wall: () => 1_700_000_000_000 + t,
    tick: (ms) => (t += ms),
    later: (fn, ms) => fx.timers.push({ fn, at: t + ms }),
    /** Runs the timers that are due (all of them with `all`). */
    run(all = false) {
      const due = fx.timers.filter((x) => all || x.at <= t);
      fx.timers = fx.timers.filter((x) => !due.includes(x));
      for (const x of due) x.fn();
    },
    store: makeStore(memoryStorage(), memoryStorage(), () => 0),
    announce: (x) => fx.said.push(x),
    toast: (x) => fx.toasts.push(x),
    buzz() {},
    cues: [],
    cue: (k) => fx.cues.push(k),
    bump() {},
    path: () => p,
    go: (x) => (p = x),
    loadDaily() {},
    /** The messages sent since the last call (but the `my_leagues` every welcome asks: leagues.test.mjs has it). */
    drain() {
      const out = fx.sent.filter((m) => m.type !== 'my_leagues');
      fx.sent.length = 0;
      return out;
    },
  };
  return fx;
}

// The seed's worked example vault: plate at the bottom left, gate in the wall, flag top right.
export const VAULT = {
  game: 'ghost',
  size: 'small',
  seed: '0',
  n: 6,
  cells: ['...#..', '...#..', '......', '...#..', '...#..', '...#..'],
  start: [0, 0],
  flag: [0, 5],
  plate: [5, 0],
  gate: [2, 3],
  par: 14,
  allowance: 20,
  fallback: false,
  attempts: 1,
};
export const MAZE = {
  game: 'maze',
  size: 'easy',
  seed: '7',
  n: 5,
  passages: ['2c2ac', '696c5', '56955', '55455', '393b9'],
  start: [0, 0],
  exit: [4, 4],
};

export const player = (id, name, extra = {}) => ({ id, name, ready: false, spectator: false, connected: true, ...extra });
export const room = (players, extra = {}) => ({
  type: 'room',
  code: 'K7M2Q',
  host: 1,
  game: 'ghost',
  size: 'small',
  phase: 'lobby',
  rank_by: 'time',
  max_players: 16,
  players,
  ...extra,
});
export const welcome = (extra = {}) => ({
  type: 'welcome',
  player_id: 1,
  token: '5f0c3a9e1b7d42c8a6e0f1d2c3b4a596',
  resumed: false,
  ...extra,
});

/** A state welcomed as player 1 and sat in a lobby with `players`. */
export function seated(players = [player(1, 'Ann')], roomExtra = {}, fxOpts = {}) {
  const s = createState();
  const fx = fakeFx(fxOpts);
  s.me.helloName = 'Ann';
  handle(s, welcome({ name: 'Ann' }), fx);
  handle(s, { type: 'leagues', leagues: [] }, fx);
  handle(s, room(players, roomExtra), fx);
  fx.drain();
  return { s, fx };
}

/** The race on in `s`'s room, on `board`. */
export function raceOn(s, fx, board = VAULT, extra = {}) {
  handle(s, { ...room(s.room.players, { ...s.room, phase: 'racing' }), type: 'room' }, fx);
  handle(s, { type: 'race_start', board, time_limit_ms: 600000, ...extra }, fx);
}
