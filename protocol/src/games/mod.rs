//! The registry of games: the one file outside a game's own folder that
//! names a game. Each game lives in its folder ([`ghost`], [`maze`]) and
//! implements the traits of [`seam`]; this file lists the games, their
//! sizes' wire names, and the enums the rest of the crate passes around
//! ([`Board`], [`PublicBoard`], [`Answer`], [`Reveal`], [`PlayerGame`],
//! [`ViewExtra`]), whose arms only dispatch into the game's folder. Rooms,
//! matches, the daily, the store, the bench and the server iterate over
//! [`Game::ALL`] and [`Size::ALL`] and never name a game.
//!
//! Adding a game is ARCHITECTURE.md's checklist "Adding a game": a folder
//! beside these two, a variant in each enum below and one line in
//! `each_game!` and `with_rules!`.

pub mod ghost;
pub mod maze;
pub mod seam;

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use self::seam::{Labels, Play, Rules};
use crate::action::{Action, Reject, Status};
use crate::board::Seed;
use crate::grid::{Dir, Pos};

/// Which game a board belongs to; its wire name is lowercase.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Game {
    /// The vault puzzle.
    Ghost,
    /// Maze Escape.
    Maze,
}

/// A board size; its wire name is lowercase. Each game's folder lists its
/// own sizes and their sides ([`seam::Rules::SIZES`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Size {
    /// Ghost, 6x6.
    Small,
    /// Ghost, 7x7.
    Medium,
    /// Ghost, 8x8.
    Large,
    /// Maze, 11x11.
    Easy,
    /// Maze, 17x17.
    Normal,
    /// Maze, 23x23.
    Hard,
}

/// Run `$body` with `$R` standing for the [`Rules`] type of `$game`.
macro_rules! with_rules {
    ($game:expr, $R:ident => $body:expr) => {
        match $game {
            Game::Ghost => {
                type $R = ghost::Vault;
                $body
            }
            Game::Maze => {
                type $R = maze::Maze;
                $body
            }
        }
    };
}

/// Run `$body` on whatever one game's arm of a registry enum holds; with
/// `=> $out`, wrap the result in the same game's arm of `$out`.
macro_rules! each_game {
    ($value:expr, $enum:ident, $x:ident => $body:expr) => {
        match $value {
            $enum::Ghost($x) => $body,
            $enum::Maze($x) => $body,
        }
    };
    ($value:expr, $enum:ident => $out:ident, $x:ident => $body:expr) => {
        match $value {
            $enum::Ghost($x) => $out::Ghost($body),
            $enum::Maze($x) => $out::Maze($body),
        }
    };
}

impl Game {
    /// Every game, in the order every list of them uses (the daily's boards,
    /// the home page, a match that alternates).
    pub const ALL: [Game; 2] = [Game::Ghost, Game::Maze];

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Game::Ghost => "ghost",
            Game::Maze => "maze",
        }
    }

    /// The sizes this game is played at, smallest first.
    pub fn sizes(self) -> impl Iterator<Item = Size> {
        with_rules!(self, R => R::SIZES).iter().map(|&(size, _)| size)
    }

    /// How its results read.
    pub fn labels(self) -> &'static Labels {
        with_rules!(self, R => &R::LABELS)
    }

    /// Whether a racer's steps are budgeted ([`Rules::BUDGETED`]).
    pub fn budgeted(self) -> bool {
        with_rules!(self, R => R::BUDGETED)
    }

    /// The p99 CPU time its largest board must be built within ([`Rules::BUILD_GOAL`]).
    pub fn build_goal(self) -> std::time::Duration {
        with_rules!(self, R => R::BUILD_GOAL)
    }

    /// Its largest size.
    pub fn largest(self) -> Size {
        with_rules!(self, R => R::SIZES).last().map_or(Size::ALL[0], |&(size, _)| size)
    }

    /// The game after this one in [`Game::ALL`], wrapping around: what a
    /// match that alternates plays next.
    pub fn next(self) -> Game {
        let at = Game::ALL.iter().position(|g| *g == self).unwrap_or(0);
        Game::ALL[(at + 1) % Game::ALL.len()]
    }

    /// `mazerace gen --stats`' summary of this game's boards of `size` on
    /// `seeds`: the game's own figures ([`Rules::summary`]).
    pub fn summary(size: Size, seeds: std::ops::Range<u64>) -> Result<String, BoardError> {
        with_rules!(size.game(), R => {
            let boards = seeds.map(|s| R::build(size, s)).collect::<Result<Vec<R>, _>>()?;
            Ok(R::summary(&boards))
        })
    }
}

