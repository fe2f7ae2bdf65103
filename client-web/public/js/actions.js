// What the player does, on the state and `fx` only (tested without a browser).

import * as E from './engine.js';
import { canMove, elapsed, member, racing, pacing, isHost, quiet } from './state.js';
import { GAMES, gameOf } from './games/index.js';
import * as F from './format.js';

/** `screen`: as the room's screen (a TV: `/tv/CODE?k=KEY`). */
export function joinMsg(code, spectate = false, key = null, screen = false) {
  const m = { type: 'join_room', code };
  if (key) m.key = key;
  if (spectate) m.spectate = true;
  if (screen) m.screen = true;
  return m;
}

/** The replay screen stays up; its Back goes to `view`. A screen shows every part of a room in its own view. */
export function showRoom(s, view) {
  if (s.view === 'replay') s.back = view;
  else s.view = s.tv ? 'tv' : view;
}

/**
 * This page becomes a screen (a TV or projector) and sends `msg`: a party
 * room's `create_room` (home's "Host on a TV or projector") or a screen's
 * `join_room` (`/tv/CODE?k=KEY`). A new identity with a fixed name (the
 * screen is never listed), on a fresh connection when one is open; `boot`:
 * the page's first moment, before its token is known (app.js connects).
 */
export function beScreen(s, fx, msg, { boot = false } = {}) {
  const fresh = fx.store.asScreen();
  s.tv = { closed: '', last: s.tv ? s.tv.last : null };
  s.ui.invite = null;
  s.view = 'tv';
  s.me.helloName = 'Screen';
  if (!fresh && s.conn.welcomed && fx.connected()) {
    s.lastIntent = msg;
    fx.send(msg);
    return;
  }
  s.intent = msg;
  if (boot) return; // app.js connects once the tab's token is claimed
  if (fresh) fx.reconnect();
  else fx.connect();
}

export function hint(s, text, warn, until = 0) {
  s.ui.hint = text;
  s.ui.hintWarn = !!warn;
  s.timers.hintUntil = warn ? until : 0;
}

export function clearRace(s) {
  Object.assign(s.race, { board: null, live: false, results: null, countdown: 0, doneMs: null, gone: new Map() });
  Object.assign(s.game, { pred: null, confirm: null, givenUp: false });
  s.replay.line = null;
  s.outbox.queue.length = 0;
}

export function leftRoom(s, fx) {
  s.room = null;
  clearRace(s);
  Object.assign(s.daily, { result: null, ranked: null, rankedAt: null, practice: null });
  Object.assign(s.match, { intermission: null, heldRound: 0, over: null, rounds: [] });
  if (fx.path() !== '/') fx.go('/');
}

export function runIntent(s, fx) {
  const code = F.codeFromPath(fx.path());
  const msg = s.intent || (!s.room && code ? joinMsg(code, false, F.keyFrom(fx.path())) : null);
  s.intent = null;
  if (msg && !offlineRefuses(s, fx, msg)) {
    s.lastIntent = msg;
    fx.send(msg);
  }
}

/** Solo practice: a room of one, neither daily nor for friends (home.js leaves out `rank_by`). */
export const practiceMsg = (m) => !!m && m.type === 'create_room' && !m.daily && !m.rank_by;

/**
 * Offline, only solo practice goes to the stand-in server: a room for
 * friends there would be a lobby nobody can join (its link, QR and code
 * lead nowhere), and joining, the daily and leagues need the server. Such a message
 * (asked before the page went offline, or by Enter in a field) is dropped
 * and the player told, in words, what works instead.
 */
function offlineRefuses(s, fx, msg) {
  if (!s.conn.offline || practiceMsg(msg)) return false;
  // A room: the Make card says so beside Practice alone (home.js), so only the live region repeats it.
  if (msg.type === 'create_room' && !msg.daily)
    fx.announce('You are offline: a room needs the server, and nobody could join one now. Practice alone works in this page.');
  else fx.toast('You are offline: this needs the server. Practice alone works in this page.');
  return true;
}

/** The typed name trimmed, or null with the problem shown. */
function checkName(s, typed) {
  const name = String(typed || '').trim();
  s.ui.nameError = F.nameProblem(name, s.limits.max_name_chars);
  return s.ui.nameError ? null : name;
}

