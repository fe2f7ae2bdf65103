//! Every setting of the race server, in one place: [`Config`] is both the
//! settings the server runs with and the `mazerace serve` command line. Each
//! field's flag, its `MAZERACE_*` environment variable and its default are
//! written once, on the field; [`Config::default`] is what the command line
//! gives with no flags at all (environment ignored), so the defaults of
//! tests, embedding programs and the binary are the same values. Settings
//! with no flag are `#[arg(skip = ...)]`, their default beside them.
//!
//! Adding a setting is one change here: a field with its doc comment (the
//! first line is the `--help` text, the rest is for readers of the code),
//! and `#[arg(long, env = "MAZERACE_<NAME>", default_value = "...")]` (or
//! `skip = ...` for one with no flag). Durations are `Duration`s whose flags
//! carry their unit in the name (`--resume-secs`, `--progress-ms`), parsed
//! by [`secs`] and [`millis`]; a value the server cannot run with is
//! clamped in [`Config::clamped`]. The full configuration table in
//! docs/CONFIGURATION.md (and the README's short one) is checked against
//! these flags by `server/tests/readme_config.rs`: add the flag's row to
//! docs/CONFIGURATION.md too.

mod parse;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use parse::{millis, node_lease_default, optional_addr, parse_node_id, parse_public_url, secs};
pub use parse::{LogFormat, DATA_DIR};

use crate::edge::proxy::TrustedProxies;

/// The hard ceiling on racers per room, whatever the flags or a
/// `create_room` ask for: a room's broadcasts cost O(members) each.
pub const MAX_PLAYERS_CAP: u32 = 64;

/// Bytes of frames tungstenite gathers before writing them (the connection
/// flushes once per batch besides). Small because tungstenite's out buffer
/// keeps the largest size it ever reached, per player: 4096 measured 2.2 KiB
/// more per idle player than 512, from the burst of `room` messages while a
/// room fills.
pub const WRITE_BUFFER_BYTES: usize = 512;

/// The bytes tungstenite may hold for one socket before a write fails
/// ([`Config::write_buffer_max`]'s value).
pub const WRITE_BUFFER_MAX: usize = 64 * 1024;

/// The largest message the server may send on a socket whose write limit
/// is `write_buffer_max`: tungstenite refuses a frame that does not fit
/// beside what waits in its buffer (at most [`WRITE_BUFFER_BYTES`] when a
/// frame is handed over: it writes out past that, and a blocked write is
/// flushed whole before the next frame) with the frame's header (at most
/// 10 bytes from server to client). Every message the server builds stays
/// under it: `server/src/room/size_tests.rs` measures the largest room's.
pub const fn max_frame_bytes(write_buffer_max: usize) -> usize {
    write_buffer_max.saturating_sub(WRITE_BUFFER_BYTES + 16)
}