impl fmt::Display for Game {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl FromStr for Game {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Game::ALL.into_iter().find(|g| g.as_str() == s).ok_or_else(|| {
            let names: Vec<_> = Game::ALL.iter().map(|g| g.as_str()).collect();
            format!("unknown game {s:?} ({})", names.join(" or "))
        })
    }
}

impl Size {
    /// Every size of every game, game by game in [`Game::ALL`]'s order,
    /// smallest first: the daily's boards in the order every list of them uses.
    pub const ALL: [Size; 6] = [Size::Small, Size::Medium, Size::Large, Size::Easy, Size::Normal, Size::Hard];

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Size::Small => "small",
            Size::Medium => "medium",
            Size::Large => "large",
            Size::Easy => "easy",
            Size::Normal => "normal",
            Size::Hard => "hard",
        }
    }

    /// The board's name in a sentence: the game's title and the size,
    /// `Maze normal`.
    pub fn board_name(self) -> String {
        format!("{} {self}", self.game().labels().title)
    }

    /// The game whose folder lists this size, with the side it gives.
    fn spec(self) -> (Game, u8) {
        Game::ALL
            .into_iter()
            .find_map(|g| {
                with_rules!(g, R => R::SIZES).iter().find(|(s, _)| *s == self).map(|&(_, n)| (g, n))
            })
            // Every size is some game's: `every_size_belongs_to_one_game` holds it.
            .unwrap_or((Game::ALL[0], 0))
    }

    /// The game this size belongs to.
    pub fn game(self) -> Game {
        self.spec().0
    }

    /// Side length of the square board.
    pub fn n(self) -> u8 {
        self.spec().1
    }
}

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl FromStr for Size {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Size::ALL.into_iter().find(|z| z.as_str() == s).ok_or_else(|| format!("unknown size {s:?}"))
    }
}

/// Why a board could not be built: the game's own reason.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BoardError {
    /// The vault builder failed.
    #[error(transparent)]
    Ghost(#[from] ghost::VaultError),
    /// The maze builder failed.
    #[error(transparent)]
    Maze(#[from] maze::MazeError),
}

/// A built board, cheap to clone and share between a room's racers.
#[derive(Clone, Debug)]
pub enum Board {
    /// A Ghost vault.
    Ghost(Arc<ghost::Vault>),
    /// A Maze Escape maze.
    Maze(Arc<maze::Maze>),
}

/// The board's public wire shape, tagged by `game`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "game", rename_all = "lowercase")]
pub enum PublicBoard {
    /// A vault as racers see it.
    Ghost(ghost::PublicVault),
    /// A maze as racers see it.
    Maze(maze::PublicMaze),
}

/// The board's answer (what `mazerace gen` adds to the public board).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Answer {
    /// A vault's answer.
    Ghost(ghost::VaultAnswer),
    /// A maze's answer.
    Maze(maze::MazeAnswer),
}

/// What the board's answer was, revealed with the results; tagged by `game`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "game", rename_all = "lowercase")]
pub enum Reveal {
    /// A vault's answer.
    Ghost(ghost::VaultReveal),
    /// A maze's answer.
    Maze(maze::MazeReveal),
}

/// One racer's game on one board.
#[derive(Clone, Debug)]
pub enum PlayerGame {
    /// A Ghost game.
    Ghost(ghost::GhostPlay),
    /// A Maze Escape game.
    Maze(maze::MazePlay),
}

/// A game's own part of `move_result`, beside pos, steps and status (none
/// for a game without one).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ViewExtra {
    /// Ghost: the run, the steps left, the ghost and the gate.
    Ghost(ghost::GhostView),
}

impl Board {
    /// The board for `(size, seed)`; the game follows from the size.
    pub fn build(size: Size, seed: u64) -> Result<Board, BoardError> {
        Ok(match size.game() {
            Game::Ghost => Board::Ghost(Arc::new(ghost::Vault::build(size, seed)?)),
            Game::Maze => Board::Maze(Arc::new(maze::Maze::build(size, seed)?)),
        })
    }

    /// Which game the board is for.
    pub fn game(&self) -> Game {
        self.size().game()
    }

    /// The board's size.
    pub fn size(&self) -> Size {
        each_game!(self, Board, b => Rules::size(&**b))
    }

    /// The seed it was built from.
    pub fn seed(&self) -> u64 {
        each_game!(self, Board, b => Rules::seed(&**b))
    }

    /// The best possible score (`None` when nothing wins).
    pub fn best(&self) -> Option<u32> {
        each_game!(self, Board, b => Rules::best(&**b))
    }

    /// What every racer may see before and during the race.
    pub fn public(&self) -> PublicBoard {
        each_game!(self, Board => PublicBoard, b => Rules::public(&**b))
    }

