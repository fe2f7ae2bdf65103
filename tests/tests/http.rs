//! The HTTP side of the port: the web client's files, `/r/{code}`,
//! `/healthz`, `/api/qr.svg` and `/api/urls`.

use mazerace_tests::serde_json::{self, json, Value};
use mazerace_tests::TestServer;

fn public(path: &str) -> Vec<u8> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../client-web/public");
    std::fs::read(dir.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[tokio::test]
async fn index_and_room_links_serve_the_client() {
    let srv = TestServer::start().await;
    let index = public("index.html");
    for path in ["/", "/r/K7M2Q", "/tv/K7M2Q", "/index.html"] {
        let r = srv.get(path).await;
        assert_eq!(r.status, 200, "{path}");
        assert_eq!(r.header("content-type"), Some("text/html; charset=utf-8"), "{path}");
        assert_eq!(r.body, index, "{path}");
        assert!(r.header("etag").is_some());
    }
    let css = srv.get("/style.css").await;
    assert_eq!(css.status, 200);
    assert_eq!(css.header("content-type"), Some("text/css; charset=utf-8"));
    for path in ["/nope.js", "/../Cargo.toml", "/js/../../Cargo.toml", "/r/ABCDE/extra"] {
        assert_eq!(srv.get(path).await.status, 404, "{path}");
    }
    srv.stop().await;
}

/// Through the real port: a browser's `Accept-Encoding` gets brotli (the
/// unit tests in `server/src/assets_tests.rs` check every coding and 304).
#[tokio::test]
async fn the_client_goes_out_compressed() {
    let srv = TestServer::start().await;
    let raw = public("js/app.js");
    let r = srv.get_with("/js/app.js", "Accept-Encoding: gzip, deflate, br, zstd\r\n").await;
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-encoding"), Some("br"));
    assert_eq!(r.header("vary"), Some("accept-encoding"));
    assert!(r.body.len() * 2 < raw.len(), "{} bytes of {}", r.body.len(), raw.len());
    let etag = r.header("etag").unwrap().to_owned();
    let again =
        srv.get_with("/js/app.js", &format!("Accept-Encoding: br\r\nIf-None-Match: {etag}\r\n")).await;
    assert_eq!(again.status, 304);
    srv.stop().await;
}

#[tokio::test]
async fn healthz_and_urls() {
    let srv = TestServer::start().await;
    let h = srv.get("/healthz").await;
    assert_eq!(h.status, 200);
    let v: Value = serde_json::from_slice(&h.body).unwrap();
    assert_eq!(v, json!({"status": "ok", "rooms": 0, "sessions": 0}));

    let u = srv.get("/api/urls").await;
    assert_eq!(u.status, 200);
    assert_eq!(u.header("content-type"), Some("application/json"));
    let v: Value = serde_json::from_slice(&u.body).unwrap();
    // Bound to loopback: nothing to offer the LAN.
    assert_eq!(v, json!({"local": format!("http://{}", srv.addr), "lan": []}));
    srv.stop().await;
}

#[tokio::test]
async fn qr_codes_as_svg() {
    let srv = TestServer::start().await;
    let r = srv.get("/api/qr.svg?text=http%3A%2F%2F192.168.1.20%3A7878%2Fr%2FK7M2Q").await;
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("image/svg+xml"));
    let svg = r.text();
    assert!(svg.contains("<svg") && svg.trim_end().ends_with("</svg>"), "{svg}");
    assert_eq!(srv.get("/api/qr.svg").await.status, 400);
    assert_eq!(srv.get("/api/qr.svg?text=").await.status, 400);
    let long = "a".repeat(600);
    assert_eq!(srv.get(&format!("/api/qr.svg?text={long}")).await.status, 400);
    srv.stop().await;
}

