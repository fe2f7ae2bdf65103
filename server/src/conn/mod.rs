//! One WebSocket connection, as transport: one task reads and writes the
//! socket (`socket.rs`), keeps the deadlines (`deadlines.rs`) and the flood
//! gate, and hands each message to the lobby service (`lobby.rs`: `hello`,
//! the session and the room commands; `requests.rs`: creating and joining
//! rooms, leaderboards). What others send the player goes through the
//! connection's [`Outbox`], which wakes this task; all a connection reaches
//! of the server is its [`ConnEnv`] (`env.rs`).
//!
//! Recoverable mistakes (bad JSON, a message out of place) are answered with
//! an `error` and the connection goes on; fatal ones close it with a code
//! and a reason (PROTOCOL.md, "Close codes"). A connection closed for a
//! violation (a flood, a bad frame) is not read again, and its address
//! waits before its next upgrade (`edge/penalty.rs`). How the peer left is
//! counted as what happened: a close frame, a FIN without one, a reset
//! ([`crate::metrics::peer_left`]). Nothing a client sends can make this
//! task panic or disturb another connection.

use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use axum::extract::ws::{Message, WebSocket};
use futures_util::future::Either;
use mazerace_protocol::close;
use mazerace_protocol::messages::{ClientMsg, ErrorCode, ServerMsg};
use mazerace_protocol::Action;
use tokio::sync::OwnedSemaphorePermit;
use tokio::time::{sleep_until, Instant};
use tokio_util::task::task_tracker::TaskTrackerToken;
use tracing::Instrument;

use crate::edge::limits::TokenBucket;
use crate::edge::SockCtl;
use crate::metrics::{self, PeerLeft};
use crate::outbox::Outbox;

mod deadlines;
mod env;
mod leagues;
mod lobby;
mod requests;
mod socket;

use deadlines::{Deadlines, Due};
pub use env::{ConnEnv, ConnLimits, ConnParts};
use lobby::Lobby;
use socket::{Event, Finish, Socket};

/// Runs one upgraded socket to its end. Every byte of the returned future
/// is paid per connected player, hence a plain fn that builds the socket
/// and the connection before any future exists: an `async fn` keeps its
/// arguments for its whole life, so the future would carry a dead copy of
/// the WebSocket (368 bytes) beside the one in use.
pub fn run(
    env: Arc<ConnEnv>,
    ws: WebSocket,
    sock: Option<SockCtl>,
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
    // A reference, not a copy: the config would cost every connection its size.
    let cfg = &env.limits;
    let outbox = Outbox::new(cfg.outbox_capacity, id, sock);
    let socket = Socket::new(ws, outbox.clone());
    let Ok(slot) = Arc::clone(&env.conn_slots).try_acquire_owned() else {
        // Boxed: rare, and its future would size every connection's.
        return Either::Left(Box::pin(refuse_full(socket, outbox, cfg.close_linger).instrument(span)));
    };
    let conn = Conn {
        env: Arc::clone(&env),
        id,
        ip: peer.ip(),
        outbox,
        lobby: Lobby::AwaitingHello,
        msgs: TokenBucket::per_second(cfg.msgs_burst, cfg.msgs_per_sec),
        strikes: TokenBucket::per_second(cfg.flood_strikes, 1),
        rooms: TokenBucket::new(cfg.rooms_per_conn, cfg.room_refill),
        leagues: TokenBucket::new(5, std::time::Duration::from_secs(60)),
    };
    Either::Right(run_inner(conn, socket, slot, alive).instrument(span))
}

