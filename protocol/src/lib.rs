//! The mazerace protocol crate: everything the server, the tests and any Rust
//! client must agree on, with no I/O in it.
//!
//! Read it top-down next to the repository's `RULES.md` (the rules, exactly):
//! - [`rng`]: our own frozen sampling on top of ChaCha8 (the only randomness).
//! - [`grid`]: positions and directions.
//! - [`action`]: a move's vocabulary: [`Action`], [`Status`], [`Reject`].
//! - [`games`]: the registry of games, the one place that names them, and
//!   each game's own folder behind [`games::seam`] ([`games::ghost`]: the vault
//!   builder, the play engine and the exact `true_par` search; [`games::maze`]: the
//!   maze builder, its shortest route and the play engine).
//! - [`play`]: what `move_result` reports of a racer's game; efficiency.
//! - [`race`]: the rules of a race: when clocks start, ranking, the reveal.
//! - [`board`]: the seed, distances to the goal, `mazerace gen`'s line.
//! - [`daily`]: the daily seed derivation, [`daily::DailyDate`], commit-reveal
//!   and a player's day.
//! - [`league`]: leagues' wire shapes (tables, standings).
//! - [`matches`](mod@matches): a match of several rounds: each round's board, the points, the table.
//! - [`messages`]: every WebSocket message, client to server and back.
//! - [`close`]: the WebSocket close codes the server sends.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod action;
pub mod board;
pub mod close;
pub mod daily;
pub mod games;
pub mod grid;
pub mod league;
pub mod matches;
pub mod messages;
pub mod play;
pub mod race;
pub mod rng;

pub use action::{Action, Reject, Status};
pub use board::{GoalDistances, Seed};
pub use games::{Answer, Board, BoardError, Game, PlayerGame, PublicBoard, Reveal, Size};
pub use grid::{Dir, Pos};
