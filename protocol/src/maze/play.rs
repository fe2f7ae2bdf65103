//! The maze play engine: a move through a wall or off the board is refused
//! and not counted; a move through a passage counts one; the exit finishes.

use std::sync::Arc;

use super::build::Maze;
use crate::grid::{Dir, Pos};
use crate::play::{Reject, Status};

#[derive(Clone, Debug)]
pub struct MazePlay {
    maze: Arc<Maze>,
    pos: Pos,
    moves: u32,
    status: Status,
}

impl MazePlay {
    pub fn new(maze: Arc<Maze>) -> Self {
        let start = maze.start;
        MazePlay { maze, pos: start, moves: 0, status: Status::Playing }
    }

    pub fn pos(&self) -> Pos {
        self.pos
    }

    pub fn moves(&self) -> u32 {
        self.moves
    }

    pub fn status(&self) -> Status {
        self.status
    }

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
