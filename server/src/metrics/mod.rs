//! Operator metrics: every series the server exports at `GET /metrics`
//! (Prometheus text format, on its own `--metrics-bind` listener), and one
//! named function per thing worth counting. docs/OPERATIONS.md's "Metrics" table
//! lists every series; `series.rs` defines them.
//!
//! Recording is meant for hot paths (a move, a frame): each function is one
//! relaxed atomic add on a handle made once, at first use, with its labels
//! already resolved. Nothing allocates, formats a label or takes a lock per
//! call. The series are process-wide (one registry), so an embedding
//! program running several servers sees their sum.

mod series;

use std::sync::LazyLock;
use std::time::Duration;

use mazerace_protocol::messages::Phase;
use mazerace_protocol::Reject;
use prometheus::{Encoder, IntGauge};

pub use series::{Budget, NameRefusal, PeerLeft, Refusal};
use series::{Metrics, BUDGETS, CLOSE_CODES, NAME_REFUSALS, PEER_LEFT, PHASES, REJECTS};

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

/// `mazerace_sockets_refused_total{reason="per_address"|"full"|"penalty"}`.
pub fn socket_refused(why: Refusal) {
    match why {
        Refusal::PerAddress => M.refused_per_addr.inc(),
        Refusal::Full => M.refused_full.inc(),
        Refusal::Penalty => M.refused_penalty.inc(),
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

/// `mazerace_http_heads_refused_total{reason="smuggling"|"malformed"}`: a
/// request head answered 400 before any route (`edge::strict`): both
/// framing headers or a handshake with a body, else a head that is not
/// well-formed (no Host, a bare LF, a bad `Sec-WebSocket-Key`).
pub fn head_refused(smuggling: bool) {
    if smuggling {
        M.heads_smuggling.inc();
    } else {
        M.heads_malformed.inc();
    }
}

/// `mazerace_api_requests_refused_total`: an `/api/*` request over its
/// address's budget, answered 429 (`http::budget`).
pub fn api_refused() {
    M.api_refused.inc();
}

/// `mazerace_replays_not_modified_total`: a replay asked for with its
/// ETag, answered 304 without reading the store.
pub fn replay_not_modified() {
    M.replays_not_modified.inc();
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

/// `mazerace_session_takeovers_total{outcome="allowed"|"penalised"}`: a
/// `hello` took a live session over from another connection (closed with
/// 4003); `penalised`: past its address's budget, counted as a violation.
pub fn session_takeover(penalised: bool) {
    if penalised {
        M.takeovers_penalised.inc();
    } else {
        M.takeovers_allowed.inc();
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

/// `mazerace_frames_too_large_total`: a message larger than a socket's
/// write limit, not sent; that socket is closed (`outbox.rs`).
pub fn frame_too_large() {
    M.frames_too_large.inc();
}

/// `mazerace_joins_failed_total`: a join that reached no room, counted
/// against its address's failed-join budget.
pub fn join_failed() {
    M.joins_failed.inc();
}

/// `mazerace_room_moves_answered_total`: an old code answered `room_moved`.
pub fn moved_answered() {
    M.moves_answered.inc();
}

/// `mazerace_progress_coalesced_total`.
pub fn progress_coalesced() {
    M.progress_coalesced.inc();
}

// ---- budgets per address, names (lobby, leagues) ----

/// `mazerace_budget_refusals_total{budget}`: a request refused because its
/// address spent that budget (`room_joins`, `league_joins`).
pub fn budget_refused(budget: Budget) {
    if let Some(i) = BUDGETS.iter().position(|(b, _)| *b == budget) {
        M.budget_refusals[i].inc();
    }
}

/// `mazerace_names_refused_total{reason}`: a player or league name refused
/// (`bad_name`), by why.
pub fn name_refused(why: NameRefusal) {
    if let Some(i) = NAME_REFUSALS.iter().position(|(r, _)| *r == why) {
        M.names_refused[i].inc();
    }
}

/// `mazerace_league_codes_changed_total`: an owner gave a league a new code.
pub fn league_code_changed() {
    M.league_codes_changed.inc();
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

/// `series` (with its labels, as rendered) now: for tests elsewhere that
/// check their refusal was counted. Series are process-wide and tests run
/// side by side, so check that it moved by at least what the test did.
#[cfg(test)]
pub(crate) fn read(series: &str) -> f64 {
    tests::value(&render(), series)
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn value(text: &str, series: &str) -> f64 {
        text.lines()
            .find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
            .unwrap_or_else(|| panic!("{series} not in\n{text}"))
    }

    #[test]
    fn every_function_moves_its_series() {
        let before = render();
        move_accepted();
        move_rejected(Reject::GateClosed);
        client_closed(mazerace_protocol::close::TOO_SLOW);
        client_closed(4999);
        peer_left(PeerLeft::Eof);
        upgrade_penalised(true);
        head_refused(true);
        socket_refused(Refusal::Penalty);
        session_takeover(true);
        api_refused();
        replay_not_modified();
        room_phase(None, Some(Phase::Lobby));
        room_phase(Some(Phase::Lobby), Some(Phase::Countdown));
        ack_latency(Duration::from_micros(30));
        store_queue_depth(7);
        frame_too_large();
        join_failed();
        moved_answered();
        budget_refused(Budget::LeagueJoins);
        name_refused(NameRefusal::Blank);
        league_code_changed();
        let after = render();
        for (series, by) in [
            ("mazerace_moves_accepted_total", 1.0),
            ("mazerace_moves_rejected_total{reason=\"gate_closed\"}", 1.0),
            ("mazerace_clients_closed_total{code=\"4002\",reason=\"too_slow\"}", 1.0),
            ("mazerace_clients_closed_total{code=\"other\",reason=\"other\"}", 1.0),
            ("mazerace_clients_left_total{how=\"eof\"}", 1.0),
            ("mazerace_upgrades_penalised_total{outcome=\"refused\"}", 1.0),
            ("mazerace_http_heads_refused_total{reason=\"smuggling\"}", 1.0),
            ("mazerace_sockets_refused_total{reason=\"penalty\"}", 1.0),
            ("mazerace_session_takeovers_total{outcome=\"penalised\"}", 1.0),
            ("mazerace_api_requests_refused_total", 1.0),
            ("mazerace_replays_not_modified_total", 1.0),
            ("mazerace_rooms{phase=\"countdown\"}", 1.0),
            ("mazerace_rooms{phase=\"lobby\"}", 0.0),
            ("mazerace_move_ack_seconds_bucket{le=\"0.00005\"}", 1.0),
            ("mazerace_move_ack_seconds_count", 1.0),
            ("mazerace_frames_too_large_total", 1.0),
            ("mazerace_joins_failed_total", 1.0),
            ("mazerace_room_moves_answered_total", 1.0),
            ("mazerace_budget_refusals_total{budget=\"league_joins\"}", 1.0),
            ("mazerace_names_refused_total{reason=\"blank\"}", 1.0),
            ("mazerace_league_codes_changed_total", 1.0),
        ] {
            assert!(value(&after, series) - value(&before, series) >= by, "{series}");
        }
        assert_eq!(value(&after, "mazerace_store_queue_depth"), 7.0);
        assert!(after.contains("# TYPE mazerace_move_ack_seconds histogram"));
    }
}
