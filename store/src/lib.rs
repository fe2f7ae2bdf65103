//! Durable storage for the daily challenge (issue 5): who started which daily
//! board, every run's result and full move list, leaderboards, streaks, the
//! salt behind the daily seeds, and a verifier that re-plays it all.
//!
//! How the server uses it:
//! - at startup, [`Store::connect`]`(`[`Database`]`, `[`NodeOptions`]`)` (or
//!   [`Store::open`]`(data_dir)` for SQLite), then `abandon_open_runs()`, a
//!   first `heartbeat()` (then one every lease / 4), and `daily_salt()`
//!   (unless a salt is configured); [`DailyBoards`] gives the
//!   day's seeds, [`SystemClock`]/[`utc_date`]/[`ms_until_next_utc_day`] the day;
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
//! let store = Store::open_in_memory()?; // the server: Store::open(data_dir).await?
//! let salt = store.daily_salt().await?;
//! let today = SystemClock.today();
//! let seed = DailyBoards::new(&salt, &today)?.seed(Game::Maze, Size::Easy).ok_or("not a maze size")?;
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
//! Modules:
//! - [`backend`] holds the [`Backend`] trait and its record types;
//! - [`sqlite`], the SQLite backend and its migrations;
//! - [`postgres`](mod@postgres), the PostgreSQL backend (several nodes, one database);
//! - [`node`], node and boot ids, leases and heartbeats;
//! - [`store`], the async [`Store`] handle (a thread behind a bounded queue);
//! - [`player`], [`PlayerKey`]: the hashed reconnect token;
//! - [`clock`], UTC days, the rollover and a fixable clock;
//! - [`daily`], [`DailyBoards`]: the day's seeds;
//! - [`share`], the spoiler-free share text;
//! - [`verify`](mod@verify), re-playing stored runs through the engine;
//! - [`error`], the crate's one error type, [`StoreError`].

#![forbid(unsafe_code)]

pub mod backend;
pub mod clock;
pub mod daily;
pub mod error;
pub mod node;
pub mod player;
pub mod postgres;
pub mod share;
mod sql;
pub mod sqlite;
pub mod store;
pub mod verify;

pub use backend::{
    Backend, BeginRun, DayBoard, FinishedRun, NewRun, Outcome, PlayedBoard, PlayerDay, RankedRow,
    RankedStart, RunState, StoredRun, LEADERBOARD_LIMIT,
};
pub use clock::{ms_until_next_utc_day, utc_date, Clock, FixedClock, SystemClock};
pub use daily::DailyBoards;
pub use error::{ErrorKind, StoreError};
pub use node::{NodeOptions, ANONYMOUS_NODE, DEFAULT_LEASE};
pub use player::PlayerKey;
pub use postgres::PostgresBackend;
pub use share::share_text;
pub use sqlite::SqliteBackend;
pub use store::{Database, Store, DEFAULT_QUEUE, POSTGRES_CONNECTIONS};
pub use verify::{verify, VerifyReport};
