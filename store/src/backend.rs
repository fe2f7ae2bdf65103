//! The storage interface: the few operations the daily challenge needs, as a
//! small synchronous, object-safe trait. [`crate::SqliteBackend`] is the
//! embedded default, [`crate::PostgresBackend`] the shared database of several
//! nodes. [`crate::Store`] runs any `Box<dyn Backend>` on its own thread.
//!
//! Rules every backend keeps (the SQLite one in its schema):
//! - one ranked run per player per board (date, game, size): the first
//!   `begin_run` is ranked, every later one that day is practice, and that is
//!   decided by the database, not by a read-then-write in the caller;
//! - a run is finished once; its result and full move list are committed
//!   before `finish_run` returns;
//! - leaderboards rank ranked finished runs by steps, then time, with
//!   standard competition ranks (1, 1, 3);
//! - runs record the node and boot serving them, and nodes hold leases
//!   (see [`crate::node`]).

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
    /// Each action's time, ms since the run's first move, one per action;
    /// `None` for runs stored without times (older runs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub times_ms: Option<Vec<u64>>,
}

/// A player's ranked run on one board, as [`Backend::ranked_run`] finds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RankedRow {
    pub run_id: i64,
    pub state: RunState,
    pub steps: u32,
    pub time_ms: Option<u64>,
    /// When the run began, RFC 3339 UTC to the second (`2026-12-01T09:12:31Z`).
    pub started_at: String,
}

/// The player's ranked try on a board (PROTOCOL-NEXT item 8: `ranked_at`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RankedStart {
    pub run_id: i64,
    /// RFC 3339 UTC, to the second.
    pub started_at: String,
}

/// One board of a day for one player (PROTOCOL-NEXT item 9). Serialises as
/// `{"game":..,"size":..,"played":false}` or with the played fields inline.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DayBoard {
    pub game: Game,
    pub size: Size,
    pub played: bool,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub result: Option<PlayedBoard>,
}

/// The player's ranked run on a board of the day.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PlayedBoard {
    /// False while playing and for a run that did not finish.
    pub finished: bool,
    /// 0 while playing.
    pub steps: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_ms: Option<u64>,
    /// Present for a finish.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rank: Option<u32>,
    /// Ranked runs started on the board so far.
    pub entrants: u32,
    pub run_id: i64,
    /// When the ranked run began, RFC 3339 UTC to the second.
    pub at: String,
}

/// A player's day (PROTOCOL-NEXT item 9): every board of `date` with their
/// ranked result, and their streak as of that date.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PlayerDay {
    #[serde(skip)]
    pub date: String,
    pub streak: u32,
    /// Every board, in [`crate::daily::ALL_SIZES`] order.
    pub boards: Vec<DayBoard>,
}

/// The storage interface. Synchronous: [`crate::Store`] calls it from a
/// dedicated thread, never from the async runtime.
pub trait Backend: Send {
    /// Whether the database answers (a trivial query): for health checks.
    fn ping(&mut self) -> Result<(), StoreError>;

    /// The daily salt kept in the database; a random 32-byte one (OS entropy)
    /// is made and committed the first time, then always returned.
    fn daily_salt(&mut self) -> Result<Vec<u8>, StoreError>;

    /// Record the start of a run. The first run of `player` on the board
    /// (date, game, size) is ranked; any later one is practice.
    fn begin_run(&mut self, run: &NewRun) -> Result<BeginRun, StoreError>;

    /// Record how a run ended and its full move list (accepted actions only),
    /// committed before this returns. A run ends once: a different ending
    /// later is [`StoreError::RunOver`]; the same ending again (same outcome
    /// and moves) returns the stored result, so retrying a finish whose
    /// outcome was unknown ([`StoreError::Unavailable`]) is safe.
    /// `times_ms`, when given, holds each action's time in ms since the run's
    /// first move (one per action, else [`StoreError::Invalid`]).
    fn finish_run(
        &mut self,
        run_id: i64,
        outcome: Outcome,
        actions: &[Action],
        times_ms: Option<&[u64]>,
    ) -> Result<FinishedRun, StoreError>;

    /// Mark every run of this node id still `playing` as not finished with no
    /// moves: for a node starting up after a stop, whose in-memory games are
    /// gone. Other nodes' runs are not touched. Returns how many were closed.
    fn abandon_open_runs(&mut self) -> Result<u64, StoreError>;

    /// Renew this process's lease in the `nodes` table, then close the open
    /// runs of every other boot whose lease has run out (and forget those
    /// boots). Returns how many runs were closed. See [`crate::node`].
    fn heartbeat(&mut self) -> Result<u64, StoreError>;

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

    /// Ranked runs started on a board, finished or not.
    fn entrants(&mut self, date: &str, game: Game, size: Size) -> Result<u32, StoreError>;

    /// The player's ranked run on a board, if they have started one.
    fn ranked_run(
        &mut self,
        player: &PlayerKey,
        date: &str,
        game: Game,
        size: Size,
    ) -> Result<Option<RankedRow>, StoreError>;

    /// Whether the player already has their ranked run on a board, and when it began.
    fn ranked_start(
        &mut self,
        player: &PlayerKey,
        date: &str,
        game: Game,
        size: Size,
    ) -> Result<Option<RankedStart>, StoreError> {
        check_board(date, game, size)?;
        let row = self.ranked_run(player, date, game, size)?;
        Ok(row.map(|r| RankedStart { run_id: r.run_id, started_at: r.started_at }))
    }

    /// Every board of `date` with the player's ranked result, and their streak.
    fn player_day(&mut self, player: &PlayerKey, date: &str) -> Result<PlayerDay, StoreError> {
        let streak = self.streak(player, date)?;
        let mut boards = Vec::with_capacity(crate::daily::ALL_SIZES.len());
        for size in crate::daily::ALL_SIZES {
            let game = size.game();
            let result = match self.ranked_run(player, date, game, size)? {
                None => None,
                Some(row) => Some(PlayedBoard {
                    finished: row.state == RunState::Finished,
                    steps: row.steps,
                    time_ms: row.time_ms,
                    rank: self.rank_of(row.run_id)?,
                    entrants: self.entrants(date, game, size)?,
                    run_id: row.run_id,
                    at: row.started_at,
                }),
            };
            boards.push(DayBoard { game, size, played: result.is_some(), result });
        }
        Ok(PlayerDay { date: date.to_owned(), streak, boards })
    }

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

/// A fresh random 32-byte daily salt (OS entropy).
pub(crate) fn new_salt() -> Result<Vec<u8>, StoreError> {
    let mut salt = vec![0u8; 32];
    getrandom::fill(&mut salt).map_err(|e| std::io::Error::other(format!("no OS entropy: {e}")))?;
    Ok(salt)
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
