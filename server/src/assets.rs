//! The web client's files. `rust-embed` reads `client-web/public/` from disk
//! in debug builds (edit, reload) and embeds it in release builds, so the
//! single release binary runs anywhere.
//!
//! Also the client's version, for offline play: a hash over every embedded
//! file, served as `GET /version.json` and filled into the service worker
//! (`sw.js`: its cache name and the list of files to cache) and into
//! `js/offline/version.js` (the page's own version), so a new server is a new
//! cache and a cached page can tell it is older than the server.

use std::sync::OnceLock;

use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

#[derive(rust_embed::RustEmbed)]
#[folder = "../client-web/public/"]
struct Public;

/// The files served with the version filled in, and the marks replaced.
const TEMPLATED: [&str; 2] = ["sw.js", "js/offline/version.js"];
const VERSION_MARK: &str = "__MAZERACE_VERSION__";
const FILES_MARK: &str = "[/*MAZERACE_FILES*/]";

/// The client's version: 16 hex digits of FNV-1a over the server's version
/// and every embedded file's path and SHA-256 (which rust-embed computes).
/// FNV only folds digests that are already strong, for a cache name; no
/// attacker chooses these files. Computed once in release builds; in debug
/// builds the files are read from disk and may change, so every time.
pub fn version() -> String {
    static VERSION: OnceLock<String> = OnceLock::new();
    if cfg!(debug_assertions) {
        return compute_version();
    }
    VERSION.get_or_init(compute_version).clone()
}

fn compute_version() -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |bytes: &[u8]| {
        for &b in bytes {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    };
    feed(env!("CARGO_PKG_VERSION").as_bytes());
    for path in paths() {
        feed(path.as_bytes());
        feed(&[0]);
        if let Some(f) = Public::get(&path) {
            feed(&f.metadata.sha256_hash());
        }
    }
    format!("{h:016x}")
}

/// Every embedded path, sorted (rust-embed's order is not promised).
fn paths() -> Vec<String> {
    let mut paths: Vec<String> = Public::iter().map(|p| p.into_owned()).collect();
    paths.sort();
    paths
}

/// `GET /version.json`: `{"version":"<hash>"}`, never cached.
fn version_json() -> Response {
    let body = serde_json::json!({ "version": version() }).to_string();
    let headers = [
        (header::CONTENT_TYPE, HeaderValue::from_static("application/json")),
        (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
    ];
    (headers, body).into_response()
}

/// A templated file's text with the version (and, in sw.js, the list of
/// files the service worker caches: every page and file but itself) filled in.
fn fill(path: &str, data: &[u8], version: &str) -> Vec<u8> {
    let text = String::from_utf8_lossy(data).replace(VERSION_MARK, version);
    if path != "sw.js" {
        return text.into_bytes();
    }
    let files: Vec<String> = std::iter::once("/".to_owned())
        .chain(paths().into_iter().filter(|p| p != "sw.js").map(|p| format!("/{p}")))
        .collect();
    text.replace(FILES_MARK, &serde_json::Value::from(files).to_string()).into_bytes()
}

/// `path` relative to the public folder (`index.html`, `js/app.js` ...),
/// with its content type and an ETag; 404 when there is no such file.
/// `version.json` is the client's version (see [`version`]).
pub fn serve(path: &str, req_headers: &HeaderMap) -> Response {
    // Never look outside the folder, whatever rust-embed does in debug mode.
    if path.split('/').any(|seg| seg == ".." || seg.contains('\\')) || path.starts_with('/') {
        return StatusCode::NOT_FOUND.into_response();
    }
    if path == "version.json" {
        return version_json();
    }
    let Some(file) = Public::get(path) else {
        return (StatusCode::NOT_FOUND, "not found").into_response();
    };
    let templated = TEMPLATED.contains(&path).then(version);
    let hash = hex::encode(&file.metadata.sha256_hash()[..16]);
    let etag = match &templated {
        Some(v) => format!("\"{hash}-{v}\""),
        None => format!("\"{hash}\""),
    };
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
    let body = match &templated {
        Some(v) => fill(path, &file.data, v),
        None => file.data.into_owned(),
    };
    (headers, body).into_response()
}
