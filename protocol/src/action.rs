//! The vocabulary of a move, shared by both games' engines, the board and
//! the wire: what a player can do ([`Action`]), where a game stands
//! ([`Status`]) and why an action was refused ([`Reject`]). It depends on
//! nothing but [`crate::grid`], so the engines and [`crate::play`] (which
//! dispatches to them) can all use it without importing each other.

use serde::{Deserialize, Serialize};
use std::fmt;

use crate::grid::Dir;

/// One thing a player can do: a step, or (Ghost, run one) a rewind.
/// On the wire: `"up"`, `"down"`, `"left"`, `"right"` or `"rewind"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "&'static str")]
pub enum Action {
    /// A step in a direction.
    Move(Dir),
    /// Ghost, once in run one: back to the start, run two begins.
    Rewind,
}

impl Action {
    /// The wire name: a direction or `rewind`.
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Move(Dir::Up) => "up",
            Action::Move(Dir::Down) => "down",
            Action::Move(Dir::Left) => "left",
            Action::Move(Dir::Right) => "right",
            Action::Rewind => "rewind",
        }
    }
}

impl From<Action> for &'static str {
    fn from(a: Action) -> Self {
        a.as_str()
    }
}

impl TryFrom<String> for Action {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        Ok(match s.as_str() {
            "up" => Action::Move(Dir::Up),
            "down" => Action::Move(Dir::Down),
            "left" => Action::Move(Dir::Left),
            "right" => Action::Move(Dir::Right),
            "rewind" => Action::Rewind,
            _ => return Err(format!("unknown action {s:?}")),
        })
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a player's game stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Still going.
    Playing,
    /// Reached the goal (the flag or the exit).
    Won,
    /// Ghost only: the allowance is spent and the flag not reached.
    OutOfSteps,
}

/// Why a move or rewind was refused. A refused action changes nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[serde(rename_all = "snake_case")]
pub enum Reject {
    /// `wall`: a wall or the board's edge is in the way.
    #[error("a wall or the edge of the board is in the way")]
    Wall,
    /// `gate_closed`: the gate is shut (nobody on the plate before the move).
    #[error("the gate is shut: nobody stands on the plate")]
    GateClosed,
    /// `game_over`: the game is won or out of steps.
    #[error("this game is over")]
    GameOver,
    /// `rewind_used`: the one rewind is spent (run two).
    #[error("the rewind is used: there is only one, in run one")]
    RewindUsed,
    /// `no_rewind`: a rewind in a game that has none.
    #[error("this game has no rewind")]
    NoRewind,
    /// `too_fast`: a ranked daily move sooner after the last than human
    /// input allows (the server's pacing, never the engine's): not
    /// applied, no step used; send it again a little later.
    #[error("too fast: ranked daily moves are paced to human input")]
    TooFast,
    /// `rate_limited`: the connection was over its message rate, so the
    /// server dropped the move unread (its flood gate, never the engine):
    /// not applied, no step used.
    #[error("over the message rate: the move was dropped")]
    RateLimited,
}
