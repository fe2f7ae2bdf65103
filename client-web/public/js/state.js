// The page's one state object, every field declared (README, "Notes"), and selectors over it. Pure.

/**
 * Racers' colours, by the index the server gives each racer (`room.players[].colour`):
 * the same racer is the same colour on every screen. Okabe-Ito first, the most distinct;
 * past eight they repeat, the names telling them apart.
 */
export const RACER_COLOURS = ['#0072B2', '#E69F00', '#CC79A7', '#009E73', '#D55E00', '#56B4E9', '#8c6bb1', '#b8860b'];

/** The server's documented defaults, for a `welcome` without `limits` (an older server). */
export const DEFAULT_LIMITS = Object.freeze({
  msgs_per_sec: 40,
  msgs_burst: 80,
  max_name_chars: 24,
  resume_window_ms: 60000,
  // A ranked daily try's fastest pace, as `welcome` says it (the server refuses faster moves `too_fast`).
  ranked_move_ms: 80,
  ranked_move_burst: 3,
});

export function createState() {
  return {
    view: 'home',
    /** The view the replay screen's Back returns to. */
    back: null,
    conn: {
      status: 'idle',
      wait: 0,
      welcomed: false,
      taken: false,
      /** Playing against the offline stand-in (offline/localserver.js): solo practice, nothing ranked. */
      offline: false,
      /** A `wrong_node` answer already sent us to the room's node once. */
      rerouted: false,
      /** Offline, and the server answers again. */
      back: false,
      /** Failed connection attempts since the last welcome (the "can't reach the server" banner). */
      fails: 0,
      /** /api/daily could not be fetched at all: no server at this address now. */
      unreachable: false,
    },
    // name: the server's word (welcome or renamed); helloName: the name sent in the last hello.
    me: { id: null, name: '', helloName: '' },
    limits: { ...DEFAULT_LIMITS },
    /** A message to send once welcomed. */
    intent: null,
    /** The room I was in, while a reconnect tries to rejoin it (roomhandlers.js lostRoom). */
    lost: null,
    /** The last room message (retried after `already_in_room`). */
    lastIntent: null,
    awaitingSnap: false,
    /** Start a room of one as soon as its lobby appears. */
    soloNext: false,
    /** Start once the room lists the rival asked for. */
    rivalNext: false,
    /** At the results of a run given up from "Try this board again": ask for the same board. */
    againNext: false,
    /** The room whose last race I finished (the lobby's "my run in this room's last race"). */
    ranHere: null,
    room: null,
    /**
     * This page is a screen (a TV showing the room, tv.js): never a racer, never listed.
     * `closed`: why its room is gone, said on the screen; `last`: that room, for a new party room like it.
     */
    tv: null,
    race: {
      board: null,
      countdown: 0,
      /** 'start' or 'first_move', fixed at race_start (race.rs Clock). */
      clock: 'start',
      /** now() at the start signal, less `elapsed_ms` on a resume. */
      startedAt: 0,
      firstMoveAt: 0,
      /** Date.now() the race's clock counts from for me (the trail's race: store.js `trail`). */
      originWall: 0,
      doneMs: null,
      live: false,
      finished: new Map(),
      /** Racers who left this race: id -> their room entry (roomhandlers.js sayWhoLeft). */
      gone: new Map(),
      results: null,
    },
    game: {
      /** My Predictor (null when watching). */
      pred: null,
      seq: 0,
      visited: new Set(),
      /** What the game's live-region news (games/ `news`) last said: a gate open or shut. */
      noted: false,
      /** {from, t} while my marker glides. */
      anim: null,
      givenUp: false,
      /** 'rewind' or 'leave' while a question is asked. */
      confirm: null,
      lastMoveSaid: 0,
    },
    others: {
      progress: new Map(),
      colours: new Map(),
      /** Other racers' markers as last drawn (tests read them). */
      markers: [],
    },
    daily: {
      boards: [],
      loaded: false,
      date: null,
      deadline: 0,
      /** /api/daily's `you` (or the same shape rebuilt from stored results). */
      you: null,
      result: null,
      /** room.ranked (null: the server did not say). */
      ranked: null,
      /** Why a daily room is not ranked (room.practice). */
      practice: null,
      rankedAt: null,
      card: null,
      table: null,
      ranksOf: null,
    },
    leagues: {
      /** My leagues; null before the server's answer. */
      mine: null,
      open: null,
      invite: null,
      boards: new Map(),
      standings: null,
      days: 7,
      /** A league message awaiting its answer (its error goes to the leagues card). */
      pending: null,
      error: '',
    },
    replay: {
      line: null,
      run: null,
      /** Counts openings of the replay screen, so a fetch answering late is ignored. */
      opened: 0,
    },
    /** A match's messages (matches.js): the server's numbers, kept as sent. */
    match: {
      /** The last `intermission` ({round, seconds, held}) while one is on. */
      intermission: null,
      /** The round whose intermission the host held (each can be held once). */
      heldRound: 0,
      /** The `match_over`, until a new match or single races begin. */
      over: null,
      /** The match's rounds as the server scored them (`match_round`), in order: round 1 begins a match's list. */
      rounds: [],
    },
    /** The moves paced below the server's message rate (actions.js sendPaced). */
    outbox: { tokens: null, at: 0, queue: [] },
    pendingRename: null,
    timers: { hintUntil: 0, flashUntil: 0, pace: 0, line: 0 },
    // lost: the room whose node is gone, offered again with its settings (the "lost" banner).
    ui: { hint: '', hintWarn: false, flash: '', nameError: '', siteBase: null, invite: null, lost: null },
  };
}

