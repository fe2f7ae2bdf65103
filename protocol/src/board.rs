//! A built board of either game, its public wire shape (what `race_start`
//! carries) and its answer (what `mazerace gen` adds and the results reveal).

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use crate::action::Action;
use crate::ghost::{self, Vault, VaultError};
use crate::grid::{Dir, Game, Pos, Size};
use crate::maze::{self, Maze, MazeError};

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

/// Why a board could not be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BoardError {
    /// The vault builder failed.
    #[error(transparent)]
    Vault(#[from] VaultError),
    /// The maze builder failed.
    #[error(transparent)]
    Maze(#[from] MazeError),
}

/// A built board, cheap to clone and share between a room's racers.
#[derive(Clone, Debug)]
pub enum Board {
    /// A Ghost vault.
    Ghost(Arc<Vault>),
    /// A Maze Escape maze.
    Maze(Arc<Maze>),
}

impl Board {
    /// The board for `(size, seed)`; the game follows from the size.
    pub fn build(size: Size, seed: u64) -> Result<Board, BoardError> {
        Ok(match size.game() {
            Game::Ghost => Board::Ghost(Arc::new(ghost::build(size, seed)?)),
            Game::Maze => Board::Maze(Arc::new(maze::build(size, seed)?)),
        })
    }

    /// Which game the board is for.
    pub fn game(&self) -> Game {
        match self {
            Board::Ghost(_) => Game::Ghost,
            Board::Maze(_) => Game::Maze,
        }
    }

    /// The board's size.
    pub fn size(&self) -> Size {
        match self {
            Board::Ghost(v) => v.size,
            Board::Maze(m) => m.size,
        }
    }

    /// The seed it was built from.
    pub fn seed(&self) -> u64 {
        match self {
            Board::Ghost(v) => v.seed,
            Board::Maze(m) => m.seed,
        }
    }

    /// The best possible score: `true_par` (Ghost) or `shortest` (maze).
    pub fn best(&self) -> Option<u32> {
        match self {
            Board::Ghost(v) => v.true_par,
            Board::Maze(m) => Some(m.shortest),
        }
    }

    /// What every racer may see before and during the race.
    pub fn public(&self) -> PublicBoard {
        match self {
            Board::Ghost(v) => PublicBoard::Ghost(PublicVault {
                size: v.size,
                seed: Some(Seed(v.seed)),
                n: v.cells.n,
                cells: v.cells.rows(),
                start: v.start,
                flag: v.flag,
                plate: v.plate,
                gate: v.gate,
                par: v.par,
                allowance: v.allowance,
                fallback: v.fallback,
                attempts: v.attempts,
            }),
            Board::Maze(m) => PublicBoard::Maze(PublicMaze {
                size: m.size,
                seed: Some(Seed(m.seed)),
                n: m.n,
                passages: m.passage_rows(),
                start: m.start,
                exit: m.exit,
            }),
        }
    }

    /// [`Board::public`] without the seed: what a daily room sends while
    /// the board's day is on.
    pub fn public_hidden(&self) -> PublicBoard {
        let mut board = self.public();
        match &mut board {
            PublicBoard::Ghost(v) => v.seed = None,
            PublicBoard::Maze(m) => m.seed = None,
        }
        board
    }

    /// What is revealed only after the race.
    pub fn answer(&self) -> Answer {
        match self {
            Board::Ghost(v) => Answer::Ghost { l: v.l, true_par: v.true_par, solution: v.solution.clone() },
            Board::Maze(m) => Answer::Maze {
                shortest: m.shortest,
                solution: m.solution.iter().copied().map(Action::Move).collect(),
            },
        }
    }

    /// Steps from every cell to the goal (the flag, the exit) by the
    /// shortest way, for progress bars. For Ghost the gate counts as open,
    /// so it is a lower bound there: the exact remaining count depends on
    /// the ghost and would need the solver per move.
    pub fn goal_distances(&self) -> GoalDistances {
        let (n, goal) = match self {
            Board::Ghost(v) => (v.cells.n, v.flag),
            Board::Maze(m) => (m.n, m.exit),
        };
        let step = |p: Pos, d: Dir| match self {
            Board::Ghost(v) => v.cells.neighbour(p, d),
            Board::Maze(m) => m.through(p, d),
        };
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

/// The board's public wire shape, tagged by `game`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "game", rename_all = "lowercase")]
pub enum PublicBoard {
    /// A vault as racers see it.
    Ghost(PublicVault),
    /// A maze as racers see it.
    Maze(PublicMaze),
}

/// A vault without its answer: what racers see before and during the race.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PublicVault {
    /// The vault's size.
    pub size: Size,
    /// The seed it was built from; absent on a daily board until its day
    /// is over (the seed would let anyone practise it in a private room).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<Seed>,
    /// Cells per side.
    pub n: u8,
    /// `n` rows of `#` (wall) and `.` (open).
    pub cells: Vec<String>,
    /// Where the player starts (and the ghost in run two).
    pub start: Pos,
    /// The goal.
    pub flag: Pos,
    /// The plate: standing on it opens the gate.
    pub plate: Pos,
    /// The gate, shut unless someone stands on the plate.
    pub gate: Pos,
    /// The builder's par, which set the allowance.
    pub par: u32,
    /// Steps a player may use, both runs together.
    pub allowance: u32,
    /// Whether every attempt was dropped and this is the fallback vault (which
    /// may be unsolvable).
    pub fallback: bool,
    /// Which attempt produced the vault (1-based; the limit for a fallback).
    pub attempts: u32,
}

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

/// The board's answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Answer {
    /// A vault's answer.
    Ghost {
        /// Start to plate with the gate shut; absent on a fallback without a path.
        l: Option<u32>,
        /// The fewest steps that win; `null` when nothing wins.
        true_par: Option<u32>,
        /// One line that wins in `true_par` steps (empty when none does).
        solution: Vec<Action>,
    },
    /// A maze's answer.
    Maze {
        /// The length of the shortest route.
        shortest: u32,
        /// One shortest route.
        solution: Vec<Action>,
    },
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