/// An invite card's preview: the room with its key; without it (or with a
/// wrong one, or for no room) the same 404, each costing a failed join.
#[tokio::test]
async fn a_room_preview_needs_the_rooms_key() {
    let srv = TestServer::start().await;
    let mut ann = srv.player("Ann").await;
    let mut bob = srv.player("<b>Bob</b>").await;
    let room = ann.create(json!({"game": "maze", "size": "normal"})).await;
    let code = room["code"].as_str().unwrap().to_owned();
    let key = room["key"].as_str().unwrap().to_owned();
    bob.join(&code).await;
    ann.recv_room_with(bob.id).await;

    let r = srv.get(&format!("/api/rooms/{}?k={key}", code.to_lowercase())).await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        r.text(),
        format!(
            r#"{{"code":"{code}","game":"maze","size":"normal","phase":"lobby","host":"Ann","players":["Ann","<b>Bob</b>"],"spectators":0,"max_players":16}}"#
        )
    );
    let other = if key.starts_with('0') { "1" } else { "0" };
    let wrong = format!("{other}{}", &key[1..]);
    let nothing = srv.get("/api/rooms/ZZZZZ?k=0123456789abcdef").await;
    assert_eq!(nothing.status, 404);
    for path in
        [format!("/api/rooms/{code}"), format!("/api/rooms/{code}?k={wrong}"), "/api/rooms/ZZZZZ".to_owned()]
    {
        let r = srv.get(&path).await;
        assert_eq!(
            (r.status, r.body.clone()),
            (404, nothing.body.clone()),
            "{path}: no hint the room exists"
        );
    }
    // Misses are failed joins: the address runs out ...
    let mut last = 404;
    for _ in 0..20 {
        last = srv.get("/api/rooms/ZZZZZ").await.status;
    }
    assert_eq!(last, 429, "guessing is limited as on the socket");
    // ... while the key's holder still gets the card.
    assert_eq!(srv.get(&format!("/api/rooms/{code}?k={key}")).await.status, 200);
    srv.stop().await;
}

/// Sends `raw` as is and returns the status of the answer (0: none).
async fn raw_status(srv: &TestServer, raw: &str) -> u16 {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut tcp = tokio::net::TcpStream::connect(srv.addr).await.unwrap();
    tcp.write_all(raw.as_bytes()).await.unwrap();
    let mut head = Vec::new();
    let mut b = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match tokio::time::timeout(mazerace_tests::RECV_TIMEOUT, tcp.read(&mut b)).await.expect("an answer") {
            Ok(1) => head.push(b[0]),
            _ => break,
        }
    }
    let head = String::from_utf8_lossy(&head).into_owned();
    head.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0)
}

