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

use futures_util::future::Either;
use hyper::upgrade::{OnUpgrade, Upgraded};
use hyper_util::rt::TokioIo;
use mazerace_protocol::close;
use mazerace_protocol::messages::{ClientMsg, ErrorCode, ServerMsg};
use mazerace_protocol::Action;
use tokio::sync::OwnedSemaphorePermit;
use tokio_tungstenite::tungstenite::protocol::Role;
use tokio_tungstenite::WebSocketStream;
use tracing::Instrument;

use crate::edge::limits::TokenBucket;
use crate::edge::SockCtl;
use crate::outbox::Outbox;

mod deadlines;
mod env;
mod leagues;
mod live;
mod lobby;
mod moved;
mod requests;
mod serve;
mod socket;

pub use env::{ConnEnv, ConnLimits, ConnParts};
use lobby::Lobby;
pub use moved::adopt_loop;
use socket::{Finish, Socket};

/// A player's WebSocket, on the socket hyper upgraded.
pub type Ws = WebSocketStream<TokioIo<Upgraded>>;

/// The connection's task from the `/ws` handshake on: once hyper has
/// written the 101 and handed the socket over, the WebSocket on it, then
/// [`run`]. A plain fn around an `async move` block: an `async fn` stores
/// its arguments twice in its future (rust-lang/rust#62958), and this one
/// lives as long as the player.
// Not an `async fn`, on purpose (see above).
#[allow(clippy::manual_async_fn)]
pub fn upgraded(
    env: Arc<ConnEnv>,
    upgrade: OnUpgrade,
    sock: SockCtl,
    peer: SocketAddr,
) -> impl Future<Output = ()> {
    async move {
        let io = match upgrade.await {
            Ok(io) => io,
            Err(e) => return tracing::debug!(%peer, error = %e, "websocket upgrade failed"),
        };
        // A player now: no longer evicted, counted as a WebSocket.
        sock.upgraded();
        let config = env.limits.websocket();
        let ws = WebSocketStream::from_raw_socket(TokioIo::new(io), Role::Server, Some(config)).await;
        run(env, ws, Some(sock), peer).await;
    }
}

/// Runs one upgraded socket to its end. Every byte of the returned future
/// is paid per connected player, hence a plain fn that builds the socket
/// and the connection before any future exists: an `async fn` keeps its
/// arguments for its whole life, so the future would carry a dead copy of
/// the WebSocket beside the one in use.
pub fn run(env: Arc<ConnEnv>, ws: Ws, sock: Option<SockCtl>, peer: SocketAddr) -> impl Future<Output = ()> {
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
    Either::Right(run_inner(conn, socket, slot).instrument(span))
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
    /// Dropped unread, to be refused with `rate_limited`; the connection
    /// goes on.
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
#[allow(clippy::manual_async_fn)]
fn run_inner(
    mut conn: Conn,
    mut socket: Socket,
    // Held to the end: a place among `max_connections`.
    slot: OwnedSemaphorePermit,
) -> impl Future<Output = ()> {
    async move {
        // Shutdown reaches the connection through its outbox, from now on.
        let _held = (slot, conn.env.live.join(&conn.outbox));
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
    /// with `rate_limited` ([`Conn::refuse`]), and too many refusals close
    /// the connection (1008).
    fn admit(&mut self) -> Gate {
        if self.msgs.take() {
            return Gate::Pass;
        }
        if self.strikes.take() {
            return Gate::Refuse;
        }
        tracing::warn!("flooding: closing with 1008");
        self.outbox.close(close::POLICY, "too many messages");
        Gate::Stop
    }

    /// A message over the rate: dropped. A racer's `move` or `rewind` is
    /// answered by its `seq` as any is (the room says `rate_limited` with
    /// the game as it stands, so the client's prediction is corrected),
    /// anything else by the `rate_limited` error. Bounded by the strikes:
    /// at most one room message per refusal, and those run out.
    async fn refuse(&mut self, text: &str) {
        let dropped = match (ClientMsg::decode(text), self.session()) {
            (Ok(ClientMsg::Move { dir, seq }), Some(s)) => Some((Arc::clone(s), seq, Action::Move(dir))),
            (Ok(ClientMsg::Rewind { seq }), Some(s)) => Some((Arc::clone(s), seq, Action::Rewind)),
            _ => None,
        };
        match dropped {
            Some((s, seq, action)) => self.dropped(&s, seq, action).await,
            None => self.error(ErrorCode::RateLimited, "too many messages: slow down"),
        }
    }

    async fn on_text(&mut self, text: &str) -> Flow {
        match self.admit() {
            Gate::Pass => {}
            Gate::Refuse => {
                self.refuse(text).await;
                return Flow::Go;
            }
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
    fn future_size<A, B, C, D, F: Future>(_: fn(A, B, C, D) -> F) -> usize {
        std::mem::size_of::<F>()
    }
    let size = future_size(upgraded);
    eprintln!("the connection task's future: {size} bytes");
    assert!(size <= 2048, "the connection's future is {size} bytes");
}
