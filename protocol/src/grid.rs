//! Positions and directions: the small vocabulary every game and every
//! other module speaks. (The names of games and sizes are the registry's:
//! [`crate::games`].)

use serde::{Deserialize, Serialize};

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
