//! One WebSocket connection, as transport: a task that reads frames, keeps
//! the deadlines (`deadlines.rs`) and the flood gate, and hands each message
//! to the lobby service (`lobby.rs`: `hello`, the session and the room
//! commands; `requests.rs`: creating and joining rooms, leaderboards).
//! Writes go through the connection's [`Outbox`] and its writer task; all
//! a connection reaches of the server is its [`ConnEnv`] (`env.rs`).
//!
//! Recoverable mistakes (bad JSON, a message out of place) are answered with
//! an `error` and the connection goes on; fatal ones close it with a code
//! and a reason (PROTOCOL.md, "Close codes"). Nothing a client sends can
//! make this task panic or disturb another connection.

use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use axum::extract::ws::{Message, WebSocket};
use futures_util::stream::{SplitSink, SplitStream};
use futures_util::StreamExt;
use mazerace_protocol::messages::{ClientMsg, ErrorCode, ServerMsg};
use tokio::time::{sleep_until, timeout, Instant};
use tokio_util::task::task_tracker::TaskTrackerToken;
use tracing::Instrument;

use crate::edge::limits::TokenBucket;
use crate::outbox::{run_writer, Outbox};
use mazerace_protocol::close;

mod deadlines;
mod env;
mod leagues;
mod lobby;
mod requests;

use deadlines::{Deadlines, Due};
pub use env::{ConnEnv, ConnLimits, ConnParts};
use lobby::Lobby;

/// Runs one upgraded socket to its end. Every byte of the returned future
/// is paid per connected player, hence two choices: the socket comes already
/// split, and this is a plain fn rather than an `async fn` wrapping
/// `run_inner`. An async fn keeps its arguments for its whole life, so
/// either way the future would carry a dead copy of the socket or of its
/// halves.
pub fn run(
    env: Arc<ConnEnv>,
    (sink, stream): (SplitSink<WebSocket, Message>, SplitStream<WebSocket>),
    peer: SocketAddr,
    alive: TaskTrackerToken,
) -> impl Future<Output = ()> {
    let id = env.next_conn.fetch_add(1, Ordering::Relaxed);
    let span = tracing::info_span!(
        "conn",
        conn = id,
        peer = %peer,
        // The room is not a field here: a connection moves between rooms,
        // and a span field recorded again is appended, not replaced (every
        // line grew by one `room=` per join). Events name their room.
        player = tracing::field::Empty
    );
    run_inner(env, sink, stream, peer, id, alive).instrument(span)
}

#[derive(PartialEq, Eq)]
enum Flow {
    Go,
    /// The outbox has been asked to close; stop reading.
    Stop,
}

/// What the flood gate says about one incoming message.
#[derive(PartialEq, Eq)]
enum Gate {
    Pass,
    /// Refused with `rate_limited`; the connection goes on.
    Refuse,
    /// Sustained abuse: the outbox is closing with 1008.
    Stop,
}

struct Conn {
    env: Arc<ConnEnv>,
    id: u64,
    ip: IpAddr,
    outbox: Outbox,
    lobby: Lobby,
    msgs: TokenBucket,
    strikes: TokenBucket,
    rooms: TokenBucket,
    /// League creations and joins this connection may make (5, one more a minute).
    leagues: TokenBucket,
}

