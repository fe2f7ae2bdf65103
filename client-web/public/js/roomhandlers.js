// The connection's and the room's server messages (welcome, renamed, room,
// error, server_shutdown, room_moved), their part of the table handlers.js
// merges, and the room as the page keeps it: a `room` taken in (setRoom: its
// address, who left, my name, a daily room's ranking), what "New room, same
// settings" sends for a room lost (lostRoom), a screen's room that closed
// (screenShut), the server's limits (readLimits). Pure: the state and `fx`,
// so node --test drives it.

import { DEFAULT_LIMITS, member, isHost } from './state.js';
import { runIntent, joinMsg, leftRoom, clearRace, showRoom } from './actions.js';
import * as F from './format.js';
import { onRoom } from './matches.js';

export const ROOM_HANDLERS = {
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

export function setRoom(s, info, fx) {
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
export function goneRacer(s, p) {
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
