// The page's one state object, every field declared up front, and selectors over it. Pure.

import { gateOpen } from './rules.js';
import { RACER_COLOURS } from './render.js';

export const DEFAULT_LIMITS = Object.freeze({ msgs_per_sec: 40, msgs_burst: 80, max_name_chars: 24, resume_window_ms: 60000 });

export function createState() {
  return {
    view: 'home', // home, lobby, play, ranks, replay, league
    back: null, // the view the replay screen's Back returns to
    // offline: the local stand-in server (solo practice, nothing ranked);
    // rerouted: a wrong_node answer already sent us to the room's node once.
    conn: { status: 'idle', wait: 0, welcomed: false, taken: false, offline: false, rerouted: false, back: false },
    me: {
      id: null,
      name: '', // the name the server confirmed (welcome.name or renamed.name); '' before
      helloName: '', // the name sent in the last hello (what an older server knows us by)
    },
    limits: { ...DEFAULT_LIMITS },
    intent: null, // a message to send once welcomed
    lastIntent: null, // the last room message sent (to retry after already_in_room)
    awaitingSnap: false, // resumed: a snapshot may follow
    soloNext: false, // a room of one: start as soon as its lobby appears
    rivalNext: false, // add_rival sent: start once the lobby's room lists the rival
    room: null, // the last `room` (or snapshot.room), as the server sent it
    race: {
      board: null, // parsed board of the race on screen (from countdown or race_start)
      countdown: 0, // seconds left before the start, 0 when none
      clock: 'start', // 'start' or 'first_move', fixed for the whole race at race_start
      startedAt: 0, // now() at the start signal (less elapsed_ms on a resume)
      firstMoveAt: 0, // now() at my first accepted move (first_move clock)
      doneMs: null, // my final time, once finished
      live: false, // race_start seen and no results yet
      finished: new Map(), // player id -> `finished` message
      results: null, // the `results` message
    },
    game: {
      pred: null, // my Predictor; null when watching
      seq: 0,
      visited: new Set(), // maze cells crossed, "r,c"
      gateWas: false,
      anim: null, // {from, t}: my marker gliding to its cell
      givenUp: false, // I sent give_up this race
      confirm: null, // 'rewind' or 'leave': a question waiting for an answer
      lastMoveSaid: 0, // now() of the last "moved" announcement (throttled)
    },
    others: {
      progress: new Map(), // player id -> progress entry
      colours: new Map(), // player id -> colour, in order of first sight
      markers: [], // as last drawn (tests read them)
    },
    daily: {
      boards: [], // today's boards [{game, size}]
      date: null,
      deadline: 0, // Date.now() of the next 00:00 UTC
      you: null, // /api/daily's `you` (or the same shape rebuilt from stored results)
      result: null, // the daily_result on screen
      ranked: null, // room.ranked in a daily room (null when the server does not say)
      practice: null, // room.practice: why it is not ranked ('played', 'address_cap')
      rankedAt: null, // room.ranked_at
      card: null, // a daily result card opened again from home
      table: null, // the last `leaderboard` (or its HTTP twin)
      ranksOf: null, // {game, size} of the leaderboard view
    },
    leagues: {
      mine: null, // `leagues`.leagues, in the order joined; null before the answer
      open: null, // the code on the league view
      invite: null, // {code, name?, members?}: a /l/CODE link to a league I am not in
      boards: new Map(), // "game.size" -> the open league's league_board
      standings: null, // the open league's league_standings
      days: 7, // the standings' window: 7 or 30
      pending: null, // a league message awaiting its answer: its error goes to the leagues card
      error: '',
    },
    replay: {
      line: null, // the optimal line in the results: {frames, pb}
      run: null, // the stored run on the replay screen: {run, board, frames, refused, pb, timer, glide}
      opened: 0, // counts openReplay calls: an older fetch answering late is ignored
    },
    outbox: { tokens: null, at: 0, queue: [] }, // moves paced below the server's message rate
    pendingRename: null, // a rename sent and not yet answered
    timers: { hintUntil: 0, flashUntil: 0, pace: 0, line: 0 },
    ui: { hint: '', hintWarn: false, flash: '', nameError: '', lanBase: null, invite: null },
  };
}

