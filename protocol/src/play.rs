//! One interface over both games: what the server holds per racer, and what
//! `move_result`/`rewind_result` report. The rules themselves live in
//! [`crate::ghost::play`] and [`crate::maze::play`].

use serde::{Deserialize, Serialize};
use std::sync::Arc;

pub use crate::action::{Action, Reject, Status};
use crate::board::Board;
use crate::ghost::play::GhostPlay;
use crate::grid::{Dir, Pos};
use crate::maze::play::MazePlay;

/// A player's own state after an action, as `move_result` carries it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameView {
    /// Where the player stands.
    pub pos: Pos,
    /// Steps (Ghost, both runs) or moves (maze) used.
    pub steps: u32,
    /// Playing, won or out of steps.
    pub status: Status,
    /// Ghost only: the runs, the allowance, the ghost and the gate.
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub ghost: Option<GhostView>,
}

/// The Ghost-only part of [`GameView`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GhostView {
    /// 1, or 2 after the rewind.
    pub run: u8,
    /// Steps left before the allowance is spent.
    pub steps_left: u32,
    /// Where the ghost stands (run two only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ghost: Option<Pos>,
    /// Whether the gate would let the player in on the next move.
    pub gate_open: bool,
}

/// RULES.md: `best / steps * 100`, shown rounded (`shortest` for the maze,
/// `true_par` for Ghost), with two guards so the figure never lies: it is
/// at most 100, and only a run of exactly `best` steps shows 100 (rounding
/// alone would show 100 for 199 steps against a best of 198).
pub fn efficiency(best: u32, steps: u32) -> u32 {
    if steps == 0 {
        return 0;
    }
    let rounded = (f64::from(best) * 100.0 / f64::from(steps)).round() as u32;
    if steps > best {
        rounded.min(99)
    } else {
        rounded.min(100)
    }
}

/// One racer's game on one board.
#[derive(Clone, Debug)]
pub enum PlayerGame {
    /// A Ghost game.
    Ghost(GhostPlay),
    /// A Maze Escape game.
    Maze(MazePlay),
}

impl PlayerGame {
    /// A new game on `board`, at its start.
    pub fn new(board: &Board) -> Self {
        match board {
            Board::Ghost(v) => PlayerGame::Ghost(GhostPlay::new(Arc::clone(v))),
            Board::Maze(m) => PlayerGame::Maze(MazePlay::new(Arc::clone(m))),
        }
    }

    /// Apply one action by the rules; a refusal changes nothing.
    pub fn apply(&mut self, action: Action) -> Result<(), Reject> {
        match (self, action) {
            (PlayerGame::Ghost(g), Action::Move(d)) => g.step(d),
            (PlayerGame::Ghost(g), Action::Rewind) => g.rewind(),
            (PlayerGame::Maze(m), Action::Move(d)) => m.step(d),
            // A finished game refuses everything the same way.
            (PlayerGame::Maze(m), Action::Rewind) if m.status() != Status::Playing => Err(Reject::GameOver),
            (PlayerGame::Maze(_), Action::Rewind) => Err(Reject::NoRewind),
        }
    }

    /// Playing, won or out of steps.
    pub fn status(&self) -> Status {
        match self {
            PlayerGame::Ghost(g) => g.status(),
            PlayerGame::Maze(m) => m.status(),
        }
    }

    /// Where the player stands.
    pub fn pos(&self) -> Pos {
        match self {
            PlayerGame::Ghost(g) => g.pos(),
            PlayerGame::Maze(m) => m.pos(),
        }
    }

    /// Steps (Ghost, both runs) or moves (maze) counted so far.
    pub fn steps(&self) -> u32 {
        match self {
            PlayerGame::Ghost(g) => g.steps(),
            PlayerGame::Maze(m) => m.moves(),
        }
    }

    /// Ghost: 1 or 2; the maze has no runs.
    pub fn run(&self) -> Option<u8> {
        match self {
            PlayerGame::Ghost(g) => Some(g.run()),
            PlayerGame::Maze(_) => None,
        }
    }

    /// Ghost, in run two: where the player's ghost stands.
    pub fn ghost(&self) -> Option<Pos> {
        match self {
            PlayerGame::Ghost(g) => g.ghost(),
            PlayerGame::Maze(_) => None,
        }
    }

    /// Ghost: the run-one recording the ghost replays.
    pub fn recording(&self) -> &[Dir] {
        match self {
            PlayerGame::Ghost(g) => g.recording(),
            PlayerGame::Maze(_) => &[],
        }
    }

    /// The player's own state, as `move_result` reports it.
    pub fn view(&self) -> GameView {
        GameView {
            pos: self.pos(),
            steps: self.steps(),
            status: self.status(),
            ghost: match self {
                PlayerGame::Ghost(g) => Some(GhostView {
                    run: g.run(),
                    steps_left: g.steps_left(),
                    ghost: g.ghost(),
                    gate_open: g.gate_open(),
                }),
                PlayerGame::Maze(_) => None,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn efficiency_rounds_like_the_seed() {
        assert_eq!(efficiency(112, 140), 80);
        assert_eq!(efficiency(32, 46), 70);
        assert_eq!(efficiency(16, 16), 100);
        assert_eq!(efficiency(5, 0), 0);
    }

    #[test]
    fn efficiency_is_100_only_for_a_best_run() {
        assert_eq!(efficiency(198, 199), 99, "99.5% is not a perfect run");
        assert_eq!(efficiency(16, 15), 100, "never above 100");
    }

    #[test]
    fn actions_are_plain_words_on_the_wire() {
        let line = vec![Action::Move(Dir::Up), Action::Rewind, Action::Move(Dir::Left)];
        let json = serde_json::to_string(&line).unwrap();
        assert_eq!(json, r#"["up","rewind","left"]"#);
        let back: Vec<Action> = serde_json::from_str(&json).unwrap();
        assert_eq!(back, line);
        assert!(serde_json::from_str::<Action>(r#""jump""#).is_err());
    }
}