export const member = (s, id = s.me.id) => (s.room ? s.room.players.find((p) => p.id === id) || null : null);
export const isHost = (s) => !!s.room && s.room.host === s.me.id;
export const racers = (s) => (s.room ? s.room.players.filter((p) => !p.spectator) : []);
/**
 * Everyone watching the room: those it names, and those it only counts
 * (`more_spectators`: a room names 8 spectators, so a big audience does
 * not make every message to it big).
 */
export const watching = (room) => (room ? room.players.filter((p) => p.spectator).length + (room.more_spectators || 0) : 0);
/**
 * The server out of reach (README, "Server gone"): an HTTP request found
 * nobody (`unreachable`), or the socket failed before any welcome, or twice
 * since the last one; it stays so between two attempts (a retry's
 * "connecting" is no news), until a welcome or an answer.
 */
export const serverDown = (s) => {
  const c = s.conn;
  if (c.offline) return false;
  const trying = c.status === 'waiting' || c.status === 'connecting';
  return c.unreachable || (trying && c.fails >= (s.me.id ? 2 : 1));
};

/** What needs the server (a room, joining one, the daily) cannot be had now: it is out of reach, or the page plays offline. */
export const noServer = (s) => s.conn.offline || serverDown(s);

/**
 * News that overtakes "The server is restarting. Reconnecting…": the room
 * is lost (its banner), the server is out of reach, or the page went
 * offline. That toast comes down then (ui.js), rather than contradict it.
 */
export const overtakesRestart = (s) => !!s.ui.lost || serverDown(s) || s.conn.offline;

/**
 * No sound here: muted, or a phone in a room a screen shows (the screen
 * sounds the race for everyone) unless its player turned sound on.
 */
export const quiet = (s, store) => store.muted() || (!s.tv && !!s.room && s.room.screens > 0 && !store.soundOn());

export const myGame = (s) => (s.game.pred ? s.game.pred.game : null);

export const racing = (s) => !!s.room && s.room.phase === 'racing' && !!s.race.board && s.race.live;

/** The clock starts at each racer's first move (race_start.clock). */
export const solo = (s) => s.race.clock === 'first_move';

/** "Try this board again" rather than a rematch. */
export const alone = (s) => !!s.room && (!!s.room.daily || s.room.players.length === 1);

export const canMove = (s) => racing(s) && !!s.game.pred && s.game.pred.game.status === 'playing' && s.conn.welcomed && !s.game.givenUp;

export function elapsed(s, now) {
  const r = s.race;
  if (r.doneMs != null) return r.doneMs;
  if (!r.board || !r.live) return 0;
  if (solo(s) && s.game.pred) return r.firstMoveAt ? now - r.firstMoveAt : 0;
  return now - r.startedAt;
}

export function nameOf(s, id) {
  const p = member(s, id);
  if (p) return p.name;
  const r = s.race.results && s.race.results.rankings.find((x) => x.player_id === id);
  return r ? r.name : `Player ${id}`;
}

/**
 * A racer's colour: the server's (`room.players[].colour`), the same on every screen; kept once seen,
 * so a racer who left mid-race keeps theirs on the board and in the list. None known (a spectator,
 * the offline stand-in): `fallback`.
 */
export function colourOf(s, id, fallback = '#9aa3b2') {
  const c = s.others.colours;
  const p = member(s, id);
  if (p && Number.isInteger(p.colour)) c.set(id, RACER_COLOURS[p.colour % RACER_COLOURS.length]);
  return c.get(id) || fallback;
}

/** A bucket of half the burst refilled at 5/8 of the rate (`limits` as readLimits leaves them). */
export function pacing(limits, rankedDaily = false) {
  const pace = { cap: Math.max(1, Math.floor(limits.msgs_burst / 2)), perSec: Math.max(1, (limits.msgs_per_sec * 5) / 8) };
  if (!rankedDaily) return pace;
  // The server paces a ranked daily try to human input (too_fast): stay under
  // its floor by a fifth (a timer fires late, never early, but the network
  // can bunch two moves) and under its burst by one.
  const floorPerSec = (1000 / limits.ranked_move_ms) * 0.8;
  return { cap: Math.max(1, Math.min(pace.cap, limits.ranked_move_burst - 1)), perSec: Math.min(pace.perSec, floorPerSec) };
}
