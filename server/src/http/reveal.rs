//! The daily challenge's fairness routes (issue 15), merged into the main
//! router by `http.rs`: `GET /api/daily/commitments` (SHA-256 commitments to
//! today's and the next 7 days' seeds) and `GET /api/daily/{date}/reveal`
//! (a past day's seeds, nonces and commitments; 403 until the day is over).
//! The leagues' routes join them in `leagues.rs`.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};

use mazerace_protocol::daily::DailyDate;

use super::HttpEnv;
use super::{api_error, not_configured};
use crate::daily::RevealAnswer;

/// The routes, on the main router's state.
pub fn routes() -> Router<Arc<HttpEnv>> {
    Router::new()
        .route("/api/daily/commitments", get(commitments))
        .route("/api/daily/{date}/reveal", get(reveal))
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
