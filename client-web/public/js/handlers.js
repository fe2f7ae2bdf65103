// Every server message: a table from type to a handler that updates the state
// and asks `fx` for effects (no DOM: node --test feeds it messages); the
// caller renders. Here the table, the race's messages and race setup
// (startRace), the daily's and the leagues'; the connection's and the room's
// are in roomhandlers.js, a match's in matches.js. A board is read by the
// engine (engine.js): app.js hands over a message carrying one once it is
// loaded (engine.js inbox).

import * as E from './engine.js';
import { gameOf } from './games/index.js';
import { member, racers, elapsed, nameOf, quiet } from './state.js';
import { blocked, afterChange, joinMsg, clearRace, showRoom, hint, openLeague, tryAgain } from './actions.js';
import * as F from './format.js';
import { MATCH_HANDLERS } from './matches.js';
import { ROOM_HANDLERS, setRoom, goneRacer } from './roomhandlers.js';

/** A newer server may say more: unknown types are ignored. */
export function handle(s, m, fx) {
  const h = HANDLERS[m && m.type];
  if (h) h(s, m, fx);
}

export const HANDLERS = {
  ...ROOM_HANDLERS,

  countdown(s, m, fx) {
    if (s.race.live || s.race.results) clearRace(s);
    s.match.intermission = null;
    s.race.countdown = m.seconds;
    // The board to study: everyone sees it for the same seconds before the start.
    const board = E.rules.readBoard(m.board);
    if (board) s.race.board = board;
    showRoom(s, 'play');
    fx.announce(String(m.seconds));
    sound(s, fx, 'count');
  },

  race_start(s, m, fx) {
    const board = E.rules.readBoard(m.board);
    if (!board) return fx.toast('The server sent a board this page cannot read.');
    startRace(s, fx, board, { clock: m.clock, fresh: true });
    s.race.countdown = 0;
    flash(s, fx, 'Go!');
    sound(s, fx, 'go');
    fx.announce(gameOf(board.game).go);
  },

  move_result: confirm,
  rewind_result: confirm,

  progress(s, m) {
    for (const p of m.players || []) {
      s.others.progress.set(p.id, p);
      if (p.id === s.me.id && p.status === 'gave_up') s.game.givenUp = true;
    }
  },

  finished(s, m, fx) {
    s.race.finished.set(m.player_id, m);
    sound(s, fx, 'finish');
    if (m.player_id === s.me.id) {
      s.race.doneMs = m.time_ms;
      fx.announce(`You finished ${F.ordinal(m.rank)} in ${F.clock(m.time_ms)} with ${m.steps} steps.`);
    } else {
      fx.announce(`${nameOf(s, m.player_id)} finished ${F.ordinal(m.rank)}.`);
    }
  },

  results(s, m, fx) {
    if (s.race.doneMs == null && s.race.live) s.race.doneMs = elapsed(s, fx.now()); // the clock stops where it was
    s.race.results = m;
    s.race.countdown = 0;
    s.race.live = false;
    s.outbox.queue.length = 0; // moves meant for a race that is over
    s.game.confirm = null;
    hint(s, '', false); // nothing stale from the race stays under the results
    showRoom(s, 'play');
    if (s.room && (m.rankings || []).some((r) => r.player_id === s.me.id && r.status === 'finished')) s.ranHere = s.room.code;
    if (s.againNext) {
      // "Try this board again" from a run that could no longer win.
      s.againNext = false;
      tryAgain(s, fx);
    }
    const mine = (m.rankings || []).find((r) => r.player_id === s.me.id);
    if (mine)
      fx.announce(
        mine.rank ? `Race over. You placed ${F.ordinal(mine.rank)}.` : `Race over. You did not finish (${F.statusLabel(mine.status)}).`,
      );
  },

  snapshot(s, snap, fx) {
    s.awaitingSnap = false;
    const wanted = F.codeFromPath(fx.path(), s.tv ? 'tv' : 'r');
    setRoom(s, snap.room, fx);
    if (wanted && wanted !== snap.room.code && !snap.room.daily) {
      // The link asks for another room than the one resumed.
      fx.send({ type: 'leave_room' });
      fx.send(joinMsg(wanted, false, F.keyFrom(fx.path()), !!s.tv));
      return;
    }
    const board = E.rules.readBoard(snap.board);
    const phase = snap.room.phase;
    if (board && phase === 'countdown') {
      clearRace(s);
      s.race.board = board;
    } else if (board && phase !== 'lobby') {
      // Joined after the start without a game of our own: watch.
      startRace(s, fx, board, {
        elapsedMs: snap.elapsed_ms || 0,
        you: snap.you || null,
        recording: snap.recording || [],
        clock: snap.clock,
      });
    }
    s.others.progress.clear();
    for (const p of snap.players || []) {
      s.others.progress.set(p.id, p);
      // Left the room since the start (no `room` lists them): still in the race, marked left.
      if (p.status === 'left' && p.id !== s.me.id && !member(s, p.id)) s.race.gone.set(p.id, goneRacer(s, p));
    }
    if (phase === 'lobby') {
      clearRace(s);
      showRoom(s, 'lobby');
    } else showRoom(s, 'play');
  },

  daily_result(s, m, fx) {
    s.daily.result = m;
    fx.store.recordDaily(m);
    if (Array.isArray(m.leagues) && m.leagues.length) fx.send({ type: 'my_leagues' });
    fx.send({ type: 'leaderboard', game: m.game, size: m.size, date: m.date });
    fx.announce(
      m.ranked && m.rank
        ? `Daily: ranked ${F.ordinal(m.rank)} of ${m.entrants}. Streak ${m.streak}.`
        : `Daily result saved. Streak ${m.streak}.`,
    );
  },

  leaderboard(s, m) {
    s.daily.table = m;
  },

  league(s, m, fx) {
    const L = s.leagues;
    L.pending = null;
    L.invite = null;
    if (!(L.mine || []).some((l) => l.code === m.code)) L.mine = [...(L.mine || []), m];
    fx.send({ type: 'my_leagues' });
    fx.announce(`You are in the league ${m.name}.`);
    openLeague(s, fx, m.code);
  },

  member_removed(s, m, fx) {
    fx.toast(m.removed ? 'Removed from the league.' : 'They were not in the league.');
    if (m.code === s.leagues.open) openLeague(s, fx, m.code); // the standings without them
  },

  league_code_changed(s, m, fx) {
    const L = s.leagues;
    const league = m.league || {};
    L.mine = (L.mine || []).map((l) => (l.code === m.old_code ? { ...l, ...league } : l));
    if (L.open === m.old_code) openLeague(s, fx, league.code);
    fx.toast('The league has a new code and link; the old ones no longer work. Send the new link to your friends.');
  },

  league_left(s, m, fx) {
    const L = s.leagues;
    L.pending = null;
    L.mine = (L.mine || []).filter((l) => l.code !== m.code);
    if (L.open === m.code) {
      L.open = null;
      if (s.view === 'league') s.view = 'home';
      fx.go('/');
    }
    fx.toast('You left the league.');
  },

  leagues(s, m, fx) {
    const L = s.leagues;
    if (L.pending === 'my_leagues') L.pending = null;
    L.mine = F.list(m.leagues);
    // A /l/CODE link to a league I am in opens it.
    if (L.invite && L.mine.some((l) => l.code === L.invite.code)) {
      const code = L.invite.code;
      L.invite = null;
      if (!s.room) openLeague(s, fx, code);
    }
  },

  league_board(s, m) {
    if (m.code === s.leagues.open) s.leagues.boards.set(`${m.game}.${m.size}`, m);
  },

  league_standings(s, m) {
    if (m.code === s.leagues.open) s.leagues.standings = m;
  },

  ...MATCH_HANDLERS,
};

