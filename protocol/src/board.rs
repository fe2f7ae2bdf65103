//! The board's shared pieces: its [`Seed`], each cell's distance to the
//! goal for progress bars, and the line `mazerace gen` prints. The board
//! itself, its public shape and its answer are the registry's enums
//! ([`crate::games`]), one arm per game.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

use crate::games::{Answer, Board, PublicBoard};
use crate::grid::{Dir, Pos};

/// A board seed. A decimal string on the wire: JSON numbers lose precision
/// above 2^53 in browsers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Seed(pub u64);

impl fmt::Display for Seed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl FromStr for Seed {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!("a seed is a string of decimal digits, not {s:?}"));
        }
        s.parse().map(Seed).map_err(|_| format!("seed {s} is larger than 2^64 - 1"))
    }
}

impl Serialize for Seed {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Seed {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

impl Board {
    /// [`Board::public`] without the seed: what a daily room sends while
    /// the board's day is on.
    pub fn public_hidden(&self) -> PublicBoard {
        let mut board = self.public();
        board.hide_seed();
        board
    }

    /// Steps from every cell to the goal (the flag, the exit) by the
    /// shortest way with every door open, for progress bars: where a game
    /// has doors (Ghost's gate) it is a lower bound.
    pub fn goal_distances(&self) -> GoalDistances {
        let (n, goal, step) = self.walk();
        let mut dist = vec![u32::MAX; n as usize * n as usize];
        let mut queue = std::collections::VecDeque::from([goal]);
        dist[goal.index(n)] = 0;
        while let Some(p) = queue.pop_front() {
            let d = dist[p.index(n)] + 1;
            for q in Dir::ALL.into_iter().filter_map(|dir| step(p, dir)) {
                if dist[q.index(n)] == u32::MAX {
                    dist[q.index(n)] = d;
                    queue.push_back(q);
                }
            }
        }
        GoalDistances { n, dist }
    }

    /// One line of `mazerace gen`: the public board and its answer together.
    pub fn gen_line(&self) -> GenLine {
        GenLine { board: self.public(), answer: self.answer() }
    }
}

/// Each cell's distance to the goal ([`Board::goal_distances`]).
#[derive(Clone, Debug)]
pub struct GoalDistances {
    n: u8,
    dist: Vec<u32>,
}

impl GoalDistances {
    /// Steps from `p` to the goal; 0 off the board or where the goal
    /// cannot be reached from (a wall: no racer ever stands there).
    pub fn at(&self, p: Pos) -> u32 {
        if p.row >= self.n || p.col >= self.n {
            return 0;
        }
        match self.dist[p.index(self.n)] {
            u32::MAX => 0,
            d => d,
        }
    }
}

/// What `mazerace gen` prints per board.
#[derive(Clone, Debug, Serialize)]
pub struct GenLine {
    /// The board as racers see it.
    #[serde(flatten)]
    pub board: PublicBoard,
    /// Its answer.
    #[serde(flatten)]
    pub answer: Answer,
}
