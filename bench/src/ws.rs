//! One simulated client's WebSocket: connecting with the benchmark's socket
//! settings (TCP_NODELAY, 1 KiB read buffer, an optional 127.0.0.x source
//! address), sending frames, and reading replies cheaply. A handshake the
//! server resets (a burst of connects past its listen backlog) is retried
//! as a real client would, a few times with a growing pause, and counted
//! ([`handshake_retries`]) for the report.
//!
//! The hot replies (`move_result`, `rewind_result`, `progress`) are read into
//! small structs that skip what the load generator does not need: the load
//! generator shares the machine with the server, so every microsecond it
//! spends is one the server does not get. Everything else is decoded into the
//! full [`ServerMsg`], which also checks the wire contract.

use anyhow::{anyhow, bail, Context, Result};
use futures_util::{SinkExt, StreamExt};
use mazerace_protocol::messages::{ClientMsg, PlayerId, ServerMsg};
use mazerace_protocol::{Dir, Status};
use serde::Deserialize;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use tokio::net::{TcpSocket, TcpStream};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};
use tokio_tungstenite::WebSocketStream;

pub type Ws = WebSocketStream<TcpStream>;

/// TCP connect plus WebSocket handshake, at most (each attempt).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// Attempts at one connection when the server resets or refuses it: the
/// first, then retries after 50, 100, 200 and 400 ms (a browser page's
/// reconnect loop does much the same).
const CONNECT_ATTEMPTS: u32 = 5;
const FIRST_BACKOFF: Duration = Duration::from_millis(50);

static RETRIES: AtomicU64 = AtomicU64::new(0);

/// Connection attempts retried after a reset or refusal, since the start.
pub fn handshake_retries() -> u64 {
    RETRIES.load(Ordering::Relaxed)
}

/// Whether a failed connect is one a real client would simply try again:
/// the server reset, refused or dropped it (not a timeout, not a bad answer).
fn is_retryable(e: &anyhow::Error) -> bool {
    use std::io::ErrorKind::*;
    use tokio_tungstenite::tungstenite::error::{Error as WsError, ProtocolError};
    e.chain().any(|c| {
        let io = c.downcast_ref::<std::io::Error>().or_else(|| match c.downcast_ref::<WsError>() {
            Some(WsError::Io(io)) => Some(io),
            _ => None,
        });
        let ws_cut = matches!(
            c.downcast_ref::<WsError>(),
            Some(WsError::Protocol(ProtocolError::HandshakeIncomplete))
        );
        ws_cut
            || io.is_some_and(|io| {
                matches!(
                    io.kind(),
                    ConnectionReset | ConnectionRefused | ConnectionAborted | BrokenPipe | UnexpectedEof
                )
            })
    })
}

/// The simulated clients' socket settings: a 1 KiB read buffer, because
/// tungstenite zero-fills the whole buffer before every read (4 KiB cost the
/// load generator ~3% of its CPU) and its 128 KiB default would dominate
/// memory at 20,000 connections. Larger messages still arrive whole, and may
/// be far larger than the server accepts (results with a long solution), so
/// the client keeps a generous cap.
pub fn client_config() -> WebSocketConfig {
    WebSocketConfig::default().read_buffer_size(1024).max_message_size(Some(1 << 20))
}

/// A hot reply, or any other message fully decoded.
#[derive(Debug)]
pub enum In {
    /// `move_result` or `rewind_result`.
    Ack {
        seq: u32,
        ok: bool,
        steps: u32,
        status: Status,
    },
    /// `progress`: `(player, steps)` per entry.
    Progress(Vec<(PlayerId, u32)>),
    Other(Box<ServerMsg>),
}

#[derive(Deserialize)]
struct Lite<'a> {
    #[serde(rename = "type", borrow)]
    ty: std::borrow::Cow<'a, str>,
    seq: Option<u32>,
    ok: Option<bool>,
    steps: Option<u32>,
    status: Option<Status>,
    players: Option<Vec<LiteEntry>>,
}

#[derive(Deserialize)]
struct LiteEntry {
    id: PlayerId,
    steps: Option<u32>,
}

/// Decode one text frame.
pub fn parse(text: &str) -> Result<In> {
    let lite: Lite = serde_json::from_str(text).with_context(|| format!("undecodable frame {text:.200}"))?;
    match &*lite.ty {
        "move_result" | "rewind_result" => {
            let (Some(seq), Some(ok), Some(steps), Some(status)) =
                (lite.seq, lite.ok, lite.steps, lite.status)
            else {
                bail!("incomplete {}: {text:.200}", lite.ty);
            };
            Ok(In::Ack { seq, ok, steps, status })
        }
        "progress" => {
            let players = lite.players.ok_or_else(|| anyhow!("progress without players"))?;
            Ok(In::Progress(players.into_iter().filter_map(|e| Some((e.id, e.steps?))).collect()))
        }
        _ => {
            let msg: ServerMsg =
                serde_json::from_str(text).with_context(|| format!("frame off the contract: {text:.300}"))?;
            Ok(In::Other(Box::new(msg)))
        }
    }
}

