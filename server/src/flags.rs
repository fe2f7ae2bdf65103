//! The `mazerace serve` command line: one flag per setting of [`Config`]
//! (each also read from `MAZERACE_<NAME>`), whose defaults are read from
//! [`Config::default`], and the checks that turn them into a [`Config`].

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use crate::config::{Config, LogFormat, MAX_PLAYERS_CAP};
use crate::ids::CODE_ALPHABET;
use crate::proxy::TrustedProxies;

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
    /// This node's id when several share one database: one character of the room-code alphabet (A-Z without I, L, O; 2-9), starting every room code it makes.
    #[arg(long, env = "MAZERACE_NODE_ID", value_parser = parse_node_id)]
    pub node_id: Option<char>,
    /// Comma-separated addresses or CIDRs of the load balancers whose X-Forwarded-For / X-Real-IP are believed; absent: none.
    #[arg(long, env = "MAZERACE_TRUSTED_PROXY")]
    pub trusted_proxy: Option<TrustedProxies>,
    /// Seconds after its last heartbeat (one every quarter of this) a node counts as dead and others close its open daily runs.
    #[arg(long, env = "MAZERACE_NODE_LEASE_SECS", default_value_t = Config::default().node_lease.as_secs())]
    pub node_lease_secs: u64,
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
    /// Seconds between two rounds of a match (0: none; the host may start the next at once).
    #[arg(long, env = "MAZERACE_INTERMISSION_SECS", default_value_t = Config::default().intermission_secs)]
    pub intermission_secs: u32,
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
    /// Room joins per address (IPv6: per /64) in a burst (one more every 1 s).
    #[arg(long, env = "MAZERACE_ROOM_JOINS", default_value_t = Config::default().room_joins)]
    pub room_joins: u32,
    /// Live rooms per network address (IPv6: per /64).
    #[arg(long, env = "MAZERACE_MAX_ROOMS_PER_ADDRESS", default_value_t = Config::default().max_rooms_per_address)]
    pub max_rooms_per_address: u32,
    /// Live sessions per network address (IPv6: per /64).
    #[arg(long, env = "MAZERACE_MAX_SESSIONS_PER_ADDRESS", default_value_t = Config::default().max_sessions_per_address)]
    pub max_sessions_per_address: u32,
    /// Ranked daily runs: least milliseconds between accepted moves (faster: `too_fast`).
    #[arg(long, env = "MAZERACE_RANKED_MOVE_FLOOR_MS", default_value_t = millis(Config::default().ranked_move_floor))]
    pub ranked_move_floor_ms: u64,
    /// Ranked daily runs: moves allowed at once above the floor.
    #[arg(long, env = "MAZERACE_RANKED_MOVE_BURST", default_value_t = Config::default().ranked_move_burst)]
    pub ranked_move_burst: u32,
    /// Ranked daily starts per board per address (IPv6: per /64) a day; later ones are practice
    /// (0: no cap, for a reverse proxy that hides the players' addresses).
    #[arg(long, env = "MAZERACE_RANKED_PER_ADDRESS", default_value_t = Config::default().ranked_per_address)]
    pub ranked_per_address: u32,
    /// Log format.
    #[arg(long, env = "MAZERACE_LOG_FORMAT", value_enum, default_value_t = Config::default().log_format)]
    pub log_format: LogFormat,
    /// Bytes of each socket's read buffer (paid per connected player; a
    /// larger message still arrives whole).
    #[arg(long, env = "MAZERACE_READ_BUFFER_BYTES", default_value_t = Config::default().read_buffer_bytes)]
    pub read_buffer_bytes: usize,
    /// Milliseconds between two `progress` messages to a room when the
    /// server is quiet (the coalescing window's floor).
    #[arg(long, env = "MAZERACE_PROGRESS_MS", default_value_t = millis(Config::default().progress_interval))]
    pub progress_ms: u64,
    /// The coalescing window's ceiling, reached as the server gets busy;
    /// at or under --progress-ms the window stays fixed.
    #[arg(long, env = "MAZERACE_PROGRESS_MAX_MS", default_value_t = millis(Config::default().progress_max))]
    pub progress_max_ms: u64,
    /// Seconds shutdown may take, whatever clients do.
    #[arg(long, env = "MAZERACE_SHUTDOWN_GRACE_SECS", default_value_t = 5)]
    pub shutdown_grace_secs: u64,
    /// Seconds a client has to send a complete HTTP request head.
    #[arg(long, env = "MAZERACE_HEAD_TIMEOUT_SECS", default_value_t = 10)]
    pub head_timeout_secs: u64,
    /// Sockets admitted past --max-connections, each closing the oldest socket not yet upgraded.
    #[arg(long, env = "MAZERACE_RESERVE_CONNECTIONS", default_value_t = 64)]
    pub reserve_connections: usize,
    /// Sockets one address (IPv6: one /64) may hold; 0 for no cap.
    #[arg(long, env = "MAZERACE_MAX_CONNS_PER_ADDR", default_value_t = 256)]
    pub max_conns_per_addr: usize,
    /// SO_SNDBUF of each socket in bytes (0: the kernel's autotuning).
    #[arg(long, env = "MAZERACE_SEND_BUFFER_BYTES", default_value_t = 32 * 1024)]
    pub send_buffer_bytes: usize,
    /// The listen backlog (the kernel caps it at net.core.somaxconn).
    #[arg(long, env = "MAZERACE_LISTEN_BACKLOG", default_value_t = 4096)]
    pub listen_backlog: u32,
    /// Address for `GET /metrics` (Prometheus text); empty for none.
    #[arg(long, env = "MAZERACE_METRICS_BIND", default_value_t = MetricsBind(Config::default().metrics_bind), value_parser = parse_metrics_bind)]
    pub metrics_bind: MetricsBind,
    /// Runtime worker threads (default: one per core; 0: a single-threaded runtime).
    #[arg(long, env = "MAZERACE_WORKER_THREADS")]
    pub worker_threads: Option<usize>,
}

