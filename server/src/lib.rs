//! The mazerace race server: friends in one room race on the same board and
//! the server is the only judge. One port serves the web client, `/healthz`,
//! the lobby helpers and the WebSocket at `/ws`.
//!
//! Read it top-down:
//! - [`config`]: every setting ([`Config`]), which is also the `serve`
//!   command line (each flag and its default written once, on its field).
//! - [`server`]: [`Server`]: run a bound listener, drain, shut down gracefully.
//! - `drain`: the drain's flag and the count of rooms still playing.
//! - `edge`: the network edge: the accept loop, the socket gate (limits,
//!   reserve, per-address caps), per-address accounting, trusted proxies and
//!   the one client address every route uses, request heads refused with
//!   400, the violation penalty, token buckets, LAN addresses, the
//!   open-file limit.
//! - `http`: routes, static files (`assets`), the upgrade to `/ws`.
//! - `conn`: one connection as transport: one task that alone reads and
//!   writes its socket, keeps its deadlines and hands every frame to ...
//! - `lobby`: ... the connection's lobby service, a value with no socket:
//!   the flood gate, `hello` and resuming, making and joining rooms,
//!   leaderboards and leagues, the room commands routed to the room.
//! - `outbox`: a connection's bounded outbox and progress slot, filled by
//!   anyone, drained by the connection's task (the slow-client policy lives
//!   there).
//! - `sessions`: tokens, resume windows. `registry`: code to room.
//! - `room`: a room as an actor: lobby, countdown, race, results, rematch.
//! - [`daily`]: the daily challenge, all of it (its seam, the store-backed
//!   hook on `mazerace-store`, leagues, replays, secrets, verification);
//!   the socket and HTTP handlers only call into it.
//! - `ids`, `names`: codes and tokens, name rules.
//! - `load`: how busy the runtime is (the adaptive progress window).
//! - [`metrics`]: every `/metrics` series, one function each.
//! - [`cli`]: the command line. The WebSocket close codes are wire
//!   constants: `mazerace_protocol::close`.

#![forbid(unsafe_code)]

mod assets;
pub mod cli;
pub mod config;
mod conn;
pub mod daily;
mod drain;
mod edge;
pub mod gen;
mod http;
mod ids;
mod load;
mod lobby;
mod logs;
pub mod metrics;
mod moves;
mod names;
mod outbox;
mod registry;
mod room;
pub mod server;
mod sessions;

pub use config::{Config, LogFormat, MAX_PLAYERS_CAP};
pub use daily::{
    BoardQuery, DailyBoard, DailyError, DailyHook, DailyOutcome, DailyRun, DailySchedule, DailyStart,
    HookFuture, LeagueAsker, LeagueOp, Replay, StoreHook,
};
pub use edge::accept::set_backlog;
pub use edge::{fdlimit, net, proxy};
pub use ids::is_code_shaped;
pub use server::Server;
