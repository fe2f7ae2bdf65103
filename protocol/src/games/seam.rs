//! The seam a game plugs into: the traits every game implements in its own
//! folder, and nothing else. Rooms, matches, the daily, the store, the bench
//! and the server reach a game only through these (by way of the registry's
//! enums in [`super`]), so none of them names one.

use std::sync::Arc;

use serde::Serialize;

use super::{Game, Size};
use crate::action::{Action, Reject, Status};
use crate::grid::{Dir, Pos};

/// How a game's results read, for share lines and the `gen` statistics.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Labels {
    /// The game's name in a sentence: `Ghost`, `Maze`.
    pub title: &'static str,
    /// What a player counts: `steps`, `moves`.
    pub unit: &'static str,
    /// What the best possible count is called: `best possible`, `shortest`.
    pub best: &'static str,
    /// A board of this game, plural, for `mazerace gen --stats`: `vaults`, `mazes`.
    pub boards: &'static str,
    /// Boards `mazerace gen --stats` samples per size by default: enough
    /// for stable percentiles within a second or two (the slower the
    /// builder, the fewer).
    pub stats_sample: u64,
}

/// A game's board: built from a seed, shown to racers, answered after.
///
/// One implementation per game, in its folder. Everything here is a pure
/// function of `(size, seed)`: the golden tests pin every game's boards.
pub trait Rules: Sized + Send + Sync + 'static {
    /// The board as racers see it (`race_start`): the game's arm of
    /// [`super::PublicBoard`]. Its fields include `size: Size` and
    /// `seed: Option<Seed>` (the registry reads and hides them).
    type Public;
    /// What `mazerace gen` adds to the public board. Its fields include
    /// `solution: Vec<Action>`, one winning line (empty when none wins).
    type Answer;
    /// What the results reveal; its fields include `solution` too.
    type Reveal;
    /// One racer's game on this board.
    type Play: Play;
    /// Why a board could not be built.
    type Error: Into<super::BoardError>;

    /// The game, as the registry names it.
    const GAME: Game;
    /// The sizes it is played at, smallest first, each with its side.
    const SIZES: &'static [(Size, u8)];
    /// How its results read.
    const LABELS: Labels;
    /// The p99 CPU time the game's largest board must be built within
    /// (the bench's goal: a room's board is built while its players wait).
    const BUILD_GOAL: std::time::Duration;
    /// Whether a racer's steps are budgeted (an allowance that ends the
    /// game), so a walker cannot pace back and forth for ever.
    const BUDGETED: bool;

    /// The board for `(size, seed)`; a size of another game is an error.
    fn build(size: Size, seed: u64) -> Result<Self, Self::Error>;
    /// The board's size.
    fn size(&self) -> Size;
    /// The seed it was built from.
    fn seed(&self) -> u64;
    /// The best possible count (`None` when nothing wins).
    fn best(&self) -> Option<u32>;
    /// What every racer may see.
    fn public(&self) -> Self::Public;
    /// The answer.
    fn answer(&self) -> Self::Answer;
    /// What the results reveal.
    fn reveal(&self) -> Self::Reveal;
    /// Cells per side.
    fn n(&self) -> u8;
    /// The cell that wins.
    fn goal(&self) -> Pos;
    /// The cell a step in `dir` from `from` reaches when every door is open,
    /// or `None` (a wall, the edge): progress bars count steps to the goal
    /// with it.
    fn open_step(&self, from: Pos, dir: Dir) -> Option<Pos>;
    /// A new game on this board, at its start.
    fn play(board: &Arc<Self>) -> Self::Play;
    /// `mazerace gen --stats`' figures for many boards of one size, after
    /// the count and the size: e.g. `shortest p10 30 median 37 p90 45`.
    fn summary(boards: &[Self]) -> String;
}

/// One racer's game: the rules applied per action.
pub trait Play: Clone + std::fmt::Debug {
    /// Apply one action by the rules; a refusal changes nothing.
    fn apply(&mut self, action: Action) -> Result<(), Reject>;
    /// Playing, won or out of steps.
    fn status(&self) -> Status;
    /// Where the player stands.
    fn pos(&self) -> Pos;
    /// The count the score is made of (steps, moves).
    fn steps(&self) -> u32;
    /// Which run the player is on, for games that have runs.
    fn run(&self) -> Option<u8> {
        None
    }
    /// A second marker of the player's that others see (`progress.ghost`).
    fn companion(&self) -> Option<Pos> {
        None
    }
    /// Moves the game keeps for the companion to replay.
    fn recording(&self) -> &[Dir] {
        &[]
    }
    /// The game's own part of `move_result`, flattened beside pos, steps
    /// and status.
    fn view_extra(&self) -> Option<super::ViewExtra> {
        None
    }
}

/// `p10 A median B p90 C` of sorted figures, for [`Rules::summary`].
pub fn percentiles(sorted: &[u32]) -> String {
    let at = |p: usize| sorted.get(sorted.len().saturating_sub(1) * p / 100).copied().unwrap_or(0);
    format!("p10 {} median {} p90 {}", at(10), at(50), at(90))
}
