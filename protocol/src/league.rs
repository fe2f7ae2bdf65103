//! Leagues' wire shapes (issue 15): a league, its table for one daily board,
//! its standings over the last days, and where a daily result placed in each
//! league. [`crate::messages`] carries them; PROTOCOL.md shows each.

#![allow(missing_docs)] // each field is described in PROTOCOL.md's league section

use serde::{Deserialize, Serialize};

use crate::daily::DailyDate;
use crate::games::{Game, Size};

fn is_false(b: &bool) -> bool {
    !*b
}

/// A league as its members see it. Its link is `/l/CODE`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct League {
    /// 8 characters of `23456789ABCDEFGHJKMNPQRSTUVWXYZ`.
    pub code: String,
    /// As its maker typed it (validated like a player name; markup is data).
    pub name: String,
    pub members: u32,
    /// `my_leagues` only: your place in today's standings (every board of today).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub today: Option<LeagueToday>,
    /// The invite key a member's link carries (`/l/CODE?k=KEY`, 16 hex
    /// digits): lookups with it spend no failed-join budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
}

/// Your standing in a league today.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeagueToday {
    /// Your place among the members by today's points (ties share it).
    pub rank: u32,
    pub points: u32,
    /// Members with a ranked run today.
    pub played: u32,
}

/// One line of a league's table for one board.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeagueEntry {
    /// Among the members' ranked finishes (1, 1, 3); absent if not finished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank: Option<u32>,
    pub name: String,
    pub finished: bool,
    pub steps: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_ms: Option<u64>,
    pub run_id: i64,
    /// Your own line.
    #[serde(default, skip_serializing_if = "is_false")]
    pub you: bool,
}

/// One member's line of the standings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Standing {
    pub rank: u32,
    pub name: String,
    /// Per board: 1 + the members beaten there.
    pub points: u32,
    /// First places (shared on a tie).
    pub wins: u32,
    /// Days with a ranked run in the window.
    pub days: u32,
    /// Consecutive UTC days, up to today, with a ranked run.
    pub streak: u32,
    #[serde(default, skip_serializing_if = "is_false")]
    pub you: bool,
    /// This member, for `remove_member` (12 hex digits, this league's own:
    /// the same player has another in another league).
    pub member: String,
    /// The league's owner, who may remove members: its longest-standing
    /// member (its maker, until they leave).
    #[serde(default, skip_serializing_if = "is_false")]
    pub owner: bool,
}

/// Where a daily result placed in one of your leagues.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeaguePlace {
    pub code: String,
    pub name: String,
    /// Among the members' ranked finishes on this board; absent if not finished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank: Option<u32>,
    /// Members with a ranked run on this board so far.
    pub entrants: u32,
    /// The share line naming the league.
    pub share: String,
}

/// A league's table for one daily board.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeagueBoard {
    pub code: String,
    pub name: String,
    pub date: DailyDate,
    pub game: Game,
    pub size: Size,
    pub entries: Vec<LeagueEntry>,
}

/// A league's standings over the last `days` days (7 or 30), up to today.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeagueStandings {
    pub code: String,
    pub name: String,
    pub days: u32,
    /// The window's first and last UTC days.
    pub from: DailyDate,
    pub to: DailyDate,
    pub lines: Vec<Standing>,
}
