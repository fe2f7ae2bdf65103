//! Every setting of the race server in one [`Config`] struct, with its
//! production defaults ([`Config::default`], the one source of every
//! default). The `serve` command line that fills it is `flags.rs`. Tests
//! build a [`Config`] directly and shorten the timings they exercise.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use crate::proxy::TrustedProxies;

/// The hard ceiling on racers per room, whatever the flags or a
/// `create_room` ask for: a room's broadcasts cost O(members) each.
pub const MAX_PLAYERS_CAP: u32 = 64;

/// Bytes of frames tungstenite gathers before writing them (the writer task
/// flushes once per batch besides). Small because tungstenite's out buffer
/// keeps the largest size it ever reached, per player: 4096 measured 2.2 KiB
/// more per idle player than 512, from the burst of `room` messages while a
/// room fills.
pub const WRITE_BUFFER_BYTES: usize = 512;

/// How log lines are written (to stderr: stdout carries the URLs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    #[default]
    Text,
    /// One JSON object a line, for a log collector.
    Json,
}

/// The server's settings. `Default` gives the production defaults.
#[derive(Clone, Debug)]
pub struct Config {
    /// Where `mazerace serve` listens (tests bind their own listener).
    pub bind: SocketAddr,
    /// Where the daily store keeps its database (used by the daily store).
    pub data_dir: PathBuf,
    /// The daily seed's secret salt (used by the daily store).
    pub daily_salt: Option<String>,
    /// A `postgres://` URL: keep everything durable in PostgreSQL (several
    /// nodes share it). `None`: SQLite in `data_dir`.
    pub database_url: Option<String>,
    /// This node's id (issue 14): one character of the room-code alphabet
    /// that begins every room code it makes; `None`: a single node.
    pub node_id: Option<char>,
    /// Peers whose `X-Forwarded-For` / `X-Real-IP` are believed (`proxy.rs`).
    pub trusted_proxies: TrustedProxies,
    /// How long after its last heartbeat a node counts as dead, so that
    /// another node closes its open daily runs (it heartbeats every quarter).
    pub node_lease: Duration,
    /// How long a dropped player's session waits for a `hello {token}`.
    pub resume_window: Duration,
    /// A connection that has not said `hello` by then is closed (4000).
    pub hello_timeout: Duration,
    /// A connection silent for this long (no frame, not even a pong) is closed (4001).
    pub idle_timeout: Duration,
    /// A connection silent this long (no frame from it, no ping from us) is
    /// pinged; one that keeps sending is never pinged.
    pub ping_interval: Duration,
    /// Racers per room unless `create_room` asks for fewer (at most [`MAX_PLAYERS_CAP`]).
    pub max_players: u32,
    /// Spectators per room, on top of the racers.
    pub max_spectators: u32,
    /// A race still running after this ends with everyone left `timed_out`.
    pub race_time_limit: Duration,
    /// Countdown numbers before the start signal (3: "3, 2, 1").
    pub countdown_secs: u32,
    /// Time between two countdown numbers (one second in production).
    pub countdown_step: Duration,
    /// A match's intermission between two rounds, in countdown steps
    /// (seconds in production): 10, counted down on the server's clock.
    pub intermission_secs: u32,
    /// At most one `progress` per room per this interval when the server
    /// is quiet: the progress window's floor.
    pub progress_interval: Duration,
    /// The progress window's ceiling, reached as the server gets busy
    /// (`room/progress.rs`); at or under `progress_interval`: a fixed window.
    pub progress_max: Duration,
    /// At most one `room` message per room per this (`room/updates.rs`):
    /// the first change after a quiet spell at once, the rest coalesced.
    pub room_interval: Duration,
    /// Open WebSocket connections at once; the next one gets `server_full`.
    pub max_connections: usize,
    /// Frames queued for one client before it counts as too slow (4002).
    pub outbox_capacity: usize,
    /// Each socket's read buffer. Client messages are small (a move is
    /// ~40 bytes); a larger one (up to `max_message_bytes`) still arrives
    /// whole, since tungstenite reserves a frame's full length from its
    /// header. Kept small because it is paid per connected player: 1 KiB
    /// measured 7.1 KiB of server memory per idle player, 4 KiB 10.1 KiB.
    pub read_buffer_bytes: usize,
    /// Bytes tungstenite may hold for one socket before writes fail.
    pub write_buffer_max: usize,
    /// Largest accepted client message (text frame) in bytes; larger closes with 1009.
    pub max_message_bytes: usize,
    /// Messages per second a connection may send, sustained ...
    pub msgs_per_sec: u32,
    /// ... and in a burst.
    pub msgs_burst: u32,
    /// Refused (rate-limited) messages tolerated, refilled at one a second,
    /// before the connection is closed with 1008.
    pub flood_strikes: u32,
    /// Rooms one connection may create in a burst ...
    pub rooms_per_conn: u32,
    /// ... and the time to earn one more.
    pub room_refill: Duration,
    /// Failed joins (unknown codes) one address may make in a burst ...
    pub join_attempts: u32,
    /// ... and the time to earn one more.
    pub join_refill: Duration,
    /// Room joins (found and let in, by code or link) one address may make
    /// in a burst: each join is a `room` update to every member, so a
    /// join/leave loop is bounded here ...
    pub room_joins: u32,
    /// ... and the time to earn one more.
    pub room_join_refill: Duration,
    /// Live rooms one network address (IPv4, or IPv6 /64) may hold open.
    pub max_rooms_per_address: u32,
    /// Live sessions (players, connected or waiting for a resume) one
    /// network address may hold: enough for a LAN party behind one NAT.
    pub max_sessions_per_address: u32,
    /// Ranked daily runs only: the least time between two accepted moves
    /// (the fastest human key repeat), so a script does no better than a hand ...
    pub ranked_move_floor: Duration,
    /// ... with this many moves allowed at once above it.
    pub ranked_move_burst: u32,
    /// Ranked daily starts per board per network address (IPv6: per /64) a
    /// day; later starts from the address are practice. High enough for a
    /// household or a LAN party.
    pub ranked_per_address: u32,
    /// How long a closing connection waits for the client's close frame.
    pub close_linger: Duration,
    /// Text or JSON log lines.
    pub log_format: LogFormat,
    /// Once shutdown starts, `run` returns within this, whatever clients do.
    pub shutdown_grace: Duration,
    /// A request head must be complete this long after accept (and after
    /// each response on a kept-alive connection), or the socket is closed.
    pub head_timeout: Duration,
    /// Sockets admitted past `max_connections`, each evicting the oldest
    /// socket not yet upgraded, so `/healthz` and honest clients get in.
    pub reserve_connections: usize,
    /// Sockets one address (IPv6: one /64) may hold at once; 0 for no cap.
    pub max_conns_per_addr: usize,
    /// SO_SNDBUF of every accepted socket (the kernel doubles it for its
    /// bookkeeping); 0 leaves the kernel's autotuning (up to 4 MiB).
    pub send_buffer_bytes: usize,
    /// The listen backlog (capped by the kernel's `net.core.somaxconn`).
    pub listen_backlog: u32,
    /// Where `GET /metrics` is served; `None` for nowhere. `None` in
    /// `Config::default()` (two servers in one process would clash on one
    /// port); the `serve` flag defaults to 127.0.0.1:9464.
    pub metrics_bind: Option<SocketAddr>,
    /// Runtime worker threads: `None` for one per core, `Some(0)` for a
    /// single-threaded (current-thread) runtime. Only `mazerace serve` reads
    /// it; tests run the server on their own runtime.
    pub worker_threads: Option<usize>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            bind: SocketAddr::from(([0, 0, 0, 0], 7878)),
            data_dir: PathBuf::from("data"),
            daily_salt: None,
            database_url: None,
            node_id: None,
            trusted_proxies: TrustedProxies::default(),
            node_lease: mazerace_store::DEFAULT_LEASE,
            resume_window: Duration::from_secs(60),
            hello_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(30),
            ping_interval: Duration::from_secs(10),
            max_players: 16,
            max_spectators: 32,
            race_time_limit: Duration::from_secs(600),
            countdown_secs: 3,
            countdown_step: Duration::from_secs(1),
            intermission_secs: 10,
            progress_interval: Duration::from_millis(50),
            // Under the 250 ms an opponent's marker may lag (issue 17), with
            // room for the delivery itself.
            progress_max: Duration::from_millis(200),
            // Four a second: a lobby filling up, ready flags and renames
            // show within a quarter of a second, and a join/leave loop costs
            // each member at most four frames a second.
            room_interval: Duration::from_millis(250),
            max_connections: 50_000,
            outbox_capacity: 256,
            read_buffer_bytes: 1024,
            write_buffer_max: 64 * 1024,
            max_message_bytes: 4096,
            msgs_per_sec: 40,
            msgs_burst: 80,
            flood_strikes: 40,
            rooms_per_conn: 8,
            room_refill: Duration::from_secs(30),
            join_attempts: 10,
            join_refill: Duration::from_secs(6),
            // A LAN party behind one NAT filling a room and its audience at
            // once, then a join a second.
            room_joins: 40,
            room_join_refill: Duration::from_secs(1),
            max_rooms_per_address: 64,
            max_sessions_per_address: 256,
            ranked_move_floor: Duration::from_millis(25),
            ranked_move_burst: 3,
            ranked_per_address: 8,
            close_linger: Duration::from_secs(2),
            log_format: LogFormat::Text,
            shutdown_grace: Duration::from_secs(5),
            head_timeout: Duration::from_secs(10),
            reserve_connections: 64,
            max_conns_per_addr: 256,
            send_buffer_bytes: 32 * 1024,
            listen_backlog: 4096,
            metrics_bind: Some(SocketAddr::from(([127, 0, 0, 1], 9464))),
            worker_threads: None,
        }
    }
}
