//! The storage interface: the few operations the daily challenge needs, as a
//! small synchronous, object-safe trait. [`crate::SqliteBackend`] is the
//! embedded default; a server database can implement the same trait later.
//! [`crate::Store`] runs any `Box<dyn Backend>` on its own thread.
//!
//! Rules every backend keeps (the SQLite one in its schema):
//! - one ranked run per player per board (date, game, size): the first
//!   `begin_run` is ranked, every later one that day is practice, and that is
//!   decided by the database, not by a read-then-write in the caller;
//! - a run is finished once; its result and full move list are committed
//!   before `finish_run` returns;
//! - leaderboards rank ranked finished runs by steps, then time, with
//!   standard competition ranks (1, 1, 3).

use serde::Serialize;

use mazerace_protocol::messages::Leaderboard;
use mazerace_protocol::{Action, Game, Seed, Size};

use crate::error::StoreError;
use crate::player::PlayerKey;

/// How many lines a leaderboard shows.
pub const LEADERBOARD_LIMIT: u32 = 100;

/// A run about to start on a daily board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewRun {
    pub player: PlayerKey,
    /// The display name at the time of the run (validated by the server).
    pub name: String,
    /// The UTC day the run starts on; the run belongs to that day's board
    /// even if it finishes after midnight.
    pub date: String,
    pub game: Game,
    pub size: Size,
    /// The board's seed, as the server built it (the daily seed).
    pub seed: u64,
}

/// What `begin_run` decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BeginRun {
    pub run_id: i64,
    /// True for the player's one ranked attempt on this board; false for practice.
    pub ranked: bool,
}

/// How a run ended. Steps and time are the server's own measurements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Reached the flag or the exit. `time_ms` runs from the first move.
    Finished { steps: u32, time_ms: u64 },
    /// Out of steps, or abandoned (gone longer than the resume window).
    NotFinished { steps: u32 },
}

/// Where a stored run stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RunState {
    /// Begun and not yet over (or the server stopped while it was being played).
    Playing,
    Finished,
    NotFinished,
}

impl RunState {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            RunState::Playing => "playing",
            RunState::Finished => "finished",
            RunState::NotFinished => "not_finished",
        }
    }

    pub(crate) fn parse(s: &str) -> Option<RunState> {
        Some(match s {
            "playing" => RunState::Playing,
            "finished" => RunState::Finished,
            "not_finished" => RunState::NotFinished,
            _ => return None,
        })
    }
}

/// What `finish_run` stored, with everything a `daily_result` needs except
/// the board's best score (see [`FinishedRun::to_daily_result`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FinishedRun {
    pub run_id: i64,
    pub date: String,
    pub game: Game,
    pub size: Size,
    pub ranked: bool,
    pub finished: bool,
    pub steps: u32,
    /// Present when finished.
    pub time_ms: Option<u64>,
    /// Present for a ranked finish.
    pub rank: Option<u32>,
    /// Ranked runs started on this board so far, finished or not.
    pub entrants: u32,
    /// The player's streak as of the run's date (see [`Backend::streak`]).
    pub streak: u32,
}

/// One stored run, as the replay view and the verifier see it. The player's
/// key is deliberately not part of it: this is safe to serve publicly.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StoredRun {
    pub id: i64,
    pub date: String,
    pub game: Game,
    pub size: Size,
    pub seed: Seed,
    pub name: String,
    pub ranked: bool,
    pub state: RunState,
    /// 0 while playing.
    pub steps: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_ms: Option<u64>,
    /// Every accepted action in order (empty while playing).
    pub actions: Vec<Action>,
}

/// The storage interface. Synchronous: [`crate::Store`] calls it from a
/// dedicated thread, never from the async runtime.
pub trait Backend: Send {
    /// The daily salt kept in the database; a random 32-byte one (OS entropy)
    /// is made and committed the first time, then always returned.
    fn daily_salt(&mut self) -> Result<Vec<u8>, StoreError>;

    /// Record the start of a run. The first run of `player` on the board
    /// (date, game, size) is ranked; any later one is practice.
    fn begin_run(&mut self, run: &NewRun) -> Result<BeginRun, StoreError>;

    /// Record how a run ended and its full move list (accepted actions only),
    /// committed before this returns. A run ends once: again is [`StoreError::RunOver`].
    fn finish_run(
        &mut self,
        run_id: i64,
        outcome: Outcome,
        actions: &[Action],
    ) -> Result<FinishedRun, StoreError>;

    /// Mark every run still `playing` as not finished with no moves: for a
    /// server starting up after a stop, whose in-memory games are gone.
    /// Returns how many runs were closed.
    fn abandon_open_runs(&mut self) -> Result<u64, StoreError>;

    /// A board's table: the first `limit` ranked finishers, `entrants`, and
    /// `you`'s own line when that player has a ranked finish.
    fn leaderboard(
        &mut self,
        date: &str,
        game: Game,
        size: Size,
        you: Option<&PlayerKey>,
        limit: u32,
    ) -> Result<Leaderboard, StoreError>;

    /// The rank of a run on its board; `None` unless it is a ranked finish.
    fn rank_of(&mut self, run_id: i64) -> Result<Option<u32>, StoreError>;

    /// Consecutive UTC days, ending `today`, on which the player started a
    /// ranked daily run (any game or size). A day not yet played does not
    /// break the streak: with no run today, the streak ending yesterday counts.
    fn streak(&mut self, player: &PlayerKey, today: &str) -> Result<u32, StoreError>;

    /// One run by id, for the replay view.
    fn run(&mut self, run_id: i64) -> Result<Option<StoredRun>, StoreError>;

    /// Whether `player` made run `run_id` (a player may replay their own run
    /// on today's board; everyone else waits for tomorrow).
    fn owns_run(&mut self, run_id: i64, player: &PlayerKey) -> Result<bool, StoreError>;

    /// Up to `limit` runs with id greater than `after_id`, in id order: page
    /// through everything with `after_id` = the last id seen (start at 0).
    fn runs_after(&mut self, after_id: i64, limit: u32) -> Result<Vec<StoredRun>, StoreError>;
}

/// Refuse a malformed board address before it reaches storage.
pub(crate) fn check_board(date: &str, game: Game, size: Size) -> Result<(), StoreError> {
    if !mazerace_protocol::daily::is_valid_date(date) {
        return Err(StoreError::Invalid(format!("{date:?} is not a YYYY-MM-DD date")));
    }
    if size.game() != game {
        return Err(StoreError::Invalid(format!("{size} is not a {game} size")));
    }
    Ok(())
}
