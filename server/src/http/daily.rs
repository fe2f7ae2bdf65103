//! The daily challenge's HTTP routes, merged into the main router: `GET
//! /api/daily` (today's boards, and with a token the player's day), `GET
//! /api/daily/{date}/{game}/{size}` (a board's table), `GET
//! /api/daily/runs/{id}` (a stored run for the replay view; a past day's
//! ended run with an ETag, answered 304 from it), `GET
//! /api/daily/commitments` and `GET /api/daily/{date}/reveal` (the
//! commit-reveal of the seeds). Thin: each parses its request (dates once,
//! here), calls the daily hook and answers; a [`DailyError`] becomes its
//! status in one place ([`DailyError::http`]). The leagues' routes are in
//! `leagues.rs`.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};

use mazerace_protocol::daily::DailyDate;
use mazerace_protocol::Size;

use super::{api_error, bearer, HttpEnv};
use crate::daily::{BoardQuery, DailyError, QueryError, Replay, RevealAnswer};

/// The routes, on the main router's state.
pub fn routes() -> Router<Arc<HttpEnv>> {
    Router::new()
        .route("/api/daily", get(today))
        .route("/api/daily/runs/{id}", get(replay))
        .route("/api/daily/commitments", get(commitments))
        .route("/api/daily/{date}/reveal", get(reveal))
        .route("/api/daily/{date}/{game}/{size}", get(table))
}

/// A daily error as HTTP, about `what`.
pub(crate) fn failed(e: &DailyError, what: &str) -> Response {
    let (status, message) = e.http(what);
    api_error(status, message)
}

/// The answer without a daily store.
fn not_configured() -> Response {
    failed(&DailyError::NotConfigured, "the daily challenge")
}

/// Today's boards (no seeds: the board is seen by playing it) and the time
/// to the next day; `Authorization: Bearer <token>` adds `you` (PROTOCOL.md).
async fn today(State(env): State<Arc<HttpEnv>>, headers: HeaderMap) -> Response {
    let Some(hook) = env.daily.clone() else { return not_configured() };
    let day = hook.schedule();
    let boards: Vec<_> =
        Size::ALL.iter().map(|s| serde_json::json!({ "game": s.game(), "size": s })).collect();
    let mut body = serde_json::json!({ "date": day.date, "next_in_ms": day.next_in_ms, "boards": boards });
    // With the player's token: how their day went on every board, and their streak.
    if let Some(token) = bearer(&headers) {
        match hook.player_day(token).await {
            Ok(Some(you)) => body["you"] = serde_json::to_value(you).unwrap_or_default(),
            Ok(None) => {}
            Err(e) => return failed(&e, "the daily challenge"),
        }
    }
    Json(body).into_response()
}

/// One board's table, past days included; `Authorization: Bearer <token>` adds `you`.
async fn table(
    State(env): State<Arc<HttpEnv>>,
    Path((date, game, size)): Path<(String, String, String)>,
    headers: HeaderMap,
) -> Response {
    let Some(hook) = env.daily.clone() else { return not_configured() };
    let query = match BoardQuery::parse(&date, &game, &size) {
        Ok(q) => q,
        Err(e @ QueryError::BadDate(_)) => return api_error(StatusCode::BAD_REQUEST, e.to_string()),
        Err(e) => return api_error(StatusCode::NOT_FOUND, e.to_string()),
    };
    match hook.leaderboard(query, bearer(&headers)).await {
        Ok(table) => Json(table).into_response(),
        Err(e) => failed(&e, "the leaderboard"),
    }
}

/// How long a client may keep a settled replay without asking again; then
/// it asks with its ETag and gets a 304.
const SETTLED_MAX_AGE: &str = "public, max-age=86400";

/// The ETag of run `id`'s settled replay. Only a settled answer (its day
/// over, the run ended) ever carries it, and such an answer never changes,
/// so a request that brings it back has the current answer already: it is
/// answered 304 without reading the store. The server's version is in it,
/// so a server whose replay JSON differs does not take an old copy for its
/// own. (A made-up one gets a 304 with no body: nothing learned.)
fn replay_etag(id: i64) -> String {
    format!("\"run-{id}-{}\"", env!("CARGO_PKG_VERSION"))
}

/// Whether `If-None-Match` names `etag` (a list, weak or strong).
fn names_etag(headers: &HeaderMap, etag: &str) -> bool {
    headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|list| list.split(',').map(|t| t.trim()).any(|t| t.strip_prefix("W/").unwrap_or(t) == etag))
}

/// A stored run for the replay view, with its board; today's runs stay
/// hidden (spoilers) except from the player who made them. A settled run
/// (a past day's, ended) comes with an ETag and may be cached.
async fn replay(State(env): State<Arc<HttpEnv>>, Path(id): Path<String>, headers: HeaderMap) -> Response {
    let Some(hook) = env.daily.clone() else { return not_configured() };
    let Ok(id) = id.parse::<i64>() else {
        return api_error(StatusCode::NOT_FOUND, "no such run");
    };
    let etag = replay_etag(id);
    if names_etag(&headers, &etag) {
        crate::metrics::replay_not_modified();
        return (
            StatusCode::NOT_MODIFIED,
            [(header::ETAG, etag.as_str()), (header::CACHE_CONTROL, SETTLED_MAX_AGE)],
        )
            .into_response();
    }
    match hook.replay(id, bearer(&headers)).await {
        Ok(Replay::Run { body, settled: true }) => {
            ([(header::ETAG, etag.as_str()), (header::CACHE_CONTROL, SETTLED_MAX_AGE)], Json(body))
                .into_response()
        }
        Ok(Replay::Run { body, settled: false }) => Json(body).into_response(),
        Ok(Replay::NotFound) => api_error(StatusCode::NOT_FOUND, "no such run"),
        Ok(Replay::Hidden) => {
            api_error(StatusCode::FORBIDDEN, "runs on today's boards are shown from tomorrow (no spoilers)")
        }
        Err(e) => failed(&e, "the run"),
    }
}

async fn commitments(State(env): State<Arc<HttpEnv>>) -> Response {
    match env.daily.as_ref().and_then(|h| h.commitments()) {
        Some(c) => Json(c).into_response(),
        None => not_configured(),
    }
}

async fn reveal(State(env): State<Arc<HttpEnv>>, Path(date): Path<String>) -> Response {
    let Some(hook) = env.daily.clone() else { return not_configured() };
    let date = match date.parse::<DailyDate>() {
        Ok(d) => d,
        Err(e) => return api_error(StatusCode::BAD_REQUEST, e.to_string()),
    };
    match hook.reveal(date) {
        RevealAnswer::Revealed(r) => Json(r).into_response(),
        RevealAnswer::NotYet => {
            api_error(StatusCode::FORBIDDEN, "a day's seeds are revealed once the day is over (00:00 UTC)")
        }
        RevealAnswer::Unavailable => not_configured(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn if_none_match_names_the_etag_in_a_list_weak_or_strong() {
        let etag = replay_etag(17);
        assert!(etag.starts_with("\"run-17-") && etag.ends_with('"'), "{etag}");
        assert_ne!(etag, replay_etag(171));
        let with = |v: &str| {
            let mut h = HeaderMap::new();
            h.insert(header::IF_NONE_MATCH, v.parse().unwrap());
            names_etag(&h, &etag)
        };
        assert!(with(&etag));
        assert!(with(&format!("\"x\", W/{etag}")));
        assert!(!with(&replay_etag(171)));
        assert!(!with("*"), "any: the run is not known to be settled without the store");
        assert!(!names_etag(&HeaderMap::new(), &etag));
    }
}
