//! What both SQL backends share: turning stored columns into the crate's
//! types (and refusing what does not fit), the move-list encoding, and the
//! streak walk. The SQL itself lives with each backend (dialects differ).

use mazerace_protocol::{Action, Game, Seed, Size};

use crate::backend::{Outcome, RunState, StoredRun};
use crate::clock::day_number;
use crate::error::StoreError;

pub(crate) fn to_i64(v: u64, what: &str) -> Result<i64, StoreError> {
    i64::try_from(v).map_err(|_| StoreError::Invalid(format!("{what} {v} is too large")))
}

pub(crate) fn to_u32(v: i64, what: &str) -> Result<u32, StoreError> {
    u32::try_from(v).map_err(|_| StoreError::Corrupt(format!("stored {what} {v} is out of range")))
}

pub(crate) fn to_u64(v: i64, what: &str) -> Result<u64, StoreError> {
    u64::try_from(v).map_err(|_| StoreError::Corrupt(format!("stored {what} {v} is out of range")))
}

pub(crate) fn parse<T: std::str::FromStr>(s: &str, what: &str) -> Result<T, StoreError> {
    s.parse().map_err(|_| StoreError::Corrupt(format!("stored {what} {s:?} is not understood")))
}

pub(crate) fn parse_state(s: &str) -> Result<RunState, StoreError> {
    RunState::parse(s).ok_or_else(|| StoreError::Corrupt(format!("stored state {s:?}")))
}

/// What `finish_run` writes, checked and encoded the same way on every backend.
pub(crate) struct Ending {
    pub state: RunState,
    pub steps: u32,
    pub time_ms: Option<u64>,
    pub time_db: Option<i64>,
    /// The actions as a JSON array of strings.
    pub actions: String,
    /// The times as a JSON array of integers, when given.
    pub times: Option<String>,
}

pub(crate) fn ending(
    outcome: Outcome,
    actions: &[Action],
    times: Option<&[u64]>,
) -> Result<Ending, StoreError> {
    let (state, steps, time_ms) = match outcome {
        Outcome::Finished { steps, time_ms } => (RunState::Finished, steps, Some(time_ms)),
        Outcome::NotFinished { steps } => (RunState::NotFinished, steps, None),
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
        actions: serde_json::to_string(actions).map_err(json)?,
        times: times.map(serde_json::to_string).transpose().map_err(json)?,
    })
}

/// The raw columns of one `runs` row, read by a backend.
pub(crate) struct RawRun {
    pub id: i64,
    pub date: String,
    pub game: String,
    pub size: String,
    pub seed: String,
    pub name: String,
    pub ranked: bool,
    pub state: String,
    pub steps: i64,
    pub time_ms: Option<i64>,
    pub actions: String,
    pub times: Option<String>,
}

/// The columns [`RawRun`] is read from, in order.
pub(crate) const RUN_COLUMNS: &str =
    "id, date, game, size, seed, name, ranked, state, steps, time_ms, actions, times";

impl RawRun {
    pub fn into_run(self) -> Result<StoredRun, StoreError> {
        Ok(StoredRun {
            id: self.id,
            date: self.date,
            game: parse::<Game>(&self.game, "game")?,
            size: parse::<Size>(&self.size, "size")?,
            seed: Seed(parse(&self.seed, "seed")?),
            name: self.name,
            ranked: self.ranked,
            state: parse_state(&self.state)?,
            steps: to_u32(self.steps, "steps")?,
            time_ms: self.time_ms.map(|t| to_u64(t, "time")).transpose()?,
            actions: serde_json::from_str::<Vec<Action>>(&self.actions)
                .map_err(|e| StoreError::Corrupt(format!("stored moves: {e}")))?,
            times_ms: self
                .times
                .map(|t| serde_json::from_str::<Vec<u64>>(&t))
                .transpose()
                .map_err(|e| StoreError::Corrupt(format!("stored move times: {e}")))?,
        })
    }
}

/// Consecutive days ending `today` (or yesterday, when today is not played
/// yet), from the player's distinct ranked dates newest first.
pub(crate) fn streak_of(
    today: &str,
    dates_newest_first: impl IntoIterator<Item = Result<String, StoreError>>,
) -> Result<u32, StoreError> {
    let today_n = day_number(today)
        .ok_or_else(|| StoreError::Invalid(format!("{today:?} is not a YYYY-MM-DD date")))?;
    let mut streak = 0u32;
    // The day the next older date must be for the streak to go on.
    let mut expect = today_n;
    for date in dates_newest_first {
        let date = date?;
        let day = day_number(&date).ok_or_else(|| StoreError::Corrupt(format!("stored date {date:?}")))?;
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
    use super::competition_ranks;

    #[test]
    fn ties_share_a_rank_and_the_next_skips() {
        let keys = [(16, 4), (16, 4), (16, 9), (18, 1), (20, 5), (20, 5), (20, 5), (21, 0)];
        assert_eq!(competition_ranks(&keys), [1, 1, 3, 4, 5, 5, 5, 8]);
        assert_eq!(competition_ranks(&[]), Vec::<u32>::new());
    }
}
