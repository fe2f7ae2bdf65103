//! The web client's files. `rust-embed` reads `client-web/public/` from disk
//! in debug builds (edit, reload) and embeds it in release builds, so the
//! single release binary runs anywhere.

use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

#[derive(rust_embed::RustEmbed)]
#[folder = "../client-web/public/"]
struct Public;

/// `path` relative to the public folder (`index.html`, `js/app.js` ...),
/// with its content type and an ETag; 404 when there is no such file.
pub fn serve(path: &str, req_headers: &HeaderMap) -> Response {
    // Never look outside the folder, whatever rust-embed does in debug mode.
    if path.split('/').any(|seg| seg == ".." || seg.contains('\\')) || path.starts_with('/') {
        return StatusCode::NOT_FOUND.into_response();
    }
    let Some(file) = Public::get(path) else {
        return (StatusCode::NOT_FOUND, "not found").into_response();
    };
    let etag = format!("\"{}\"", hex::encode(&file.metadata.sha256_hash()[..16]));
    let mut headers = HeaderMap::new();
    let mime = file.metadata.mimetype();
    let textual = mime.starts_with("text/") || mime.ends_with("javascript") || mime.ends_with("json");
    let mime =
        if textual && !mime.contains("charset") { format!("{mime}; charset=utf-8") } else { mime.to_owned() };
    if let Ok(v) = HeaderValue::from_str(&mime) {
        headers.insert(header::CONTENT_TYPE, v);
    }
    // Revalidate every time: the client is small and must match the server.
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    if let Ok(v) = HeaderValue::from_str(&etag) {
        headers.insert(header::ETAG, v);
    }
    if req_headers.get(header::IF_NONE_MATCH).and_then(|v| v.to_str().ok()) == Some(etag.as_str()) {
        return (StatusCode::NOT_MODIFIED, headers).into_response();
    }
    (headers, file.data.into_owned()).into_response()
}
