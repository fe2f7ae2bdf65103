//! Shared helpers for the end-to-end tests: [`TestServer`] binds
//! 127.0.0.1:0 and runs the real server in-process; [`Client`] is a real
//! WebSocket client with JSON send/receive helpers, each with a timeout so a
//! missing message fails the test instead of hanging it.

#![forbid(unsafe_code)]

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use mazerace_server::{Config, DailyHook, Server};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::task::JoinHandle;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

pub use mazerace_protocol::{Action, Board, Dir, Game, Size};
pub use serde_json;

/// How long any single expected message may take.
pub const RECV_TIMEOUT: Duration = Duration::from_secs(5);

/// Production settings with a fast countdown, so races start in
/// milliseconds, and a message rate a solver-driven client needs (it plays
/// a hundred moves in a few milliseconds); each test changes what it
/// exercises.
pub fn test_config() -> Config {
    Config {
        msgs_per_sec: 10_000,
        msgs_burst: 10_000,
        bind: SocketAddr::from(([127, 0, 0, 1], 0)),
        countdown_step: Duration::from_millis(10),
        close_linger: Duration::from_millis(200),
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
        tokio::time::timeout(RECV_TIMEOUT, tcp.read_to_end(&mut raw))
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
    tokio::time::timeout(RECV_TIMEOUT, tcp.read_to_end(&mut raw)).await.expect("http timeout").expect("read");
    HttpResponse::parse(&raw)
}

pub struct HttpResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl HttpResponse {
    fn parse(raw: &[u8]) -> HttpResponse {
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

/// A WebSocket client speaking JSON.
pub struct Client {
    pub ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    pub id: u32,
    pub token: String,
}

/// What a receive saw instead of a text message.
#[derive(Debug)]
pub enum Closed {
    Frame(u16, String),
    /// The stream ended (or reset) without a close frame.
    Eof,
}

impl Client {
    /// A client of a server at `addr` ("127.0.0.1:PORT") that this test did
    /// not start in-process (the real binary).
    pub async fn connect_addr(addr: &str) -> Client {
        let url = format!("ws://{addr}/ws");
        let (ws, _) = tokio::time::timeout(RECV_TIMEOUT, tokio_tungstenite::connect_async(url))
            .await
            .expect("connect timed out")
            .expect("connect");
        Client { ws, id: 0, token: String::new() }
    }

    pub async fn send(&mut self, v: Value) {
        self.send_text(&v.to_string()).await;
    }

    pub async fn send_text(&mut self, s: &str) {
        self.ws.send(Message::text(s)).await.expect("send");
    }

    pub async fn send_msg(&mut self, m: Message) {
        self.ws.send(m).await.expect("send");
    }

    /// The next text message, or how the connection ended.
    pub async fn next_text(&mut self) -> Result<String, Closed> {
        tokio::time::timeout(RECV_TIMEOUT, self.next_text_untimed()).await.expect("no message in time")
    }

    /// [`Client::next_text`] without the timeout, for paused-time tests
    /// (where a timeout fires as soon as everything is idle).
    pub async fn next_text_untimed(&mut self) -> Result<String, Closed> {
        loop {
            match self.ws.next().await {
                Some(Ok(Message::Text(t))) => return Ok(t.to_string()),
                Some(Ok(Message::Close(Some(cf)))) => {
                    return Err(Closed::Frame(u16::from(cf.code), cf.reason.to_string()))
                }
                Some(Ok(Message::Close(None))) => return Err(Closed::Frame(1005, String::new())),
                Some(Ok(Message::Ping(_) | Message::Pong(_) | Message::Frame(_))) => continue,
                Some(Ok(Message::Binary(_))) => panic!("the server sent a binary frame"),
                Some(Err(_)) | None => return Err(Closed::Eof),
            }
        }
    }

    /// The next message as raw text.
    pub async fn recv_text(&mut self) -> String {
        match self.next_text().await {
            Ok(t) => t,
            Err(c) => panic!("connection ended while waiting for a message: {c:?}"),
        }
    }

    /// The next message.
    pub async fn recv(&mut self) -> Value {
        let t = self.recv_text().await;
        serde_json::from_str(&t).unwrap_or_else(|e| panic!("server sent invalid JSON {t}: {e}"))
    }

    /// The next message of type `ty`, skipping others (progress, room updates ...).
    pub async fn recv_type(&mut self, ty: &str) -> Value {
        for _ in 0..10_000 {
            let v = self.recv().await;
            if v["type"] == ty {
                return v;
            }
        }
        panic!("no {ty} message in 10000");
    }

    /// The next message that is not `progress` or `room` (those arrive
    /// whenever others act).
    pub async fn recv_direct(&mut self) -> Value {
        loop {
            let v = self.recv().await;
            if v["type"] != "progress" && v["type"] != "room" {
                return v;
            }
        }
    }

    /// Reads until the server closes; returns its close code and reason.
    pub async fn expect_close(&mut self) -> (u16, String) {
        loop {
            match self.next_text().await {
                Ok(_) => continue,
                Err(Closed::Frame(code, reason)) => return (code, reason),
                Err(Closed::Eof) => panic!("connection ended without a close frame"),
            }
        }
    }

    /// Like [`Client::expect_close`] without the per-message timeout, for
    /// paused-time tests (where a timeout would fire as soon as all idle).
    pub async fn expect_close_within(&mut self, limit: Duration) -> (u16, String) {
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            match tokio::time::timeout_at(deadline, self.ws.next()).await.expect("no close in time") {
                Some(Ok(Message::Close(Some(cf)))) => return (u16::from(cf.code), cf.reason.to_string()),
                Some(Ok(Message::Close(None))) => return (1005, String::new()),
                Some(Ok(_)) => continue,
                Some(Err(e)) => panic!("connection failed without a close frame: {e}"),
                None => panic!("connection ended without a close frame"),
            }
        }
    }

    pub async fn hello(&mut self, name: &str) -> Value {
        self.send(json!({"type": "hello", "name": name})).await;
        let w = self.recv().await;
        assert_eq!(w["type"], "welcome", "{w}");
        self.id = w["player_id"].as_u64().expect("player_id") as u32;
        self.token = w["token"].as_str().expect("token").to_owned();
        w
    }

    /// Makes a room; returns its `room` message.
    pub async fn create(&mut self, extra: Value) -> Value {
        let mut m = json!({"type": "create_room"});
        if let (Some(m), Some(extra)) = (m.as_object_mut(), extra.as_object()) {
            m.extend(extra.clone());
        }
        self.send(m).await;
        self.recv_type("room").await
    }

    /// Joins `code`; returns the first `room` message that lists this player.
    pub async fn join(&mut self, code: &str) -> Value {
        self.send(json!({"type": "join_room", "code": code})).await;
        self.recv_room_with(self.id).await
    }

    /// The next `room` message that lists player `id`.
    pub async fn recv_room_with(&mut self, id: u32) -> Value {
        loop {
            let v = self.recv().await;
            assert_ne!(v["type"], "error", "{v}");
            if v["type"] == "room" && v["players"].as_array().is_some_and(|p| p.iter().any(|p| p["id"] == id))
            {
                return v;
            }
        }
    }

    /// The next `room` message for which `pred` holds.
    pub async fn recv_room_until(&mut self, pred: impl Fn(&Value) -> bool) -> Value {
        loop {
            let v = self.recv_type("room").await;
            if pred(&v) {
                return v;
            }
        }
    }

    pub async fn mv(&mut self, dir: &str, seq: u32) -> Value {
        self.send(json!({"type": "move", "dir": dir, "seq": seq})).await;
        self.recv_type("move_result").await
    }

    /// Sends every action of `line` and returns each result, in order.
    pub async fn play(&mut self, line: &[Action], first_seq: u32) -> Vec<Value> {
        let mut out = Vec::new();
        for (i, a) in line.iter().enumerate() {
            let seq = first_seq + i as u32;
            let (msg, ty) = match a {
                Action::Rewind => (json!({"type": "rewind", "seq": seq}), "rewind_result"),
                Action::Move(d) => (json!({"type": "move", "dir": d, "seq": seq}), "move_result"),
            };
            self.send(msg).await;
            let r = self.recv_type(ty).await;
            assert_eq!(r["seq"], seq, "{r}");
            out.push(r);
        }
        out
    }

    pub async fn close(mut self) {
        let _ = self.ws.close(None).await;
    }
}

/// A close code as a number.
pub fn code_of(c: CloseCode) -> u16 {
    u16::from(c)
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
    let line = match board.answer() {
        mazerace_protocol::Answer::Ghost { solution, .. } => solution,
        mazerace_protocol::Answer::Maze { solution, .. } => solution,
    };
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

/// A bare-bones WebSocket client over a raw socket: it answers nothing on
/// its own (no automatic pongs, no close reply), so it can play a peer that
/// is silent or that stops reading.
pub struct RawClient {
    pub tcp: TcpStream,
    buf: Vec<u8>,
}

impl RawClient {
    pub async fn connect(addr: SocketAddr) -> RawClient {
        Self::over(TcpStream::connect(addr).await.expect("connect"), addr).await
    }

    /// Upgrades an already connected socket (e.g. one with a tiny receive buffer).
    pub async fn over(mut tcp: TcpStream, addr: SocketAddr) -> RawClient {
        let req = format!(
            "GET /ws HTTP/1.1\r\nHost: {addr}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
             Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        );
        tcp.write_all(req.as_bytes()).await.expect("handshake write");
        let mut buf = Vec::new();
        loop {
            let mut chunk = [0u8; 1024];
            let n = tokio::time::timeout(RECV_TIMEOUT, tcp.read(&mut chunk))
                .await
                .expect("handshake")
                .expect("read");
            assert!(n > 0, "closed during the handshake");
            buf.extend_from_slice(&chunk[..n]);
            if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&buf[..end]).to_string();
                assert!(head.starts_with("HTTP/1.1 101"), "{head}");
                buf.drain(..end + 4);
                return RawClient { tcp, buf };
            }
        }
    }

    /// Sends one masked text frame (the mask is zero: valid, and readable).
    pub async fn send_text(&mut self, s: &str) {
        let mut f = vec![0x81u8];
        let n = s.len();
        if n < 126 {
            f.push(0x80 | n as u8);
        } else {
            f.push(0x80 | 126);
            f.extend_from_slice(&(n as u16).to_be_bytes());
        }
        f.extend_from_slice(&[0, 0, 0, 0]);
        f.extend_from_slice(s.as_bytes());
        self.tcp.write_all(&f).await.expect("raw send");
    }

    async fn fill(&mut self, want: usize) -> bool {
        while self.buf.len() < want {
            let mut chunk = [0u8; 4096];
            match tokio::time::timeout(RECV_TIMEOUT, self.tcp.read(&mut chunk))
                .await
                .expect("raw read timed out")
            {
                Ok(0) | Err(_) => return false,
                Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
            }
        }
        true
    }

    /// The next frame as (opcode, payload), or `None` at the end of the stream.
    pub async fn next_frame(&mut self) -> Option<(u8, Vec<u8>)> {
        if !self.fill(2).await {
            return None;
        }
        let op = self.buf[0] & 0x0f;
        let (len, head) = match self.buf[1] & 0x7f {
            126 => {
                if !self.fill(4).await {
                    return None;
                }
                (u16::from_be_bytes([self.buf[2], self.buf[3]]) as usize, 4)
            }
            127 => {
                if !self.fill(10).await {
                    return None;
                }
                let mut b = [0u8; 8];
                b.copy_from_slice(&self.buf[2..10]);
                (u64::from_be_bytes(b) as usize, 10)
            }
            n => (n as usize, 2),
        };
        if !self.fill(head + len).await {
            return None;
        }
        let payload = self.buf[head..head + len].to_vec();
        self.buf.drain(..head + len);
        Some((op, payload))
    }

    /// Reads past everything else to the server's close frame.
    pub async fn expect_close(&mut self) -> (u16, String) {
        while let Some((op, p)) = self.next_frame().await {
            if op == 0x8 {
                let code = if p.len() >= 2 { u16::from_be_bytes([p[0], p[1]]) } else { 1005 };
                return (code, String::from_utf8_lossy(p.get(2..).unwrap_or_default()).into_owned());
            }
        }
        panic!("stream ended without a close frame");
    }
}
