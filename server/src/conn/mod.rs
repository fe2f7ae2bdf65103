//! One WebSocket connection, as transport: one task reads and writes the
//! socket (`socket.rs`), keeps the deadlines (`deadlines.rs`) and hands
//! every frame to the connection's [`Lobby`] (`crate::lobby`: the flood
//! gate, `hello`, the session, rooms, leaderboards, leagues), which answers
//! into the connection's [`Outbox`] and says whether to read on. What
//! others send the player goes through the same outbox, which wakes this
//! task; all a connection reaches of the server is its [`ConnEnv`]
//! (`env.rs`).
//!
//! Fatal mistakes close the connection with a code and a reason
//! (PROTOCOL.md, "Close codes"). A connection closed for a violation (a
//! flood, a bad frame) is not read again, and its address waits before its
//! next upgrade (`edge/penalty.rs`). How the peer left is counted as what
//! happened: a close frame, a FIN without one, a reset
//! ([`crate::metrics::peer_left`]). Nothing a client sends can make this
//! task panic or disturb another connection.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use futures_util::future::Either;
use futures_util::FutureExt;
use hyper::upgrade::{OnUpgrade, Upgraded};
use hyper_util::rt::TokioIo;
use mazerace_protocol::close;
use mazerace_protocol::messages::{ErrorCode, ServerMsg};
use tokio::sync::OwnedSemaphorePermit;
use tokio_tungstenite::tungstenite::protocol::Role;
use tokio_tungstenite::WebSocketStream;
use tracing::Instrument;

use crate::edge::SockCtl;
use crate::lobby::Lobby;
use crate::outbox::Outbox;

mod deadlines;
mod env;
mod live;
mod serve;
mod socket;

pub use env::{ConnEnv, ConnLimits, ConnParts};
use socket::{Finish, Socket};

/// A player's WebSocket, on the socket hyper upgraded.
pub type Ws = WebSocketStream<TokioIo<Upgraded>>;

/// The connection's task from the `/ws` handshake on: once hyper has
/// written the 101 and handed the socket over, the WebSocket on it, then
/// [`run`]. Chained with `then`, not written as an `async` block: a block
/// keeps what it captured (the address, the socket's accounting, the
/// environment) for its whole life, beside the connection's future, and
/// this one lives as long as the player; each stage of a chain holds only
/// its own.
pub fn upgraded(
    env: Arc<ConnEnv>,
    upgrade: OnUpgrade,
    sock: SockCtl,
    peer: SocketAddr,
) -> impl Future<Output = ()> {
    upgrade.then(move |io| match io {
        Ok(io) => {
            // A player now: no longer evicted, counted as a WebSocket.
            sock.upgraded();
            let config = env.limits.websocket();
            let ws = WebSocketStream::from_raw_socket(TokioIo::new(io), Role::Server, Some(config));
            Either::Left(ws.then(move |ws| run(env, ws, Some(sock), peer)))
        }
        Err(e) => {
            tracing::debug!(%peer, error = %e, "websocket upgrade failed");
            Either::Right(std::future::ready(()))
        }
    })
}

/// Runs one upgraded socket to its end. Every byte of the returned future
/// is paid per connected player, hence a plain fn that builds the socket
/// and the lobby before any future exists: an `async fn` keeps its
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
    let outbox = Outbox::new(cfg.outbox_capacity, cfg.max_frame_bytes(), id, sock);
    let socket = Socket::new(ws, outbox.clone());
    let Ok(slot) = Arc::clone(&env.conn_slots).try_acquire_owned() else {
        // Boxed: rare, and its future would size every connection's.
        return Either::Left(Box::pin(refuse_full(socket, outbox, cfg.close_linger).instrument(span)));
    };
    let lobby = Lobby::new(Arc::clone(&env.lobby), peer.ip(), outbox);
    Either::Right(run_inner(env, lobby, socket, slot).instrument(span))
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

/// The connection's life once admitted. A plain fn around an `async move`
/// block, not an `async fn`: an async fn's arguments are stored twice in
/// its future (rust-lang/rust#62958), here the lobby and the socket.
#[allow(clippy::manual_async_fn)]
fn run_inner(
    env: Arc<ConnEnv>,
    mut lobby: Lobby,
    mut socket: Socket,
    // Held to the end: a place among `max_connections`.
    slot: OwnedSemaphorePermit,
) -> impl Future<Output = ()> {
    async move {
        // Shutdown reaches the connection through its outbox, from now on.
        let _held = (slot, env.live.join(lobby.outbox()));
        tracing::debug!("connected");
        let finish = serve::serve(&env.limits, &mut lobby, &mut socket).await;
        // Once per connection, and the largest states of the future: boxed,
        // so that an idle player's task does not carry room for them.
        Box::pin(lobby.detach()).await;
        if matches!(finish, Finish::Violation) {
            // Not read again, reset when dropped (nothing lingers for it),
            // and its address waits before its next upgrade.
            if let Some(sock) = lobby.outbox().socket() {
                sock.reset_on_close();
            }
            env.penalties.violation(lobby.ip());
        }
        let linger = env.limits.close_linger;
        drop(lobby);
        Box::pin(socket.finish(finish, linger)).await;
        tracing::debug!("disconnected");
    }
}

/// Every connected player's task holds this future: its size is memory per
/// player. Before one task owned the socket it was 1,664 bytes plus a
/// writer task (768) and the split socket's lock (400); the first single
/// task was 2,896 (a dead copy of the WebSocket, the close and the lobby's
/// futures inline); 1,744 with the lobby as a value; 1,160 once a move
/// awaited nothing, the read's event and frame no longer lived beside the
/// text being handled, and the upgrade's captures no longer lived beside
/// the connection.
#[cfg(test)]
#[test]
fn the_connection_future_stays_small() {
    fn future_size<A, B, C, D, F: Future>(_: fn(A, B, C, D) -> F) -> usize {
        std::mem::size_of::<F>()
    }
    let size = future_size(upgraded);
    eprintln!("the connection task's future: {size} bytes");
    assert!(size <= 1280, "the connection's future is {size} bytes");
}
