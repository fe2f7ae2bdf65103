//! A stored run read from its row, the move-list encoding a finish writes,
//! the streak walk and standard competition ranks: pure helpers the rules
//! share (single columns are read by [`crate::db::Row`]).

use mazerace_protocol::daily::DailyDate;
use mazerace_protocol::{Action, Seed};

use crate::db::{parse, Row};
use crate::error::StoreError;
use crate::record::{Outcome, RunState, StoredRun};

pub(crate) fn to_i64(v: u64, what: &str) -> Result<i64, StoreError> {
    i64::try_from(v).map_err(|_| StoreError::Invalid(format!("{what} {v} is too large")))
}

/// What `finish_run` writes, checked and encoded once, before it queues.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Ending {
    pub state: RunState,
    pub steps: u32,
    pub time_ms: Option<u64>,
    pub time_db: Option<i64>,
    /// Paced at the ranked floor end to end (a finish only).
    pub at_floor: bool,
    /// The actions as a JSON array of strings.
    pub actions: String,
    /// The times as a JSON array of integers, when given.
    pub times: Option<String>,
}

impl Ending {
    pub fn new(outcome: Outcome, actions: &[Action], times: Option<&[u64]>) -> Result<Ending, StoreError> {
        let (state, steps, time_ms, at_floor) = match outcome {
            Outcome::Finished { steps, time_ms, at_floor } => {
                (RunState::Finished, steps, Some(time_ms), at_floor)
            }
            Outcome::NotFinished { steps } => (RunState::NotFinished, steps, None, false),
        };
        let time_db = time_ms.map(|t| to_i64(t, "time")).transpose()?;
        if let Some(times) = times {
            if times.len() != actions.len() {
                return Err(StoreError::Invalid(format!(
                    "{} action times for {} actions",
                    times.len(),
                    actions.len()
                )));
            }
            if let Some(&t) = times.iter().find(|&&t| t > i64::MAX as u64) {
                return Err(StoreError::Invalid(format!("action time {t} is too large")));
            }
        }
        let json = |e: serde_json::Error| StoreError::Invalid(e.to_string());
        Ok(Ending {
            state,
            steps,
            time_ms,
            time_db,
            at_floor,
            actions: serde_json::to_string(actions).map_err(json)?,
            times: times.map(serde_json::to_string).transpose().map_err(json)?,
        })
    }

    /// Whether a ranked run ending so is counted and ranked.
    pub fn finished(&self) -> bool {
        self.state == RunState::Finished
    }

    /// The time this ending ranks by (see [`rank_time`]), when finished.
    pub fn rank_db(&self) -> Option<i64> {
        self.time_db.map(|t| rank_time(t, self.at_floor))
    }
}

/// The time a finish ranks by: its own, or 0 for a run paced at the ranked
/// floor end to end, so that runs at the floor tie on time and rank by
/// steps alone (a bot's jitter of a millisecond wins nothing). The SQL
/// writes the same rule as [`rank_time_sql!`].
pub(crate) fn rank_time(time_ms: i64, at_floor: bool) -> i64 {
    if at_floor {
        0
    } else {
        time_ms
    }
}

/// [`rank_time`] in SQL, over a `runs` row (a literal, for `concat!`).
macro_rules! rank_time_sql {
    () => {
        "(CASE WHEN at_floor THEN 0 ELSE time_ms END)"
    };
}
pub(crate) use rank_time_sql;

/// The columns [`stored_run`] reads, in order (a literal, for `concat!`).
macro_rules! run_columns {
    () => {
        "id, date, game, size, seed, name, ranked, state, steps, time_ms, actions, times"
    };
}
pub(crate) use run_columns;

