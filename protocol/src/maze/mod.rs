//! Maze Escape: [`build`] carves a perfect maze from a seed and finds its
//! shortest route; [`play`] is the play engine.

pub mod build;
pub mod play;

pub use build::{build, Maze, MazeError};
pub use play::MazePlay;
