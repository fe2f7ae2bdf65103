//! `GET /api/rooms/{code}?k=KEY`: what an invite link's card shows before
//! the visitor joins (game, size, phase, host, who is in). Only with the
//! room's key: the link's holder was invited, anyone else learns nothing,
//! not even whether the code exists (the same 404 either way), and each
//! such miss costs the address a failed join, as a guessed code does on the
//! socket. A room that moved to another node answers its old key's holder
//! with where it went.

use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde::Deserialize;

use super::{api_error, HttpEnv};
use crate::edge::ClientAddr;

pub fn routes() -> Router<Arc<HttpEnv>> {
    Router::new().route("/api/rooms/{code}", get(preview))
}

#[derive(Deserialize)]
struct KeyQuery {
    k: Option<String>,
}

/// Longer than any room code: not looked up.
const CODE_MAX: usize = 12;

async fn preview(
    State(env): State<Arc<HttpEnv>>,
    ClientAddr(peer): ClientAddr,
    Path(code): Path<String>,
    Query(q): Query<KeyQuery>,
) -> Response {
    let code = code.trim().to_ascii_uppercase();
    let room = (code.len() <= CODE_MAX).then(|| env.conn.room(&code)).flatten();
    // The key holder is never refused (as a keyed join on the socket).
    let invited = room.filter(|r| q.k.as_deref().is_some_and(|k| r.key_is(k)));
    if let Some(room) = invited {
        if let Some(p) = room.preview().await {
            return Json(p).into_response();
        }
    }
    // A room that moved off a draining node: its old link's holder (the old
    // key) learns where it went, as `join_room` with it would
    // (`{"moved":{"code":..,"key":..}}`; the card asks again there).
    // The same lookup as a socket's join, bounded by the same budget.
    let ip = peer.ip();
    if let Some(k) = q.k.as_deref() {
        if let Some(to) = env.conn.lobby().where_moved(&code, k, ip).await {
            return Json(serde_json::json!({ "moved": to })).into_response();
        }
    }
    if !env.joins.allowed(ip) {
        return api_error(StatusCode::TOO_MANY_REQUESTS, "too many failed joins; wait a minute");
    }
    env.joins.failed(ip);
    crate::metrics::join_failed();
    api_error(StatusCode::NOT_FOUND, "no such room")
}