/// The server's settings and the `serve` flags (see the module header).
#[derive(clap::Args, Clone, Debug)]
pub struct Config {
    /// Address and port to listen on.
    #[arg(long, env = "MAZERACE_BIND", default_value = "0.0.0.0:7878")]
    pub bind: SocketAddr,
    /// Data directory (the daily challenge's database lives here).
    #[arg(long, env = "MAZERACE_DATA_DIR", default_value = DATA_DIR)]
    pub data_dir: PathBuf,
    /// Secret salt for the daily seeds (made once and stored when absent).
    #[arg(long, env = "MAZERACE_DAILY_SALT", hide_env_values = true)]
    pub daily_salt: Option<String>,
    /// PostgreSQL URL (postgres://user:password@host/db) for everything durable; absent: SQLite in --data-dir.
    ///
    /// Several nodes share it. The URL may hold a password: never logged.
    #[arg(long, env = "MAZERACE_DATABASE_URL", hide_env_values = true)]
    pub database_url: Option<String>,
    /// This node's id when several share one database: one character of the room-code alphabet (A-Z without I, L, O; 2-9), starting every room code it makes.
    #[arg(long, env = "MAZERACE_NODE_ID", value_parser = parse_node_id)]
    pub node_id: Option<char>,
    /// Comma-separated addresses or CIDRs of the load balancers whose X-Forwarded-For / X-Real-IP are believed; absent: none.
    ///
    /// See `edge/proxy.rs`.
    #[arg(
        long = "trusted-proxy",
        env = "MAZERACE_TRUSTED_PROXY",
        default_value = "",
        hide_default_value = true
    )]
    pub trusted_proxies: TrustedProxies,
    /// Seconds after its last heartbeat (one every quarter of this) a node counts as dead and others close its open daily runs.
    #[arg(long = "node-lease-secs", env = "MAZERACE_NODE_LEASE_SECS", default_value = node_lease_default(), value_parser = secs)]
    pub node_lease: Duration,
    /// Seconds a dropped player may take to reconnect and resume.
    #[arg(long = "resume-secs", env = "MAZERACE_RESUME_SECS", default_value = "60", value_parser = secs)]
    pub resume_window: Duration,
    /// Seconds a new connection has to send `hello` (then closed with 4000).
    #[arg(long = "hello-timeout-secs", env = "MAZERACE_HELLO_TIMEOUT_SECS", default_value = "10", value_parser = secs)]
    pub hello_timeout: Duration,
    /// Seconds of silence (no frame, not even a pong) after which a connection is closed (4001).
    #[arg(long = "idle-timeout-secs", env = "MAZERACE_IDLE_TIMEOUT_SECS", default_value = "30", value_parser = secs)]
    pub idle_timeout: Duration,
    /// Seconds of silence after which a connection is pinged.
    ///
    /// One `ping_interval` after its last frame or our last ping: one that
    /// keeps sending is never pinged.
    #[arg(long = "ping-secs", env = "MAZERACE_PING_SECS", default_value = "10", value_parser = secs)]
    pub ping_interval: Duration,
    /// Racers per room (capped at 64).
    ///
    /// Unless `create_room` asks for fewer (at most [`MAX_PLAYERS_CAP`]).
    #[arg(long, env = "MAZERACE_MAX_PLAYERS", default_value = "16")]
    pub max_players: u32,
    /// Spectators per room.
    #[arg(long, env = "MAZERACE_MAX_SPECTATORS", default_value = "32")]
    pub max_spectators: u32,
    /// Screens per room (a TV or projector showing it), outside the racers and the spectators.
    #[arg(long, env = "MAZERACE_MAX_SCREENS", default_value = "4")]
    pub max_screens: u32,
    /// Seconds a room holding only screens stays open (a party room nobody joined, or whose players all left).
    #[arg(long = "screen-alone-secs", env = "MAZERACE_SCREEN_ALONE_SECS", default_value = "3600", value_parser = secs)]
    pub screens_alone: Duration,
    /// A race's time limit in seconds (then everyone left is `timed_out`).
    #[arg(long = "race-limit-secs", env = "MAZERACE_RACE_LIMIT_SECS", default_value = "600", value_parser = secs)]
    pub race_time_limit: Duration,
    /// Countdown length in seconds.
    #[arg(long, env = "MAZERACE_COUNTDOWN_SECS", default_value = "3")]
    pub countdown_secs: u32,
    /// Time between two countdown numbers (one second in production).
    #[arg(skip = Duration::from_secs(1))]
    pub countdown_step: Duration,
    /// Seconds between two rounds of a match (0: none; the host may start the next at once).
    ///
    /// Counted in countdown steps (seconds in production) on the server's clock.
    #[arg(long, env = "MAZERACE_INTERMISSION_SECS", default_value = "10")]
    pub intermission_secs: u32,
    /// Milliseconds between two `progress` messages to a room when the server is quiet (the coalescing window's floor).
    #[arg(long = "progress-ms", env = "MAZERACE_PROGRESS_MS", default_value = "50", value_parser = millis)]
    pub progress_interval: Duration,
    /// The coalescing window's ceiling, reached as the server gets busy; at or under --progress-ms the window stays fixed.
    ///
    /// Under the 250 ms an opponent's marker may lag, with room for the
    /// delivery itself (`room/progress.rs`).
    #[arg(long = "progress-max-ms", env = "MAZERACE_PROGRESS_MAX_MS", default_value = "200", value_parser = millis)]
    pub progress_max: Duration,
    /// At most one `room` message per room per this (`room/updates.rs`): the
    /// first change after a quiet spell at once, the rest coalesced.
    ///
    /// Four a second: a lobby filling up, ready flags and renames show
    /// within a quarter of a second, and a join/leave loop costs each member
    /// at most four frames a second.
    #[arg(skip = Duration::from_millis(250))]
    pub room_interval: Duration,
    /// Open WebSocket connections at once.
    ///
    /// The next one gets `server_full`; also the open sockets of any kind
    /// before the reserve is used (`edge/gate.rs`).
    #[arg(long, env = "MAZERACE_MAX_CONNECTIONS", default_value = "50000")]
    pub max_connections: usize,
    /// Frames queued per client before it is closed as too slow (4002).
    #[arg(long, env = "MAZERACE_OUTBOX", default_value = "256")]
    pub outbox_capacity: usize,
    /// Bytes of each socket's read buffer (paid per connected player; a larger message still arrives whole).
    ///
    /// Client messages are small (a move is ~45 bytes, a `hello` with a
    /// token ~110); a larger one (up to `max_message_bytes`) still arrives
    /// whole, since tungstenite reserves a frame's full length from its
    /// header. Per idle player (19,936 of them, one task per socket): 1 KiB
    /// measured 6.8 KiB of server memory, 512 bytes 6.3 KiB, 256 bytes 6.2;
    /// 512 still takes ten moves in one read.
    #[arg(long, env = "MAZERACE_READ_BUFFER_BYTES", default_value = "512")]
    pub read_buffer_bytes: usize,
    /// Bytes tungstenite may hold for one socket before writes fail.
    #[arg(skip = WRITE_BUFFER_MAX)]
    pub write_buffer_max: usize,
    /// Largest accepted client message (text frame) in bytes; larger closes with 1009.
    #[arg(skip = 4096_usize)]
    pub max_message_bytes: usize,
    /// Messages per second per connection (sustained).
    #[arg(long, env = "MAZERACE_MSGS_PER_SEC", default_value = "40")]
    pub msgs_per_sec: u32,
    /// Messages per connection in a burst.
    #[arg(long, env = "MAZERACE_MSGS_BURST", default_value = "80")]
    pub msgs_burst: u32,
    /// Rate-limited messages tolerated before closing with 1008.
    ///
    /// Refilled at one a second.
    #[arg(long, env = "MAZERACE_FLOOD_STRIKES", default_value = "40")]
    pub flood_strikes: u32,
    /// Rooms one connection may create in a burst (one more every 30 s).
    #[arg(long, env = "MAZERACE_ROOMS_PER_CONN", default_value = "8")]
    pub rooms_per_conn: u32,
    /// The time to earn one more room (`rooms_per_conn`).
    #[arg(skip = Duration::from_secs(30))]
    pub room_refill: Duration,
    /// Failed joins per address in a burst (one more every 6 s).
    #[arg(long, env = "MAZERACE_JOIN_ATTEMPTS", default_value = "10")]
    pub join_attempts: u32,
    /// The time to earn one more failed join (`join_attempts`).
    #[arg(skip = Duration::from_secs(6))]
    pub join_refill: Duration,
    /// Room joins per address (IPv6: per /64) in a burst (one more every 1 s).
    ///
    /// Found and let in, by code or by invite link: each join is a `room`
    /// update to every member, so a join/leave loop is bounded here. 40: a
    /// LAN party behind one NAT filling a room and its audience at once.
    #[arg(long, env = "MAZERACE_ROOM_JOINS", default_value = "40")]
    pub room_joins: u32,
    /// The time to earn one more room join (`room_joins`).
    #[arg(skip = Duration::from_secs(1))]
    pub room_join_refill: Duration,
    /// League joins per address (IPv6: per /64) in a burst (one more every 60 s).
    ///
    /// `join_league` and `POST /api/leagues/{code}/join` spend the same
    /// budget, with the invite key or without: player tokens are free, so
    /// this is what bounds one address filling a league with puppets (50
    /// members). 10: a household or a LAN party joining at once; raise it
    /// where many players share one address (a campus NAT, a proxy not
    /// named with --trusted-proxy).
    #[arg(long, env = "MAZERACE_LEAGUE_JOINS", default_value = "10")]
    pub league_joins: u32,
    /// The time to earn one more league join (`league_joins`).
    #[arg(skip = Duration::from_secs(60))]
    pub league_join_refill: Duration,
    /// Session takeovers per address (IPv6: per /64) in a burst (one more every 6 s); past it each is a violation.
    ///
    /// A takeover is a `hello` with the token of a session another
    /// connection still carries (that one is closed with 4003): a phone
    /// changing networks, a second tab. Past the budget each counts as a
    /// violation of the address (`edge/penalty.rs`), so two tabs fighting
    /// over one token are slowed like a flooder instead of trading the
    /// session over a thousand times a second.
    #[arg(long, env = "MAZERACE_SESSION_TAKEOVERS", default_value = "10")]
    pub session_takeovers: u32,
    /// The time to earn one more takeover (`session_takeovers`).
    #[arg(skip = Duration::from_secs(6))]
    pub takeover_refill: Duration,
    /// Requests to `/api/*` per network address (IPv6: per /64) in a burst; 0: no budget.
    ///
    /// Then 429 with `Retry-After` (`http/budget.rs`): the API reads the
    /// daily store. 120: a LAN party loading the daily page at once (a page
    /// is a handful of requests). 0 for a reverse proxy that hides its
    /// clients' addresses (name it with `--trusted-proxy` instead if it
    /// forwards them).
    #[arg(long, env = "MAZERACE_API_BURST", default_value = "120")]
    pub api_burst: u32,
    /// Requests to `/api/*` per network address a second, sustained (the `--api-burst` bucket's refill).
    #[arg(long, env = "MAZERACE_API_PER_SEC", default_value = "20")]
    pub api_per_sec: u32,
    /// Live rooms per network address (IPv6: per /64).
    #[arg(long, env = "MAZERACE_MAX_ROOMS_PER_ADDRESS", default_value = "64")]
    pub max_rooms_per_address: u32,
    /// Live sessions per network address (IPv6: per /64).
    ///
    /// Players connected or waiting for a resume: enough for a LAN party
    /// behind one NAT.
    #[arg(long, env = "MAZERACE_MAX_SESSIONS_PER_ADDRESS", default_value = "256")]
    pub max_sessions_per_address: u32,
    /// Ranked daily runs: least milliseconds between accepted moves (faster: `too_fast`).
    ///
    /// 80: the fastest typists' keystroke time (`daily::pace::HUMAN_FLOOR`, where the figure comes from).
    #[arg(long = "ranked-move-floor-ms", env = "MAZERACE_RANKED_MOVE_FLOOR_MS", default_value = "80", value_parser = millis)]
    pub ranked_move_floor: Duration,
    /// Ranked daily runs: moves allowed at once above the floor.
    #[arg(long, env = "MAZERACE_RANKED_MOVE_BURST", default_value = "3")]
    pub ranked_move_burst: u32,
    /// Ranked daily starts per board per address (IPv6: per /64) a day; later ones are practice
    /// (0: no cap, for a reverse proxy that hides the players' addresses).
    #[arg(long, env = "MAZERACE_RANKED_PER_ADDRESS", default_value = "8")]
    pub ranked_per_address: u32,
    /// How long a closing connection waits for its close frame to go out and the client's reply.
    #[arg(skip = Duration::from_secs(2))]
    pub close_linger: Duration,
    /// After a connection from an address is closed for a violation (a
    /// flood, a bad frame), that address's next upgrade waits this long;
    /// each further violation doubles it (`edge/penalty.rs`). Zero: never.
    #[arg(skip = Duration::from_secs(1))]
    pub violation_penalty: Duration,
    /// Log format.
    #[arg(long, env = "MAZERACE_LOG_FORMAT", value_enum, default_value = "text")]
    pub log_format: LogFormat,
    /// Seconds shutdown may take, whatever clients do.
    #[arg(long = "shutdown-grace-secs", env = "MAZERACE_SHUTDOWN_GRACE_SECS", default_value = "5", value_parser = secs)]
    pub shutdown_grace: Duration,
    /// Seconds SIGTERM lets the races on this node finish before it shuts down (0: shut down at once, as SIGINT).
    ///
    /// The drain (`drain.rs`): no new rooms, `/healthz` 503, requests that
    /// name no room 503 (nginx sends them to another node); the node exits
    /// as soon as nothing races, at most this long after the signal, then
    /// takes `--shutdown-grace-secs` to close. A second SIGTERM ends the
    /// drain at once. A unit's `TimeoutStopSec` must cover both.
    #[arg(long = "drain-secs", env = "MAZERACE_DRAIN_SECS", default_value = "120", value_parser = secs)]
    pub drain: Duration,
    /// Seconds a room moved off a draining node is remembered: its old code (a join, an invite link) leads to the new room.
    ///
    /// On PostgreSQL only (rooms move between nodes through the shared
    /// database). In memory (at most 100,000 moves) and in the database's
    /// `room_moves` rows, removed after this. 0: moves are not remembered.
    #[arg(long = "move-memory-secs", env = "MAZERACE_MOVE_MEMORY_SECS", default_value = "3600", value_parser = secs)]
    pub move_memory: Duration,
    /// Seconds a client has to send a complete HTTP request head.
    ///
    /// From accept, and after each response on a kept-alive connection.
    #[arg(long = "head-timeout-secs", env = "MAZERACE_HEAD_TIMEOUT_SECS", default_value = "10", value_parser = secs)]
    pub head_timeout: Duration,
    /// Sockets admitted past --max-connections, each closing the oldest socket not yet upgraded.
    #[arg(long, env = "MAZERACE_RESERVE_CONNECTIONS", default_value = "64")]
    pub reserve_connections: usize,
    /// Sockets one address (IPv6: one /64) may hold; 0 for no cap.
    #[arg(long, env = "MAZERACE_MAX_CONNS_PER_ADDR", default_value = "256")]
    pub max_conns_per_addr: usize,
    /// SO_SNDBUF of each socket in bytes (0: the kernel's autotuning).
    ///
    /// The kernel doubles it for its bookkeeping; autotuning goes up to 4 MiB.
    #[arg(long, env = "MAZERACE_SEND_BUFFER_BYTES", default_value = "32768")]
    pub send_buffer_bytes: usize,
    /// The listen backlog (the kernel caps it at net.core.somaxconn).
    #[arg(long, env = "MAZERACE_LISTEN_BACKLOG", default_value = "4096")]
    pub listen_backlog: u32,
    /// Address for `GET /metrics` (Prometheus text); empty for none.
    ///
    /// Two servers in one process would clash on it: tests set `None`.
    #[arg(long, env = "MAZERACE_METRICS_BIND", default_value = "127.0.0.1:9464", value_parser = optional_addr)]
    pub metrics_bind: ::std::option::Option<SocketAddr>,
    /// Runtime worker threads (default: one per core; 0: a single-threaded runtime).
    ///
    /// Only `mazerace serve` reads it; tests run the server on their own runtime.
    #[arg(long, env = "MAZERACE_WORKER_THREADS")]
    pub worker_threads: Option<usize>,
    /// The site's address behind a reverse proxy (http:// or https://), for the invite and share links; absent: the page's own address.
    ///
    /// No trailing slash (`https://race.example.org`). `None`: the page's
    /// own address, or the LAN address when it was opened on this machine.
    #[arg(long, env = "MAZERACE_PUBLIC_URL", value_parser = parse_public_url)]
    pub public_url: Option<String>,
}
