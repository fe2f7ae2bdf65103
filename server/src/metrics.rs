//! Operator metrics: every series the server exports at `GET /metrics`
//! (Prometheus text format, on its own `--metrics-bind` listener), and one
//! named function per thing worth counting. README.md's "Metrics" table
//! lists every series.
//!
//! Recording is meant for hot paths (a move, a frame): each function is one
//! relaxed atomic add on a handle made once, at first use, with its labels
//! already resolved. Nothing allocates, formats a label or takes a lock per
//! call. The series are process-wide (one registry), so an embedding
//! program running several servers sees their sum.

use std::sync::LazyLock;
use std::time::Duration;

use mazerace_protocol::messages::Phase;
use mazerace_protocol::Reject;
use prometheus::{
    Encoder, Histogram, HistogramOpts, IntCounter, IntCounterVec, IntGauge, IntGaugeVec, Opts, Registry,
};

use mazerace_protocol::close;

/// Why a socket was turned away at accept, before any HTTP was read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Its address already holds `--max-conns-per-addr` sockets.
    PerAddress,
    /// The server holds as many sockets as it may (connection limit and reserve).
    Full,
}

/// How a client ended its connection (not a close the server asked for).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PeerLeft {
    /// It sent a close frame (the server echoes it).
    CloseFrame,
    /// Its stream ended (a FIN) without a close frame.
    Eof,
    /// Its socket was reset (an RST).
    Reset,
    /// Any other failure of the socket.
    Error,
}

const PEER_LEFT: [(PeerLeft, &str); 4] = [
    (PeerLeft::CloseFrame, "close_frame"),
    (PeerLeft::Eof, "eof"),
    (PeerLeft::Reset, "reset"),
    (PeerLeft::Error, "error"),
];

/// Close codes with a series of their own; any other is counted as `other`.
const CLOSE_CODES: [(u16, &str); 11] = [
    (close::NORMAL, "normal"),
    (close::GOING_AWAY, "shutdown"),
    (close::PROTOCOL_ERROR, "protocol_error"),
    (close::INVALID_DATA, "invalid_data"),
    (close::POLICY, "flood"),
    (close::TOO_BIG, "too_big"),
    (close::TRY_LATER, "server_full"),
    (close::HELLO_TIMEOUT, "hello_timeout"),
    (close::IDLE_TIMEOUT, "idle_timeout"),
    (close::TOO_SLOW, "too_slow"),
    (close::TAKEN_OVER, "taken_over"),
];

const REJECTS: [(Reject, &str); 5] = [
    (Reject::Wall, "wall"),
    (Reject::GateClosed, "gate_closed"),
    (Reject::GameOver, "game_over"),
    (Reject::RewindUsed, "rewind_used"),
    (Reject::NoRewind, "no_rewind"),
];

const PHASES: [(Phase, &str); 4] = [
    (Phase::Lobby, "lobby"),
    (Phase::Countdown, "countdown"),
    (Phase::Racing, "racing"),
    (Phase::Results, "results"),
];

struct Metrics {
    registry: Registry,
    sockets_http: IntGauge,
    sockets_ws: IntGauge,
    accepted: IntCounter,
    refused_per_addr: IntCounter,
    refused_full: IntCounter,
    evicted: IntCounter,
    head_timeouts: IntCounter,
    accept_errors: IntCounter,
    closed: [IntCounter; CLOSE_CODES.len()],
    closed_other: IntCounter,
    left: [IntCounter; PEER_LEFT.len()],
    upgrades_delayed: IntCounter,
    upgrades_refused: IntCounter,
    progress_sent: IntCounter,
    progress_coalesced: IntCounter,
    log_lines_dropped: IntCounter,
    moves_accepted: IntCounter,
    moves_rejected: [IntCounter; REJECTS.len()],
    moves_not_racing: IntCounter,
    ack_latency: Histogram,
    rooms: [IntGauge; PHASES.len()],
    races_started: IntCounter,
    races_finished: IntCounter,
    daily_starts: IntCounter,
    daily_finishes: IntCounter,
    store_queue: IntGauge,
    store_commit: Histogram,
}

