//! The records the store takes and answers with: a run about to start, how
//! it ended, what was stored. The rules that produce them live in
//! [`crate::rules`], once for both databases:
//! - one ranked run per player per board (date, game, size): the first
//!   `begin_run` is ranked, every later one that day is practice, and that is
//!   decided by the database (a partial unique index), not by a
//!   read-then-write in the caller;
//! - a run is finished once; its result and full move list are committed
//!   before `finish_run` returns;
//! - leaderboards rank ranked finished runs by steps, then time, with
//!   standard competition ranks (1, 1, 3); runs paced at the ranked floor
//!   end to end (`at_floor`) are tied on time: among them steps alone count;
//! - runs record the node and boot serving them, and nodes hold leases
//!   (see [`crate::node`]).

use serde::Serialize;

use mazerace_protocol::daily::DailyDate;
use mazerace_protocol::{Action, Game, Seed, Size};

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
    pub date: DailyDate,
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
    /// Practice because the network address already has its cap of ranked
    /// runs on this board (the player's own first try).
    pub capped: bool,
}

/// The per-address cap on ranked runs (issue 15): at most `limit` ranked
/// runs per board from one network address. `key` is the address's keyed
/// hash (64 hex digits), never the address itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AddressCap {
    pub key: String,
    pub limit: u32,
}

/// How a run ended. Steps and time are the server's own measurements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Reached the flag or the exit. `time_ms` runs from the first move;
    /// `at_floor`: the server paced it at its ranked floor end to end (a
    /// likely script, flagged in tables and tied on time with its kind).
    Finished { steps: u32, time_ms: u64, at_floor: bool },
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
    pub date: DailyDate,
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
    /// The player's streak as of the run's date (see [`crate::Store::streak`]).
    pub streak: u32,
}

/// One stored run, as the replay view and the verifier see it. The player's
/// key is deliberately not part of it: this is safe to serve publicly.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StoredRun {
    pub id: i64,
    pub date: DailyDate,
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

/// A player's ranked run on one board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RankedRow {
    pub run_id: i64,
    pub state: RunState,
    pub steps: u32,
    pub time_ms: Option<u64>,
    /// Paced at the ranked floor end to end (see [`Outcome::Finished`]).
    pub at_floor: bool,
    /// When the run began, RFC 3339 UTC to the second (`2026-12-01T09:12:31Z`).
    pub started_at: String,
}
