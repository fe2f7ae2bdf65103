//! Durable storage for the daily challenge (issue 5): who started which daily
//! board, every run's result and full move list, leaderboards, streaks,
//! leagues, the salt behind the daily seeds, and a verifier that re-plays it
//! all, on SQLite (the embedded default) or PostgreSQL (several nodes on one
//! database).
//!
//! How the server uses it:
//! - at startup, [`Store::connect`]`(`[`Database`]`, `[`NodeOptions`]`)` (or
//!   [`Store::open`]`(data_dir)` for SQLite), then `abandon_open_runs()`, a
//!   first `heartbeat()` (then one every lease / 4), and `daily_salt()`
//!   (unless a salt is configured); [`DailyBoards`] gives the day's seeds,
//!   [`Clock`] the day;
//! - a daily room: `begin_run` when the race starts (the answer says ranked
//!   or practice), `finish_run` when it ends, then
//!   [`FinishedRun::to_daily_result`] for the `daily_result` message, sent
//!   only after `finish_run` returned (the commit is done by then);
//! - `leaderboard`, `run` (replay) and `verify` for the HTTP API and commands.
//!
//! ```
//! use mazerace_protocol::{Board, Game, Size};
//! use mazerace_store::{Clock, DailyBoards, NewRun, Outcome, PlayerKey, Store, SystemClock};
//!
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let store = Store::open_in_memory()?; // the server: Store::connect(db, node).await?
//! let salt = store.daily_salt().await?;
//! let today = SystemClock.today();
//! let seed = DailyBoards::new(&salt, today).seed(Game::Maze, Size::Easy).ok_or("not a maze size")?;
//! let board = Board::build(Size::Easy, seed)?;
//! let player = PlayerKey::from_token("the player's reconnect token");
//! let new = NewRun { player, name: "Ann".into(), date: today, game: Game::Maze, size: Size::Easy, seed };
//! let run = store.begin_run(new).await?;
//! assert!(run.ranked); // the first start on this board today
//! // ... the race is played; the server applies and keeps every accepted action ...
//! let done = store.finish_run(run.run_id, Outcome::NotFinished { steps: 0 }, Vec::new(), None).await?;
//! let message = done.to_daily_result(board.best()); // committed: safe to send
//! assert!(message.share.contains("did not finish"));
//! store.close().await;
//! # Ok(())
//! # }
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(demo()).unwrap();
//! ```
//!
//! Modules, from the handle down:
//! - [`store`], the async [`Store`] handle and its queue; [`database`], which database;
//! - `group`, group commit: finishes waiting together share a transaction;
//! - `rules`, the one layer that holds the rules (limits, salt, caps,
//!   league checks), written once for both databases over `db`'s seam;
//! - [`sqlite`] and [`postgres`](mod@postgres), each database's connection,
//!   schema and the SQL that really differs;
//! - [`record`], the records taken and answered; [`league`], leagues' types
//!   and tables; [`node`], node ids, leases and heartbeats;
//! - [`player`], [`PlayerKey`]: the hashed reconnect token;
//! - [`clock`], where "now" comes from; [`daily`], [`DailyBoards`];
//! - [`share`], the spoiler-free share text;
//! - [`verify`](mod@verify), re-playing stored runs through the engine;
//! - [`error`], the crate's one error type, [`StoreError`].

#![forbid(unsafe_code)]

pub mod clock;
pub mod daily;
pub mod database;
mod db;
pub mod error;
mod group;
pub mod league;
pub mod node;
pub mod player;
pub mod postgres;
pub mod record;
mod rules;
pub mod share;
pub mod sqlite;
pub mod store;
pub mod verify;

pub use clock::{Clock, FixedClock, SystemClock};
pub use daily::DailyBoards;
pub use database::Database;
pub use error::{ErrorKind, StoreError};
pub use group::CommitCounts;
pub use node::{NodeOptions, ANONYMOUS_NODE, DEFAULT_LEASE};
pub use player::PlayerKey;
pub use postgres::POSTGRES_CONNECTIONS;
pub use record::{
    AddressCap, BeginRun, FinishedRun, NewRun, Outcome, RankedRow, RunState, StoredRun, LEADERBOARD_LIMIT,
};
pub use share::share_text;
pub use store::{Store, DEFAULT_QUEUE};
pub use verify::{verify, VerifyReport};