/// Registers a series; the names are ours and fixed, so a clash (or a bad
/// name) is a bug caught by the tests, and never depends on input.
fn reg<T: prometheus::core::Collector + Clone + 'static>(r: &Registry, m: prometheus::Result<T>) -> T {
    #[allow(clippy::expect_used)]
    let m = m.expect("a metric's name and help are valid");
    #[allow(clippy::expect_used)]
    r.register(Box::new(m.clone())).expect("each metric is registered once");
    m
}

fn counter(r: &Registry, name: &str, help: &str) -> IntCounter {
    reg(r, IntCounter::new(name, help))
}

fn counters(r: &Registry, name: &str, help: &str, labels: &[&str]) -> IntCounterVec {
    reg(r, IntCounterVec::new(Opts::new(name, help), labels))
}

fn gauges(r: &Registry, name: &str, help: &str, labels: &[&str]) -> IntGaugeVec {
    reg(r, IntGaugeVec::new(Opts::new(name, help), labels))
}

/// Seconds: 10 us to 1 s, for work the server does on its own clock.
const LATENCY_BUCKETS: [f64; 14] =
    [1e-5, 2.5e-5, 5e-5, 1e-4, 2.5e-4, 5e-4, 1e-3, 2.5e-3, 5e-3, 1e-2, 2.5e-2, 5e-2, 0.25, 1.0];

fn histogram(r: &Registry, name: &str, help: &str) -> Histogram {
    reg(r, Histogram::with_opts(HistogramOpts::new(name, help).buckets(LATENCY_BUCKETS.to_vec())))
}

impl Metrics {
    fn new() -> Metrics {
        let r = Registry::new();
        let conns = gauges(
            &r,
            "mazerace_connections",
            "Open client sockets: http (not upgraded), websocket",
            &["state"],
        );
        let refused = counters(&r, "mazerace_sockets_refused_total", "Sockets closed at accept", &["reason"]);
        let closed = counters(
            &r,
            "mazerace_clients_closed_total",
            "Closes the server asked for, by code",
            &["code", "reason"],
        );
        let left = counters(
            &r,
            "mazerace_clients_left_total",
            "Connections the client ended, by how (close_frame, eof without one, reset, error)",
            &["how"],
        );
        let penalised = counters(
            &r,
            "mazerace_upgrades_penalised_total",
            "Upgrades from an address with violations: delayed, or refused (429)",
            &["outcome"],
        );
        let rejected =
            counters(&r, "mazerace_moves_rejected_total", "Moves and rewinds refused", &["reason"]);
        let rooms = gauges(&r, "mazerace_rooms", "Open rooms by phase", &["phase"]);
        Metrics {
            sockets_http: conns.with_label_values(&["http"]),
            sockets_ws: conns.with_label_values(&["websocket"]),
            accepted: counter(&r, "mazerace_sockets_accepted_total", "Sockets accepted, upgraded or not"),
            refused_per_addr: refused.with_label_values(&["per_address"]),
            refused_full: refused.with_label_values(&["full"]),
            evicted: counter(
                &r,
                "mazerace_sockets_evicted_total",
                "Sockets not upgraded closed to make room",
            ),
            head_timeouts: counter(
                &r,
                "mazerace_http_head_timeouts_total",
                "No complete request head in time",
            ),
            accept_errors: counter(
                &r,
                "mazerace_accept_errors_total",
                "accept() errors, retried after a backoff",
            ),
            closed: CLOSE_CODES.map(|(code, why)| closed.with_label_values(&[&code.to_string(), why])),
            closed_other: closed.with_label_values(&["other", "other"]),
            left: PEER_LEFT.map(|(_, how)| left.with_label_values(&[how])),
            upgrades_delayed: penalised.with_label_values(&["delayed"]),
            upgrades_refused: penalised.with_label_values(&["refused"]),
            progress_sent: counter(
                &r,
                "mazerace_progress_frames_sent_total",
                "progress frames handed to sockets",
            ),
            progress_coalesced: counter(
                &r,
                "mazerace_progress_coalesced_total",
                "progress superseded in its slot",
            ),
            log_lines_dropped: counter(
                &r,
                "mazerace_log_lines_dropped_total",
                "log lines over a connection's or room's log budget, not written",
            ),
            moves_accepted: counter(&r, "mazerace_moves_accepted_total", "Moves and rewinds applied"),
            moves_rejected: REJECTS.map(|(_, why)| rejected.with_label_values(&[why])),
            moves_not_racing: rejected.with_label_values(&["not_racing"]),
            ack_latency: histogram(
                &r,
                "mazerace_move_ack_seconds",
                "From reading a move to queueing its answer",
            ),
            rooms: PHASES.map(|(_, name)| rooms.with_label_values(&[name])),
            races_started: counter(&r, "mazerace_races_started_total", "Races that left the countdown"),
            races_finished: counter(&r, "mazerace_races_finished_total", "Races that reached their results"),
            daily_starts: counter(&r, "mazerace_daily_starts_total", "Daily attempts started"),
            daily_finishes: counter(
                &r,
                "mazerace_daily_finishes_total",
                "Daily attempts finished (won or not)",
            ),
            store_queue: reg(
                &r,
                IntGauge::new("mazerace_store_queue_depth", "Requests waiting for the store"),
            ),
            store_commit: histogram(
                &r,
                "mazerace_store_commit_seconds",
                "One daily-store transaction's commit",
            ),
            registry: r,
        }
    }
}

