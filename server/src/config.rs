//! Every setting of the race server in one [`Config`] struct, and the
//! `serve` command line (flags with `MAZERACE_*` environment fallbacks) that
//! fills it. Tests build a [`Config`] directly (see [`Config::default`]) and
//! shorten the timings they exercise.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

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
    /// At most one `progress` per room per this interval.
    pub progress_interval: Duration,
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
    /// Live rooms one network address (IPv4, or IPv6 /64) may hold open.
    pub max_rooms_per_address: u32,
    /// Live sessions (players, connected or waiting for a resume) one
    /// network address may hold: enough for a LAN party behind one NAT.
    pub max_sessions_per_address: u32,
    /// How long a closing connection waits for the client's close frame.
    pub close_linger: Duration,
    /// Text or JSON log lines.
    pub log_format: LogFormat,
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
            resume_window: Duration::from_secs(60),
            hello_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(30),
            ping_interval: Duration::from_secs(10),
            max_players: 16,
            max_spectators: 32,
            race_time_limit: Duration::from_secs(600),
            countdown_secs: 3,
            countdown_step: Duration::from_secs(1),
            progress_interval: Duration::from_millis(50),
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
            max_rooms_per_address: 64,
            max_sessions_per_address: 256,
            close_linger: Duration::from_secs(2),
            log_format: LogFormat::Text,
            worker_threads: None,
        }
    }
}

/// `mazerace serve` flags. Every flag also reads `MAZERACE_<NAME>`. Each
/// default is read from [`Config::default`], never written twice; the
/// README's table is checked against these flags by `server/tests/readme_config.rs`.
#[derive(clap::Args, Debug, Clone)]
pub struct ServeArgs {
    /// Address and port to listen on.
    #[arg(long, env = "MAZERACE_BIND", default_value_t = Config::default().bind)]
    pub bind: SocketAddr,
    /// Data directory (the daily challenge's database lives here).
    #[arg(long, env = "MAZERACE_DATA_DIR", default_value_os_t = Config::default().data_dir)]
    pub data_dir: PathBuf,
    /// Secret salt for the daily seeds (made once and stored when absent).
    #[arg(long, env = "MAZERACE_DAILY_SALT", hide_env_values = true)]
    pub daily_salt: Option<String>,
    /// PostgreSQL URL (postgres://user:password@host/db) for everything durable; absent: SQLite in --data-dir.
    #[arg(long, env = "MAZERACE_DATABASE_URL", hide_env_values = true)]
    pub database_url: Option<String>,
    /// Seconds a dropped player may take to reconnect and resume.
    #[arg(long, env = "MAZERACE_RESUME_SECS", default_value_t = Config::default().resume_window.as_secs())]
    pub resume_secs: u64,
    /// Seconds a new connection has to send `hello`.
    #[arg(long, env = "MAZERACE_HELLO_TIMEOUT_SECS", default_value_t = Config::default().hello_timeout.as_secs())]
    pub hello_timeout_secs: u64,
    /// Seconds of silence after which a connection is closed.
    #[arg(long, env = "MAZERACE_IDLE_TIMEOUT_SECS", default_value_t = Config::default().idle_timeout.as_secs())]
    pub idle_timeout_secs: u64,
    /// Seconds of silence after which a connection is pinged.
    #[arg(long, env = "MAZERACE_PING_SECS", default_value_t = Config::default().ping_interval.as_secs())]
    pub ping_secs: u64,
    /// Racers per room (capped at 64).
    #[arg(long, env = "MAZERACE_MAX_PLAYERS", default_value_t = Config::default().max_players)]
    pub max_players: u32,
    /// Spectators per room.
    #[arg(long, env = "MAZERACE_MAX_SPECTATORS", default_value_t = Config::default().max_spectators)]
    pub max_spectators: u32,
    /// A race's time limit in seconds.
    #[arg(long, env = "MAZERACE_RACE_LIMIT_SECS", default_value_t = Config::default().race_time_limit.as_secs())]
    pub race_limit_secs: u64,
    /// Countdown length in seconds.
    #[arg(long, env = "MAZERACE_COUNTDOWN_SECS", default_value_t = Config::default().countdown_secs)]
    pub countdown_secs: u32,
    /// Open WebSocket connections at once.
    #[arg(long, env = "MAZERACE_MAX_CONNECTIONS", default_value_t = Config::default().max_connections)]
    pub max_connections: usize,
    /// Frames queued per client before it is closed as too slow.
    #[arg(long, env = "MAZERACE_OUTBOX", default_value_t = Config::default().outbox_capacity)]
    pub outbox_capacity: usize,
    /// Messages per second per connection (sustained).
    #[arg(long, env = "MAZERACE_MSGS_PER_SEC", default_value_t = Config::default().msgs_per_sec)]
    pub msgs_per_sec: u32,
    /// Messages per connection in a burst.
    #[arg(long, env = "MAZERACE_MSGS_BURST", default_value_t = Config::default().msgs_burst)]
    pub msgs_burst: u32,
    /// Rate-limited messages tolerated before closing with 1008.
    #[arg(long, env = "MAZERACE_FLOOD_STRIKES", default_value_t = Config::default().flood_strikes)]
    pub flood_strikes: u32,
    /// Rooms one connection may create in a burst (one more every 30 s).
    #[arg(long, env = "MAZERACE_ROOMS_PER_CONN", default_value_t = Config::default().rooms_per_conn)]
    pub rooms_per_conn: u32,
    /// Failed joins per address in a burst (one more every 6 s).
    #[arg(long, env = "MAZERACE_JOIN_ATTEMPTS", default_value_t = Config::default().join_attempts)]
    pub join_attempts: u32,
    /// Live rooms per network address (IPv6: per /64).
    #[arg(long, env = "MAZERACE_MAX_ROOMS_PER_ADDRESS", default_value_t = Config::default().max_rooms_per_address)]
    pub max_rooms_per_address: u32,
    /// Live sessions per network address (IPv6: per /64).
    #[arg(long, env = "MAZERACE_MAX_SESSIONS_PER_ADDRESS", default_value_t = Config::default().max_sessions_per_address)]
    pub max_sessions_per_address: u32,
    /// Log format.
    #[arg(long, env = "MAZERACE_LOG_FORMAT", value_enum, default_value_t = Config::default().log_format)]
    pub log_format: LogFormat,
    /// Bytes of each socket's read buffer (paid per connected player; a
    /// larger message still arrives whole).
    #[arg(long, env = "MAZERACE_READ_BUFFER_BYTES", default_value_t = Config::default().read_buffer_bytes)]
    pub read_buffer_bytes: usize,
    /// Milliseconds between two `progress` messages to a room (coalescing window).
    #[arg(long, env = "MAZERACE_PROGRESS_MS", default_value_t = millis(Config::default().progress_interval))]
    pub progress_ms: u64,
    /// Runtime worker threads (default: one per core; 0: a single-threaded runtime).
    #[arg(long, env = "MAZERACE_WORKER_THREADS")]
    pub worker_threads: Option<usize>,
}

