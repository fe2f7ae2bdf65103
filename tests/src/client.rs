//! [`Client`]: a real WebSocket client speaking JSON, each receive with a
//! timeout so a missing message fails the test instead of hanging it.

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use crate::{Action, RECV_TIMEOUT};

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

/// Runs `step` while every client of `idle` is read, so none sits unread
/// meanwhile: the server pings a quiet socket and closes it as silent
/// when no pong comes (a client answers pings only while it is read), and
/// closes one whose outbox fills as too slow. Returns `step`'s output and
/// the messages each idle client got meanwhile, in order. A socket that
/// closes meanwhile fails the test.
pub async fn while_reading<T>(
    idle: Vec<&mut Client>,
    step: impl std::future::Future<Output = T>,
) -> (T, Vec<Vec<Value>>) {
    let mut seen: Vec<Vec<Value>> = idle.iter().map(|_| Vec::new()).collect();
    let out = {
        let reading = futures_util::future::join_all(idle.into_iter().zip(seen.iter_mut()).map(
            |(c, got)| async move {
                loop {
                    // `next` is cancel-safe: a frame is either returned or left in the stream.
                    match c.next_text_untimed().await {
                        Ok(t) => got.push(
                            serde_json::from_str(&t).unwrap_or_else(|e| panic!("invalid JSON {t}: {e}")),
                        ),
                        Err(closed) => panic!("player {} was disconnected while idle: {closed:?}", c.id),
                    }
                }
            },
        ));
        tokio::pin!(reading);
        tokio::select! {
            out = step => out,
            _ = &mut reading => unreachable!("the readers only end by a panic"),
        }
    };
    (out, seen)
}