static M: LazyLock<Metrics> = LazyLock::new(Metrics::new);

/// Every series in the Prometheus text format (what `GET /metrics` answers).
pub fn render() -> String {
    let mut out = Vec::new();
    if let Err(e) = prometheus::TextEncoder::new().encode(&M.registry.gather(), &mut out) {
        tracing::error!(error = %e, "could not encode the metrics");
    }
    String::from_utf8(out).unwrap_or_default()
}

/// The content type of [`render`]'s text.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

// ---- sockets (accept.rs, gate.rs) ----

/// `mazerace_sockets_accepted_total` and `mazerace_connections{state="http"}` + 1.
pub fn socket_accepted() {
    M.accepted.inc();
    M.sockets_http.inc();
}

/// A socket became a WebSocket: `mazerace_connections` moves from `http` to `websocket`.
pub fn socket_upgraded() {
    M.sockets_http.dec();
    M.sockets_ws.inc();
}

/// A socket closed: `mazerace_connections{state}` - 1.
pub fn socket_closed(upgraded: bool) {
    if upgraded {
        M.sockets_ws.dec();
    } else {
        M.sockets_http.dec();
    }
}

/// `mazerace_sockets_refused_total{reason="per_address"|"full"}`.
pub fn socket_refused(why: Refusal) {
    match why {
        Refusal::PerAddress => M.refused_per_addr.inc(),
        Refusal::Full => M.refused_full.inc(),
    }
}

/// `mazerace_sockets_evicted_total`.
pub fn socket_evicted() {
    M.evicted.inc();
}

/// `mazerace_http_head_timeouts_total`.
pub fn head_timeout() {
    M.head_timeouts.inc();
}

/// `mazerace_accept_errors_total`.
pub fn accept_error() {
    M.accept_errors.inc();
}

// ---- clients (outbox.rs) ----

/// `mazerace_clients_closed_total{code, reason}`: the server asked for a
/// close with `code` (counted once per connection, when first asked).
pub fn client_closed(code: u16) {
    match CLOSE_CODES.iter().position(|(c, _)| *c == code) {
        Some(i) => M.closed[i].inc(),
        None => M.closed_other.inc(),
    }
}

/// `mazerace_clients_left_total{how}`: the client ended its connection
/// (never counted as a close of the server's).
pub fn peer_left(how: PeerLeft) {
    if let Some(i) = PEER_LEFT.iter().position(|(h, _)| *h == how) {
        M.left[i].inc();
    }
}

/// `mazerace_upgrades_penalised_total{outcome="delayed"|"refused"}`: an
/// upgrade from an address whose connections were closed for violations.
pub fn upgrade_penalised(refused: bool) {
    if refused {
        M.upgrades_refused.inc();
    } else {
        M.upgrades_delayed.inc();
    }
}

/// `mazerace_progress_frames_sent_total`.
pub fn progress_sent() {
    M.progress_sent.inc();
}

/// `mazerace_log_lines_dropped_total`: a line over its connection's or
/// room's log budget (`logs.rs`), not written.
pub fn log_dropped() {
    M.log_lines_dropped.inc();
}

/// `mazerace_progress_coalesced_total`.
pub fn progress_coalesced() {
    M.progress_coalesced.inc();
}