    /// What is revealed only after the race.
    pub fn answer(&self) -> Answer {
        each_game!(self, Board => Answer, b => Rules::answer(&**b))
    }

    /// The answer the results reveal.
    pub fn reveal(&self) -> Reveal {
        each_game!(self, Board => Reveal, b => Rules::reveal(&**b))
    }

    /// Cells per side, the goal and the step with every door open: what
    /// [`Board::goal_distances`] walks.
    pub(crate) fn walk(&self) -> (u8, Pos, impl Fn(Pos, Dir) -> Option<Pos> + '_) {
        let (n, goal) = each_game!(self, Board, b => (Rules::n(&**b), Rules::goal(&**b)));
        (n, goal, move |p, d| each_game!(self, Board, b => Rules::open_step(&**b, p, d)))
    }

    /// A new game on this board, at its start.
    pub fn play(&self) -> PlayerGame {
        each_game!(self, Board => PlayerGame, b => Rules::play(b))
    }
}

impl PublicBoard {
    /// The board's size.
    pub fn size(&self) -> Size {
        each_game!(self, PublicBoard, b => b.size)
    }

    /// Its seed, where it is shown.
    pub fn seed(&self) -> Option<Seed> {
        each_game!(self, PublicBoard, b => b.seed)
    }

    /// Withhold the seed.
    pub fn hide_seed(&mut self) {
        each_game!(self, PublicBoard, b => b.seed = None)
    }
}

impl Answer {
    /// One line that wins (empty when none does).
    pub fn solution(&self) -> &[Action] {
        each_game!(self, Answer, a => &a.solution)
    }
}

impl Reveal {
    /// One line that wins (empty when none does).
    pub fn solution(&self) -> &[Action] {
        each_game!(self, Reveal, r => &r.solution)
    }

    /// The line, to withhold it.
    pub fn solution_mut(&mut self) -> &mut Vec<Action> {
        each_game!(self, Reveal, r => &mut r.solution)
    }
}

impl ViewExtra {
    /// Which run the player is on, for games that have runs.
    pub fn run(&self) -> Option<u8> {
        match self {
            ViewExtra::Ghost(v) => Some(v.run),
        }
    }
}

impl PlayerGame {
    /// A new game on `board`, at its start.
    pub fn new(board: &Board) -> Self {
        board.play()
    }

    /// Apply one action by the rules; a refusal changes nothing.
    pub fn apply(&mut self, action: Action) -> Result<(), Reject> {
        each_game!(self, PlayerGame, g => Play::apply(g, action))
    }

    /// Playing, won or out of steps.
    pub fn status(&self) -> Status {
        each_game!(self, PlayerGame, g => Play::status(g))
    }

    /// Where the player stands.
    pub fn pos(&self) -> Pos {
        each_game!(self, PlayerGame, g => Play::pos(g))
    }

    /// The count the score is made of.
    pub fn steps(&self) -> u32 {
        each_game!(self, PlayerGame, g => Play::steps(g))
    }

    /// Which run the player is on, for games that have runs.
    pub fn run(&self) -> Option<u8> {
        each_game!(self, PlayerGame, g => Play::run(g))
    }

    /// A second marker of the player's that others see (`progress.ghost`).
    pub fn companion(&self) -> Option<Pos> {
        each_game!(self, PlayerGame, g => Play::companion(g))
    }

    /// Moves the game keeps for the companion to replay.
    pub fn recording(&self) -> &[Dir] {
        each_game!(self, PlayerGame, g => Play::recording(g))
    }

    /// The game's own part of `move_result`.
    pub fn view_extra(&self) -> Option<ViewExtra> {
        each_game!(self, PlayerGame, g => Play::view_extra(g))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_size_belongs_to_one_game() {
        for size in Size::ALL {
            let owners: Vec<Game> = Game::ALL.into_iter().filter(|g| g.sizes().any(|s| s == size)).collect();
            assert_eq!(owners.len(), 1, "{size} is listed by {owners:?}");
            assert!(size.n() > 0);
        }
        let listed: Vec<Size> = Game::ALL.into_iter().flat_map(Game::sizes).collect();
        assert_eq!(listed, Size::ALL, "Size::ALL is game by game, smallest first");
    }

    #[test]
    fn names_round_trip() {
        for game in Game::ALL {
            assert_eq!(game.as_str().parse::<Game>(), Ok(game));
            assert_eq!(serde_json::to_value(game).unwrap(), game.as_str());
        }
        for size in Size::ALL {
            assert_eq!(size.as_str().parse::<Size>(), Ok(size));
            assert_eq!(serde_json::to_value(size).unwrap(), size.as_str());
        }
        assert_eq!("ice".parse::<Game>(), Err(r#"unknown game "ice" (ghost or maze)"#.to_owned()));
    }
}
