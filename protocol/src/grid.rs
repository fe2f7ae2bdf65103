//! Positions, directions, and the names of games and sizes: the small
//! vocabulary every other module speaks.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// A cell, `[row, col]` on the wire, zero-based, row 0 at the top.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(from = "[u8; 2]", into = "[u8; 2]")]
pub struct Pos {
    /// Row, from 0 at the top.
    pub row: u8,
    /// Column, from 0 at the left.
    pub col: u8,
}

impl Pos {
    /// The cell at `row`, `col`.
    pub const fn new(row: u8, col: u8) -> Self {
        Pos { row, col }
    }

    /// The cell one step in `dir`, or `None` when it would leave an `n` by `n` board.
    pub fn step(self, dir: Dir, n: u8) -> Option<Pos> {
        let (r, c) = (self.row, self.col);
        let next = match dir {
            Dir::Up => Pos::new(r.checked_sub(1)?, c),
            Dir::Down => Pos::new(r + 1, c),
            Dir::Left => Pos::new(r, c.checked_sub(1)?),
            Dir::Right => Pos::new(r, c + 1),
        };
        (next.row < n && next.col < n).then_some(next)
    }

    /// Row-major index on an `n` by `n` board.
    pub fn index(self, n: u8) -> usize {
        self.row as usize * n as usize + self.col as usize
    }

    /// The cell at row-major index `i` on an `n` by `n` board.
    pub fn from_index(i: usize, n: u8) -> Pos {
        Pos::new((i / n as usize) as u8, (i % n as usize) as u8)
    }
}

impl From<[u8; 2]> for Pos {
    fn from([row, col]: [u8; 2]) -> Self {
        Pos { row, col }
    }
}

impl From<Pos> for [u8; 2] {
    fn from(p: Pos) -> Self {
        [p.row, p.col]
    }
}

/// A move direction, `"up"`, `"down"`, `"left"` or `"right"` on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dir {
    /// Towards row 0.
    Up,
    /// Towards the last row.
    Down,
    /// Towards column 0.
    Left,
    /// Towards the last column.
    Right,
}

impl Dir {
    /// The order RULES.md uses wherever an order matters (the maze carver).
    pub const ALL: [Dir; 4] = [Dir::Up, Dir::Down, Dir::Left, Dir::Right];

    /// The direction back.
    pub fn opposite(self) -> Dir {
        match self {
            Dir::Up => Dir::Down,
            Dir::Down => Dir::Up,
            Dir::Left => Dir::Right,
            Dir::Right => Dir::Left,
        }
    }
}

/// Which game a board belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Game {
    /// The vault puzzle.
    Ghost,
    /// Maze Escape.
    Maze,
}

impl Game {
    /// The wire name: `ghost` or `maze`.
    pub fn as_str(self) -> &'static str {
        match self {
            Game::Ghost => "ghost",
            Game::Maze => "maze",
        }
    }

    /// The sizes this game is played at, smallest first.
    pub fn sizes(self) -> [Size; 3] {
        match self {
            Game::Ghost => [Size::Small, Size::Medium, Size::Large],
            Game::Maze => [Size::Easy, Size::Normal, Size::Hard],
        }
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
        match s {
            "ghost" => Ok(Game::Ghost),
            "maze" => Ok(Game::Maze),
            _ => Err(format!("unknown game {s:?} (ghost or maze)")),
        }
    }
}

/// A board size. Ghost vaults are `small`/`medium`/`large`; mazes are
/// `easy`/`normal`/`hard`. [`Size::game`] says which game a size belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
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

impl Size {
    /// Every size of both games, Ghost first, smallest first: the daily's
    /// six boards in the order every list of them uses.
    pub const ALL: [Size; 6] = [Size::Small, Size::Medium, Size::Large, Size::Easy, Size::Normal, Size::Hard];

    /// The game this size belongs to.
    pub fn game(self) -> Game {
        match self {
            Size::Small | Size::Medium | Size::Large => Game::Ghost,
            Size::Easy | Size::Normal | Size::Hard => Game::Maze,
        }
    }

    /// Side length of the square board.
    pub fn n(self) -> u8 {
        match self {
            Size::Small => 6,
            Size::Medium => 7,
            Size::Large => 8,
            Size::Easy => 11,
            Size::Normal => 17,
            Size::Hard => 23,
        }
    }

    /// The wire name, lowercase (`small` ... `hard`).
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

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl FromStr for Size {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        [Size::Small, Size::Medium, Size::Large, Size::Easy, Size::Normal, Size::Hard]
            .into_iter()
            .find(|z| z.as_str() == s)
            .ok_or_else(|| format!("unknown size {s:?}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_stay_on_the_board() {
        let n = 6;
        assert_eq!(Pos::new(0, 0).step(Dir::Up, n), None);
        assert_eq!(Pos::new(0, 0).step(Dir::Left, n), None);
        assert_eq!(Pos::new(5, 5).step(Dir::Down, n), None);
        assert_eq!(Pos::new(5, 5).step(Dir::Right, n), None);
        assert_eq!(Pos::new(2, 3).step(Dir::Up, n), Some(Pos::new(1, 3)));
        assert_eq!(Pos::new(2, 3).step(Dir::Right, n), Some(Pos::new(2, 4)));
    }

    #[test]
    fn pos_is_a_pair_on_the_wire() {
        assert_eq!(serde_json::to_string(&Pos::new(3, 4)).unwrap(), "[3,4]");
        let p: Pos = serde_json::from_str("[1,2]").unwrap();
        assert_eq!(p, Pos::new(1, 2));
    }
}
