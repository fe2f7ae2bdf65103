// Every server message: a table from type to a handler that updates the state
// and asks `fx` for effects (no DOM: node --test feeds it messages); the
// caller renders. A board is read by the engine (engine.js): app.js hands
// over a message carrying one once it is loaded.

import * as E from './engine.js';
import { gameOf } from './games/index.js';
import { DEFAULT_LIMITS, member, isHost, racers, elapsed, nameOf, quiet } from './state.js';
import { blocked, afterChange, runIntent, joinMsg, leftRoom, clearRace, showRoom, hint, openLeague, tryAgain } from './actions.js';
import * as F from './format.js';
import { MATCH_HANDLERS, onRoom } from './matches.js';

/** The messages that carry a board, read by the engine (engine.js). */
const BOARDS = new Set(['countdown', 'race_start', 'snapshot']);

/**
 * Messages handled in the order they came, one carrying a board (and
 * whatever follows it) held until the engine is here: `ready()` says whether
 * it is, `load()` brings it (a promise; failed, the next message asks again),
 * `each(m)` handles one, `after()` follows every delivery (app.js renders).
 * Returns the function to give each message to (or null: the engine came).
 */
export function inbox({ ready, load, each, after }) {
  const held = [];
  const receive = (m) => {
    if (m) held.push(m);
    while (held.length) {
      if (!ready() && BOARDS.has(held[0] && held[0].type)) {
        load().then(
          () => receive(null),
          () => {},
        );
        break;
      }
      each(held.shift());
    }
    after();
  };
  return receive;
}

/** A newer server may say more: unknown types are ignored. */
export function handle(s, m, fx) {
  const h = HANDLERS[m && m.type];
  if (h) h(s, m, fx);
}

