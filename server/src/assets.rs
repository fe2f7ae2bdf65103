//! The web client's files. `rust-embed` reads `client-web/public/` from disk
//! in debug builds (edit, reload) and embeds it in release builds, so the
//! single release binary runs anywhere.
//!
//! Every textual file is compressed once, gzip and brotli, at the first
//! request for any file (never per request), and served by the request's
//! `Accept-Encoding` with `Vary: Accept-Encoding` and an ETag per encoding,
//! so a revalidation answers 304 whatever the encoding. Caching: `no-cache`
//! (revalidate every time) for all of them: the file names carry no hash,
//! so a longer lifetime would let a browser run an old module against a
//! new server.
//!
//! Also the client's version, for offline play: a hash over every embedded
//! file, served as `GET /version.json` and filled into the service worker
//! (`sw.js`: its cache name and the list of files to cache) and into
//! `js/offline/version.js` (the page's own version), so a new server is a new
//! cache and a cached page can tell it is older than the server.

use std::collections::HashMap;
use std::io::Write;
use std::sync::{Arc, Mutex, OnceLock};

use axum::body::Bytes;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use tokio::sync::OnceCell;

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

/// A content coding the server keeps a copy in, best first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Coding {
    Br,
    Gzip,
    Identity,
}

impl Coding {
    fn token(self) -> &'static str {
        match self {
            Coding::Br => "br",
            Coding::Gzip => "gzip",
            Coding::Identity => "identity",
        }
    }
}

/// One file as served: its type, ETag stem and its bytes in each coding
/// kept (a compressed copy only where it is smaller).
struct Asset {
    mime: HeaderValue,
    /// 32 hex digits of the file's SHA-256 (and, for a templated file,
    /// the version filled in).
    tag: String,
    identity: Bytes,
    gzip: Option<Bytes>,
    br: Option<Bytes>,
}

impl Asset {
    fn body(&self, coding: Coding) -> Option<&Bytes> {
        match coding {
            Coding::Br => self.br.as_ref(),
            Coding::Gzip => self.gzip.as_ref(),
            Coding::Identity => Some(&self.identity),
        }
    }

    /// The strong ETag of the file in `coding`: each coding's bytes differ,
    /// so each has its own (RFC 9110 8.8.3).
    fn etag(&self, coding: Coding) -> String {
        match coding {
            Coding::Identity => format!("\"{}\"", self.tag),
            c => format!("\"{}-{}\"", self.tag, c.token()),
        }
    }
}

/// Every file of one client version, compressed.
struct Table {
    files: HashMap<String, Asset>,
}

/// How many files have been compressed since the server started (tests
/// hold the "once, never per request" promise to it).
static COMPRESSED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

fn compressible(mime: &str) -> bool {
    mime.starts_with("text/")
        || mime.ends_with("javascript")
        || mime.ends_with("json")
        || mime.ends_with("svg+xml")
}

fn gzip(data: &[u8]) -> Option<Vec<u8>> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    enc.write_all(data).ok()?;
    enc.finish().ok()
}

fn brotli(data: &[u8]) -> Option<Vec<u8>> {
    // Quality 11 (the best) and a 4 MiB window: paid once per file.
    let mut out = Vec::new();
    {
        let mut enc = brotli::CompressorWriter::new(&mut out, 4096, 11, 22);
        enc.write_all(data).ok()?;
    }
    Some(out)
}

fn build_table(version: &str) -> Table {
    let mut files = HashMap::new();
    for path in paths() {
        let Some(file) = Public::get(&path) else { continue };
        let mime = file.metadata.mimetype();
        let textual = compressible(mime);
        let mime = if textual && !mime.contains("charset") {
            format!("{mime}; charset=utf-8")
        } else {
            mime.to_owned()
        };
        let Ok(mime) = HeaderValue::from_str(&mime) else { continue };
        let hash = hex::encode(&file.metadata.sha256_hash()[..16]);
        let (tag, data) = if TEMPLATED.contains(&path.as_str()) {
            (format!("{hash}-{version}"), fill(&path, &file.data, version))
        } else {
            (hash, file.data.into_owned())
        };
        // Kept only where it saves bytes (a tiny file can grow).
        let smaller = |c: Option<Vec<u8>>| c.filter(|c| c.len() < data.len()).map(Bytes::from);
        let (gzip, br) = if textual {
            COMPRESSED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            (smaller(gzip(&data)), smaller(brotli(&data)))
        } else {
            (None, None)
        };
        files.insert(path, Asset { mime, tag, identity: Bytes::from(data), gzip, br });
    }
    Table { files }
}

