// A match's tables as the page lays them out, from the server's lines
// (`room.standings`, `match_over`, `match_round`): the match table, the podium, each
// round's result. Every number is the server's, only turned into text;
// none is computed here, so what the page shows is what the server sent
// (test/unit/matchtable.test.mjs holds it to test/fixtures/match.json). Pure.

import * as F from './format.js';

const num = (v) => (Number.isFinite(v) ? String(v) : '–');

/**
 * The match table's caption: the final table, else the rounds with results
 * (during a round, the ones before it; before the first, none, so no
 * "after round 0").
 */
export function tableCaption(st) {
  if (st.over) return 'Final table';
  const lines = F.list(st.lines);
  const played = lines.length ? Math.max(...lines.map((l) => F.list(l.rounds).length)) : 0;
  return played ? `Match table after round ${played}` : 'Match table: no round played yet';
}

/**
 * The match table's rows, in the server's order: rank (shared ranks as
 * sent), name, points, rounds won, total time, the points round by round
 * ('–' for a round not raced), and the marks: mine, left the room, away
 * (a member whose connection dropped: they miss the rounds that begin
 * meanwhile). `players` is the room's list, for who is away.
 */
export function tableRows(lines, { me = null, players = [] } = {}) {
  return F.list(lines).map((l) => {
    const p = F.list(players).find((x) => x.id === l.player_id);
    return {
      id: l.player_id,
      rank: num(l.rank),
      name: String(l.name),
      points: num(l.points),
      wins: num(l.wins),
      // A total with no finish in it is 0 ms: no time, rather than 0:00.0.
      time: l.time_ms ? F.clock(l.time_ms) : '–',
      rounds: F.list(l.rounds).map((r) => (r == null ? '–' : num(r))),
      me: l.player_id === me,
      left: !!l.left,
      away: !l.left && !!p && !p.connected,
    };
  });
}

/** The podium: the final table's ranks 1 to 3 (RULES.md), a shared place shown for each who shares it. */
export const podium = (lines) =>
  F.list(lines)
    .filter((l) => Number.isFinite(l.rank) && l.rank <= 3)
    .map((l) => ({
      id: l.player_id,
      rank: l.rank,
      place: F.ordinal(l.rank),
      name: String(l.name),
      points: F.plural(l.points, 'point'),
      left: !!l.left,
    }));

/**
 * One round of a match (`match_round`): its results lines (the race's ranks, rivals
 * included and marked) with each player's points from its `scores`; a
 * rival never scores ('–'), a player who did not finish says why.
 */
export function roundRows(round, me = null) {
  const scores = F.list(round.scores);
  return F.list(round.rankings).map((r) => {
    const score = scores.find((x) => x.player_id === r.player_id);
    return {
      id: r.player_id,
      rank: r.rank ? String(r.rank) : '–',
      name: String(r.name),
      steps: num(r.steps),
      time: r.status === 'finished' ? F.clock(r.time_ms) : F.statusLabel(r.status),
      finished: r.status === 'finished',
      points: score ? num(score.points) : '–',
      rival: !!r.rival,
      me: r.player_id === me,
    };
  });
}

/** Who won a round: its players placed 1st among the players (`scores`), by name. */
export function roundWinners(round) {
  const named = F.list(round.rankings);
  return F.list(round.scores)
    .filter((x) => x.place === 1)
    .map((x) => (named.find((r) => r.player_id === x.player_id) || {}).name)
    .filter((n) => typeof n === 'string');
}

/** `room.tally`, most first as sent: [{id, name, wins}], the matches each has won in this room. */
export const tallyRows = (tally) => F.list(tally).map((t) => ({ id: t.player_id, name: String(t.name), wins: num(t.wins) }));