export const HANDLERS = {
  welcome(s, m, fx) {
    s.me.id = m.player_id;
    s.conn.welcomed = true;
    s.conn.fails = 0;
    s.conn.unreachable = false;
    s.conn.offline = !!m.offline;
    // The offline stand-in has no token: the daily identity stays.
    if (!m.offline) fx.store.setToken(m.token);
    s.limits = readLimits(m.limits);
    s.me.name = typeof m.name === 'string' ? m.name : s.me.helloName;
    // A screen's name is its own ("Screen"): the player's name stays kept for their next visit.
    if (typeof m.name === 'string' && !s.tv) fx.store.setName(m.name);
    if (!m.offline && !s.tv) {
      s.leagues.pending ||= 'my_leagues'; // a league message sent before keeps its errors
      fx.send({ type: 'my_leagues' });
    }
    if (m.resumed) {
      // A snapshot follows if we were in a room; if none comes, carry on.
      s.awaitingSnap = true;
      fx.later(() => {
        if (!s.awaitingSnap) return;
        s.awaitingSnap = false;
        runIntent(s, fx);
      }, 1500);
    } else {
      if (s.room) {
        // The old seat is gone (resume window passed, server restarted): ask again.
        s.intent = s.intent || joinMsg(s.room.code, false, s.room.key, !!s.tv);
        s.lost = lostRoom(s.room);
        leftRoom(s, fx);
      }
      runIntent(s, fx);
    }
  },

  renamed(s, m, fx) {
    s.pendingRename = null;
    s.me.name = m.name;
    s.me.helloName = m.name;
    s.ui.nameError = '';
    fx.store.setName(m.name);
    fx.announce(`Your name is now ${m.name}.`);
    if (s.leagues.mine?.length) fx.send({ type: 'my_leagues' }); // the server renames me in them
  },

  room(s, info, fx) {
    s.conn.rerouted = false;
    s.lost = null;
    s.ui.lost = null;
    setRoom(s, info, fx);
    if (info.phase === 'lobby') {
      const rival = s.rivalNext && info.players.some((p) => p.rival);
      const autostart = (s.soloNext || rival) && isHost(s);
      s.soloNext = false;
      if (rival) s.rivalNext = false;
      if (autostart) fx.send({ type: 'start' });
      if (s.view !== 'lobby' && s.view !== 'replay') clearRace(s);
      showRoom(s, autostart ? 'play' : 'lobby');
    } else {
      s.soloNext = false;
      showRoom(s, 'play');
    }
  },

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

  error(s, m, fx) {
    const code = m.code;
    const last = s.lastIntent;
    if (code === 'already_in_room' && last && last.type !== 'join_room') {
      fx.send({ type: 'leave_room' });
      fx.send(last);
      s.lastIntent = null;
      return;
    }
    if (code === 'already_in_room') return; // the link's room is ours
    if (s.tv && (code === 'screen' || /^room_(not_found|full)$/.test(code))) return screenShut(s, fx, m);
    if (gone(s, code, last)) {
      // The room I was in cannot be reached again (its node is down, or the
      // server forgot it): offer a new one with its settings, shared by its players.
      s.ui.lost = s.lost;
      s.lost = null;
      s.view = 'home';
      return;
    }
    if (code === 'wrong_node' && last && last.type === 'join_room' && !s.conn.rerouted) {
      // Reconnect naming the room (/ws?room=CODE) for the load balancer, and ask there, once.
      s.conn.rerouted = true;
      s.intent = last;
      fx.reconnect();
      return;
    }
    if (code === 'draining' && last && last.type === 'create_room' && !s.conn.rerouted) {
      // This node is restarting: a new connection (no room in its URL) lands on another; ask there, once.
      s.conn.rerouted = true;
      s.intent = last;
      fx.reconnect();
      return;
    }
    if (code === 'rate_limited' || code === 'not_racing') return; // the next move_result corrects
    const badName = m.message || 'That name is not allowed.';
    if (s.pendingRename && (code === 'bad_name' || code === 'wrong_phase')) {
      s.pendingRename = null;
      s.ui.nameError = code === 'wrong_phase' ? 'You can change your name after the race.' : badName;
      return;
    }
    if (s.leagues.pending && /league|bad_name|bad_days|too_many_joins|unavailable|internal/.test(code)) {
      s.leagues.pending = null;
      s.leagues.error = m.message || code;
      return;
    }
    if (code === 'wrong_phase' && s.room && s.room.phase !== 'lobby') return;
    if (code === 'bad_name') {
      s.view = 'home';
      s.ui.nameError = badName;
      return;
    }
    if (code.startsWith('rival_')) s.rivalNext = false;
    if (/^room_(not_found|full)$/.test(code)) {
      leftRoom(s, fx);
      s.view = 'home';
      // The invitation's room is gone: its page says so rather than invite on.
      const inv = s.ui.invite;
      if (code === 'room_not_found' && inv && last && last.code === inv.code) s.ui.invite = { ...inv, room: null, failed: 'gone' };
    }
    fx.toast(m.message || code);
  },

  pong() {},

  server_shutdown(s, m, fx) {
    // Named: news that overtakes it takes it down (ui.js, state.js overtakesRestart).
    fx.toast('The server is restarting. Reconnecting…', 'restarting');
  },

  room_moved(s, m, fx) {
    // My room (or the one a link named) lives on another node now: reconnect
    // naming its new code, where my token finds my seat (or the link's join
    // is asked there). Everyone in the room gets this at once: no click.
    if (typeof m.code !== 'string' || typeof m.key !== 'string') return;
    const last = s.lastIntent;
    if (s.room) s.room = { ...s.room, code: m.code, key: m.key };
    else if (last && last.type === 'join_room') s.intent = joinMsg(m.code, !!last.spectate, m.key, !!last.screen);
    else return;
    fx.reconnect();
  },

  ...MATCH_HANDLERS,
};

export function readLimits(l) {
  const out = { ...DEFAULT_LIMITS };
  if (l && typeof l === 'object') {
    for (const k of Object.keys(DEFAULT_LIMITS)) if (Number.isFinite(l[k]) && l[k] > 0) out[k] = l[k];
  }
  return out;
}

/**
 * What "New room, same settings" sends for the room `info` (its last `room`
 * message): `replaces` names it, so its players who click end up together.
 */