export function request(s, fx, msg, typed) {
  const name = checkName(s, typed);
  if (name == null) return false;
  fx.store.setName(name);
  if (offlineRefuses(s, fx, msg)) return false;
  if (s.conn.welcomed && fx.connected()) {
    if (name !== s.me.name) rename(s, fx, name);
    s.lastIntent = msg;
    fx.send(msg);
    return true;
  }
  s.me.helloName = name;
  s.intent = msg;
  fx.connect(); // the welcome sends the intent
  return true;
}

export function rename(s, fx, typed) {
  const name = checkName(s, typed);
  if (name == null) return false;
  if (!s.conn.welcomed) {
    s.me.helloName = name;
    fx.store.setName(name);
    return true;
  }
  if (name === s.me.name || name === s.pendingRename) return true;
  const me = member(s);
  if ((racing(s) || (s.room && s.room.phase === 'countdown')) && me && !me.spectator) {
    s.ui.nameError = 'You can change your name after the race.';
    return false;
  }
  s.pendingRename = name;
  s.me.helloName = name;
  fx.send({ type: 'rename', name });
  return true;
}

/** A refusal in words: the server's reasons, each game's own among them (games/ `reasons`). */
const REASONS = Object.assign(
  {
    wall: 'A wall is in the way.',
    game_over: 'Your game is over.',
    no_rewind: `Only ${F.andList(GAMES.filter((g) => g.rewinds).map((g) => g.title))} has a rewind.`,
    rate_limited: 'Too many moves at once: slow down.',
  },
  ...GAMES.map((g) => g.reasons),
);
/** The bumps the live region says: something in the way. */
const IN_THE_WAY = new Set(['wall', ...GAMES.flatMap((g) => g.inTheWay)]);

export function blocked(s, fx, reason, local) {
  if (!quiet(s, fx.store) && (local || reason !== 'game_over')) fx.buzz();
  fx.bump();
  const text = REASONS[reason] || 'That move is not allowed.';
  hint(s, text, true, fx.now() + 1800);
  if (IN_THE_WAY.has(reason)) fx.announce(text);
}

/** The game's news (a gate opening or shutting, say) said as it changes. */
export function afterChange(s, fx) {
  const pred = s.game.pred;
  if (!pred) return;
  const news = gameOf(pred.board.game).news(pred.game, s.game.noted);
  s.game.noted = news.now;
  if (news.say) fx.announce(news.say);
}

export function whereWords(s) {
  const g = s.game.pred && s.game.pred.game;
  if (!g) return '';
  const b = g.board;
  const game = gameOf(b.game);
  const at = `Row ${g.pos[0] + 1}, column ${g.pos[1] + 1}`;
  const what = E.rules.samePos(g.pos, b.goal) ? game.goal : game.landmark(b, g.pos);
  return `${at}${what ? `, on the ${what}` : ''}. The ${game.goal} at row ${b.goal[0] + 1}, column ${b.goal[1] + 1}.`;
}

/** Predicted at once, sent paced. `force` answers the game's question about the action (games/ `questions`). */
export function act(s, fx, action, { force = false } = {}) {
  if (!canMove(s)) return;
  const pred = s.game.pred;
  if (pred.pending.length >= 24) return; // far ahead of the server
  const g = pred.game;
  const game = gameOf(pred.board.game);
  // An action the game asks about first (a rewind off the plate): the answer comes back with `force`.
  const question = !force && Object.hasOwn(game.questions, action) && game.questions[action];
  if (question && question.ask(g)) {
    s.game.confirm = action;
    fx.announce(question.say);
    return;
  }
  s.game.confirm = null;
  const now = fx.now();
  const seq = s.game.seq + 1;
  const from = g.pos.slice();
  const r = pred.act(action, seq);
  if (!r.ok) return blocked(s, fx, r.reason, true);
  s.game.seq = seq;
  // A move, or a game's own action sent as its own message (`rewind`).
  sendPaced(s, fx, E.rules.DIRS.includes(action) ? { type: 'move', dir: action, seq } : { type: action, seq });
  if (!s.race.firstMoveAt) {
    s.race.firstMoveAt = now;
    // A first-move clock counts from here (README, "Notes": the trail's race).
    if (s.race.clock === 'first_move') s.race.originWall = fx.wall();
  }
  s.game.anim = E.rules.DIRS.includes(action) ? { from, t: now } : null;
  s.game.visited.add(pred.game.pos.join(','));
  keepTrail(s, fx);
  const st = pred.game.status;
  if (st === 'won') {
    s.race.doneMs = elapsed(s, now);
    hint(s, '', false);
    fx.announce('You reached the goal!');
  } else if (st === 'out_of_steps') {
    hint(s, '', false);
    fx.announce('Out of steps.');
  } else if (Object.hasOwn(game.after, action)) {
    fx.announce(game.after[action]);
  } else if (now - s.game.lastMoveSaid >= 1500) {
    // Throttled: a screen reader keeps up with a key held down.
    s.game.lastMoveSaid = now;
    fx.announce(whereWords(s).split('.')[0] + '.');
  }
  afterChange(s, fx);
}

