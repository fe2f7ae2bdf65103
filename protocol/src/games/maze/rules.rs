//! Maze Escape behind the seam: its sizes and labels, its wire shapes (the
//! public maze, the answer, the reveal) and the [`Rules`] and [`Play`]
//! implementations the registry dispatches to.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::build::{self, Maze, MazeError};
use super::play::MazePlay;
use crate::action::{Action, Reject, Status};
use crate::board::Seed;
use crate::games::seam::{percentiles, Labels, Play, Rules};
use crate::games::{Game, Size};
use crate::grid::{Dir, Pos};

/// A maze without its answer: what racers see before and during the race.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PublicMaze {
    /// The maze's size.
    pub size: Size,
    /// The seed it was built from; absent on a daily board until its day
    /// is over (the seed would let anyone practise it in a private room).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<Seed>,
    /// Cells per side.
    pub n: u8,
    /// `n` rows of one hex digit per cell: bit 1 up, 2 right, 4 down, 8 left.
    pub passages: Vec<String>,
    /// Where the player starts, `[0, 0]`.
    pub start: Pos,
    /// The exit, `[n - 1, n - 1]`.
    pub exit: Pos,
}

/// A maze's answer, as `mazerace gen` prints it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MazeAnswer {
    /// The length of the shortest route.
    pub shortest: u32,
    /// One shortest route.
    pub solution: Vec<Action>,
}

/// A maze's answer, as the results reveal it: the same as [`MazeAnswer`].
pub type MazeReveal = MazeAnswer;

impl Rules for Maze {
    type Public = PublicMaze;
    type Answer = MazeAnswer;
    type Reveal = MazeReveal;
    type Play = MazePlay;
    type Error = MazeError;

    const GAME: Game = Game::Maze;
    const SIZES: &'static [(Size, u8)] = &[(Size::Easy, 11), (Size::Normal, 17), (Size::Hard, 23)];
    const LABELS: Labels =
        Labels { title: "Maze", unit: "moves", best: "shortest", boards: "mazes", stats_sample: 3_000 };
    const BUDGETED: bool = false;
    const BUILD_GOAL: std::time::Duration = std::time::Duration::from_micros(100);

    fn build(size: Size, seed: u64) -> Result<Self, MazeError> {
        build::build(size, seed)
    }
    fn size(&self) -> Size {
        self.size
    }
    fn seed(&self) -> u64 {
        self.seed
    }
    fn best(&self) -> Option<u32> {
        Some(self.shortest)
    }
    fn public(&self) -> PublicMaze {
        PublicMaze {
            size: self.size,
            seed: Some(Seed(self.seed)),
            n: self.n,
            passages: self.passage_rows(),
            start: self.start,
            exit: self.exit,
        }
    }
    fn answer(&self) -> MazeAnswer {
        MazeAnswer {
            shortest: self.shortest,
            solution: self.solution.iter().copied().map(Action::Move).collect(),
        }
    }
    fn reveal(&self) -> MazeReveal {
        self.answer()
    }
    fn n(&self) -> u8 {
        self.n
    }
    fn goal(&self) -> Pos {
        self.exit
    }
    fn open_step(&self, from: Pos, dir: Dir) -> Option<Pos> {
        self.through(from, dir)
    }
    fn play(board: &Arc<Self>) -> MazePlay {
        MazePlay::new(Arc::clone(board))
    }

    /// Shortest route p10/median/p90.
    fn summary(boards: &[Self]) -> String {
        let mut shortest: Vec<u32> = boards.iter().map(|m| m.shortest).collect();
        shortest.sort_unstable();
        format!("shortest {}", percentiles(&shortest))
    }
}

impl Play for MazePlay {
    fn apply(&mut self, action: Action) -> Result<(), Reject> {
        match action {
            Action::Move(d) => self.step(d),
            // A finished game refuses everything the same way.
            Action::Rewind if self.status() != Status::Playing => Err(Reject::GameOver),
            Action::Rewind => Err(Reject::NoRewind),
        }
    }
    fn status(&self) -> Status {
        MazePlay::status(self)
    }
    fn pos(&self) -> Pos {
        MazePlay::pos(self)
    }
    fn steps(&self) -> u32 {
        self.moves()
    }
}
