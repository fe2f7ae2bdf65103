//! The HTTP side of a drain (`crate::drain`): while the node drains, every
//! request that names no room is answered 503 "draining", so a load
//! balancer (deploy/nginx.conf: `proxy_next_upstream ... http_503`) sends it
//! to another node and new players never see the drain. `/healthz` answers
//! the same, which takes the node out of a checking balancer's rotation.
//!
//! Still served while draining: what a player of a room here needs, namely
//! `/ws?room=CODE` (a resume or a join), `/r/CODE`, `/tv/CODE`, `/api/rooms/CODE`, and
//! the client's static files (the same on every node; a room page loads
//! them from the node it came from).

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::HttpEnv;

/// Seconds a client is told to wait (only a client that reached a
/// draining node directly sees it).
const RETRY_AFTER: &str = "5";

/// The middleware: a room-less request while draining gets [`draining`].
pub async fn refuse_roomless(State(env): State<Arc<HttpEnv>>, req: Request, next: Next) -> Response {
    if env.drain.is_draining() && !kept_while_draining(req.uri()) {
        return draining();
    }
    next.run(req).await
}

/// 503 "draining".
pub fn draining() -> Response {
    (StatusCode::SERVICE_UNAVAILABLE, [(header::RETRY_AFTER, RETRY_AFTER)], "draining").into_response()
}

/// Whether a request for `uri` is still served by a draining node (see the
/// module header).
fn kept_while_draining(uri: &axum::http::Uri) -> bool {
    let path = uri.path();
    match path {
        "/" | "/index.html" | "/healthz" => false,
        "/ws" => names_a_room(uri.query()),
        _ if path.starts_with("/api/") => path.starts_with("/api/rooms/"),
        // `/r/CODE`, `/tv/CODE` and the static files.
        _ => true,
    }
}

/// `room=CODE` (not empty) in a query string.
fn names_a_room(query: Option<&str>) -> bool {
    query.unwrap_or("").split('&').any(|p| p.strip_prefix("room=").is_some_and(|code| !code.is_empty()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_requests_that_name_a_room_or_a_file_are_kept() {
        let kept = |u: &str| kept_while_draining(&u.parse().expect("a uri"));
        for u in [
            "/ws?room=BK7M2",
            "/ws?x=1&room=bk7m2",
            "/r/BK7M2",
            "/tv/BK7M2",
            "/api/rooms/BK7M2?k=K",
            "/js/app.js",
        ] {
            assert!(kept(u), "{u}");
        }
        for u in
            ["/", "/index.html", "/healthz", "/ws", "/ws?room=", "/ws?rooms=X", "/api/daily", "/api/urls"]
        {
            assert!(!kept(u), "{u}");
        }
    }
}
