//! The vault's wall grid and the breadth-first distance every builder step uses.

use crate::grid::{Dir, Pos};

/// An `n` by `n` grid of walls, row-major.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cells {
    pub n: u8,
    walls: Vec<bool>,
}

impl Cells {
    pub fn new(n: u8, walls: Vec<bool>) -> Self {
        assert_eq!(walls.len(), n as usize * n as usize, "wall grid must be n*n");
        Cells { n, walls }
    }

    /// Parse rows of `#` (wall) and `.` (open), the wire's `cells`.
    pub fn parse(rows: &[&str]) -> Self {
        let n = rows.len() as u8;
        let walls = rows.iter().flat_map(|r| r.bytes().map(|b| b == b'#')).collect();
        Cells::new(n, walls)
    }

    pub fn is_wall(&self, p: Pos) -> bool {
        self.walls[p.index(self.n)]
    }

    /// Open cells in row-major order.
    pub fn open_cells(&self) -> Vec<Pos> {
        (0..self.walls.len()).filter(|&i| !self.walls[i]).map(|i| Pos::from_index(i, self.n)).collect()
    }

    /// Rows of `#` and `.`, as the wire carries them.
    pub fn rows(&self) -> Vec<String> {
        self.walls
            .chunks(self.n as usize)
            .map(|row| row.iter().map(|&w| if w { '#' } else { '.' }).collect())
            .collect()
    }

    /// The open neighbour one step in `dir`, if any.
    pub fn neighbour(&self, p: Pos, dir: Dir) -> Option<Pos> {
        p.step(dir, self.n).filter(|&q| !self.is_wall(q))
    }

    /// BFS distance from `from` to `to` over open cells, with `blocked` (if
    /// any) treated as one more wall. `None` when unreachable.
    pub fn distance(&self, from: Pos, to: Pos, blocked: Option<Pos>) -> Option<u32> {
        let n = self.n;
        let mut dist = vec![u32::MAX; n as usize * n as usize];
        let mut queue = std::collections::VecDeque::new();
        dist[from.index(n)] = 0;
        queue.push_back(from);
        while let Some(p) = queue.pop_front() {
            let d = dist[p.index(n)];
            if p == to {
                return Some(d);
            }
            for dir in Dir::ALL {
                if let Some(q) = self.neighbour(p, dir) {
                    if Some(q) != blocked && dist[q.index(n)] == u32::MAX {
                        dist[q.index(n)] = d + 1;
                        queue.push_back(q);
                    }
                }
            }
        }
        None
    }
}
