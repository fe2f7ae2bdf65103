//! The HTTP side of the one port: the web client's files (`/`, `/r/{code}`
//! and the rest of `client-web/public/`), `GET /healthz`, the lobby helpers
//! `GET /api/qr.svg?text=...` and `GET /api/urls`, the daily challenge's
//! routes (`daily.rs`, `leagues.rs`: thin handlers calling into
//! [`crate::daily`]), and the upgrade to a WebSocket at `/ws` with the
//! socket settings for many players.

mod daily;
mod leagues;

use std::net::SocketAddr;
use std::sync::{Arc, OnceLock};

use axum::extract::ws::WebSocketUpgrade;
use axum::extract::{ConnectInfo, Extension, Path, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use futures_util::StreamExt;
use serde::Deserialize;
use tokio_util::task::TaskTracker;

use crate::assets;
use crate::config::{Config, WRITE_BUFFER_BYTES};
use crate::conn::ConnEnv;
use crate::daily::DailyHook;
use crate::gate::{SockCtl, SOCKET};
use crate::limits::JoinLimiter;
use crate::net::Urls;
use crate::proxy::TrustedProxies;

/// What the HTTP routes are given: the connections' environment (to hand
/// each upgraded socket over, and for the counts in `/healthz`), the daily
/// hook, the failed-join limiter the league joins share with the socket's
/// room joins, the URLs to show, and the upgrade's socket settings.
pub struct HttpEnv {
    pub conn: Arc<ConnEnv>,
    pub daily: Option<Arc<dyn DailyHook>>,
    pub joins: Arc<JoinLimiter>,
    /// Set once the listener is bound.
    pub urls: Arc<OnceLock<Urls>>,
    pub upgrade: UpgradeLimits,
    /// Counts each socket from its handshake on, so shutdown waits for it.
    pub tracker: TaskTracker,
}

/// The settings of the upgrade to a WebSocket (see the config fields).
pub struct UpgradeLimits {
    pub trusted_proxies: TrustedProxies,
    pub read_buffer_bytes: usize,
    pub write_buffer_max: usize,
    pub max_message_bytes: usize,
}

impl UpgradeLimits {
    pub fn new(cfg: &Config) -> Self {
        UpgradeLimits {
            trusted_proxies: cfg.trusted_proxies.clone(),
            read_buffer_bytes: cfg.read_buffer_bytes,
            write_buffer_max: cfg.write_buffer_max,
            max_message_bytes: cfg.max_message_bytes,
        }
    }
}

/// Longest text `/api/qr.svg` encodes (a room link is far shorter).
const QR_MAX: usize = 512;

pub fn router(env: Arc<HttpEnv>) -> Router {
    Router::new()
        .route("/", get(index))
        .route("/r/{code}", get(room_page))
        .route("/healthz", get(healthz))
        .route("/ws", get(ws))
        .route("/api/qr.svg", get(qr_svg))
        .route("/api/urls", get(urls))
        .merge(daily::routes())
        .merge(leagues::routes())
        .fallback(get(static_file))
        .with_state(env)
}

async fn index(headers: HeaderMap) -> Response {
    assets::serve("index.html", &headers)
}

/// A env room link opens the client, which reads the code from the path.
async fn room_page(Path(_code): Path<String>, headers: HeaderMap) -> Response {
    assets::serve("index.html", &headers)
}

async fn static_file(uri: axum::http::Uri, headers: HeaderMap) -> Response {
    assets::serve(uri.path().trim_start_matches('/'), &headers)
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
        None => Json(Urls { local: String::new(), lan: Vec::new() }).into_response(),
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
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    Extension(sock): Extension<SockCtl>,
    headers: HeaderMap,
    upgrade: WebSocketUpgrade,
) -> Response {
    let cfg = &env.upgrade;
    // The real client behind a trusted load balancer (`--trusted-proxy`).
    let peer = cfg.trusted_proxies.client_addr(peer, &headers);
    // Counted from the handshake on, so shutdown waits for this socket even
    // if it is still being upgraded.
    let alive = env.tracker.token();
    let conn = Arc::clone(&env.conn);
    upgrade
        // Small: it is paid per connected player (see the config field).
        .read_buffer_size(cfg.read_buffer_bytes)
        // Frames gathered before a write (see the constant) ...
        .write_buffer_size(WRITE_BUFFER_BYTES)
        // ... and a client that stops reading cannot grow it past this.
        .max_write_buffer_size(cfg.write_buffer_max)
        .max_message_size(cfg.max_message_bytes)
        .max_frame_size(cfg.max_message_bytes)
        .on_failed_upgrade(|e| tracing::debug!(error = %e, "websocket upgrade failed"))
        .on_upgrade(move |socket| {
            // A player now: no longer evicted, counted as a WebSocket; the
            // outbox finds its socket through SOCKET (see `gate`).
            sock.upgraded();
            SOCKET.scope(sock, crate::conn::run(conn, socket.split(), peer, alive))
        })
}
