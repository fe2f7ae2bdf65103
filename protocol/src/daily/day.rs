//! A player's day (PROTOCOL-NEXT item 9): every board of one date with the
//! player's ranked result on it, and their streak, as `GET /api/daily`'s
//! `you` carries it.

use serde::Serialize;

use super::DailyDate;
use crate::games::{Game, Size};

/// A player's day: every board of `date` with their ranked result, and
/// their streak as of that date.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PlayerDay {
    /// The day (not sent: the answer's own `date` says it).
    #[serde(skip)]
    pub date: DailyDate,
    /// Consecutive UTC days, up to `date`, with a ranked run.
    pub streak: u32,
    /// Every board, in [`Size::ALL`] order.
    pub boards: Vec<DayBoard>,
}

/// One board of a day for one player. Serialises as
/// `{"game":..,"size":..,"played":false}` or with the played fields inline.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DayBoard {
    /// The board's game.
    pub game: Game,
    /// The board's size.
    pub size: Size,
    /// Whether the player has started their ranked run on it.
    pub played: bool,
    /// That run, when played.
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
    /// Present for a finish.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_ms: Option<u64>,
    /// Present for a finish.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rank: Option<u32>,
    /// Ranked runs started on the board so far.
    pub entrants: u32,
    /// The stored run, for the replay view.
    pub run_id: i64,
    /// When the ranked run began, RFC 3339 UTC to the second.
    pub at: String,
}