/// `--node-id`: exactly one character of [`CODE_ALPHABET`] (upper case).
fn parse_node_id(s: &str) -> Result<char, String> {
    let mut chars = s.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) if c.is_ascii() && CODE_ALPHABET.contains(&(c as u8)) => Ok(c),
        _ => Err(format!(
            "{s:?} is not a node id: use one character of the room-code alphabet {}",
            String::from_utf8_lossy(CODE_ALPHABET)
        )),
    }
}

/// A duration as the whole milliseconds a flag takes.
fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// `--metrics-bind`: an address, or nothing (an empty value).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MetricsBind(pub Option<SocketAddr>);

impl std::fmt::Display for MetricsBind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Some(a) => a.fmt(f),
            None => Ok(()),
        }
    }
}

fn parse_metrics_bind(s: &str) -> Result<MetricsBind, String> {
    if s.trim().is_empty() {
        return Ok(MetricsBind(None));
    }
    s.trim()
        .parse()
        .map(|a| MetricsBind(Some(a)))
        .map_err(|e| format!("{e}: expected HOST:PORT, or empty for none"))
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
            node_id: self.node_id,
            trusted_proxies: self.trusted_proxy.unwrap_or_default(),
            // A lease under a second would have nodes heartbeat in a busy loop.
            node_lease: Duration::from_secs(self.node_lease_secs.max(1)),
            resume_window: Duration::from_secs(self.resume_secs),
            hello_timeout: Duration::from_secs(self.hello_timeout_secs),
            idle_timeout: Duration::from_secs(self.idle_timeout_secs),
            ping_interval: Duration::from_secs(self.ping_secs.max(1)),
            max_players: self.max_players.clamp(1, MAX_PLAYERS_CAP),
            max_spectators: self.max_spectators,
            race_time_limit: Duration::from_secs(self.race_limit_secs),
            countdown_secs: self.countdown_secs,
            intermission_secs: self.intermission_secs,
            max_connections: self.max_connections,
            outbox_capacity: self.outbox_capacity.max(1),
            msgs_per_sec: self.msgs_per_sec.max(1),
            msgs_burst: self.msgs_burst.max(1),
            flood_strikes: self.flood_strikes,
            rooms_per_conn: self.rooms_per_conn,
            join_attempts: self.join_attempts,
            room_joins: self.room_joins,
            max_rooms_per_address: self.max_rooms_per_address,
            max_sessions_per_address: self.max_sessions_per_address,
            ranked_move_floor: Duration::from_millis(self.ranked_move_floor_ms),
            ranked_move_burst: self.ranked_move_burst.max(1),
            ranked_per_address: self.ranked_per_address,
            log_format: self.log_format,
            worker_threads: self.worker_threads,
            // tungstenite needs room for a frame header (at most 14 bytes).
            read_buffer_bytes: self.read_buffer_bytes.max(64),
            progress_interval: Duration::from_millis(self.progress_ms.max(1)),
            progress_max: Duration::from_millis(self.progress_max_ms),
            shutdown_grace: Duration::from_secs(self.shutdown_grace_secs),
            head_timeout: Duration::from_secs(self.head_timeout_secs.max(1)),
            reserve_connections: self.reserve_connections,
            max_conns_per_addr: self.max_conns_per_addr,
            send_buffer_bytes: self.send_buffer_bytes,
            listen_backlog: self.listen_backlog.max(1),
            metrics_bind: self.metrics_bind.0,
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
            "--progress-max-ms",
            "400",
            "--worker-threads",
            "0",
            "--max-players",
            "99",
            "--read-buffer-bytes",
            "4096",
        ]);
        let c = cli.serve.into_config();
        assert_eq!(c.progress_interval, Duration::from_millis(200));
        assert_eq!(c.progress_max, Duration::from_millis(400));
        assert_eq!(c.worker_threads, Some(0));
        assert_eq!(c.read_buffer_bytes, 4096);
        assert_eq!(c.max_players, MAX_PLAYERS_CAP, "capped");
        let defaults = Cli::parse_from(["mazerace"]).serve.into_config();
        assert_eq!(defaults.progress_interval, Duration::from_millis(50), "issue 3: at most one per 50 ms");
        assert_eq!(defaults.progress_max, Duration::from_millis(200), "issue 17: under 250 ms stale");
        assert_eq!(defaults.worker_threads, None);
        assert_eq!(defaults.read_buffer_bytes, Config::default().read_buffer_bytes);
        assert_eq!(
            defaults.metrics_bind,
            Some(SocketAddr::from(([127, 0, 0, 1], 9464))),
            "loopback by default"
        );
        assert_eq!(defaults.shutdown_grace, Config::default().shutdown_grace);
        assert_eq!(defaults.listen_backlog, 4096);
        let hardened = Cli::parse_from([
            "mazerace",
            "--metrics-bind",
            "",
            "--shutdown-grace-secs",
            "1",
            "--max-conns-per-addr",
            "0",
            "--send-buffer-bytes",
            "8192",
            "--listen-backlog",
            "512",
        ])
        .serve
        .into_config();
        assert_eq!(hardened.metrics_bind, None, "empty turns /metrics off");
        assert_eq!(hardened.shutdown_grace, Duration::from_secs(1));
        assert_eq!((hardened.max_conns_per_addr, hardened.send_buffer_bytes), (0, 8192));
        assert_eq!(hardened.listen_backlog, 512);
    }

    #[test]
    fn node_ids_are_one_code_letter() {
        let c = Cli::parse_from(["mazerace", "--node-id", "B", "--trusted-proxy", "127.0.0.1,10.0.0.0/8"]);
        let c = c.serve.into_config();
        assert_eq!(c.node_id, Some('B'));
        assert!(!c.trusted_proxies.is_empty());
        for bad in ["b", "O", "1", "AB", "", "é"] {
            let err = Cli::try_parse_from(["mazerace", "--node-id", bad]).err().map(|e| e.to_string());
            assert!(err.as_deref().is_some_and(|e| e.contains("room-code alphabet")), "{bad}: {err:?}");
        }
        assert!(Cli::try_parse_from(["mazerace", "--trusted-proxy", "10.0.0.0/40"]).is_err());
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
            format!("one more every {} s", d.room_join_refill.as_secs()),
        ] {
            assert!(help.contains(&phrase), "{phrase:?} not in\n{help}");
        }
    }
}