/// A move frame, written by hand: the hot path should not go through serde.
pub fn move_frame(dir: Dir, seq: u32) -> String {
    let d = match dir {
        Dir::Up => "up",
        Dir::Down => "down",
        Dir::Left => "left",
        Dir::Right => "right",
    };
    format!(r#"{{"type":"move","dir":"{d}","seq":{seq}}}"#)
}

pub fn rewind_frame(seq: u32) -> String {
    format!(r#"{{"type":"rewind","seq":{seq}}}"#)
}

/// The frame that sends `action` as message `seq`.
pub fn action_frame(action: mazerace_protocol::Action, seq: u32) -> String {
    match action {
        mazerace_protocol::Action::Move(d) => move_frame(d, seq),
        mazerace_protocol::Action::Rewind => rewind_frame(seq),
    }
}

/// A source address for the `i`-th connection: 127.0.0.1 for the first
/// `per_source`, then 127.0.0.2, ... (each source address has its own
/// ephemeral port range, about 28,000 ports on this kernel's default).
pub fn source_for(i: usize, per_source: usize) -> Option<Ipv4Addr> {
    let k = i / per_source.max(1);
    if k == 0 {
        None
    } else {
        Some(Ipv4Addr::new(127, 0, 0, (1 + k).min(254) as u8))
    }
}

/// A client connection.
pub struct Conn {
    ws: Ws,
}

impl Conn {
    /// TCP connect (from `source` when given), TCP_NODELAY, WebSocket handshake on `path`.
    /// A reset or refused attempt is retried (see [`CONNECT_ATTEMPTS`]).
    pub async fn connect(addr: SocketAddr, source: Option<Ipv4Addr>, path: &str) -> Result<Conn> {
        let mut backoff = FIRST_BACKOFF;
        let mut attempt = 1;
        loop {
            // A full accept backlog makes a loopback connect retry its SYN
            // for minutes: bound it.
            let r = match tokio::time::timeout(CONNECT_TIMEOUT, Self::connect_inner(addr, source, path)).await
            {
                Ok(r) => r,
                Err(_) => bail!("connecting to {addr} took over {CONNECT_TIMEOUT:?}"),
            };
            match r {
                Err(e) if attempt < CONNECT_ATTEMPTS && is_retryable(&e) => {
                    RETRIES.fetch_add(1, Ordering::Relaxed);
                    tokio::time::sleep(backoff).await;
                    backoff *= 2;
                    attempt += 1;
                }
                r => return r.with_context(|| format!("after {attempt} attempt(s)")),
            }
        }
    }

    async fn connect_inner(addr: SocketAddr, source: Option<Ipv4Addr>, path: &str) -> Result<Conn> {
        let sock = TcpSocket::new_v4()?;
        if let Some(ip) = source {
            sock.bind(SocketAddr::new(ip.into(), 0)).with_context(|| format!("binding source {ip}"))?;
        }
        let tcp = sock.connect(addr).await.with_context(|| format!("connecting to {addr}"))?;
        tcp.set_nodelay(true)?;
        let url = format!("ws://{addr}{path}");
        let (ws, _) = tokio_tungstenite::client_async_with_config(url, tcp, Some(client_config()))
            .await
            .context("WebSocket handshake")?;
        Ok(Conn { ws })
    }

    /// Send one text frame and flush it (one write per frame, as a browser does).
    pub async fn send_text(&mut self, text: String) -> Result<()> {
        self.ws.send(Message::text(text)).await.context("sending a frame")
    }

    pub async fn send_msg(&mut self, msg: &ClientMsg) -> Result<()> {
        self.send_text(serde_json::to_string(msg)?).await
    }

    /// The next text frame, or `None` when the server closed the connection.
    pub async fn recv_text(&mut self) -> Result<Option<Utf8Bytes>> {
        loop {
            match self.ws.next().await {
                None => return Ok(None),
                Some(Err(e)) => return Err(e).context("reading a frame"),
                Some(Ok(Message::Text(t))) => return Ok(Some(t)),
                Some(Ok(Message::Close(_))) => return Ok(None),
                Some(Ok(Message::Binary(_))) => bail!("the server sent a binary frame"),
                // Pings are answered by tungstenite itself.
                Some(Ok(_)) => continue,
            }
        }
    }

    /// The next decoded message, or `None` on close.
    pub async fn recv(&mut self) -> Result<Option<In>> {
        match self.recv_text().await? {
            None => Ok(None),
            Some(t) => parse(&t).map(Some),
        }
    }

    /// Wait (at most `limit`) for the first message `want` accepts, skipping others.
    /// A server `error` fails the wait unless `want` takes it.
    pub async fn wait_for<T>(
        &mut self,
        limit: Duration,
        mut want: impl FnMut(&ServerMsg) -> Option<T>,
    ) -> Result<T> {
        let deadline = Instant::now() + limit;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let msg = match tokio::time::timeout(left, self.recv()).await {
                Err(_) => bail!("no expected reply within {limit:?}"),
                Ok(r) => r?,
            };
            match msg {
                None => bail!("the server closed the connection"),
                Some(In::Other(m)) => {
                    if let Some(t) = want(&m) {
                        return Ok(t);
                    }
                    if let ServerMsg::Error { code, message } = *m {
                        bail!("server error {code:?}: {message}");
                    }
                }
                Some(_) => {}
            }
        }
    }

    /// Close politely (close frame), bounded in time.
    pub async fn close(mut self) {
        let _ = tokio::time::timeout(Duration::from_secs(2), self.ws.close(None)).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hot_frames_parse_lightly() {
        let ack = r#"{"type":"move_result","seq":7,"ok":false,"reason":"wall","pos":[1,2],"steps":3,"status":"playing"}"#;
        match parse(ack).unwrap() {
            In::Ack { seq: 7, ok: false, steps: 3, status: Status::Playing } => {}
            other => panic!("{other:?}"),
        }
        let prog = r#"{"type":"progress","players":[{"id":4,"pos":[0,0],"steps":9,"status":"racing"}]}"#;
        match parse(prog).unwrap() {
            In::Progress(p) => assert_eq!(p, vec![(4, 9)]),
            other => panic!("{other:?}"),
        }
        assert!(matches!(parse(r#"{"type":"pong"}"#).unwrap(), In::Other(m) if *m == ServerMsg::Pong));
        assert!(parse(r#"{"type":"nonsense"}"#).is_err());
    }

    #[test]
    fn move_frames_match_the_contract() {
        let text = move_frame(Dir::Left, 42);
        let msg: ClientMsg = serde_json::from_str(&text).unwrap();
        assert_eq!(msg, ClientMsg::Move { dir: Dir::Left, seq: 42 });
        let msg: ClientMsg = serde_json::from_str(&rewind_frame(3)).unwrap();
        assert_eq!(msg, ClientMsg::Rewind { seq: 3 });
    }

    /// A server that resets the first two connections, then speaks WebSocket.
    #[tokio::test]
    async fn a_reset_handshake_is_retried_and_counted() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            for i in 0.. {
                let (tcp, _) = listener.accept().await.unwrap();
                if i < 2 {
                    tcp.set_zero_linger().unwrap();
                    drop(tcp);
                } else {
                    let ws = tokio_tungstenite::accept_async(tcp).await.unwrap();
                    tokio::spawn(async move {
                        let _held = ws;
                        std::future::pending::<()>().await
                    });
                }
            }
        });
        let before = handshake_retries();
        Conn::connect(addr, None, "/ws").await.expect("the third attempt gets through");
        assert_eq!(handshake_retries() - before, 2);
    }

    /// A refusal that is an answer (HTTP 404) is not retried.
    #[tokio::test]
    async fn an_answered_refusal_is_not_retried() {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let accepted = tokio::spawn(async move {
            let (mut tcp, _) = listener.accept().await.unwrap();
            let mut b = [0u8; 1024];
            let _ = tcp.read(&mut b).await;
            tcp.write_all(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n").await.unwrap();
            listener
        });
        let e = Conn::connect(addr, None, "/nope").await.err().expect("refused");
        assert!(!is_retryable(&e), "{e:#}");
        assert!(format!("{e:#}").contains("after 1 attempt"), "{e:#}");
        drop(accepted.await);
    }

    #[test]
    fn sources_spread_past_the_port_range() {
        assert_eq!(source_for(0, 20_000), None);
        assert_eq!(source_for(19_999, 20_000), None);
        assert_eq!(source_for(20_000, 20_000), Some(Ipv4Addr::new(127, 0, 0, 2)));
        assert_eq!(source_for(45_000, 20_000), Some(Ipv4Addr::new(127, 0, 0, 3)));
    }
}