/** The crossed cells, kept for this race where the game tints them (store.js `trail`). */
export function keepTrail(s, fx) {
  const b = s.race.board;
  if (b && gameOf(b.game).visited && s.room && s.race.originWall)
    fx.store.setTrail(s.room.code, b.seed, s.race.originWall, [...s.game.visited]);
}

/** Give up (a run two whose gate will never open, say): end the run now, not finished. */
export function giveUp(s, fx, { again = false } = {}) {
  if (!canMove(s)) return;
  // `again`: then this board once more (a run that can no longer win, alone).
  s.againNext = again;
  s.game.givenUp = true;
  s.game.confirm = null;
  sendPaced(s, fx, { type: 'give_up' }); // after the moves still queued
  hint(s, '', false);
  fx.announce('You gave up this run. It counts as not finished.');
}

/** My run is still on: leaving now would end it as `left`. */
export const runAtStake = (s) => racing(s) && !!s.game.pred && s.game.pred.game.status === 'playing' && !s.game.givenUp;

export const dailyAtStake = (s) => runAtStake(s) && !!s.room.daily && s.daily.ranked !== false;

/** With a run of mine still on, asks first (`force` answers): one tap must not throw a race away. */
export function leave(s, fx, { force = false } = {}) {
  if (!force && runAtStake(s)) {
    s.game.confirm = 'leave';
    fx.announce(
      dailyAtStake(s)
        ? 'Leaving now uses your ranked try for today. Leave anyway?'
        : 'Leaving now ends your run: it counts as not finished. Leave anyway?',
    );
    return;
  }
  fx.send({ type: 'leave_room' });
  if (s.leagues.mine?.length) fx.send({ type: 'my_leagues' }); // today's standings moved
  leftRoom(s, fx);
  s.view = 'home';
  fx.loadDaily();
}

export function rematch(s, fx) {
  if (!isHost(s)) return;
  s.lastIntent = { type: 'rematch' };
  fx.send(s.lastIntent);
}

export function tryAgain(s, fx) {
  if (!s.room || !s.race.results) return;
  s.soloNext = true;
  s.lastIntent = { type: 'rematch', same_board: true };
  fx.send(s.lastIntent);
}

/** Paced below welcome.limits' rate, queued not dropped: the moves are already on screen. */
export function sendPaced(s, fx, msg) {
  const o = s.outbox;
  const { cap, perSec } = pacing(s.limits, !!(s.room && s.room.daily && s.room.ranked));
  const now = fx.now();
  if (o.tokens == null) o.tokens = cap;
  o.tokens = Math.min(cap, o.tokens + ((now - (o.at || now)) / 1000) * perSec);
  o.at = now;
  if (msg) o.queue.push(msg);
  while (o.queue.length && o.tokens >= 1) {
    o.tokens -= 1;
    fx.send(o.queue.shift());
  }
  if (o.queue.length && !s.timers.pace) {
    s.timers.pace = 1;
    fx.later(
      () => {
        s.timers.pace = 0;
        sendPaced(s, fx, null);
      },
      Math.ceil(1000 / perSec) + 5,
    );
  }
}

/** Its error shows on the leagues card. */
export function leagueAct(s, fx, msg, typed) {
  s.leagues.pending = msg.type;
  s.leagues.error = '';
  return request(s, fx, msg, typed);
}

export function openLeague(s, fx, code) {
  const L = s.leagues;
  if (L.open !== code) {
    L.boards.clear();
    L.standings = null;
  }
  L.open = code;
  s.view = 'league';
  const path = `/l/${code}`;
  if (fx.path() !== path) fx.go(path);
  // A member's key (or the link's) spares the lookups the address's failed-join budget.
  const link = L.invite && L.invite.code === code ? L.invite : {};
  const key = ((L.mine || []).find((l) => l.code === code) || link).key;
  fx.send(F.withKey({ type: 'league_standings', code, days: L.days }, key));
  for (const b of s.daily.boards) fx.send(F.withKey({ type: 'league_board', code, game: b.game, size: b.size }, key));
}
