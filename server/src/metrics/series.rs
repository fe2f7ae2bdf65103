//! The series themselves: their names, help and labels, registered once
//! in one registry ([`Metrics::new`]), and the label tables the recording
//! functions in `mod.rs` index into.

use mazerace_protocol::close;
use mazerace_protocol::messages::Phase;
use mazerace_protocol::Reject;
use prometheus::{
    Histogram, HistogramOpts, IntCounter, IntCounterVec, IntGauge, IntGaugeVec, Opts, Registry,
};

/// Why a socket was turned away at accept, before any HTTP was read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Its address already holds `--max-conns-per-addr` sockets.
    PerAddress,
    /// The server holds as many sockets as it may (connection limit and reserve).
    Full,
    /// The violation penalty refuses its address's upgrades now (`edge::penalty`).
    Penalty,
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

pub(super) const PEER_LEFT: [(PeerLeft, &str); 4] = [
    (PeerLeft::CloseFrame, "close_frame"),
    (PeerLeft::Eof, "eof"),
    (PeerLeft::Reset, "reset"),
    (PeerLeft::Error, "error"),
];

/// Close codes with a series of their own; any other is counted as `other`.
pub(super) const CLOSE_CODES: [(u16, &str); 12] = [
    (close::NORMAL, "normal"),
    (close::GOING_AWAY, "shutdown"),
    (close::PROTOCOL_ERROR, "protocol_error"),
    (close::INVALID_DATA, "invalid_data"),
    (close::POLICY, "flood"),
    (close::TOO_BIG, "too_big"),
    (close::SERVER_ERROR, "server_error"),
    (close::TRY_LATER, "server_full"),
    (close::HELLO_TIMEOUT, "hello_timeout"),
    (close::IDLE_TIMEOUT, "idle_timeout"),
    (close::TOO_SLOW, "too_slow"),
    (close::TAKEN_OVER, "taken_over"),
];

/// A budget per network address whose refusals are counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Budget {
    /// Room joins (`--room-joins`): by code, by invite link, through `replaces`.
    RoomJoins,
    /// League joins (`--league-joins`), socket and HTTP alike.
    LeagueJoins,
}

pub(super) const BUDGETS: [(Budget, &str); 2] =
    [(Budget::RoomJoins, "room_joins"), (Budget::LeagueJoins, "league_joins")];

/// Why a name was refused (`names::validate`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameRefusal {
    /// Nothing visible: empty, white space, invisible, marks, format or
    /// unassigned characters alone.
    Blank,
    /// Over the length limit.
    TooLong,
    /// A control, line or bidi control character.
    Control,
    /// A character with no agreed picture (private use, noncharacter, placeholder).
    NoPicture,
}

pub(super) const NAME_REFUSALS: [(NameRefusal, &str); 4] = [
    (NameRefusal::Blank, "blank"),
    (NameRefusal::TooLong, "too_long"),
    (NameRefusal::Control, "control"),
    (NameRefusal::NoPicture, "no_picture"),
];

pub(super) const REJECTS: [(Reject, &str); 5] = [
    (Reject::Wall, "wall"),
    (Reject::GateClosed, "gate_closed"),
    (Reject::GameOver, "game_over"),
    (Reject::RewindUsed, "rewind_used"),
    (Reject::NoRewind, "no_rewind"),
];

pub(super) const PHASES: [(Phase, &str); 5] = [
    (Phase::Lobby, "lobby"),
    (Phase::Countdown, "countdown"),
    (Phase::Racing, "racing"),
    (Phase::Results, "results"),
    (Phase::Intermission, "intermission"),
];

