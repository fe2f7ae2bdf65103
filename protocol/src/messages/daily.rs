//! The daily challenge's payloads: a stored run's result (`daily_result`)
//! and a board's table (`leaderboard`). The messages that carry them are
//! in `server.rs`.

use serde::{Deserialize, Serialize};

use crate::daily::DailyDate;
use crate::games::{Game, Size};
use crate::league::LeaguePlace;

/// The answer to a daily run, sent only after it is committed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DailyResult {
    /// The daily board's UTC day, `YYYY-MM-DD`.
    pub date: DailyDate,
    /// The daily board's game.
    pub game: Game,
    /// The daily board's size.
    pub size: Size,
    /// False for practice (a later attempt the same day).
    pub ranked: bool,
    /// Whether the run reached the goal.
    pub finished: bool,
    /// Steps (Ghost) or moves (maze) used.
    pub steps: u32,
    /// From the first accepted action to the finish; absent if not finished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_ms: Option<u64>,
    /// The run's place on the day's table; absent for practice and for a run
    /// that did not finish.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank: Option<u32>,
    /// Ranked runs started on this board so far, finished or not.
    pub entrants: u32,
    /// Consecutive UTC days, up to today, with a ranked run.
    pub streak: u32,
    /// Spoiler-free text to share.
    pub share: String,
    /// The stored run, for the replay view (`GET /api/daily/runs/{id}`).
    pub run_id: i64,
    /// The puzzle number: days since the first daily (2026-11-29 is 1).
    pub puzzle: u32,
    /// A ranked run: where it placed in each of your leagues.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub leagues: Vec<LeaguePlace>,
}

/// One line of a daily leaderboard.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LeaderboardEntry {
    /// 1-based; runs equal on steps and time share a rank.
    pub rank: u32,
    /// The player's name.
    pub name: String,
    /// Steps (Ghost) or moves (maze) used.
    pub steps: u32,
    /// From the first accepted action to the finish.
    pub time_ms: u64,
    /// Id of the stored run, for the replay view.
    pub run_id: i64,
    /// Paced at the server's ranked floor end to end (faster than people
    /// play: likely a script). Such runs tie on time (steps alone rank
    /// them); a table may mark or hide them. Absent: false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub at_floor: bool,
}

/// A daily board's table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Leaderboard {
    /// The board's UTC day, `YYYY-MM-DD`.
    pub date: DailyDate,
    /// The board's game.
    pub game: Game,
    /// The board's size.
    pub size: Size,
    /// Ranked runs started on this board, finished or not.
    pub entrants: u32,
    /// The top 100.
    pub entries: Vec<LeaderboardEntry>,
    /// The asking player's own line, when they have a ranked finish.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub you: Option<LeaderboardEntry>,
}
