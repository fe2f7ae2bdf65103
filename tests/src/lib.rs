//! Shared helpers for the end-to-end tests: [`TestServer`] binds
//! 127.0.0.1:0 and runs the real server in-process; [`Client`] is a real
//! WebSocket client with JSON send/receive helpers, each with a timeout so a
//! missing message fails the test instead of hanging it.

#![forbid(unsafe_code)]

mod client;
pub mod cluster;
mod process;
mod raw;

pub use client::{code_of, while_reading, Client, Closed};
pub use process::{server_binary, start_serve};
pub use raw::RawClient;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use mazerace_server::{Config, DailyHook, Server};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::task::JoinHandle;

pub use mazerace_protocol::daily::DailyDate;
pub use mazerace_protocol::{Action, Board, Dir, Game, Size};
pub use serde_json;

/// How long any single expected message may take.
pub const RECV_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a test's plain HTTP GET waits for its whole answer. Longer than
/// [`RECV_TIMEOUT`]: a process's first request for a client file builds
/// the compressed client (brotli at its best, once per process, shared by
/// every server in it), 1.5 s on a quiet machine and past 5 s under the
/// whole suite's load. It stands against a hang, not for a speed.
pub const HTTP_TIMEOUT: Duration = Duration::from_secs(30);

/// Production settings with a fast countdown, so races start in
/// milliseconds, and a message rate a solver-driven client needs (it plays
/// a hundred moves in a few milliseconds); each test changes what it
/// exercises.
/// A date as a test writes it, or as an answer carries it.
pub fn day(s: &str) -> DailyDate {
    s.parse().expect("a YYYY-MM-DD date")
}

pub fn test_config() -> Config {
    Config {
        msgs_per_sec: 10_000,
        msgs_burst: 10_000,
        bind: SocketAddr::from(([127, 0, 0, 1], 0)),
        countdown_step: Duration::from_millis(10),
        // Solvers play ranked daily runs at machine speed; the pacing has
        // its own tests (tests/tests/daily_fair.rs, the room's unit tests).
        ranked_move_floor: Duration::ZERO,
        close_linger: Duration::from_millis(200),
        // The fuzzer and the bad-input tests break the rules on purpose and
        // reconnect at once; the penalty has its own test (violations.rs).
        violation_penalty: Duration::ZERO,
        // Tests run many servers in one process: none binds the metrics port.
        metrics_bind: None,
        ..Config::default()
    }
}

/// The real server, in this process, on an ephemeral loopback port.
///
/// [`TestServer::stop`] shuts it down and checks that it stopped cleanly.
/// A `TestServer` dropped without `stop` (a test that ends early, or
/// panics) starts the same shutdown: every connection is told and closed,
/// and the server's tasks end on the test's runtime instead of serving on
/// until the runtime goes. Dropping never blocks, so it cannot hang a test.
pub struct TestServer {
    pub addr: SocketAddr,
    pub server: Server,
    /// `run`'s task; taken by `stop` and `join`, which wait for it.
    task: Option<JoinHandle<anyhow::Result<()>>>,
}

impl TestServer {
    pub async fn start() -> TestServer {
        Self::with_config(test_config()).await
    }

    pub async fn with_config(config: Config) -> TestServer {
        Self::with_parts(config, None).await
    }

    pub async fn with_daily(config: Config, hook: Arc<dyn DailyHook>) -> TestServer {
        Self::with_parts(config, Some(hook)).await
    }

    async fn with_parts(config: Config, hook: Option<Arc<dyn DailyHook>>) -> TestServer {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind 127.0.0.1:0");
        let addr = listener.local_addr().expect("local addr");
        let server = Server::new(config, hook).expect("server");
        let s = server.clone();
        let task = tokio::spawn(async move { s.run(listener).await });
        TestServer { addr, server, task: Some(task) }
    }

    pub fn ws_url(&self) -> String {
        format!("ws://{}/ws", self.addr)
    }

    /// A connected client that has not said hello.
    pub async fn connect(&self) -> Client {
        let (ws, _) = tokio::time::timeout(RECV_TIMEOUT, tokio_tungstenite::connect_async(self.ws_url()))
            .await
            .expect("connect timed out")
            .expect("connect");
        Client { ws, id: 0, token: String::new() }
    }

    /// A client that said hello as `name`.
    pub async fn player(&self, name: &str) -> Client {
        let mut c = self.connect().await;
        c.hello(name).await;
        c
    }

    /// Shuts the server down and waits for `run` to return.
    pub async fn stop(mut self) {
        self.server.shutdown();
        self.wait().await.expect("server task panicked").expect("server returned an error");
    }

    /// Waits for `run` to return after a shutdown started elsewhere.
    pub async fn join(mut self) -> anyhow::Result<()> {
        self.wait().await?
    }

    async fn wait(&mut self) -> Result<anyhow::Result<()>, tokio::task::JoinError> {
        let task = self.task.take().expect("the server task is only taken once, by stop or join");
        tokio::time::timeout(Duration::from_secs(10), task).await.expect("server did not stop in time")
    }

    /// A plain HTTP/1.1 GET: (status, headers lower-cased, body).
    pub async fn get(&self, path: &str) -> HttpResponse {
        self.get_with(path, "").await
    }

