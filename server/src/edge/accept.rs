//! The accept loop and each socket's HTTP life until it becomes a WebSocket
//! (or closes): the server's own loop instead of `axum::serve`, so that
//!
//! - every accepted socket goes through the [`Gate`] (an address the
//!   violation penalty refuses, limits, reserve, per-address cap), which
//!   turns one away with a fixed answer before any HTTP is read, and gets
//!   the socket settings (TCP_NODELAY, SO_SNDBUF);
//! - a request head must be complete within `--head-timeout-secs`, from
//!   accept and again after each response (hyper's header read timeout),
//!   may be at most [`MAX_HEAD_BYTES`], and must mean one thing (`strict`:
//!   one Host, CRLF line ends, not both `Transfer-Encoding` and
//!   `Content-Length`, a real `Sec-WebSocket-Key`), else 400;
//! - every request carries its [`ClientAddr`], decided here once by the
//!   trusted-proxy rule, so every route sees the same client;
//! - shutdown is bounded: the loop stops at once, open HTTP connections
//!   finish the response they are writing and are dropped after the grace
//!   whatever the client does (a half-sent request included);
//! - an accept error (EMFILE, ENOBUFS, ...) is retried with a backoff
//!   instead of ending the server.
//!
//! The socket itself lives in a [`Sock`], which hyper hands to the WebSocket
//! on upgrade, so its place in the gate is held until the file is closed.

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::extract::ConnectInfo;
use axum::Router;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tower_service::Service;

use super::gate::{Admit, Gate, Slot, SockCtl};
use super::proxy::{ClientAddr, TrustedProxies};
use super::strict::{self, HeadScan, Scanned};
use crate::metrics::{self, Refusal};

/// The largest request head accepted (hyper answers 431 past it). A
/// browser's is well under 8 KiB; hyper's default would let each waiting
/// socket hold ~400 KiB.
pub const MAX_HEAD_BYTES: usize = 16 * 1024;

/// How one listener serves its sockets.
#[derive(Clone, Copy, Debug)]
pub struct ServeOpts {
    pub head_timeout: Duration,
    /// How long an open HTTP connection may take to finish once shutdown starts.
    pub grace: Duration,
    /// SO_SNDBUF for accepted sockets (0: the kernel's autotuning).
    pub send_buffer: usize,
}

/// Sets the listen backlog of a bound, listening socket (Linux and the BSDs
/// take a second `listen()` as a new backlog). The kernel caps it at
/// `net.core.somaxconn`.
pub fn set_backlog(listener: &TcpListener, backlog: u32) -> io::Result<()> {
    let n = i32::try_from(backlog).unwrap_or(i32::MAX);
    socket2::SockRef::from(listener).listen(n)
}

/// Accepts until `stop`, serving each socket with `app`; every connection
/// task is spawned on `tracker`.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    gate: Arc<Gate>,
    opts: ServeOpts,
    // Load balancers (`--trusted-proxy`): not held to the per-address cap,
    // and believed about the client they forward.
    trusted: Arc<TrustedProxies>,
    stop: CancellationToken,
    tracker: TaskTracker,
) {
    let mut backoff = Duration::from_millis(5);
    loop {
        let accepted = tokio::select! {
            biased;
            () = stop.cancelled() => return,
            r = listener.accept() => r,
        };
        let (tcp, peer) = match accepted {
            Ok(a) => a,
            Err(e) if is_per_connection(&e) => continue,
            Err(e) => {
                // Out of files or buffers: what frees them is time (sockets
                // closing), so wait a little and try again; never give up.
                metrics::accept_error();
                tracing::warn!(error = %e, ?backoff, "accept failed: retrying");
                tokio::select! {
                    () = stop.cancelled() => return,
                    () = tokio::time::sleep(backoff) => {}
                }
                backoff = (backoff * 2).min(Duration::from_secs(1));
                continue;
            }
        };
        backoff = Duration::from_millis(5);
        let slot = match gate.admit(peer.ip(), !trusted.trusts(peer.ip())) {
            Admit::Yes(slot) => slot,
            Admit::No(why) => {
                refuse(&tcp, why);
                continue;
            }
            Admit::Penalised(after) => {
                refuse_penalised(&tcp, after);
                continue;
            }
        };
        configure(&tcp, &opts);
        let (id, ctl) = (slot.id(), slot.ctl().clone());
        let sock = Sock { tcp, slot, scan: HeadScan::default() };
        let serve = serve_one(sock, peer, app.clone(), ctl, Arc::clone(&trusted), opts, stop.clone());
        let task = tracker.spawn(serve);
        // Evicting a socket aborts its task: no token or timer of its own.
        gate.watch(id, task.abort_handle());
    }
}

/// Errors that concern one connection only (the peer gave up before we
/// accepted it): accept again at once.
fn is_per_connection(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionAborted | io::ErrorKind::ConnectionReset | io::ErrorKind::ConnectionRefused
    )
}

/// Best effort, without waiting: a full server or an address over its cap
/// gets a short HTTP answer, then the socket is closed.
fn refuse(tcp: &TcpStream, why: Refusal) {
    let answer: &[u8] = match why {
        Refusal::PerAddress => {
            b"HTTP/1.1 429 Too Many Requests\r\ncontent-length: 0\r\nconnection: close\r\nretry-after: 10\r\n\r\n"
        }
        Refusal::Full => {
            b"HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\nconnection: close\r\nretry-after: 10\r\n\r\n"
        }
        // The gate says how long (`Admit::Penalised`); this is the longest.
        Refusal::Penalty => return refuse_penalised(tcp, super::penalty::MAX_SPACING),
    };
    metrics::socket_refused(why);
    let _ = tcp.try_write(answer);
    tracing::debug!(?why, "socket refused");
}