export const member = (s, id = s.me.id) => (s.room ? s.room.players.find((p) => p.id === id) || null : null);
export const isHost = (s) => !!s.room && s.room.host === s.me.id;
export const inRoom = (s) => !!s.room;
export const racers = (s) => (s.room ? s.room.players.filter((p) => !p.spectator) : []);
export const myGame = (s) => (s.game.pred ? s.game.pred.game : null);

export const racing = (s) => !!s.room && s.room.phase === 'racing' && !!s.race.board && s.race.live;

/** This race's clock starts at each racer's first move: solo practice and daily (race_start.clock). */
export const solo = (s) => s.race.clock === 'first_move';

/** The room is one person (or a daily room): "Play again" / "Try this board again" rather than a rematch. */
export const alone = (s) => !!s.room && (!!s.room.daily || s.room.players.length === 1);

export const canMove = (s) => racing(s) && !!s.game.pred && s.game.pred.game.status === 'playing' && s.conn.welcomed && !s.game.givenUp;

export function elapsed(s, now) {
  const r = s.race;
  if (r.doneMs != null) return r.doneMs;
  if (!r.board || !r.live) return 0;
  if (solo(s) && s.game.pred) return r.firstMoveAt ? now - r.firstMoveAt : 0;
  return now - r.startedAt;
}

export const gateOpenNow = (s) => !!s.game.pred && gateOpen(s.game.pred.game);

export function nameOf(s, id) {
  const p = member(s, id);
  if (p) return p.name;
  const r = s.race.results && s.race.results.rankings.find((x) => x.player_id === id);
  return r ? r.name : `Player ${id}`;
}

export function colourOf(s, id) {
  const c = s.others.colours;
  if (!c.has(id)) c.set(id, RACER_COLOURS[c.size % RACER_COLOURS.length]);
  return c.get(id);
}

/** The moves queue pacing: a bucket of half the burst refilled at 5/8 of the rate (defaults: 40 and 25/s). */
export function pacing(limits, rankedDaily = false) {
  const rate = Number(limits.msgs_per_sec) > 0 ? Number(limits.msgs_per_sec) : DEFAULT_LIMITS.msgs_per_sec;
  const burst = Number(limits.msgs_burst) > 0 ? Number(limits.msgs_burst) : DEFAULT_LIMITS.msgs_burst;
  const pace = { cap: Math.max(1, Math.floor(burst / 2)), perSec: Math.max(1, (rate * 5) / 8) };
  // A ranked daily try is paced to human input by the server (one move per
  // 25 ms, bursts of 3; faster ones are refused as too_fast): stay under it.
  return rankedDaily ? { cap: Math.min(pace.cap, 2), perSec: Math.min(pace.perSec, RANKED_MOVES_PER_SEC) } : pace;
}

/** Below the server's ranked floor (25 ms a move): about one move per 33 ms. */
export const RANKED_MOVES_PER_SEC = 30;

/** The best possible count for the board in `reveal`: Ghost's true_par, the maze's shortest. */
export const bestPossible = (reveal) => (!reveal ? null : reveal.game === 'ghost' ? reveal.true_par ?? null : reveal.shortest ?? null);

/**
 * Efficiency in whole percent against the best possible: floored, so 99.6%
 * shows 99 and only an optimal run shows 100; never above 100.
 */
export function efficiency(best, steps) {
  if (!Number.isFinite(best) || !Number.isFinite(steps) || steps <= 0 || best <= 0) return null;
  if (steps <= best) return 100;
  return Math.min(99, Math.floor((best * 100) / steps));
}
