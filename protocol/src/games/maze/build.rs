//! Carving a perfect maze (RULES.md "Maze Escape: building a maze"): the
//! iterative recursive backtracker from the start cell, then BFS for
//! `shortest` and one shortest route.

use std::collections::VecDeque;

use crate::games::Size;
use crate::grid::{Dir, Pos};
use crate::rng::BoardRng;

/// A carved maze. `open[i]` holds the open passages of cell `i` (row-major)
/// as bits: 1 up, 2 right, 4 down, 8 left, the wire's hex digit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Maze {
    /// The maze's size.
    pub size: Size,
    /// The seed it was carved from.
    pub seed: u64,
    /// Cells per side.
    pub n: u8,
    open: Vec<u8>,
    /// Where the player starts, `[0, 0]`.
    pub start: Pos,
    /// The exit, `[n - 1, n - 1]`.
    pub exit: Pos,
    /// BFS distance start to exit.
    pub shortest: u32,
    /// One shortest route.
    pub solution: Vec<Dir>,
}

/// Why no maze could be carved.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MazeError {
    /// The size is a Ghost size.
    #[error("{0} is not a maze size")]
    NotMazeSize(Size),
}

/// The passage bit for a direction.
pub fn bit(dir: Dir) -> u8 {
    match dir {
        Dir::Up => 1,
        Dir::Right => 2,
        Dir::Down => 4,
        Dir::Left => 8,
    }
}

/// Carve the maze for `(size, seed)`.
pub fn build(size: Size, seed: u64) -> Result<Maze, MazeError> {
    if size.game() != crate::games::Game::Maze {
        return Err(MazeError::NotMazeSize(size));
    }
    let n = size.n();
    let cells = n as usize * n as usize;
    let mut rng = BoardRng::new(seed);
    let mut open = vec![0u8; cells];
    let mut visited = vec![false; cells];
    let start = Pos::new(0, 0);
    visited[start.index(n)] = true;
    let mut stack = vec![start];
    let mut choices = Vec::with_capacity(4);
    while let Some(&top) = stack.last() {
        choices.clear();
        choices.extend(
            Dir::ALL
                .into_iter()
                .filter_map(|d| top.step(d, n).map(|q| (d, q)))
                .filter(|&(_, q)| !visited[q.index(n)]),
        );
        if choices.is_empty() {
            stack.pop();
            continue;
        }
        let (dir, next) = choices[rng.below(choices.len() as u64) as usize];
        open[top.index(n)] |= bit(dir);
        open[next.index(n)] |= bit(dir.opposite());
        visited[next.index(n)] = true;
        stack.push(next);
    }
    let exit = Pos::new(n - 1, n - 1);
    let mut maze = Maze { size, seed, n, open, start, exit, shortest: 0, solution: Vec::new() };
    maze.solution = maze.route(start, exit);
    maze.shortest = maze.solution.len() as u32;
    Ok(maze)
}

impl Maze {
    /// Whether a step in `dir` from `p` goes through an open passage.
    pub fn is_open(&self, p: Pos, dir: Dir) -> bool {
        self.open[p.index(self.n)] & bit(dir) != 0
    }

    /// The cell through the passage in `dir`, if it is open.
    pub fn through(&self, p: Pos, dir: Dir) -> Option<Pos> {
        if self.is_open(p, dir) {
            p.step(dir, self.n)
        } else {
            None
        }
    }

    /// Rows of hex digits, one per cell, as the wire carries them.
    pub fn passage_rows(&self) -> Vec<String> {
        self.open
            .chunks(self.n as usize)
            .map(|row| row.iter().map(|&b| char::from_digit(b as u32, 16).unwrap_or('0')).collect())
            .collect()
    }

    /// How many open passages there are (each counted once).
    pub fn passage_count(&self) -> usize {
        self.open.iter().map(|b| b.count_ones() as usize).sum::<usize>() / 2
    }

    /// A shortest route by BFS (in a perfect maze, the only one).
    pub fn route(&self, from: Pos, to: Pos) -> Vec<Dir> {
        let n = self.n;
        let mut came_from: Vec<Option<(Pos, Dir)>> = vec![None; self.open.len()];
        let mut seen = vec![false; self.open.len()];
        seen[from.index(n)] = true;
        let mut queue = VecDeque::from([from]);
        while let Some(p) = queue.pop_front() {
            if p == to {
                break;
            }
            for d in Dir::ALL {
                if let Some(q) = self.through(p, d) {
                    if !seen[q.index(n)] {
                        seen[q.index(n)] = true;
                        came_from[q.index(n)] = Some((p, d));
                        queue.push_back(q);
                    }
                }
            }
        }
        let mut line = Vec::new();
        let mut at = to;
        while let Some((prev, d)) = came_from[at.index(n)] {
            line.push(d);
            at = prev;
        }
        line.reverse();
        line
    }

    /// How many cells are reachable from the start.
    pub fn reachable(&self) -> usize {
        let n = self.n;
        let mut seen = vec![false; self.open.len()];
        seen[self.start.index(n)] = true;
        let mut queue = VecDeque::from([self.start]);
        let mut count = 0;
        while let Some(p) = queue.pop_front() {
            count += 1;
            for d in Dir::ALL {
                if let Some(q) = self.through(p, d) {
                    if !seen[q.index(n)] {
                        seen[q.index(n)] = true;
                        queue.push_back(q);
                    }
                }
            }
        }
        count
    }
}