// ---- moves and rooms (for room.rs) ----

/// `mazerace_moves_accepted_total`: a move or rewind the rules applied.
pub fn move_accepted() {
    M.moves_accepted.inc();
}

/// `mazerace_moves_rejected_total{reason}`: refused by the rules (`wall`,
/// `gate_closed`, `game_over`, `rewind_used`, `no_rewind`).
pub fn move_rejected(reason: Reject) {
    if let Some(i) = REJECTS.iter().position(|(r, _)| *r == reason) {
        M.moves_rejected[i].inc();
    }
}

/// `mazerace_moves_rejected_total{reason="not_racing"}`: a move with no race
/// on, or from someone not racing.
pub fn move_not_racing() {
    M.moves_not_racing.inc();
}

/// `mazerace_move_ack_seconds`: from reading a move to queueing its answer.
pub fn ack_latency(d: Duration) {
    M.ack_latency.observe(d.as_secs_f64());
}

fn phase_gauge(p: Phase) -> &'static IntGauge {
    let i = PHASES.iter().position(|(q, _)| *q == p).unwrap_or(0);
    &M.rooms[i]
}

/// `mazerace_rooms{phase}`: a room moved from `from` to `to`; `None` is
/// "no room" (`room_phase(None, Some(Lobby))` when made,
/// `room_phase(Some(p), None)` when it ends).
pub fn room_phase(from: Option<Phase>, to: Option<Phase>) {
    if let Some(p) = from {
        phase_gauge(p).dec();
    }
    if let Some(p) = to {
        phase_gauge(p).inc();
    }
}

/// `mazerace_races_started_total`.
pub fn race_started() {
    M.races_started.inc();
}

/// `mazerace_races_finished_total`.
pub fn race_finished() {
    M.races_finished.inc();
}

// ---- the daily challenge and its store ----

/// `mazerace_daily_starts_total`.
pub fn daily_start() {
    M.daily_starts.inc();
}

/// `mazerace_daily_finishes_total`.
pub fn daily_finish() {
    M.daily_finishes.inc();
}

/// `mazerace_store_queue_depth`: requests waiting for the store now.
pub fn store_queue_depth(n: usize) {
    M.store_queue.set(i64::try_from(n).unwrap_or(i64::MAX));
}

/// `mazerace_store_commit_seconds`.
pub fn store_commit(d: Duration) {
    M.store_commit.observe(d.as_secs_f64());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(text: &str, series: &str) -> f64 {
        text.lines()
            .find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
            .unwrap_or_else(|| panic!("{series} not in\n{text}"))
    }

    #[test]
    fn every_function_moves_its_series() {
        let before = render();
        move_accepted();
        move_rejected(Reject::GateClosed);
        client_closed(close::TOO_SLOW);
        client_closed(4999);
        peer_left(PeerLeft::Eof);
        upgrade_penalised(true);
        room_phase(None, Some(Phase::Lobby));
        room_phase(Some(Phase::Lobby), Some(Phase::Countdown));
        ack_latency(Duration::from_micros(30));
        store_queue_depth(7);
        let after = render();
        for (series, by) in [
            ("mazerace_moves_accepted_total", 1.0),
            ("mazerace_moves_rejected_total{reason=\"gate_closed\"}", 1.0),
            ("mazerace_clients_closed_total{code=\"4002\",reason=\"too_slow\"}", 1.0),
            ("mazerace_clients_closed_total{code=\"other\",reason=\"other\"}", 1.0),
            ("mazerace_clients_left_total{how=\"eof\"}", 1.0),
            ("mazerace_upgrades_penalised_total{outcome=\"refused\"}", 1.0),
            ("mazerace_rooms{phase=\"countdown\"}", 1.0),
            ("mazerace_rooms{phase=\"lobby\"}", 0.0),
            ("mazerace_move_ack_seconds_bucket{le=\"0.00005\"}", 1.0),
            ("mazerace_move_ack_seconds_count", 1.0),
        ] {
            assert!(value(&after, series) - value(&before, series) >= by, "{series}");
        }
        assert_eq!(value(&after, "mazerace_store_queue_depth"), 7.0);
        assert!(after.contains("# TYPE mazerace_move_ack_seconds histogram"));
    }
}