/// A duration as the whole milliseconds a flag takes.
fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

impl ServeArgs {
    /// The settings these flags ask for, clamped where a value would break
    /// the server; what no flag sets keeps its [`Config::default`].
    pub fn into_config(self) -> Config {
        let base = Config::default();
        Config {
            bind: self.bind,
            data_dir: self.data_dir,
            daily_salt: self.daily_salt,
            database_url: self.database_url,
            resume_window: Duration::from_secs(self.resume_secs),
            hello_timeout: Duration::from_secs(self.hello_timeout_secs),
            idle_timeout: Duration::from_secs(self.idle_timeout_secs),
            ping_interval: Duration::from_secs(self.ping_secs.max(1)),
            max_players: self.max_players.clamp(1, MAX_PLAYERS_CAP),
            max_spectators: self.max_spectators,
            race_time_limit: Duration::from_secs(self.race_limit_secs),
            countdown_secs: self.countdown_secs,
            max_connections: self.max_connections,
            outbox_capacity: self.outbox_capacity.max(1),
            msgs_per_sec: self.msgs_per_sec.max(1),
            msgs_burst: self.msgs_burst.max(1),
            flood_strikes: self.flood_strikes,
            rooms_per_conn: self.rooms_per_conn,
            join_attempts: self.join_attempts,
            max_rooms_per_address: self.max_rooms_per_address,
            max_sessions_per_address: self.max_sessions_per_address,
            log_format: self.log_format,
            worker_threads: self.worker_threads,
            // tungstenite needs room for a frame header (at most 14 bytes).
            read_buffer_bytes: self.read_buffer_bytes.max(64),
            progress_interval: Duration::from_millis(self.progress_ms.max(1)),
            ..base
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        serve: ServeArgs,
    }

    #[test]
    fn flags_reach_the_config() {
        let cli = Cli::parse_from([
            "mazerace",
            "--progress-ms",
            "200",
            "--worker-threads",
            "0",
            "--max-players",
            "99",
            "--read-buffer-bytes",
            "4096",
        ]);
        let c = cli.serve.into_config();
        assert_eq!(c.progress_interval, Duration::from_millis(200));
        assert_eq!(c.worker_threads, Some(0));
        assert_eq!(c.read_buffer_bytes, 4096);
        assert_eq!(c.max_players, MAX_PLAYERS_CAP, "capped");
        let defaults = Cli::parse_from(["mazerace"]).serve.into_config();
        assert_eq!(defaults.progress_interval, Duration::from_millis(50), "issue 3: at most one per 50 ms");
        assert_eq!(defaults.worker_threads, None);
        assert_eq!(defaults.read_buffer_bytes, Config::default().read_buffer_bytes);
    }

    /// Every flag left out gives exactly `Config::default()`'s value.
    #[test]
    fn no_flags_give_the_default_config() {
        let got = format!("{:?}", Cli::parse_from(["mazerace"]).serve.into_config());
        assert_eq!(got, format!("{:?}", Config::default()));
    }

    /// The figures written into the help text (settings with no flag of
    /// their own) agree with the code.
    #[test]
    fn the_help_text_states_the_real_figures() {
        use clap::CommandFactory;
        let help = Cli::command().render_help().to_string();
        let d = Config::default();
        for phrase in [
            format!("capped at {MAX_PLAYERS_CAP}"),
            format!("one more every {} s", d.room_refill.as_secs()),
            format!("one more every {} s", d.join_refill.as_secs()),
        ] {
            assert!(help.contains(&phrase), "{phrase:?} not in\n{help}");
        }
    }
}
