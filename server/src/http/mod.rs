//! The HTTP side of the one port: the web client's files (`/`, `/r/{code}`
//! and the rest of `client-web/public/`), `GET /healthz`, the lobby helpers
//! `GET /api/qr.svg?text=...` and `GET /api/urls`, the daily challenge's
//! routes (`daily.rs`, `leagues.rs`: thin handlers calling into
//! [`crate::daily`]), an invite's room preview (`GET /api/rooms/{code}?k=KEY`),
//! and the upgrade to a WebSocket at `/ws`. While the node drains, the
//! requests that name no room are refused with 503 (`drain.rs`); every
//! `/api/*` request spends its address's API budget (`budget.rs`).

mod budget;
mod daily;
mod drain;
mod leagues;
mod rooms;

use std::sync::{Arc, OnceLock};

use axum::extract::{Extension, Path, Query, Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde::Deserialize;
use tokio_tungstenite::tungstenite::handshake::server::create_response_with_body;
use tokio_util::task::TaskTracker;

pub use budget::ApiBudget;

use crate::assets;
use crate::conn::ConnEnv;
use crate::daily::DailyHook;
use crate::edge::limits::JoinLimiter;
use crate::edge::net::Urls;
use crate::edge::penalty::{Penalties, Turn};
use crate::edge::{ClientAddr, SockCtl};

/// What the HTTP routes are given: the connections' environment (to hand
/// each upgraded socket over, and for the counts in `/healthz`), the daily
/// hook, the failed-join limiter the league lookups share with the socket's
/// room and league joins, the league-join budget shared with the socket's
/// `join_league`, the `/api/*` budget, the violation penalty the upgrade
/// waits on, and the URLs to show.
pub struct HttpEnv {
    pub conn: Arc<ConnEnv>,
    pub daily: Option<Arc<dyn DailyHook>>,
    pub joins: Arc<JoinLimiter>,
    pub league_joins: Arc<JoinLimiter>,
    /// Requests to `/api/*` per address (`--api-burst`, `--api-per-sec`).
    pub api: ApiBudget,
    pub penalties: Arc<Penalties>,
    /// Set once the listener is bound.
    pub urls: Arc<OnceLock<Urls>>,
    /// Counts each socket from its handshake on, so shutdown waits for it.
    pub tracker: TaskTracker,
    /// While draining, room-less requests get 503 (`drain.rs`).
    pub drain: Arc<crate::drain::Drain>,
}

/// Longest text `/api/qr.svg` encodes (a room link is far shorter).
const QR_MAX: usize = 512;

pub fn router(env: Arc<HttpEnv>) -> Router {
    Router::new()
        .route("/", get(index))
        .route("/r/{code}", get(room_page))
        // A room shown on a big screen (a TV's browser): the same page.
        .route("/tv/{code}", get(room_page))
        .route("/healthz", get(healthz))
        .route("/ws", get(ws))
        .route("/api/qr.svg", get(qr_svg))
        .route("/api/urls", get(urls))
        .merge(daily::routes())
        .merge(leagues::routes())
        .merge(rooms::routes())
        .fallback(get(static_file))
        .layer(axum::middleware::from_fn_with_state(Arc::clone(&env), budget::limit))
        .layer(axum::middleware::from_fn_with_state(Arc::clone(&env), drain::refuse_roomless))
        .with_state(env)
}

async fn index(headers: HeaderMap) -> Response {
    assets::serve("index.html", &headers).await
}

/// A env room link opens the client, which reads the code from the path.
async fn room_page(Path(_code): Path<String>, headers: HeaderMap) -> Response {
    assets::serve("index.html", &headers).await
}

async fn static_file(uri: axum::http::Uri, headers: HeaderMap) -> Response {
    assets::serve(uri.path().trim_start_matches('/'), &headers).await
}

async fn healthz(State(env): State<Arc<HttpEnv>>) -> Response {
    let mut body = serde_json::json!({
        "status": "ok",
        "rooms": env.conn.room_count(),
        "sessions": env.conn.session_count(),
    });
    // Rooms and races go on without the database, so this stays 200: the
    // field tells a monitor (not a load balancer) that the daily is down.
    if let Some(hook) = env.daily.clone() {
        let wait = std::time::Duration::from_secs(2);
        let up = matches!(tokio::time::timeout(wait, hook.ping()).await, Ok(Ok(())));
        body["database"] = (if up { "ok" } else { "unreachable" }).into();
    }
    Json(body).into_response()
}

async fn urls(State(env): State<Arc<HttpEnv>>) -> Response {
    match env.urls.get() {
        Some(u) => Json(u.clone()).into_response(),
        None => Json(Urls { local: String::new(), lan: Vec::new(), public: None }).into_response(),
    }
}

/// A JSON error body with a status.
pub(crate) fn api_error(status: StatusCode, message: impl Into<String>) -> Response {
    (status, Json(serde_json::json!({ "error": message.into() }))).into_response()
}

/// The player's token from `Authorization: Bearer <token>`, if sent.
pub(crate) fn bearer(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    // An empty token is no token.
    value.strip_prefix("Bearer ").map(str::to_owned).filter(|t| !t.is_empty())
}

#[derive(Deserialize)]
struct QrQuery {
    text: String,
}

async fn qr_svg(Query(q): Query<QrQuery>) -> Response {
    if q.text.is_empty() || q.text.len() > QR_MAX {
        return (StatusCode::BAD_REQUEST, "text must be 1 to 512 bytes").into_response();
    }
    let Ok(code) = qrcode::QrCode::new(q.text.as_bytes()) else {
        return (StatusCode::BAD_REQUEST, "text does not fit in a QR code").into_response();
    };
    let svg =
        code.render::<qrcode::render::svg::Color<'_>>().min_dimensions(200, 200).quiet_zone(true).build();
    ([(header::CONTENT_TYPE, "image/svg+xml"), (header::CACHE_CONTROL, "max-age=3600")], svg).into_response()
}

async fn ws(
    State(env): State<Arc<HttpEnv>>,
    ClientAddr(peer): ClientAddr,
    Extension(sock): Extension<SockCtl>,
    mut req: Request,
) -> Response {
    // The handshake's checks (a GET over HTTP/1.1, `Upgrade: websocket`,
    // version 13, a key) and its 101, as tungstenite makes them.
    let answer = match create_response_with_body(&req, axum::body::Body::empty) {
        Ok(answer) => answer,
        Err(e) => return api_error(StatusCode::BAD_REQUEST, format!("not a WebSocket upgrade: {e}")),
    };
    // An address whose connections broke the rules waits its turn first.
    match env.penalties.turn(peer.ip()) {
        Turn::Now => {}
        Turn::Wait(wait) => {
            crate::metrics::upgrade_penalised(false);
            tracing::debug!(%peer, ?wait, "upgrade delayed: this address's connections were closed for violations");
            tokio::time::sleep(wait).await;
        }
        Turn::Refuse(after) => {
            crate::metrics::upgrade_penalised(true);
            let retry = after.as_secs().max(1).to_string();
            let mut r =
                api_error(StatusCode::TOO_MANY_REQUESTS, "too many connections closed for violations; wait");
            if let Ok(v) = header::HeaderValue::from_str(&retry) {
                r.headers_mut().insert(header::RETRY_AFTER, v);
            }
            return r;
        }
    }
    // The connection's one task, tracked from now (so shutdown waits for it
    // while it is still being upgraded); it takes the socket once hyper has
    // written the 101 and handed it over.
    let upgrade = hyper::upgrade::on(&mut req);
    drop(req);
    env.tracker.spawn(crate::conn::upgraded(Arc::clone(&env.conn), upgrade, sock, peer));
    answer
}
