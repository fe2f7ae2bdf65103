//! How [`Config`] is read: the flags' value parsers, the defaults (the
//! command line with no flags), and the clamps on what a flag may ask for.

use std::net::SocketAddr;
use std::sync::LazyLock;
use std::time::Duration;

use clap::{Args, FromArgMatches};

use super::{Config, MAX_PLAYERS_CAP};
use crate::ids::CODE_ALPHABET;

/// `--public-url`: an http(s) URL with a host, kept without a trailing slash.
pub(super) fn parse_public_url(s: &str) -> Result<String, String> {
    let url = s.trim().trim_end_matches('/');
    let host = url.strip_prefix("https://").or_else(|| url.strip_prefix("http://")).unwrap_or("");
    let ok = !host.is_empty()
        && !host.starts_with('/')
        && !url.chars().any(|c| c.is_whitespace() || c.is_control());
    if ok {
        Ok(url.to_owned())
    } else {
        Err(format!("{s:?} is not a site address: use http://HOST or https://HOST[/PATH]"))
    }
}

/// The data directory's default (also `mazerace verify`'s).
pub const DATA_DIR: &str = "data";

/// How log lines are written (to stderr: stdout carries the URLs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    #[default]
    Text,
    /// One JSON object a line, for a log collector.
    Json,
}

/// Every default, read once from the flags' own definitions.
static DEFAULTS: LazyLock<Config> = LazyLock::new(|| {
    // The environment is not the defaults: a `MAZERACE_*` variable set
    // for the binary must not change what `Config::default()` means.
    let cmd = Config::augment_args(clap::Command::new("mazerace")).mut_args(|a| a.env(None));
    let parsed = cmd.try_get_matches_from(["mazerace"]).and_then(|m| Config::from_arg_matches(&m));
    // The flags' defaults are ours and fixed; a bad one is a bug that the
    // tests below (and every test that builds a Config) catch at once.
    #[allow(clippy::expect_used)]
    parsed.expect("every flag's default parses")
});

impl Default for Config {
    /// The production defaults: `mazerace serve` with no flags.
    fn default() -> Self {
        DEFAULTS.clone()
    }
}

impl Config {
    /// The settings the command line asked for, clamped where a value
    /// would break the server. (A [`Config`] built in code is taken as it
    /// is: tests shorten timings below what a flag allows.)
    pub fn clamped(self) -> Config {
        Config {
            // A lease under a second would have nodes heartbeat in a busy loop.
            node_lease: self.node_lease.max(Duration::from_secs(1)),
            ping_interval: self.ping_interval.max(Duration::from_secs(1)),
            max_players: self.max_players.clamp(1, MAX_PLAYERS_CAP),
            outbox_capacity: self.outbox_capacity.max(1),
            msgs_per_sec: self.msgs_per_sec.max(1),
            msgs_burst: self.msgs_burst.max(1),
            api_per_sec: self.api_per_sec.max(1),
            ranked_move_burst: self.ranked_move_burst.max(1),
            // tungstenite needs room for a frame header (at most 14 bytes).
            read_buffer_bytes: self.read_buffer_bytes.max(64),
            progress_interval: self.progress_interval.max(Duration::from_millis(1)),
            head_timeout: self.head_timeout.max(Duration::from_secs(1)),
            listen_backlog: self.listen_backlog.max(1),
            ..self
        }
    }
}

/// A flag in whole seconds.
pub fn secs(s: &str) -> Result<Duration, String> {
    s.trim().parse().map(Duration::from_secs).map_err(|e| format!("{e}: expected whole seconds"))
}

/// A flag in whole milliseconds.
pub fn millis(s: &str) -> Result<Duration, String> {
    s.trim().parse().map(Duration::from_millis).map_err(|e| format!("{e}: expected whole milliseconds"))
}

/// The node lease's default, the store's own (`mazerace_store::DEFAULT_LEASE`).
pub fn node_lease_default() -> &'static str {
    static SECS: LazyLock<String> = LazyLock::new(|| mazerace_store::DEFAULT_LEASE.as_secs().to_string());
    SECS.as_str()
}

/// An address, or nothing (an empty value).
pub fn optional_addr(s: &str) -> Result<Option<SocketAddr>, String> {
    if s.trim().is_empty() {
        return Ok(None);
    }
    s.trim().parse().map(Some).map_err(|e| format!("{e}: expected HOST:PORT, or empty for none"))
}