    /// [`TestServer::get`] with extra header lines (each ending in `\r\n`).
    pub async fn get_with(&self, path: &str, headers: &str) -> HttpResponse {
        let mut tcp = TcpStream::connect(self.addr).await.expect("connect");
        let req = format!("GET {path} HTTP/1.1\r\nHost: {}\r\n{headers}Connection: close\r\n\r\n", self.addr);
        tcp.write_all(req.as_bytes()).await.expect("write");
        let mut raw = Vec::new();
        tokio::time::timeout(HTTP_TIMEOUT, tcp.read_to_end(&mut raw))
            .await
            .expect("http timeout")
            .expect("read");
        HttpResponse::parse(&raw)
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if self.task.is_some() {
            // Not stopped: start the shutdown without waiting for it (a
            // blocking wait here would stall a current-thread runtime).
            self.server.shutdown();
        }
    }
}

/// A plain HTTP/1.1 GET to a server this test did not start in-process
/// (the real binary at `addr`, "127.0.0.1:PORT"), with extra header lines
/// (each ending in `\r\n`).
pub async fn http_get(addr: &str, path: &str, headers: &str) -> HttpResponse {
    let mut tcp = TcpStream::connect(addr).await.expect("connect");
    let req = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\n{headers}Connection: close\r\n\r\n");
    tcp.write_all(req.as_bytes()).await.expect("write");
    let mut raw = Vec::new();
    tokio::time::timeout(HTTP_TIMEOUT, tcp.read_to_end(&mut raw)).await.expect("http timeout").expect("read");
    HttpResponse::parse(&raw)
}

/// Every sample of a `GET /metrics` scrape at `addr`: `name{labels}` ->
/// value (asserting a 200 in the Prometheus text format).
pub async fn scrape_metrics(addr: SocketAddr) -> std::collections::HashMap<String, f64> {
    let r = http_get(&addr.to_string(), "/metrics", "").await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r.header("content-type").unwrap_or_default().starts_with("text/plain; version=0.0.4"));
    r.text()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .filter_map(|l| {
            let (k, v) = l.rsplit_once(' ')?;
            Some((k.to_owned(), v.parse().ok()?))
        })
        .collect()
}

/// One sample of a scrape; a series not exported fails the test.
pub fn metric(m: &std::collections::HashMap<String, f64>, series: &str) -> f64 {
    *m.get(series).unwrap_or_else(|| panic!("{series} is not exported"))
}

pub struct HttpResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl HttpResponse {
    /// Parses a whole raw HTTP/1.1 answer (status line, headers, body).
    pub fn parse(raw: &[u8]) -> HttpResponse {
        let split = raw.windows(4).position(|w| w == b"\r\n\r\n").expect("no header end");
        let head = String::from_utf8_lossy(&raw[..split]).to_string();
        let mut lines = head.split("\r\n");
        let status =
            lines.next().and_then(|l| l.split(' ').nth(1)).and_then(|s| s.parse().ok()).expect("status");
        let headers = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
            .collect::<Vec<_>>();
        let mut body = raw[split + 4..].to_vec();
        if headers.iter().any(|(k, v)| k == "transfer-encoding" && v == "chunked") {
            body = dechunk(&body);
        }
        HttpResponse { status, headers, body }
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

fn dechunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let Some(eol) = b.windows(2).position(|w| w == b"\r\n") else { return out };
        let size = usize::from_str_radix(String::from_utf8_lossy(&b[..eol]).trim(), 16).unwrap_or(0);
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&b[eol + 2..eol + 2 + size]);
        b = &b[eol + 2 + size + 2..];
    }
}

/// Host `host` makes a room with `spec`, `others` join it, the host starts,
/// and everyone waits for `race_start`. Returns the room code and the board.
pub async fn start_race(host: &mut Client, others: &mut [&mut Client], spec: Value) -> (String, Value) {
    let room = host.create(spec).await;
    let code = room["code"].as_str().expect("code").to_owned();
    for o in others.iter_mut() {
        o.join(&code).await;
    }
    host.send(json!({"type": "start"})).await;
    let rs = host.recv_type("race_start").await;
    for o in others.iter_mut() {
        o.recv_type("race_start").await;
    }
    (code, rs["board"].clone())
}

/// The solver's line for `size`/`seed` (the same board the room builds).
pub fn solution(size: Size, seed: u64) -> (Board, Vec<Action>) {
    let board = Board::build(size, seed).expect("board");
    let line = board.answer().solution().to_vec();
    (board, line)
}

/// Waits (up to five seconds) until `cond` holds, checking every few
/// milliseconds: for server-side state no message announces.
pub async fn wait_until(what: &str, mut cond: impl FnMut() -> bool) {
    let deadline = tokio::time::Instant::now() + RECV_TIMEOUT;
    while !cond() {
        assert!(tokio::time::Instant::now() < deadline, "timed out waiting until {what}");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// A direction that is a legal first move from the start (not into the
/// goal), found with the rules engine itself.
pub fn free_first_step(board: &Board) -> Dir {
    for d in Dir::ALL {
        let mut g = mazerace_protocol::PlayerGame::new(board);
        if g.apply(Action::Move(d)).is_ok() && g.status() == mazerace_protocol::Status::Playing {
            return d;
        }
    }
    panic!("no free first step");
}

/// The first Ghost seed at or after `from` (small vaults) with a known
/// `true_par`: fixed by the protocol crate's frozen generator.
pub fn solvable_ghost_seed(size: Size, from: u64) -> u64 {
    (from..from + 1000)
        .find(|&s| Board::build(size, s).ok().and_then(|b| b.best()).is_some())
        .expect("a solvable vault")
}

pub fn dir_str(d: Dir) -> &'static str {
    Action::Move(d).as_str()
}