async fn run_inner(
    env: Arc<ConnEnv>,
    sink: SplitSink<WebSocket, Message>,
    mut stream: SplitStream<WebSocket>,
    peer: SocketAddr,
    id: u64,
    // Held to the end: shutdown waits for every connection's task.
    _alive: TaskTrackerToken,
) {
    // A reference, not a copy: the config would cost every connection its size.
    let cfg = &env.limits;
    let outbox = Outbox::new(cfg.outbox_capacity, id);
    let mut writer = tokio::spawn(run_writer(outbox.clone(), sink, cfg.close_linger).in_current_span());
    let mut writer_done = false;

    let Ok(_slot) = Arc::clone(&env.conn_slots).try_acquire_owned() else {
        tracing::warn!("connection refused: server full");
        outbox.send_msg(&ServerMsg::Error {
            code: ErrorCode::ServerFull,
            message: "the server is full; try again later".into(),
        });
        outbox.close(close::TRY_LATER, "server full");
        let _ = timeout(cfg.close_linger, &mut writer).await;
        writer.abort();
        return;
    };
    tracing::debug!("connected");

    let mut conn = Conn {
        env: Arc::clone(&env),
        id,
        ip: peer.ip(),
        outbox: outbox.clone(),
        lobby: Lobby::AwaitingHello,
        msgs: TokenBucket::per_second(cfg.msgs_burst, cfg.msgs_per_sec),
        strikes: TokenBucket::per_second(cfg.flood_strikes, 1),
        rooms: TokenBucket::new(cfg.rooms_per_conn, cfg.room_refill),
        leagues: TokenBucket::new(5, std::time::Duration::from_secs(60)),
    };
    let mut deadlines = Deadlines::new(Instant::now(), cfg);
    let timer = sleep_until(deadlines.next(cfg, false));
    tokio::pin!(timer);
    // A child of the server-wide token, waited on by one future made once:
    // polling `cancelled()` takes the token's lock, and a child's lock is
    // this connection's alone (the server-wide one would be taken by every
    // connection on every message). A fresh future per message would also
    // join and leave the waiter list each time.
    let shutdown_token = env.shutdown.child_token();
    let shutdown = shutdown_token.cancelled();
    tokio::pin!(shutdown);
    let mut peer_closed = false;

    loop {
        tokio::select! {
            biased;
            () = &mut shutdown => {
                outbox.send_msg(&ServerMsg::ServerShutdown);
                outbox.close(close::GOING_AWAY, "server shutting down");
                break;
            }
            _ = &mut writer => {
                // The socket failed, or the outbox was aborted (too slow, taken over).
                writer_done = true;
                if let Some(code) = outbox.close_code() {
                    tracing::info!(code, "connection closed by the server");
                }
                break;
            }
            frame = stream.next() => {
                deadlines.last_frame = Instant::now();
                match frame {
                    None => { peer_closed = true; break; }
                    Some(Err(e)) => {
                        match ReadFailure::of(&e) {
                            ReadFailure::TooBig => {
                                tracing::info!("message over the size limit: closing with 1009");
                                let reason = format!("message too big (limit {} bytes)", cfg.max_message_bytes);
                                outbox.close(close::TOO_BIG, reason);
                            }
                            // RFC 6455 7.4.1: a protocol violation is 1002,
                            // a text frame that is not UTF-8 is 1007.
                            ReadFailure::Protocol => {
                                tracing::info!(error = %e, "protocol violation: closing with 1002");
                                outbox.close(close::PROTOCOL_ERROR, "protocol violation");
                            }
                            ReadFailure::NotUtf8 => {
                                tracing::info!("text frame not UTF-8: closing with 1007");
                                outbox.close(close::INVALID_DATA, "text frames must be UTF-8");
                            }
                            ReadFailure::Gone => {
                                tracing::debug!(error = %e, "read failed");
                                peer_closed = true;
                            }
                        }
                        break;
                    }
                    Some(Ok(Message::Text(text))) => {
                        if conn.on_text(text.as_str()).await == Flow::Stop {
                            break;
                        }
                    }
                    Some(Ok(Message::Binary(_))) => match conn.admit() {
                        Gate::Stop => break,
                        Gate::Refuse => {}
                        Gate::Pass => {
                            conn.error(ErrorCode::BinaryFrame, "binary frames are not spoken here: send JSON text");
                        }
                    },
                    Some(Ok(Message::Close(_))) => { peer_closed = true; break; }
                    // Pings are answered by tungstenite; pongs prove
                    // liveness. Both count against the message rate: a
                    // flood of pings is a flood (each one costs a pong).
                    Some(Ok(Message::Ping(_) | Message::Pong(_))) => {
                        if conn.admit() == Gate::Stop {
                            break;
                        }
                    }
                }
            }
            () = &mut timer => {
                let said_hello = conn.lobby.said_hello();
                match deadlines.due(Instant::now(), cfg, said_hello) {
                    Due::Hello => {
                        tracing::info!("no hello in time: closing with 4000");
                        outbox.close(close::HELLO_TIMEOUT, format!("no hello within {:?}", cfg.hello_timeout));
                        break;
                    }
                    Due::Idle => {
                        tracing::info!("silent peer: closing with 4001");
                        outbox.close(close::IDLE_TIMEOUT, format!("no frame from you for {:?}", cfg.idle_timeout));
                        break;
                    }
                    Due::Ping => outbox.ping(),
                    Due::Nothing => {}
                }
                timer.as_mut().reset(deadlines.next(cfg, said_hello));
            }
        }
    }

    conn.detach().await;

    // Close politely: let the writer send what is queued and the close frame,
    // then read until the client's close reply (dropping a socket with
    // unread input would reset it and could lose our close frame).
    if !writer_done {
        if !outbox.is_closing() {
            outbox.close(close::NORMAL, "");
        }
        let _ = timeout(cfg.close_linger, async {
            let _ = (&mut writer).await;
            if !peer_closed {
                while let Some(Ok(m)) = stream.next().await {
                    if matches!(m, Message::Close(_)) {
                        break;
                    }
                }
            }
        })
        .await;
        writer.abort();
    }
    tracing::debug!("disconnected");
}

