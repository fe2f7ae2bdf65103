//! The client's files over HTTP: the coding each `Accept-Encoding` gets,
//! `Vary`, an ETag per coding and its 304, compressed once.

use std::io::Read;
use std::sync::atomic::Ordering;

use axum::body::to_bytes;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;

use super::{choose, serve, Coding, COMPRESSED};

fn req(pairs: &[(header::HeaderName, &str)]) -> HeaderMap {
    let mut h = HeaderMap::new();
    for (k, v) in pairs {
        h.insert(k.clone(), HeaderValue::from_str(v).unwrap());
    }
    h
}

fn get(r: &Response, name: header::HeaderName) -> Option<&str> {
    r.headers().get(name).and_then(|v| v.to_str().ok())
}

async fn body(r: Response) -> Vec<u8> {
    to_bytes(r.into_body(), usize::MAX).await.unwrap().to_vec()
}

fn gunzip(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(data).read_to_end(&mut out).unwrap();
    out
}

fn unbrotli(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    brotli::Decompressor::new(data, 4096).read_to_end(&mut out).unwrap();
    out
}

#[test]
fn accept_encoding_picks_brotli_then_gzip_then_the_file() {
    assert_eq!(choose(Some("gzip, deflate, br, zstd"), true, true), Coding::Br, "Chromium's header");
    assert_eq!(choose(Some("gzip"), true, true), Coding::Gzip);
    assert_eq!(choose(Some("br;q=0, gzip;q=0.5"), true, true), Coding::Gzip, "q=0 refuses br");
    assert_eq!(choose(Some("GZIP"), true, true), Coding::Gzip, "names are case-insensitive");
    assert_eq!(choose(Some("*"), true, true), Coding::Br);
    assert_eq!(choose(Some("*;q=0, identity"), true, true), Coding::Identity);
    assert_eq!(choose(Some("br"), false, true), Coding::Identity, "no br copy: the file as is");
    assert_eq!(choose(Some(""), true, true), Coding::Identity);
    assert_eq!(choose(None, true, true), Coding::Identity);
    assert_eq!(choose(Some("gzip;q=bad"), true, true), Coding::Gzip, "an unreadable q is 1");
}

#[tokio::test]
async fn each_coding_has_its_bytes_vary_and_its_own_etag() {
    let plain = serve("js/app.js", &req(&[])).await;
    assert_eq!(plain.status(), StatusCode::OK);
    assert_eq!(get(&plain, header::CONTENT_ENCODING), None);
    assert_eq!(get(&plain, header::VARY), Some("accept-encoding"));
    assert_eq!(get(&plain, header::CACHE_CONTROL), Some("no-cache"));
    assert_eq!(get(&plain, header::CONTENT_TYPE), Some("text/javascript; charset=utf-8"));
    let plain_tag = get(&plain, header::ETAG).unwrap().to_owned();
    let original = body(plain).await;

    let mut tags = vec![plain_tag.clone()];
    for (accept, coding) in [("gzip, deflate, br, zstd", "br"), ("gzip", "gzip")] {
        let r = serve("js/app.js", &req(&[(header::ACCEPT_ENCODING, accept)])).await;
        assert_eq!(r.status(), StatusCode::OK);
        assert_eq!(get(&r, header::CONTENT_ENCODING), Some(coding), "{accept}");
        assert_eq!(get(&r, header::VARY), Some("accept-encoding"));
        let tag = get(&r, header::ETAG).unwrap().to_owned();
        assert!(tag.starts_with('"') && tag.ends_with(&format!("-{coding}\"")), "{tag}");
        tags.push(tag);
        let bytes = body(r).await;
        assert!(bytes.len() * 2 < original.len(), "{coding}: {} of {} bytes", bytes.len(), original.len());
        let back = if coding == "br" { unbrotli(&bytes) } else { gunzip(&bytes) };
        assert_eq!(back, original, "{coding} decodes to the file");
    }
    tags.sort();
    tags.dedup();
    assert_eq!(tags.len(), 3, "one ETag per coding");
}

#[tokio::test]
async fn a_revalidation_answers_304_for_its_own_coding_only() {
    let br = [(header::ACCEPT_ENCODING, "br, gzip")];
    let first = serve("index.html", &req(&br)).await;
    let tag = get(&first, header::ETAG).unwrap().to_owned();
    let again = serve("index.html", &req(&[br[0].clone(), (header::IF_NONE_MATCH, &tag)])).await;
    assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
    assert_eq!(get(&again, header::ETAG), Some(tag.as_str()));
    assert_eq!(get(&again, header::VARY), Some("accept-encoding"));
    assert!(body(again).await.is_empty());
    // A list, and a weak form of the same tag (a proxy may weaken it), match too.
    let listed = format!("\"nope\", W/{tag}");
    let weak = serve("index.html", &req(&[br[0].clone(), (header::IF_NONE_MATCH, &listed)])).await;
    assert_eq!(weak.status(), StatusCode::NOT_MODIFIED);
    // The brotli tag does not stand for the gzip bytes: a full answer.
    let gz =
        serve("index.html", &req(&[(header::ACCEPT_ENCODING, "gzip"), (header::IF_NONE_MATCH, &tag)])).await;
    assert_eq!(gz.status(), StatusCode::OK);
    assert_eq!(get(&gz, header::CONTENT_ENCODING), Some("gzip"));
}

#[tokio::test]
async fn templated_files_are_compressed_with_the_version_filled_in() {
    let r = serve("sw.js", &req(&[(header::ACCEPT_ENCODING, "br")])).await;
    assert_eq!(get(&r, header::CONTENT_ENCODING), Some("br"));
    let text = String::from_utf8(unbrotli(&body(r).await)).unwrap();
    assert!(text.contains(&super::version()), "the version is in the served worker");
    assert!(!text.contains("__MAZERACE_VERSION__") && text.contains("\"/js/app.js\""));
}

#[tokio::test]
async fn files_are_compressed_once_not_per_request() {
    let accept = [(header::ACCEPT_ENCODING, "gzip, br")];
    body(serve("style.css", &req(&accept)).await).await;
    let after_first = COMPRESSED.load(Ordering::Relaxed);
    assert!(after_first > 0);
    for path in ["style.css", "index.html", "js/app.js", "js/race.js", "style.css"] {
        let r = serve(path, &req(&accept)).await;
        assert_eq!(r.status(), StatusCode::OK);
        body(r).await;
    }
    assert_eq!(COMPRESSED.load(Ordering::Relaxed), after_first, "no request compressed anything again");
}

#[tokio::test]
async fn unknown_and_escaping_paths_are_404() {
    for path in ["nope.js", "../Cargo.toml", "js/../../Cargo.toml", "/etc/passwd", "js\\app.js"] {
        assert_eq!(serve(path, &req(&[])).await.status(), StatusCode::NOT_FOUND, "{path}");
    }
}