/// Past `max_connections`: `server_full`, then 1013.
async fn refuse_full(socket: Socket, outbox: Outbox, linger: std::time::Duration) {
    tracing::warn!("connection refused: server full");
    outbox.send_msg(&ServerMsg::Error {
        code: ErrorCode::ServerFull,
        message: "the server is full; try again later".into(),
    });
    outbox.close(close::TRY_LATER, "server full");
    socket.finish(Finish::Polite, linger).await;
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

/// The connection's life once admitted. A plain fn around an `async move`
/// block, not an `async fn`: an async fn's arguments are stored twice in
/// its future (rust-lang/rust#62958), here the connection and its socket.
fn run_inner(
    mut conn: Conn,
    mut socket: Socket,
    // Held to the end: a place among `max_connections` ...
    slot: OwnedSemaphorePermit,
    // ... and shutdown waits for every connection's task.
    alive: TaskTrackerToken,
) -> impl Future<Output = ()> {
    async move {
        let _held = (slot, alive);
        tracing::debug!("connected");
        let finish = conn.serve(&mut socket).await;
        // Once per connection, and the largest states of the future: boxed,
        // so that an idle player's task does not carry room for them.
        Box::pin(conn.detach()).await;
        if matches!(finish, Finish::Violation) {
            // Not read again, reset when dropped (nothing lingers for it),
            // and its address waits before its next upgrade.
            if let Some(sock) = conn.outbox.socket() {
                sock.reset_on_close();
            }
            conn.env.penalties.violation(conn.ip);
        }
        let linger = conn.env.limits.close_linger;
        drop(conn);
        Box::pin(socket.finish(finish, linger)).await;
        tracing::debug!("disconnected");
    }
}

impl Conn {
    /// The connection's life: messages, deadlines and shutdown until one of
    /// them ends it; how it is to be closed.
    async fn serve(&mut self, socket: &mut Socket) -> Finish {
        let env = Arc::clone(&self.env);
        let cfg = &env.limits;
        let outbox = self.outbox.clone();
        let conn = self;
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

        loop {
            tokio::select! {
                biased;
                () = &mut shutdown => {
                    outbox.send_msg(&ServerMsg::ServerShutdown);
                    outbox.close(close::GOING_AWAY, "server shutting down");
                    return Finish::Polite;
                }
                event = socket.next() => {
                    let frame = match event {
                        Event::Written(w) => {
                            // The close the outbox asked for is out, the outbox
                            // was aborted (too slow), or the socket failed.
                            if let Some(code) = outbox.close_code() {
                                tracing::info!(code, "connection closed by the server");
                            }
                            return Finish::Written(w);
                        }
                        Event::Read(frame) => frame,
                    };
                    deadlines.last_frame = Instant::now();
                    match frame {
                        None => {
                            metrics::peer_left(PeerLeft::Eof);
                            return Finish::PeerGone;
                        }
                        Some(Err(e)) => match ReadFailure::of(&e) {
                            ReadFailure::TooBig => {
                                tracing::info!("message over the size limit: closing with 1009");
                                let reason = format!("message too big (limit {} bytes)", cfg.max_message_bytes);
                                outbox.close(close::TOO_BIG, reason);
                                return Finish::Violation;
                            }
                            // RFC 6455 7.4.1: a protocol violation is 1002,
                            // a text frame that is not UTF-8 is 1007.
                            ReadFailure::Protocol => {
                                tracing::info!(error = %e, "protocol violation: closing with 1002");
                                outbox.close(close::PROTOCOL_ERROR, "protocol violation");
                                return Finish::Violation;
                            }
                            ReadFailure::NotUtf8 => {
                                tracing::info!("text frame not UTF-8: closing with 1007");
                                outbox.close(close::INVALID_DATA, "text frames must be UTF-8");
                                return Finish::Violation;
                            }
                            ReadFailure::Left(how) => {
                                tracing::debug!(error = %e, "the peer left");
                                metrics::peer_left(how);
                                return Finish::PeerGone;
                            }
                        },
                        Some(Ok(Message::Text(text))) => {
                            if conn.on_text(text.as_str()).await == Flow::Stop {
                                return Finish::Violation;
                            }
                        }
                        Some(Ok(Message::Binary(_))) => match conn.admit() {
                            Gate::Stop => return Finish::Violation,
                            Gate::Refuse => {}
                            Gate::Pass => {
                                conn.error(ErrorCode::BinaryFrame, "binary frames are not spoken here: send JSON text");
                            }
                        },
                        Some(Ok(Message::Close(_))) => {
                            metrics::peer_left(PeerLeft::CloseFrame);
                            return Finish::PeerClosed;
                        }
                        // Pings are answered by tungstenite; pongs prove
                        // liveness. Both count against the message rate: a
                        // flood of pings is a flood (each one costs a pong).
                        Some(Ok(Message::Ping(_) | Message::Pong(_))) => {
                            if conn.admit() == Gate::Stop {
                                return Finish::Violation;
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
                            return Finish::Polite;
                        }
                        Due::Idle => {
                            tracing::info!("silent peer: closing with 4001");
                            outbox.close(close::IDLE_TIMEOUT, format!("no frame from you for {:?}", cfg.idle_timeout));
                            return Finish::Polite;
                        }
                        Due::Ping => outbox.ping(),
                        Due::Nothing => {}
                    }
                    timer.as_mut().reset(deadlines.next(cfg, said_hello));
                }
            }
        }
    }
}

/// What a failed read means for the close.
enum ReadFailure {
    /// A message or frame over the size limit.
    TooBig,
    /// A frame RFC 6455 forbids (unmasked, reserved bits or opcode, ...).
    Protocol,
    /// A text frame whose payload is not UTF-8.
    NotUtf8,
    /// The peer left without a close frame: a FIN, a reset, a failure.
    Left(PeerLeft),
}

impl ReadFailure {
    fn of(e: &axum::Error) -> ReadFailure {
        use tokio_tungstenite::tungstenite::error::ProtocolError;
        use tokio_tungstenite::tungstenite::Error as WsError;
        let mut src: Option<&(dyn std::error::Error + 'static)> = Some(e);
        while let Some(err) = src {
            match err.downcast_ref::<WsError>() {
                Some(WsError::Capacity(_)) => return ReadFailure::TooBig,
                // The stream ended (a FIN) with no close frame first: the
                // peer left, it broke nothing we could still tell it about.
                Some(WsError::Protocol(ProtocolError::ResetWithoutClosingHandshake)) => {
                    return ReadFailure::Left(PeerLeft::Eof)
                }
                Some(WsError::Protocol(_)) => return ReadFailure::Protocol,
                Some(WsError::Utf8(_)) => return ReadFailure::NotUtf8,
                Some(WsError::Io(io)) if io.kind() == std::io::ErrorKind::ConnectionReset => {
                    return ReadFailure::Left(PeerLeft::Reset)
                }
                Some(_) => return ReadFailure::Left(PeerLeft::Error),
                None => src = err.source(),
            }
        }
        ReadFailure::Left(PeerLeft::Error)
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
        let msg = match ClientMsg::decode(text) {
            Ok(msg) => msg,
            Err(e) => {
                self.error(e.code, clip(e.message, 200));
                return Flow::Go;
            }
        };
        // The hot path inline: a player's move or rewind straight to the room.
        let act = match (&msg, self.session()) {
            (ClientMsg::Move { dir, seq }, Some(s)) => Some((Arc::clone(s), *seq, Action::Move(*dir))),
            (ClientMsg::Rewind { seq }, Some(s)) => Some((Arc::clone(s), *seq, Action::Rewind)),
            _ => None,
        };
        match act {
            Some((s, seq, action)) => {
                drop(msg);
                self.act(&s, seq, action).await;
            }
            // Everything else is rare next to moves, so it runs boxed: its
            // future would otherwise size every connection's task.
            None => Box::pin(self.dispatch(msg)).await,
        }
        Flow::Go
    }
}

/// Every connected player's task holds this future: its size is memory per
/// player. Before one task owned the socket it was 1,664 bytes plus a
/// writer task (768) and the split socket's lock (400); the first single
/// task was 2,896 (a dead copy of the WebSocket, the close and the lobby's
/// futures inline).
#[cfg(test)]
#[test]
fn the_connection_future_stays_small() {
    fn future_size<A, B, C, D, E, F: Future>(_: fn(A, B, C, D, E) -> F) -> usize {
        std::mem::size_of::<F>()
    }
    let size = future_size(run);
    assert!(size <= 2048, "the connection's future is {size} bytes");
}