/// What a failed read means for the close.
enum ReadFailure {
    /// A message or frame over the size limit.
    TooBig,
    /// A frame RFC 6455 forbids (unmasked, reserved bits or opcode, ...).
    Protocol,
    /// A text frame whose payload is not UTF-8.
    NotUtf8,
    /// The socket itself failed or ended: nobody to tell.
    Gone,
}

impl ReadFailure {
    fn of(e: &axum::Error) -> ReadFailure {
        use tokio_tungstenite::tungstenite::Error as WsError;
        let mut src: Option<&(dyn std::error::Error + 'static)> = Some(e);
        while let Some(err) = src {
            match err.downcast_ref::<WsError>() {
                Some(WsError::Capacity(_)) => return ReadFailure::TooBig,
                Some(WsError::Protocol(_)) => return ReadFailure::Protocol,
                Some(WsError::Utf8(_)) => return ReadFailure::NotUtf8,
                Some(_) => return ReadFailure::Gone,
                None => src = err.source(),
            }
        }
        ReadFailure::Gone
    }
}

/// At most `max` bytes of `s`, cut on a character boundary (serde's
/// messages quote the client's input, which may be any UTF-8).
fn clip(mut s: String, max: usize) -> String {
    if s.len() > max {
        let cut = (0..=max).rev().find(|&i| s.is_char_boundary(i)).unwrap_or(0);
        s.truncate(cut);
    }
    s
}

impl Conn {
    fn send(&self, msg: &ServerMsg) {
        self.outbox.send_msg(msg);
    }

    fn error(&self, code: ErrorCode, message: impl Into<String>) {
        self.send(&ServerMsg::Error { code, message: message.into() });
    }

    /// The flood gate: a token per message; past it, messages are refused
    /// with `rate_limited`, and too many refusals close the connection (1008).
    fn admit(&mut self) -> Gate {
        if self.msgs.take() {
            return Gate::Pass;
        }
        if self.strikes.take() {
            self.error(ErrorCode::RateLimited, "too many messages: slow down");
            return Gate::Refuse;
        }
        tracing::warn!("flooding: closing with 1008");
        self.outbox.close(close::POLICY, "too many messages");
        Gate::Stop
    }

    async fn on_text(&mut self, text: &str) -> Flow {
        match self.admit() {
            Gate::Pass => {}
            Gate::Refuse => return Flow::Go,
            Gate::Stop => return Flow::Stop,
        }
        match ClientMsg::decode(text) {
            Ok(msg) => self.dispatch(msg).await,
            Err(e) => {
                self.error(e.code, clip(e.message, 200));
            }
        }
        Flow::Go
    }
}
