//! The mazerace protocol crate: everything the server, the tests and any Rust
//! client must agree on, with no I/O in it.
//!
//! Read it top-down next to the repository's `RULES.md` (the rules, exactly):
//! - [`rng`]: our own frozen sampling on top of ChaCha8 (the only randomness).
//! - [`grid`]: positions, directions, game and size names.
//! - [`ghost`]: the vault builder, the play engine and the exact `true_par` search.
//! - [`maze`]: the maze builder, its shortest route and the play engine.
//! - [`action`]: a move's vocabulary: [`Action`], [`Status`], [`Reject`].
//! - [`play`]: one interface over both games, used by the server per player.
//! - [`race`]: the rules of a race: when clocks start, ranking, the reveal.
//! - [`board`]: the board's wire shape (what `mazerace gen` prints).
//! - [`daily`]: the daily seed derivation, [`daily::DailyDate`], commit-reveal
//!   and a player's day.
//! - [`league`]: leagues' wire shapes (tables, standings).
//! - [`matches`]: a match of several rounds: each round's board, the points, the table.
//! - [`messages`]: every WebSocket message, client to server and back.
//! - [`close`]: the WebSocket close codes the server sends.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod action;
pub mod board;
pub mod close;
pub mod daily;
pub mod ghost;
pub mod grid;
pub mod league;
pub mod matches;
pub mod maze;
pub mod messages;
pub mod play;
pub mod race;
pub mod rng;

pub use action::{Action, Reject, Status};
pub use board::{Answer, Board, BoardError, GoalDistances, PublicBoard, Seed};
pub use grid::{Dir, Game, Pos, Size};
pub use play::PlayerGame;
