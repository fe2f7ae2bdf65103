//! Durable storage for the daily challenge (issue 5): who started which daily
//! board, every run's result and full move list, leaderboards, streaks, the
//! salt behind the daily seeds, and a verifier that re-plays it all.
//!
//! How the server uses it:
//! - at startup, [`Store::open`]`(data_dir)` then `abandon_open_runs()` and
//!   `daily_salt()` (unless a salt is configured); [`DailyBoards`] gives the
//!   day's seeds, [`SystemClock`]/[`utc_date`]/[`ms_until_next_utc_day`] the day;
//! - a daily room: `begin_run` when the race starts (the answer says ranked
//!   or practice), `finish_run` when it ends, then
//!   [`FinishedRun::to_daily_result`] for the `daily_result` message, sent
//!   only after `finish_run` returned (the commit is done by then);
//! - `leaderboard`, `run` (replay) and `verify` for the HTTP API and commands.
//!
//! Modules:
//! - [`backend`] holds the [`Backend`] trait and its record types;
//! - [`sqlite`], the SQLite backend and its migrations;
//! - [`store`], the async [`Store`] handle (a thread behind a bounded queue);
//! - [`player`], [`PlayerKey`]: the hashed reconnect token;
//! - [`clock`], UTC days, the rollover and a fixable clock;
//! - [`daily`], [`DailyBoards`]: the day's seeds;
//! - [`share`], the spoiler-free share text;
//! - [`verify`](mod@verify), re-playing stored runs through the engine;
//! - [`error`], the crate's one error type, [`StoreError`].

pub mod backend;
pub mod clock;
pub mod daily;
pub mod error;
pub mod player;
pub mod share;
pub mod sqlite;
pub mod store;
pub mod verify;

pub use backend::{Backend, BeginRun, FinishedRun, NewRun, Outcome, RunState, StoredRun, LEADERBOARD_LIMIT};
pub use clock::{ms_until_next_utc_day, utc_date, Clock, FixedClock, SystemClock};
pub use daily::DailyBoards;
pub use error::StoreError;
pub use player::PlayerKey;
pub use share::share_text;
pub use sqlite::SqliteBackend;
pub use store::Store;
pub use verify::{verify, VerifyReport};
