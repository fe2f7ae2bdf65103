//! The vault's wall grid, the breadth-first distance every builder step uses,
//! and a vault's [`Layout`] (the walls and where everything stands), which
//! the builder and the exact solve both read.
//!
//! Vaults are at most 8 by 8, so the open cells fit in one `u64` (bit
//! `row * n + col`) and a flood fill advances a whole frontier with a few
//! shifts and masks. The builder runs hundreds of these per vault (one per
//! gate candidate), which is what keeps the largest vault well under a
//! millisecond.

use crate::grid::{Dir, Pos};

/// An `n` by `n` grid of walls, row-major.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cells {
    /// Cells per side.
    pub n: u8,
    walls: Vec<bool>,
    /// Open cells as bits.
    open: u64,
    /// Cells not in the first column (may step left) and not in the last (may step right).
    not_first_col: u64,
    not_last_col: u64,
    board: u64,
}

impl Cells {
    /// A grid from its walls, row-major (`n * n` of them; `n` at most 8).
    pub fn new(n: u8, walls: Vec<bool>) -> Self {
        assert!(n <= 8, "a vault is at most 8 by 8");
        assert_eq!(walls.len(), n as usize * n as usize, "wall grid must be n*n");
        let cells = n as usize * n as usize;
        let board = if cells == 64 { u64::MAX } else { (1u64 << cells) - 1 };
        let bits =
            |keep: &dyn Fn(usize) -> bool| (0..cells).filter(|&i| keep(i)).fold(0u64, |m, i| m | 1 << i);
        let open = bits(&|i| !walls[i]);
        let not_first_col = bits(&|i| i % n as usize != 0);
        let not_last_col = bits(&|i| i % n as usize != n as usize - 1);
        Cells { n, walls, open, not_first_col, not_last_col, board }
    }

    /// Parse rows of `#` (wall) and `.` (open), the wire's `cells`.
    pub fn parse(rows: &[&str]) -> Self {
        let n = rows.len() as u8;
        let walls = rows.iter().flat_map(|r| r.bytes().map(|b| b == b'#')).collect();
        Cells::new(n, walls)
    }

    /// Whether `p` is a wall.
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

    /// Every cell one step from a cell of `set` (walls not yet removed).
    fn spread(&self, set: u64) -> u64 {
        let n = self.n as u32;
        ((set & self.not_last_col) << 1)
            | ((set & self.not_first_col) >> 1)
            | ((set << n) & self.board)
            | (set >> n)
    }

    /// BFS distance from `from` to `to` over open cells, with `blocked` (if
    /// any) treated as one more wall. `None` when unreachable.
    pub fn distance(&self, from: Pos, to: Pos, blocked: Option<Pos>) -> Option<u32> {
        let bit = |p: Pos| 1u64 << p.index(self.n);
        let passable = self.open & !blocked.map_or(0, bit);
        let target = bit(to);
        let mut seen = bit(from);
        let mut frontier = seen;
        let mut d = 0;
        while frontier != 0 {
            if frontier & target != 0 {
                return Some(d);
            }
            frontier = self.spread(frontier) & passable & !seen;
            seen |= frontier;
            d += 1;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bitset fill against a plain queue-based BFS on random grids.
    #[test]
    fn bitset_distance_matches_a_plain_bfs() {
        let mut rng = crate::rng::BoardRng::new(11);
        for n in 3..=8u8 {
            for _ in 0..200 {
                let walls: Vec<bool> = (0..n as usize * n as usize).map(|_| rng.unit() < 0.3).collect();
                let cells = Cells::new(n, walls);
                let open = cells.open_cells();
                if open.len() < 3 {
                    continue;
                }
                let (a, b, c) = (open[0], open[open.len() - 1], open[open.len() / 2]);
                assert_eq!(cells.distance(a, b, Some(c)), plain_bfs(&cells, a, b, Some(c)));
                assert_eq!(cells.distance(a, b, None), plain_bfs(&cells, a, b, None));
            }
        }
    }

    fn plain_bfs(cells: &Cells, from: Pos, to: Pos, blocked: Option<Pos>) -> Option<u32> {
        let mut dist = std::collections::HashMap::from([(from, 0u32)]);
        let mut queue = std::collections::VecDeque::from([from]);
        while let Some(p) = queue.pop_front() {
            if p == to {
                return dist.get(&p).copied();
            }
            for d in Dir::ALL {
                if let Some(q) = cells.neighbour(p, d) {
                    if Some(q) != blocked && !dist.contains_key(&q) {
                        dist.insert(q, dist[&p] + 1);
                        queue.push_back(q);
                    }
                }
            }
        }
        None
    }
}

/// The fixed parts of a vault: where everything is.
#[derive(Clone, Debug)]
pub struct Layout {
    /// The walls.
    pub cells: Cells,
    /// Where the player starts.
    pub start: Pos,
    /// The goal.
    pub flag: Pos,
    /// The plate.
    pub plate: Pos,
    /// The gate.
    pub gate: Pos,
}

impl Layout {
    /// The seed's worked example (RULES.md): 6x6, column 4 walled except at
    /// row 3 (the gate), start (1,1), flag (1,6), plate (6,1), all 1-based.
    /// `L = 5`, `par = 14`, `allowance = 20`, true best 16.
    pub fn worked_example() -> Layout {
        Layout {
            cells: Cells::parse(&["...#..", "...#..", "......", "...#..", "...#..", "...#.."]),
            start: Pos::new(0, 0),
            flag: Pos::new(0, 5),
            plate: Pos::new(5, 0),
            gate: Pos::new(2, 3),
        }
    }
}
