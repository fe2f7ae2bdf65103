// The rules of a race, ported from protocol/src/race.rs (pure): where each
// racer's clock starts, efficiency, and the ranking of a race. The server
// applies them to every room; here they serve the offline stand-in server
// (offline/localserver.js). test/unit/racerules.test.mjs holds them to the
// Rust-made fixtures in test/fixtures/race.json.

/** race.rs Clock::for_race: solo and daily races time from each racer's first move. */
export const clockFor = (daily, racers) => (daily || racers === 1 ? 'first_move' : 'start');

/**
 * play.rs efficiency(): round(best / steps * 100), 0 for no steps, at most
 * 100, and 100 only for a run of exactly `best` steps.
 */
export function efficiency(best, steps) {
  if (steps === 0) return 0;
  const rounded = Math.round((best * 100) / steps);
  return steps > best ? Math.min(rounded, 99) : Math.min(rounded, 100);
}

const STATUS_ORDER = { finished: 0, racing: 1, timed_out: 2, out_of_steps: 3, gave_up: 4, left: 5 };

const done = (e) => e.status === 'finished' && e.time_ms != null;
const key = (e, rankBy) => (rankBy === 'steps' ? [e.steps, e.time_ms] : [e.time_ms, e.steps]);
const cmpKey = (a, b, rankBy) => {
  const x = key(a, rankBy);
  const y = key(b, rankBy);
  return x[0] - y[0] || x[1] - y[1];
};

/** race.rs rank_among(): a finisher's provisional rank among those finished so far. */
export function rankAmong(me, entries, rankBy) {
  return 1 + entries.filter((e) => done(e) && cmpKey(e, me, rankBy) < 0).length;
}

/**
 * race.rs rank(): entries {id, name, status, steps, time_ms} (time_ms set
 * only for finishers) into `rankings`, finishers first by (time, steps) or
 * (steps, time), equal keys sharing a rank; the rest by status, then more
 * steps first.
 */
export function rank(entries, rankBy, best) {
  const sorted = entries.slice().sort((a, b) => {
    if (done(a) && done(b)) return cmpKey(a, b, rankBy) || a.id - b.id;
    if (done(a) !== done(b)) return done(a) ? -1 : 1;
    return STATUS_ORDER[a.status] - STATUS_ORDER[b.status] || b.steps - a.steps || a.id - b.id;
  });
  let prev = null;
  return sorted.map((e, i) => {
    const out = {};
    if (done(e)) {
      const r = prev && cmpKey(prev.e, e, rankBy) === 0 ? prev.r : i + 1;
      prev = { e, r };
      out.rank = r;
    }
    Object.assign(out, { player_id: e.id, name: e.name, status: e.status, steps: e.steps });
    if (done(e)) {
      out.time_ms = e.time_ms;
      if (best != null) out.efficiency = efficiency(best, e.steps);
    }
    return out;
  });
}