/// `--node-id`: exactly one character of [`CODE_ALPHABET`] (upper case).
pub fn parse_node_id(s: &str) -> Result<char, String> {
    let mut chars = s.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) if c.is_ascii() && CODE_ALPHABET.contains(&(c as u8)) => Ok(c),
        _ => Err(format!(
            "{s:?} is not a node id: use one character of the room-code alphabet {}",
            String::from_utf8_lossy(CODE_ALPHABET)
        )),
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        serve: Config,
    }

    fn parse(args: &[&str]) -> Config {
        Cli::parse_from(std::iter::once("mazerace").chain(args.iter().copied())).serve.clamped()
    }

    #[test]
    fn flags_reach_the_config() {
        let c = parse(&[
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
            "--resume-secs",
            "7",
            "--room-joins",
            "5",
            "--league-joins",
            "3",
            "--session-takeovers",
            "3",
            "--api-burst",
            "0",
            "--api-per-sec",
            "0",
        ]);
        assert_eq!(c.progress_interval, Duration::from_millis(200));
        assert_eq!(c.progress_max, Duration::from_millis(400));
        assert_eq!(c.worker_threads, Some(0));
        assert_eq!(c.read_buffer_bytes, 4096);
        assert_eq!(c.resume_window, Duration::from_secs(7));
        assert_eq!(c.room_joins, 5);
        assert_eq!(c.league_joins, 3);
        assert_eq!(c.session_takeovers, 3);
        assert_eq!((c.api_burst, c.api_per_sec), (0, 1), "0: no budget; the refill clamped");
        assert_eq!(c.max_players, MAX_PLAYERS_CAP, "capped");
        let hardened = parse(&[
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
            "--ping-secs",
            "0",
            "--drain-secs",
            "0",
        ]);
        assert_eq!(hardened.metrics_bind, None, "empty turns /metrics off");
        assert_eq!(hardened.shutdown_grace, Duration::from_secs(1));
        assert_eq!(hardened.drain, Duration::ZERO, "0: SIGTERM shuts down at once");
        assert_eq!((hardened.max_conns_per_addr, hardened.send_buffer_bytes), (0, 8192));
        assert_eq!(hardened.listen_backlog, 512);
        assert_eq!(hardened.ping_interval, Duration::from_secs(1), "clamped: no busy pinging");
        assert!(Cli::try_parse_from(["mazerace", "--resume-secs", "1.5"]).is_err(), "whole seconds");
    }

    #[test]
    fn the_public_url_is_an_http_address() {
        let c = parse(&["--public-url", "https://race.example.org/"]);
        assert_eq!(c.public_url.as_deref(), Some("https://race.example.org"), "no trailing slash");
        for bad in ["race.example.org", "ftp://x", "https://", "https:///x", "http://a b"] {
            assert!(Cli::try_parse_from(["mazerace", "--public-url", bad]).is_err(), "{bad}");
        }
        assert_eq!(parse(&["--intermission-secs", "0"]).intermission_secs, 0);
    }

    /// The defaults every caller sees: the figures the issues set, and the
    /// metrics listener on loopback whether the binary or `Config::default()`.
    #[test]
    fn the_defaults_are_the_flags_defaults() {
        let d = Config::default();
        assert_eq!(d.progress_interval, Duration::from_millis(50), "at most one per 50 ms");
        assert_eq!(d.progress_max, Duration::from_millis(200), "under 250 ms stale");
        assert_eq!((d.room_interval, d.room_joins), (Duration::from_millis(250), 40), "issue 24");
        assert_eq!((d.league_joins, d.league_join_refill), (10, Duration::from_secs(60)), "issue 34");
        assert_eq!(d.metrics_bind, Some(SocketAddr::from(([127, 0, 0, 1], 9464))), "loopback");
        assert_eq!(d.node_lease, mazerace_store::DEFAULT_LEASE);
        assert_eq!(d.worker_threads, None);
        assert_eq!(d.drain, Duration::from_secs(120), "two minutes for the races on a node to end");
        assert!(d.trusted_proxies.is_empty());
        assert_eq!(d.close_linger, Duration::from_secs(2), "a setting with no flag");
        let takeovers = (d.session_takeovers, d.takeover_refill);
        assert_eq!(takeovers, (10, Duration::from_secs(6)), "issue 34: a second tab now and then");
        assert_eq!((d.api_burst, d.api_per_sec), (120, 20), "issue 34: 7,781 replays a second, before");
        let pace = (d.ranked_move_floor, d.ranked_move_burst);
        assert_eq!(pace, (crate::daily::pace::HUMAN_FLOOR, crate::daily::pace::HUMAN_BURST), "issue 24");
        assert_eq!(format!("{:?}", parse(&[])), format!("{d:?}"), "no flags: the defaults, unclamped");
    }

    #[test]
    fn node_ids_are_one_code_letter() {
        let c = parse(&["--node-id", "B", "--trusted-proxy", "127.0.0.1,10.0.0.0/8"]);
        assert_eq!(c.node_id, Some('B'));
        assert!(!c.trusted_proxies.is_empty());
        for bad in ["b", "O", "1", "AB", "", "é"] {
            let err = Cli::try_parse_from(["mazerace", "--node-id", bad]).err().map(|e| e.to_string());
            assert!(err.as_deref().is_some_and(|e| e.contains("room-code alphabet")), "{bad}: {err:?}");
        }
        assert!(Cli::try_parse_from(["mazerace", "--trusted-proxy", "10.0.0.0/40"]).is_err());
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
            format!("one more every {} s", d.league_join_refill.as_secs()),
            format!("one more every {} s", d.takeover_refill.as_secs()),
        ] {
            assert!(help.contains(&phrase), "{phrase:?} not in\n{help}");
        }
    }
}
