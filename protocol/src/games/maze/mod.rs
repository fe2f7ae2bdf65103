//! Maze Escape: [`build`](mod@build) carves a perfect maze from a seed and finds its
//! shortest route; [`play`] is the play engine; [`rules`] puts the game
//! behind the seam.

pub mod build;
pub mod play;
pub mod rules;

pub use build::{build, Maze, MazeError};
pub use play::MazePlay;
pub use rules::{MazeAnswer, MazeReveal, PublicMaze};
