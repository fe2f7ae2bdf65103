//! The maze play engine: a move through a wall or off the board is refused
//! and not counted; a move through a passage counts one; the exit finishes.

use std::sync::Arc;

use super::build::Maze;
use crate::action::{Reject, Status};
use crate::grid::{Dir, Pos};

/// One player's game on one maze.
#[derive(Clone, Debug)]
pub struct MazePlay {
    maze: Arc<Maze>,
    pos: Pos,
    moves: u32,
    status: Status,
}

impl MazePlay {
    /// A new game at the start, no moves counted.
    pub fn new(maze: Arc<Maze>) -> Self {
        let start = maze.start;
        MazePlay { maze, pos: start, moves: 0, status: Status::Playing }
    }

    /// Where the player stands.
    pub fn pos(&self) -> Pos {
        self.pos
    }

    /// Moves counted so far (refused ones are not).
    pub fn moves(&self) -> u32 {
        self.moves
    }

    /// Playing, or won at the exit.
    pub fn status(&self) -> Status {
        self.status
    }

    /// One move in `dir`: through an open passage it counts one and may reach
    /// the exit; into a wall or off the board it is refused (`wall`) and not
    /// counted; after the exit, `game_over`.
    pub fn step(&mut self, dir: Dir) -> Result<(), Reject> {
        if self.status != Status::Playing {
            return Err(Reject::GameOver);
        }
        self.pos = self.maze.through(self.pos, dir).ok_or(Reject::Wall)?;
        self.moves += 1;
        if self.pos == self.maze.exit {
            self.status = Status::Won;
        }
        Ok(())
    }
}