pub(super) struct Metrics {
    pub(super) registry: Registry,
    pub(super) sockets_http: IntGauge,
    pub(super) sockets_ws: IntGauge,
    pub(super) accepted: IntCounter,
    pub(super) refused_per_addr: IntCounter,
    pub(super) refused_full: IntCounter,
    pub(super) refused_penalty: IntCounter,
    pub(super) evicted: IntCounter,
    pub(super) head_timeouts: IntCounter,
    pub(super) heads_smuggling: IntCounter,
    pub(super) heads_malformed: IntCounter,
    pub(super) api_refused: IntCounter,
    pub(super) replays_not_modified: IntCounter,
    pub(super) accept_errors: IntCounter,
    pub(super) closed: [IntCounter; CLOSE_CODES.len()],
    pub(super) closed_other: IntCounter,
    pub(super) left: [IntCounter; PEER_LEFT.len()],
    pub(super) upgrades_delayed: IntCounter,
    pub(super) upgrades_refused: IntCounter,
    pub(super) takeovers_allowed: IntCounter,
    pub(super) takeovers_penalised: IntCounter,
    pub(super) progress_sent: IntCounter,
    pub(super) progress_coalesced: IntCounter,
    pub(super) log_lines_dropped: IntCounter,
    pub(super) frames_too_large: IntCounter,
    pub(super) joins_failed: IntCounter,
    pub(super) moves_answered: IntCounter,
    pub(super) moves_accepted: IntCounter,
    pub(super) moves_rejected: [IntCounter; REJECTS.len()],
    pub(super) moves_not_racing: IntCounter,
    pub(super) ack_latency: Histogram,
    pub(super) rooms: [IntGauge; PHASES.len()],
    pub(super) races_started: IntCounter,
    pub(super) races_finished: IntCounter,
    pub(super) daily_starts: IntCounter,
    pub(super) daily_finishes: IntCounter,
    pub(super) store_queue: IntGauge,
    pub(super) store_commit: Histogram,
    pub(super) budget_refusals: [IntCounter; BUDGETS.len()],
    pub(super) names_refused: [IntCounter; NAME_REFUSALS.len()],
    pub(super) league_codes_changed: IntCounter,
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
    pub(super) fn new() -> Metrics {
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
        let heads = counters(
            &r,
            "mazerace_http_heads_refused_total",
            "Request heads answered 400 before any route: smuggling (both framing headers), malformed",
            &["reason"],
        );
        let penalised = counters(
            &r,
            "mazerace_upgrades_penalised_total",
            "Upgrades from an address with violations: delayed, or refused (429)",
            &["outcome"],
        );
        let takeovers = counters(
            &r,
            "mazerace_session_takeovers_total",
            "Live sessions taken over by another connection: allowed, or penalised (past the address's budget)",
            &["outcome"],
        );
        let rejected =
            counters(&r, "mazerace_moves_rejected_total", "Moves and rewinds refused", &["reason"]);
        let rooms = gauges(&r, "mazerace_rooms", "Open rooms by phase", &["phase"]);
        let budgets = counters(
            &r,
            "mazerace_budget_refusals_total",
            "Requests refused because their address spent a budget (room_joins, league_joins)",
            &["budget"],
        );
        let names =
            counters(&r, "mazerace_names_refused_total", "Names refused (bad_name), by why", &["reason"]);
        Metrics {
            sockets_http: conns.with_label_values(&["http"]),
            sockets_ws: conns.with_label_values(&["websocket"]),
            accepted: counter(&r, "mazerace_sockets_accepted_total", "Sockets accepted, upgraded or not"),
            refused_per_addr: refused.with_label_values(&["per_address"]),
            refused_full: refused.with_label_values(&["full"]),
            refused_penalty: refused.with_label_values(&["penalty"]),
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
            heads_smuggling: heads.with_label_values(&["smuggling"]),
            heads_malformed: heads.with_label_values(&["malformed"]),
            api_refused: counter(
                &r,
                "mazerace_api_requests_refused_total",
                "/api/* requests over their address's budget, answered 429",
            ),
            replays_not_modified: counter(
                &r,
                "mazerace_replays_not_modified_total",
                "Replays asked for with their ETag, answered 304 without a store read",
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
            takeovers_allowed: takeovers.with_label_values(&["allowed"]),
            takeovers_penalised: takeovers.with_label_values(&["penalised"]),
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
            frames_too_large: counter(
                &r,
                "mazerace_frames_too_large_total",
                "Server messages larger than a socket can take: not sent, that one socket closed (1011)",
            ),
            joins_failed: counter(
                &r,
                "mazerace_joins_failed_total",
                "Joins that reached no room (unknown, wrong key, another node's or an old code without its key)",
            ),
            moves_answered: counter(
                &r,
                "mazerace_room_moves_answered_total",
                "Old codes answered room_moved (the old key brought)",
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
            budget_refusals: BUDGETS.map(|(_, name)| budgets.with_label_values(&[name])),
            names_refused: NAME_REFUSALS.map(|(_, why)| names.with_label_values(&[why])),
            league_codes_changed: counter(
                &r,
                "mazerace_league_codes_changed_total",
                "League codes changed by their owners (the old code and link stop working)",
            ),
            registry: r,
        }
    }
}
