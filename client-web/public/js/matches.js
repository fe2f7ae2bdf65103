// Matches (RULES.md, "Matches") as the page keeps them: the `intermission`,
// `match_round` and `match_over` messages and a match's part of `room` into the state,
// the host's choices (set_match, hold, next_round, another match), and what
// the live region says. The page shows the server's points, ranks and times
// and computes none: its tables (matchtable.js) only lay out what was sent.
// Pure: the state and `fx`, so node --test drives it.

import { isHost } from './state.js';
import { showRoom, rematch } from './actions.js';
import * as F from './format.js';

/** The room plays matches: `room.match` ({rounds, plan}), else null. */
export const matchOf = (s) => (s.room && s.room.match) || null;

/** The match table, while a match is on and after it until the next begins. */
export const standingsOf = (s) => (s.room && s.room.standings) || null;

/** A match is under way: its rounds follow one another with no rematch between. */
export const matchOn = (s) => !!standingsOf(s) && !standingsOf(s).over;

/** "Round 2 of 3": the round under way, or the last one played. */
export function roundLabel(s) {
  const st = standingsOf(s);
  const m = matchOf(s);
  if (!st || !m) return '';
  // Before its first round (another match, counted down from the podium): the round to come.
  return st.round ? `Round ${st.round} of ${m.rounds}` : `A new match of ${m.rounds} rounds`;
}

/**
 * A match's part of a `room`: only the intermission phase has a countdown,
 * and a room whose table is gone (single races again, another match begun)
 * has no match over to show either.
 */
export function onRoom(s, info) {
  const st = info.standings;
  if (!st || !st.over) s.match.over = null;
  if (info.phase !== 'intermission') s.match.intermission = null;
  if (!st) Object.assign(s.match, { heldRound: 0, rounds: [] });
}

/** The rounds of the match just over, as the server scored them: the first `played` kept (`match_round`). */
export const roundsOver = (s, over) => F.list(s.match.rounds).slice(0, Number(over.played) || 0);

/** The winners in words, from the server's `winners` (none: nobody scored, or the match ended early). */
export function winnersWords(over, rounds) {
  const lines = F.list(over.lines);
  const names = F.list(over.winners)
    .map((id) => (lines.find((l) => l.player_id === id) || {}).name)
    .filter((n) => typeof n === 'string');
  if (names.length === 1) return `${names[0]} wins the match.`;
  if (names.length) return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]} share the win.`;
  return over.played < rounds ? 'The match ended early: nobody wins it.' : 'Nobody scored: nobody wins it.';
}

const startsIn = (m) => `Round ${m.round} starts in ${F.plural(m.seconds, 'second')}.`;

export const MATCH_HANDLERS = {
  /** The server's countdown between two rounds, drawn as sent: the page keeps no clock of its own for it. */
  intermission(s, m, fx) {
    const was = s.match.intermission;
    const held = !!m.held;
    s.match.intermission = { round: m.round, seconds: held ? null : m.seconds, held };
    if (held) s.match.heldRound = m.round;
    showRoom(s, 'play');
    // Said once when it begins (with my place in the round just over), when held, and when it runs again.
    if (held && !(was && was.held)) fx.announce(`The host holds the match: round ${m.round} waits.`);
    else if (!held && (!was || was.round !== m.round)) fx.announce(`${placed(s)}${startsIn(m)}`);
    else if (!held && was.held) fx.announce(startsIn(m));
  },

  /** One round scored, as it ends (again, round by round, on a resume): round 1 begins the match's list. */
  match_round(s, m) {
    if (m.round === 1) s.match.rounds = [];
    s.match.rounds[m.round - 1] = m;
  },

  match_over(s, m, fx) {
    s.match.over = m;
    s.match.intermission = null;
    const me = F.list(m.lines).find((l) => l.player_id === s.me.id);
    const mine = me ? ` You are ${F.ordinal(me.rank)} with ${F.plural(me.points, 'point')}.` : '';
    fx.announce(`The match is over. ${winnersWords(m, (matchOf(s) || {}).rounds)}${mine}`);
  },
};

function placed(s) {
  const mine = s.race.results && F.list(s.race.results.rankings).find((r) => r.player_id === s.me.id);
  return mine ? (mine.rank ? `You placed ${F.ordinal(mine.rank)}. ` : 'You did not finish. ') : '';
}

/** The host's choice in the lobby: a match of `rounds` on `plan`, or (no rounds) single races. Never in a daily room. */
export function chooseMatch(s, fx, rounds, plan) {
  if (!isHost(s) || s.room.daily || s.room.phase !== 'lobby') return;
  fx.send(rounds ? { type: 'set_match', match: { rounds, plan } } : { type: 'set_match' });
}

/** Stops the intermission's countdown (the host, once per intermission: the server refuses a second). */
export function hold(s, fx) {
  const im = s.match.intermission;
  if (isHost(s) && im && !im.held && s.match.heldRound !== im.round) fx.send({ type: 'hold' });
}

/** The next round now, held or not. */
export function nextRound(s, fx) {
  if (isHost(s) && s.match.intermission) fx.send({ type: 'next_round' });
}

/** "Play another match": the host's rematch after a match, everyone and the settings kept. */
export function anotherMatch(s, fx) {
  if (s.match.over) rematch(s, fx);
}