function confirm(s, m, fx) {
  const pred = s.game.pred;
  if (!pred) return;
  const was = pred.game.status;
  const r = pred.confirm(m);
  if (r.corrected) {
    if (r.snapBack) blocked(s, fx, m.reason, false);
    s.game.visited.add(pred.game.pos.join(','));
  }
  if (m.status === 'won' && s.race.doneMs == null && was !== 'won') s.race.doneMs = elapsed(s, fx.now());
  afterChange(s, fx);
}

/** A race on `board`; `fresh` (race_start) forgets the last one's finishes, a reconnect's snapshot keeps them. */
export function startRace(s, fx, board, opts = {}) {
  const r = s.race;
  const sameRace = !opts.fresh && r.live && r.board && r.board.seed === board.seed && r.board.game === board.game;
  const told = opts.clock === 'first_move' || opts.clock === 'start' ? opts.clock : null;
  const now = fx.now();
  const elapsedMs = opts.elapsedMs || 0;
  if (!sameRace) {
    r.finished.clear();
    if (opts.fresh) s.others.progress.clear();
    // Never changed mid-race; absent (an old server): racerules.js clockFor's.
    r.clock = told || (s.room?.daily || racers(s).length === 1 ? 'first_move' : 'start');
  } else if (told) r.clock = told;
  clearRace(s);
  r.board = board;
  r.live = true;
  r.startedAt = now - elapsedMs;
  r.firstMoveAt = opts.you && opts.you.steps > 0 ? now - elapsedMs : 0;
  r.doneMs = opts.you && opts.you.status === 'won' ? elapsedMs : null;
  s.daily.result = null;
  const me = member(s);
  const g = s.game;
  const watchOnly = !opts.fresh && !opts.you;
  g.pred = me && !me.spectator && !watchOnly ? new E.Predictor(board) : null;
  if (g.pred && opts.you) g.pred.reset(opts.you, opts.recording || []);
  // The clock's origin on the wall clock: the start signal now, the first
  // move when it comes (actions.js act), or, resumed, now less the elapsed time.
  const started = opts.fresh ? 0 : elapsedMs;
  r.originWall = opts.fresh ? (r.clock === 'start' ? fx.wall() : 0) : r.firstMoveAt || r.clock === 'start' ? fx.wall() - started : 0;
  // A fresh race starts with no trail; a resumed one (of a game that tints the cells crossed) gets its own back.
  const game = gameOf(board.game);
  const kept = game.visited && !opts.fresh && r.originWall && s.room ? fx.store.trail(s.room.code, board.seed, r.originWall) : [];
  g.visited = new Set(kept);
  if (g.pred) g.visited.add(g.pred.game.pos.join(','));
  // What the game's news last said, as of a resume (a gate, say).
  g.noted = g.pred ? game.news(g.pred.game, false).now : false;
  g.givenUp = !!(opts.you && opts.you.status === 'gave_up');
  g.anim = null;
  hint(s, '', false);
  showRoom(s, 'play');
}

/** The race's cues sound on a screen only (audio.js): the room hears one TV, not every phone. */
function sound(s, fx, kind) {
  if (s.tv && !quiet(s, fx.store)) fx.cue(kind);
}

function flash(s, fx, text) {
  s.ui.flash = text;
  s.timers.flashUntil = fx.now() + 700;
  fx.later(() => {}, 720); // a render after the flash is over
}