/// One `runs` row read in [`run_columns!`] order.
pub(crate) fn stored_run(r: &Row) -> Result<StoredRun, StoreError> {
    Ok(StoredRun {
        id: r.int(0)?,
        date: r.date(1)?,
        game: r.game(2)?,
        size: r.size(3)?,
        seed: Seed(parse(r.text(4)?, "seed")?),
        name: r.string(5)?,
        ranked: r.bool(6)?,
        state: r.state(7)?,
        steps: r.u32(8, "steps")?,
        time_ms: r.opt_u64(9, "time")?,
        actions: serde_json::from_str::<Vec<Action>>(r.text(10)?)
            .map_err(|e| StoreError::Corrupt(format!("stored moves: {e}")))?,
        times_ms: r
            .opt_text(11)?
            .map(serde_json::from_str::<Vec<u64>>)
            .transpose()
            .map_err(|e| StoreError::Corrupt(format!("stored move times: {e}")))?,
    })
}

/// Consecutive days ending `today` (or yesterday, when today is not played
/// yet), from the player's distinct ranked dates newest first.
pub(crate) fn streak_of(
    today: DailyDate,
    dates_newest_first: impl IntoIterator<Item = Result<DailyDate, StoreError>>,
) -> Result<u32, StoreError> {
    let today_n = today.day_number();
    let mut streak = 0u32;
    // The day the next older date must be for the streak to go on.
    let mut expect = today_n;
    for date in dates_newest_first {
        let day = date?.day_number();
        if day == expect || (streak == 0 && expect == today_n && day == today_n - 1) {
            streak += 1;
            expect = day - 1;
        } else {
            break;
        }
    }
    Ok(streak)
}

/// Standard competition ranks (1, 1, 3) of a board's first rows, sorted best
/// first by (steps, time): each is one more than the rows strictly better,
/// all of which come before it. Computed here rather than by a window
/// function, which SQLite evaluates over the whole board before the limit.
pub(crate) fn competition_ranks(keys: &[(i64, i64)]) -> Vec<u32> {
    let mut ranks: Vec<u32> = Vec::with_capacity(keys.len());
    for (i, key) in keys.iter().enumerate() {
        let rank = match (i.checked_sub(1), ranks.last()) {
            (Some(prev), Some(&r)) if keys[prev] == *key => r,
            _ => u32::try_from(i + 1).unwrap_or(u32::MAX),
        };
        ranks.push(rank);
    }
    ranks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_share_a_rank_and_the_next_skips() {
        let keys = [(16, 4), (16, 4), (16, 9), (18, 1), (20, 5), (20, 5), (20, 5), (21, 0)];
        assert_eq!(competition_ranks(&keys), [1, 1, 3, 4, 5, 5, 5, 8]);
        assert_eq!(competition_ranks(&[]), Vec::<u32>::new());
    }

    #[test]
    fn a_streak_counts_back_from_today_or_yesterday() {
        let d = |s: &str| Ok(s.parse::<DailyDate>().unwrap());
        let today = "2026-12-03".parse().unwrap();
        assert_eq!(streak_of(today, [d("2026-12-03"), d("2026-12-02"), d("2026-11-30")]).unwrap(), 2);
        assert_eq!(streak_of(today, [d("2026-12-02"), d("2026-12-01")]).unwrap(), 2, "today not played yet");
        assert_eq!(streak_of(today, [d("2026-12-01")]).unwrap(), 0);
        assert_eq!(streak_of(today, []).unwrap(), 0);
    }

    #[test]
    fn an_ending_is_checked_before_it_is_stored() {
        use mazerace_protocol::Dir;
        let one = [Action::Move(Dir::Up)];
        let e = Ending::new(Outcome::Finished { steps: 1, time_ms: 5, at_floor: false }, &one, Some(&[5]))
            .unwrap();
        assert_eq!((e.actions.as_str(), e.times.as_deref(), e.time_db), ("[\"up\"]", Some("[5]"), Some(5)));
        assert_eq!(e.rank_db(), Some(5));
        let floor =
            Ending::new(Outcome::Finished { steps: 1, time_ms: 5, at_floor: true }, &one, None).unwrap();
        assert_eq!((floor.at_floor, floor.rank_db()), (true, Some(0)), "at the floor: tied on time");
        assert!(Ending::new(Outcome::Finished { steps: 1, time_ms: u64::MAX, at_floor: false }, &[], None)
            .is_err());
        assert!(Ending::new(Outcome::NotFinished { steps: 1 }, &one, Some(&[1, 2])).is_err());
    }
}
