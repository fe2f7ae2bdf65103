//! The mazerace race server: friends in one room race on the same board and
//! the server is the only judge. One port serves the web client, `/healthz`,
//! the lobby helpers and the WebSocket at `/ws`.
//!
//! Read it top-down:
//! - [`config`]: every setting ([`Config`]) and the `serve` flags.
//! - [`server`]: [`Server`]: run a bound listener, shut down gracefully.
//! - `http`: routes, static files (`assets`), socket settings for `/ws`.
//! - `conn`: one connection: limits, `hello`, sessions, routing to rooms.
//! - `outbox`: a connection's bounded outbox, progress slot and writer task
//!   (the slow-client policy lives there).
//! - `sessions`: tokens, resume windows. `registry`: code to room.
//! - `room`: a room as an actor: lobby, countdown, race, results, rematch.
//! - [`daily`]: the seam where the daily store plugs in; [`daily_store`]:
//!   the real one, on `mazerace-store` (SQLite, or PostgreSQL with `--database-url`).
//! - `ids`, `names`, `limits`: codes and tokens, name rules, token buckets.
//! - `load`: how busy the runtime is (the adaptive progress window).
//! - `accept`, `gate`: the accept loop, request-head timeouts, bounded
//!   shutdown, socket settings; every socket's place in the limits.
//! - [`metrics`]: every `/metrics` series, one function each.
//! - [`proxy`]: `--trusted-proxy` and the real client address behind a load balancer.
//! - [`net`]: LAN URLs and the start-up banner. [`cli`]: the command line.

#![forbid(unsafe_code)]

mod assets;
pub mod cli;
pub mod config;
mod conn;
pub mod daily;
mod daily_leagues;
pub mod daily_store;
mod edge;
pub mod gen;
mod http;
mod ids;
mod load;
mod logs;
pub mod metrics;
mod names;
mod outbox;
mod registry;
mod room;
pub mod server;
mod sessions;
mod verify_daily;

pub use edge::accept::set_backlog;
pub use edge::{fdlimit, net, proxy};
// `http/leagues.rs` names the limiter at the crate root (it is being moved
// on another branch; its imports are left as they were).
pub use config::{Config, LogFormat, MAX_PLAYERS_CAP};
pub use daily::{
    daily_error_kind, BoardQuery, DailyBoard, DailyError, DailyErrorKind, DailyHook, DailyOutcome, DailyRun,
    DailySchedule, DailyStart, HookFuture, Replay,
};
pub use daily_store::StoreHook;
use edge::limits;
pub use ids::is_code_shaped;
pub use server::Server;
