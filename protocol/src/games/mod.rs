//! The registry of games: the one file outside a game's own folder that
//! names a game. Each game lives in its folder ([`ghost`], [`maze`]) and
//! implements the traits of [`seam`]; this file lists the games, their
//! sizes' wire names, and the enums the rest of the crate passes around
//! ([`Board`], [`PublicBoard`], [`Answer`], [`Reveal`], [`PlayerGame`],
//! [`ViewExtra`]), whose arms only dispatch into the game's folder. Rooms,
//! matches, the daily, the store, the bench and the server iterate over
//! [`Game::ALL`] and [`Size::ALL`] and never name a game; the methods of
//! these types, which name none either, are in `dispatch.rs`.
//!
//! Adding a game is ARCHITECTURE.md's checklist "Adding a game": a folder
//! beside these two, a variant in each enum below and one line in
//! `each_game!` and `with_rules!`.

pub mod ghost;
pub mod maze;
pub mod seam;

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use self::seam::Rules;

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
                type $R = $crate::games::ghost::Vault;
                $body
            }
            Game::Maze => {
                type $R = $crate::games::maze::Maze;
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

// After the macros, which it uses.
mod dispatch;

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
}

impl ViewExtra {
    /// Which run the player is on, for games that have runs.
    pub fn run(&self) -> Option<u8> {
        match self {
            ViewExtra::Ghost(v) => Some(v.run),
        }
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
