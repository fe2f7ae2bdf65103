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
//! - [`daily`]: the daily challenge, all of it (its seam, the store-backed
//!   hook on `mazerace-store`, leagues, replays, secrets, verification);
//!   the socket and HTTP handlers only call into it.
//! - `ids`, `names`, `limits`: codes and tokens, name rules, token buckets.
//! - `load`: how busy the runtime is (the adaptive progress window).
//! - `accept`, `gate`: the accept loop, request-head timeouts, bounded
//!   shutdown, socket settings; every socket's place in the limits.
//! - [`metrics`]: every `/metrics` series, one function each.
//! - [`proxy`]: `--trusted-proxy` and the real client address behind a load balancer.
//! - [`net`]: LAN URLs and the start-up banner. [`cli`]: the command line.

#![forbid(unsafe_code)]

mod accept;
mod address;
mod assets;
pub mod cli;
pub mod config;
mod conn;
pub mod daily;
pub mod fdlimit;
mod flags;
mod gate;
pub mod gen;
mod http;
mod ids;
mod limits;
mod load;
mod logs;
pub mod metrics;
mod names;
pub mod net;
mod outbox;
pub mod proxy;
mod registry;
mod room;
pub mod server;
mod sessions;

pub use accept::set_backlog;
pub use config::{Config, LogFormat, MAX_PLAYERS_CAP};
pub use daily::{
    BoardQuery, DailyBoard, DailyError, DailyHook, DailyOutcome, DailyRun, DailySchedule, DailyStart,
    HookFuture, LeagueAsker, LeagueOp, Replay, StoreHook,
};
pub use flags::ServeArgs;
pub use ids::is_code_shaped;
pub use server::Server;