/// The table of the client version now on disk (release: the embedded one,
/// built once). Built off the runtime's threads; requests arriving while it
/// is built wait for that one build.
async fn table() -> Arc<Table> {
    type Cell = Arc<OnceCell<Arc<Table>>>;
    static CURRENT: Mutex<Option<(String, Cell)>> = Mutex::new(None);
    let version = version();
    let cell = {
        let mut cur = CURRENT.lock().unwrap_or_else(|p| p.into_inner());
        match &*cur {
            Some((v, cell)) if *v == version => Arc::clone(cell),
            // Debug builds: the files changed on disk, a new version.
            _ => {
                let cell: Cell = Arc::default();
                *cur = Some((version.clone(), Arc::clone(&cell)));
                cell
            }
        }
    };
    let built = cell
        .get_or_init(|| async move {
            let v = version.clone();
            match tokio::task::spawn_blocking(move || build_table(&v)).await {
                Ok(t) => Arc::new(t),
                // Only a panic in the build gets here: serve from a table
                // built here rather than fail every request.
                Err(_) => Arc::new(build_table(&version)),
            }
        })
        .await;
    Arc::clone(built)
}

/// The coding to answer with: brotli, then gzip, then the file as is,
/// among those the request accepts (`q=0` refuses one; `*` stands for
/// those not named) and the file has.
fn choose(accept: Option<&str>, has_br: bool, has_gzip: bool) -> Coding {
    let mut q: HashMap<String, f32> = HashMap::new();
    for item in accept.unwrap_or("").split(',') {
        let mut parts = item.split(';');
        let name = parts.next().unwrap_or("").trim().to_ascii_lowercase();
        if name.is_empty() {
            continue;
        }
        let weight = parts
            .filter_map(|p| p.trim().strip_prefix("q=").or_else(|| p.trim().strip_prefix("Q=")))
            .find_map(|v| v.trim().parse::<f32>().ok())
            .unwrap_or(1.0);
        q.insert(name, weight);
    }
    let star = q.get("*").copied();
    let accepts = |name: &str| q.get(name).copied().or(star).is_some_and(|w| w > 0.0);
    if has_br && accepts("br") {
        Coding::Br
    } else if has_gzip && accepts("gzip") {
        Coding::Gzip
    } else {
        Coding::Identity
    }
}

/// Whether `If-None-Match` names `etag` (or is `*`); weak tags compare by
/// their opaque part (RFC 9110 13.1.2's weak comparison).
fn matches(if_none_match: &str, etag: &str) -> bool {
    if_none_match.split(',').map(str::trim).any(|t| t == "*" || t.trim_start_matches("W/") == etag)
}

/// `path` relative to the public folder (`index.html`, `js/app.js` ...),
/// in the best coding the request accepts, with its content type, its
/// ETag and the cache headers; 304 when the request already has it; 404
/// when there is no such file. `version.json` is the client's version
/// (see [`version`]).
pub async fn serve(path: &str, req_headers: &HeaderMap) -> Response {
    // Never look outside the folder, whatever rust-embed does in debug mode.
    if path.split('/').any(|seg| seg == ".." || seg.contains('\\')) || path.starts_with('/') {
        return StatusCode::NOT_FOUND.into_response();
    }
    if path == "version.json" {
        return version_json();
    }
    // Unknown paths answer at once, without building the table.
    if Public::get(path).is_none() {
        return (StatusCode::NOT_FOUND, "not found").into_response();
    }
    let table = table().await;
    let Some(asset) = table.files.get(path) else {
        return (StatusCode::NOT_FOUND, "not found").into_response();
    };
    let accept = req_headers.get(header::ACCEPT_ENCODING).and_then(|v| v.to_str().ok());
    let coding = choose(accept, asset.br.is_some(), asset.gzip.is_some());
    let etag = asset.etag(coding);
    let mut headers = HeaderMap::new();
    headers.insert(header::CONTENT_TYPE, asset.mime.clone());
    // Revalidate every time: the names carry no hash and the client must
    // match the server (see the module's header).
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    if asset.br.is_some() || asset.gzip.is_some() {
        headers.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    }
    if coding != Coding::Identity {
        headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static(coding.token()));
    }
    if let Ok(v) = HeaderValue::from_str(&etag) {
        headers.insert(header::ETAG, v);
    }
    let inm = req_headers.get(header::IF_NONE_MATCH).and_then(|v| v.to_str().ok());
    if inm.is_some_and(|inm| matches(inm, &etag)) {
        headers.remove(header::CONTENT_ENCODING);
        return (StatusCode::NOT_MODIFIED, headers).into_response();
    }
    let body = asset.body(coding).cloned().unwrap_or_else(|| asset.identity.clone());
    (headers, body).into_response()
}

#[cfg(test)]
#[path = "assets_tests.rs"]
mod tests;