export function lostRoom(info) {
  const msg = { type: 'create_room', game: info.game, size: info.size, rank_by: info.rank_by, max_players: info.max_players };
  if (info.match) msg.match = { rounds: info.match.rounds, plan: info.match.plan };
  msg.replaces = { code: info.code, key: info.key };
  return info.daily || !info.key ? null : { code: info.code, create: msg };
}

/**
 * The screen's room is gone (closed, forgotten by a restarted server) or
 * takes no more screens: said on the screen itself, which offers a new party
 * room like it (tv.js). Nobody is at a keyboard to read a toast.
 */
function screenShut(s, fx, m) {
  const why = {
    room_not_found: 'This room has closed: the server restarted, or everyone left.',
    room_full: 'This room is already on as many screens as it takes.',
  }[m.code];
  const said = typeof m.message === 'string' && m.message ? m.message.replace(/^./, (c) => c.toUpperCase()) + '.' : 'This room has closed.';
  // Its settings: the room shown, or the one a reconnect was asking for again (`lost`).
  s.tv.last = s.room || (s.lost && s.lost.create) || s.tv.last;
  s.tv.closed = why || said;
  s.lost = null;
  leftRoom(s, fx);
  s.view = 'tv';
}

/** The rejoin of the room I was in failed for good: misrouted after the reroute (its node is gone), or not found. */
function gone(s, code, last) {
  if (!s.lost || !last || last.type !== 'join_room' || last.code !== s.lost.code) return false;
  return (code === 'wrong_node' && s.conn.rerouted) || code === 'room_not_found';
}

function setRoom(s, info, fx) {
  const prev = s.room;
  s.room = info;
  if (s.tv) s.tv.closed = '';
  if (!prev || prev.code !== info.code) {
    const path = (s.tv ? F.tvPath : F.roomPath)(info.code, info.key);
    // The offline stand-in's room has no address: /r/LOCAL would lead a
    // reload, a friend or the page back online to a room that is nowhere.
    if (fx.path() !== path && !s.conn.offline) fx.go(path);
    s.others.colours.clear();
  }
  // The invitation is taken up: leaving this room goes home, not back to it.
  if (s.ui.invite && s.ui.invite.code === info.code) s.ui.invite = null;
  if (prev && prev.code === info.code) sayWhoLeft(s, prev, info, fx);
  onRoom(s, info);
  const me = member(s);
  if (me) s.me.name = me.name; // the server's word on my name
  if (info.daily) dailyRanked(s, info, fx);
}

/**
 * A member missing from the new `room` has left (or stayed away past the
 * resume window): the others are told, and a racer stays on the racer list
 * as `left` until the race is over (the results list them so too).
 */
function sayWhoLeft(s, prev, info, fx) {
  const gone = prev.players.filter((p) => !p.rival && p.id !== s.me.id && !info.players.some((q) => q.id === p.id));
  const raceOn = !!(s.race.live || s.race.countdown || s.race.results);
  for (const p of gone) {
    if (raceOn && !p.spectator) s.race.gone.set(p.id, { ...p, connected: true });
    fx.toast(`${p.name} left${raceOn ? ' the race' : ' the room'}.`);
    fx.announce(`${p.name} left.`);
  }
}

/** A racer who left, as the racer list shows them: the snapshot's name, else the match table's. */
function goneRacer(s, p) {
  const line = F.list(s.room && s.room.standings && s.room.standings.lines).find((l) => l.player_id === p.id);
  const name = typeof p.name === 'string' ? p.name : line ? line.name : `Player ${p.id}`;
  return { id: p.id, name, ready: false, spectator: false, connected: true };
}

/** room.ranked, else from the result kept here. */
function dailyRanked(s, info, fx) {
  const kept = fx.store.rankedDaily(s.daily.date, info.game, info.size);
  s.daily.ranked = info.ranked === false || kept ? false : info.ranked === true ? true : null;
  s.daily.rankedAt = typeof info.ranked_at === 'string' ? info.ranked_at : kept ? kept.at : null;
  s.daily.practice = typeof info.practice === 'string' ? info.practice : null;
}

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