/// As [`refuse`], for an address the violation penalty refuses for `after`
/// more: the same 429 `/ws` would give it after a parse, written before
/// any byte of the request is read.
fn refuse_penalised(tcp: &TcpStream, after: Duration) {
    metrics::socket_refused(Refusal::Penalty);
    let answer = format!(
        "HTTP/1.1 429 Too Many Requests\r\ncontent-type: text/plain\r\ncontent-length: {}\r\n\
         connection: close\r\nretry-after: {}\r\n\r\n{PENALISED}",
        PENALISED.len(),
        after.as_secs().max(1)
    );
    let _ = tcp.try_write(answer.as_bytes());
    tracing::debug!(?after, "socket refused: its address's connections were closed for violations");
}

/// The body of [`refuse_penalised`]'s 429.
const PENALISED: &str = "too many connections from your address were closed for breaking the rules; wait\n";

fn configure(tcp: &TcpStream, opts: &ServeOpts) {
    // Moves are tiny messages: send them now, not after Nagle's wait.
    if let Err(e) = tcp.set_nodelay(true) {
        tracing::debug!(error = %e, "could not set TCP_NODELAY");
    }
    // A fixed send buffer (no autotuning) bounds what the kernel holds for
    // a client that does not read (SECURITY.md: "What a slow reader costs").
    if opts.send_buffer > 0 {
        if let Err(e) = socket2::SockRef::from(tcp).set_send_buffer_size(opts.send_buffer) {
            tracing::debug!(error = %e, "could not set SO_SNDBUF");
        }
    }
}

/// One socket's HTTP connection, with the head timeout, eviction and the
/// bounded shutdown. Ends when the connection does, or hands the socket to
/// the WebSocket on upgrade.
async fn serve_one(
    sock: Sock,
    peer: SocketAddr,
    app: Router,
    ctl: SockCtl,
    trusted: Arc<TrustedProxies>,
    opts: ServeOpts,
    stop: CancellationToken,
) {
    let svc = hyper::service::service_fn(move |mut req: hyper::Request<Incoming>| {
        let refused = strict::refused(&req);
        // What the handlers read: the client (the one answer every route
        // uses), the TCP peer (as axum::serve gives it) and the socket's
        // handle (for the upgrade).
        let client = ClientAddr(trusted.client_addr(peer, req.headers()));
        req.extensions_mut().insert(client);
        req.extensions_mut().insert(ConnectInfo(peer));
        req.extensions_mut().insert(ctl.clone());
        let mut app = app.clone();
        async move {
            if let Some(refused) = refused {
                metrics::head_refused(refused.smuggling);
                tracing::debug!(%peer, why = refused.why, "request head refused");
                return Ok(bad_request(refused.why));
            }
            app.call(req).await
        }
    });
    let mut builder = http1::Builder::new();
    builder.timer(TokioTimer::new()).header_read_timeout(opts.head_timeout).max_buf_size(MAX_HEAD_BYTES);
    let conn = builder.serve_connection(TokioIo::new(sock), svc).with_upgrades();
    tokio::pin!(conn);
    let result = tokio::select! {
        r = conn.as_mut() => Some(r),
        () = stop.cancelled() => {
            // Finish the response being written, then close; a client that
            // holds the connection (a half-sent request) is dropped.
            conn.as_mut().graceful_shutdown();
            tokio::time::timeout(opts.grace, conn.as_mut()).await.ok()
        }
    };
    if let Some(Err(e)) = result {
        if e.is_timeout() {
            metrics::head_timeout();
            tracing::debug!(%peer, "no complete request head in time: closed");
        } else {
            tracing::debug!(%peer, error = %e, "http connection ended");
        }
    }
}

/// A 400 for a head [`strict`] refuses.
fn bad_request(why: &'static str) -> axum::response::Response {
    use axum::response::IntoResponse;
    let close = [(axum::http::header::CONNECTION, "close")];
    (axum::http::StatusCode::BAD_REQUEST, close, why).into_response()
}

/// An accepted socket: the stream, its place in the gate, held until the
/// file is closed (by hyper, or by the WebSocket after an upgrade), and the
/// watch on its request heads' bytes ([`HeadScan`]: bare LFs, both framing
/// headers).
pub struct Sock {
    tcp: TcpStream,
    slot: Slot,
    scan: HeadScan,
}

impl Drop for Sock {
    fn drop(&mut self) {
        // The stream is still open here (it closes after this body), so
        // this is our own socket. A zero linger does not block the close.
        if self.slot.close() {
            if let Err(e) = socket2::SockRef::from(&self.tcp).set_linger(Some(Duration::ZERO)) {
                tracing::debug!(error = %e, "could not set SO_LINGER");
            }
        }
    }
}

impl AsyncRead for Sock {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        std::task::ready!(Pin::new(&mut self.tcp).poll_read(cx, buf))?;
        let me = &mut *self;
        let scanned = me.scan.read(&buf.filled()[before..]);
        if let Some(answer) = scanned.answer() {
            // hyper would take it: answer here, as `refuse` does, and end.
            let _ = me.tcp.try_write(answer);
            metrics::head_refused(scanned == Scanned::TeAndCl);
            tracing::debug!(?scanned, "a request head refused on the socket");
            return Poll::Ready(Err(io::Error::new(io::ErrorKind::InvalidData, "a request head refused")));
        }
        Poll::Ready(Ok(()))
    }
}

impl AsyncWrite for Sock {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        self.scan.wrote(buf);
        Pin::new(&mut self.tcp).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        if let Some(first) = bufs.iter().find(|b| !b.is_empty()) {
            self.scan.wrote(first);
        }
        Pin::new(&mut self.tcp).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.tcp.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.tcp).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.tcp).poll_shutdown(cx)
    }
}
