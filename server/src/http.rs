//! The HTTP side of the one port: the web client's files (`/`, `/r/{code}`
//! and the rest of `client-web/public/`), `GET /healthz`, the lobby helpers
//! `GET /api/qr.svg?text=...` and `GET /api/urls`, and the upgrade to a
//! WebSocket at `/ws` with the socket settings for many players.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::ws::WebSocketUpgrade;
use axum::extract::{ConnectInfo, Path, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde::Deserialize;

use crate::assets;
use crate::net::Urls;
use crate::server::Shared;

/// Longest text `/api/qr.svg` encodes (a room link is far shorter).
const QR_MAX: usize = 512;

pub fn router(shared: Arc<Shared>) -> Router {
    Router::new()
        .route("/", get(index))
        .route("/r/{code}", get(room_page))
        .route("/healthz", get(healthz))
        .route("/ws", get(ws))
        .route("/api/qr.svg", get(qr_svg))
        .route("/api/urls", get(urls))
        .fallback(get(static_file))
        .with_state(shared)
}

async fn index(headers: HeaderMap) -> Response {
    assets::serve("index.html", &headers)
}

/// A shared room link opens the client, which reads the code from the path.
async fn room_page(Path(_code): Path<String>, headers: HeaderMap) -> Response {
    assets::serve("index.html", &headers)
}

async fn static_file(uri: axum::http::Uri, headers: HeaderMap) -> Response {
    assets::serve(uri.path().trim_start_matches('/'), &headers)
}

async fn healthz(State(shared): State<Arc<Shared>>) -> Response {
    let body = serde_json::json!({
        "status": "ok",
        "rooms": shared.rooms.len(),
        "sessions": shared.sessions.len(),
    });
    Json(body).into_response()
}

async fn urls(State(shared): State<Arc<Shared>>) -> Response {
    match shared.urls.get() {
        Some(u) => Json(u.clone()).into_response(),
        None => Json(Urls { local: String::new(), lan: Vec::new() }).into_response(),
    }
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
    State(shared): State<Arc<Shared>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    upgrade: WebSocketUpgrade,
) -> Response {
    let cfg = &shared.config;
    // Counted from the handshake on, so shutdown waits for this socket even
    // if it is still being upgraded.
    let alive = shared.tracker.token();
    let shared2 = Arc::clone(&shared);
    upgrade
        // 4 KiB read buffer: tungstenite's 128 KiB default costs ~130 KiB of
        // memory per idle connection.
        .read_buffer_size(4096)
        // Frames are gathered up to this size before a write, then flushed
        // once per batch by the writer task ...
        .write_buffer_size(4096)
        // ... and a client that stops reading cannot grow it past this.
        .max_write_buffer_size(cfg.write_buffer_max)
        .max_message_size(cfg.max_message_bytes)
        .max_frame_size(cfg.max_message_bytes)
        .on_failed_upgrade(|e| tracing::debug!(error = %e, "websocket upgrade failed"))
        .on_upgrade(move |socket| crate::conn::run(shared2, socket, peer, alive))
}