/// Everything a socket from `ip` (127.0.0.x) gets for `raw` (pipelined
/// requests, the last one closing), until the server closes it.
async fn exchange_from(srv: &TestServer, ip: [u8; 4], raw: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let s = tokio::net::TcpSocket::new_v4().unwrap();
    s.bind(std::net::SocketAddr::from((ip, 0))).unwrap();
    let mut tcp = s.connect(srv.addr).await.unwrap();
    tcp.write_all(raw.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    tokio::time::timeout(mazerace_tests::HTTP_TIMEOUT, tcp.read_to_end(&mut out)).await.unwrap().unwrap();
    String::from_utf8_lossy(&out).into_owned()
}

/// Issue 34, item 4: `/api/*` is budgeted per address (before: one address
/// on four keep-alive sockets read 7,781 replays a second). Here a burst of
/// 5, one more a second: on one kept-alive socket the first 5 requests are
/// answered and the rest get 429 with `Retry-After` and a sentence; another
/// address has its own budget, and the client's files and `/healthz` are
/// not counted.
#[tokio::test]
async fn api_requests_are_budgeted_per_address() {
    let cfg = mazerace_server::Config { api_burst: 5, api_per_sec: 1, ..mazerace_tests::test_config() };
    let srv = TestServer::with_config(cfg).await;
    let get = |path: &str, last: bool| {
        let close = if last { "Connection: close\r\n" } else { "" };
        format!("GET {path} HTTP/1.1\r\nHost: {}\r\n{close}\r\n", srv.addr)
    };
    let mut eight: String = (0..7).map(|_| get("/api/urls", false)).collect();
    eight.push_str(&get("/api/qr.svg?text=x", true));
    let answers = exchange_from(&srv, [127, 0, 0, 11], &eight).await;
    assert_eq!(answers.matches("HTTP/1.1 200").count(), 5, "{answers}");
    assert_eq!(answers.matches("HTTP/1.1 429").count(), 3, "{answers}");
    assert!(answers.to_ascii_lowercase().contains("retry-after: 1\r\n"), "{answers}");
    assert!(answers.contains("too many requests from your network address; wait a moment"), "{answers}");
    let files: String = [get("/healthz", false), get("/", false), get("/style.css", true)].concat();
    let answers = exchange_from(&srv, [127, 0, 0, 11], &files).await;
    assert_eq!(answers.matches("HTTP/1.1 200").count(), 3, "not counted: {answers}");
    let other = exchange_from(&srv, [127, 0, 0, 12], &get("/api/urls", true)).await;
    assert!(other.starts_with("HTTP/1.1 200"), "{other}");
    srv.stop().await;
}

/// Issue 34, item 9: a head with both `Transfer-Encoding` and
/// `Content-Length` is the classic request smuggling (a proxy reading one,
/// the server the other); it gets 400 as a smuggling guard answers it, on
/// every route and in either order (before: `GET /ws` with both was
/// upgraded, hyper having dropped the length). A WebSocket handshake with
/// any `Transfer-Encoding` is refused too, also pipelined behind another
/// request. One framing header alone is served.
#[tokio::test]
async fn a_head_with_both_transfer_encoding_and_content_length_gets_400() {
    let srv = TestServer::start().await;
    let host = format!("Host: {}\r\n", srv.addr);
    let upgrade = format!(
        "GET /ws HTTP/1.1\r\n{host}Upgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
    );
    let te = "Transfer-Encoding: chunked\r\n";
    let cl = "content-length: 5\r\n";
    for (raw, want, what) in [
        (format!("{upgrade}{te}{cl}\r\n0\r\n\r\n"), 400, "an upgrade with both"),
        (format!("{upgrade}{cl}{te}\r\n0\r\n\r\n"), 400, "the other order"),
        (format!("{upgrade}{te}\r\n0\r\n\r\n"), 400, "an upgrade with a chunked body"),
        (format!("GET /healthz HTTP/1.1\r\n{host}{te}{cl}\r\n0\r\n\r\n"), 400, "any route"),
        (
            format!("POST /api/leagues HTTP/1.1\r\n{host}TRANSFER-ENCODING: chunked\r\n{cl}\r\n0\r\n\r\n"),
            400,
            "any case",
        ),
        (
            format!("GET /healthz HTTP/1.1\r\n{host}{te}Connection: close\r\n\r\n0\r\n\r\n"),
            200,
            "chunked alone",
        ),
        (format!("GET /healthz HTTP/1.1\r\n{host}{cl}Connection: close\r\n\r\nhello"), 200, "a length alone"),
        (format!("{upgrade}\r\n"), 101, "a fine upgrade"),
    ] {
        assert_eq!(raw_status(&srv, &raw).await, want, "{what}");
    }
    // Pipelined behind a request on a kept-alive connection, where the
    // byte scan does not look: the handshake's chunked body still refuses it.
    {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let mut tcp = tokio::net::TcpStream::connect(srv.addr).await.unwrap();
        let both = format!("GET /healthz HTTP/1.1\r\n{host}\r\n{upgrade}{te}{cl}\r\n0\r\n\r\n");
        tcp.write_all(both.as_bytes()).await.unwrap();
        let mut raw = Vec::new();
        let _ = tokio::time::timeout(mazerace_tests::RECV_TIMEOUT, tcp.read_to_end(&mut raw)).await.unwrap();
        let raw = String::from_utf8_lossy(&raw);
        assert!(raw.starts_with("HTTP/1.1 200"), "{raw}");
        assert!(raw.contains("HTTP/1.1 400") && !raw.contains(" 101 "), "{raw}");
    }
    srv.stop().await;
}

/// Heads that mean different things to different readers are refused with
/// 400 before any route (they were answered, and upgraded): HTTP/1.1
/// without Host, bare-LF line ends, a 1000-byte or a duplicated
/// `Sec-WebSocket-Key`. The same heads done right are served.
#[tokio::test]
async fn ambiguous_request_heads_get_400() {
    let srv = TestServer::start().await;
    let host = format!("Host: {}\r\n", srv.addr);
    let ws = |key_lines: &str| {
        format!(
            "GET /ws HTTP/1.1\r\n{host}Upgrade: websocket\r\nConnection: Upgrade\r\n{key_lines}Sec-WebSocket-Version: 13\r\n\r\n"
        )
    };
    let key = "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n";
    let long_key = format!("Sec-WebSocket-Key: {}\r\n", "QUFB".repeat(250));
    for (raw, want, what) in [
        ("GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n".to_owned(), 400, "no Host"),
        (format!("GET /healthz HTTP/1.1\r\n{host}{host}Connection: close\r\n\r\n"), 400, "two Hosts"),
        (format!("GET /healthz HTTP/1.1\n{}\nConnection: close\n\n", host.trim_end()), 400, "bare LFs"),
        (
            format!("GET /healthz HTTP/1.1\r\n{}\nConnection: close\r\n\r\n", host.trim_end()),
            400,
            "one bare LF",
        ),
        (ws(&long_key), 400, "a 1000-byte key"),
        (ws(&format!("{key}{key}")), 400, "a duplicated key"),
        ("GET /healthz HTTP/1.0\r\n\r\n".to_owned(), 200, "HTTP/1.0 needs no Host"),
        (format!("GET /healthz HTTP/1.1\r\n{host}Connection: close\r\n\r\n"), 200, "a fine request"),
        (ws(key), 101, "a fine upgrade"),
    ] {
        assert_eq!(raw_status(&srv, &raw).await, want, "{what}");
    }
    // A kept-alive connection: the next head is looked at too.
    {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let mut tcp = tokio::net::TcpStream::connect(srv.addr).await.unwrap();
        tcp.write_all(format!("GET /healthz HTTP/1.1\r\n{host}\r\n").as_bytes()).await.unwrap();
        let mut first = vec![0u8; 4096];
        let n =
            tokio::time::timeout(mazerace_tests::RECV_TIMEOUT, tcp.read(&mut first)).await.unwrap().unwrap();
        assert!(first[..n].starts_with(b"HTTP/1.1 200"), "the first is served");
        let second = format!("GET /healthz HTTP/1.1\n{}\n\n", host.trim_end());
        tcp.write_all(second.as_bytes()).await.unwrap();
        let mut raw = Vec::new();
        let _ = tokio::time::timeout(mazerace_tests::RECV_TIMEOUT, tcp.read_to_end(&mut raw)).await.unwrap();
        assert!(raw.starts_with(b"HTTP/1.1 400"), "the second is refused: {}", String::from_utf8_lossy(&raw));
    }
    srv.stop().await;
}

/// Installable (issue 35, item 10): the web app manifest the page links,
/// served as one, and every icon it names, of the type it says.
#[tokio::test]
async fn the_manifest_and_its_icons() {
    let srv = TestServer::start().await;
    let index = String::from_utf8(public("index.html")).unwrap();
    assert!(index.contains(r#"<link rel="manifest" href="/manifest.webmanifest" />"#));
    let m = srv.get_with("/manifest.webmanifest", "Accept-Encoding: br\r\n").await;
    assert_eq!(m.status, 200);
    assert_eq!(m.header("content-type"), Some("application/manifest+json; charset=utf-8"));
    assert_eq!(m.header("content-encoding"), Some("br"), "text, so compressed like the rest");
    let m = srv.get("/manifest.webmanifest").await;
    let v: Value = serde_json::from_slice(&m.body).unwrap();
    assert_eq!(v["start_url"], "/");
    assert_eq!(v["display"], "standalone");
    let icons = v["icons"].as_array().unwrap();
    for size in ["192x192", "512x512"] {
        assert!(icons.iter().any(|i| i["sizes"] == size && i["type"] == "image/png"), "a {size} PNG");
    }
    assert!(icons.iter().any(|i| i["purpose"] == "maskable"), "a maskable icon");
    for icon in icons {
        let src = icon["src"].as_str().unwrap();
        let r = srv.get(src).await;
        assert_eq!(r.status, 200, "{src}");
        let ty = r.header("content-type").unwrap_or_default();
        assert!(ty.starts_with(icon["type"].as_str().unwrap()), "{src}: {ty}");
        if ty == "image/png" {
            assert_eq!(&r.body[..8], b"\x89PNG\r\n\x1a\n", "{src}");
            // The IHDR's width and height: what "sizes" says.
            let px = |at: usize| u32::from_be_bytes(r.body[at..at + 4].try_into().unwrap());
            assert_eq!(format!("{}x{}", px(16), px(20)), icon["sizes"].as_str().unwrap(), "{src}");
        }
    }
    let apple = srv.get("/icons/apple-touch-icon.png").await;
    assert_eq!((apple.status, apple.header("content-type")), (200, Some("image/png")));
    srv.stop().await;
}
