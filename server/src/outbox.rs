//! One client's outgoing side: a bounded queue of ready-made frames, a
//! single slot for the latest `progress`, and the writer task that drains
//! both into the socket, flushing once per batch.
//!
//! Slow-client policy (PROTOCOL.md repeats it):
//! - Frames are serialised once per broadcast and shared (`Utf8Bytes` is a
//!   reference-counted buffer), so a room of N costs one serialisation.
//! - `progress` is never queued: it goes into one slot. If the previous one
//!   is still waiting there, it is replaced by the room's *full* progress
//!   (every racer), which supersedes any deltas the client missed. So a
//!   client that reads slowly gets fewer, fuller `progress` messages.
//! - Everything else is queued, up to `outbox_capacity` frames. A client
//!   that lets the queue fill is closed with 4002 ("too slow") and the
//!   reason is logged; others in its room are not held up.
//! - The slot keeps its place in line: the writer sends it after the frames
//!   queued before it was (last) filled and before those queued after. So a
//!   client sees everything in the order the server said it: `progress`
//!   never overtakes the `welcome`, `snapshot` or `race_start` before it,
//!   and never trails a `results` sent after it.
//! - A client closed as too slow (4002) has its socket reset when it is
//!   closed (SO_LINGER 0): what the kernel still held for it is dropped at
//!   once instead of lingering in FIN-WAIT-1 for a peer that does not read.
//!   So a slow reader costs at most the outbox, tungstenite's write buffer
//!   and the socket's send buffer (SECURITY.md).
//!
//! Every close the server asks for is counted by code, and every `progress`
//! handed to the socket or superseded in its slot ([`crate::metrics`]).

use std::borrow::Cow;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket};
use futures_util::stream::SplitSink;
use futures_util::SinkExt;
use mazerace_protocol::close;
use mazerace_protocol::messages::ServerMsg;
use tokio::sync::{oneshot, Notify};

use crate::edge::gate::SockCtl;
use crate::metrics;

/// A serialised server message, shared between all its recipients.
pub type Frame = Utf8Bytes;

/// Serialises one message. Serialising our own enums cannot fail (no maps
/// with non-string keys, no foreign `Serialize`); should it ever, the client
/// gets an `internal` error instead of a panic.
pub fn frame(msg: &ServerMsg) -> Frame {
    match serde_json::to_string(msg) {
        Ok(s) => Utf8Bytes::from(s),
        Err(e) => {
            tracing::error!(error = %e, "could not serialise a server message");
            Utf8Bytes::from_static(r#"{"type":"error","code":"internal","message":"serialisation failed"}"#)
        }
    }
}

#[derive(Debug, Clone)]
struct CloseReq {
    code: u16,
    reason: Cow<'static, str>,
}

#[derive(Default)]
struct State {
    queue: VecDeque<Frame>,
    progress: Option<Frame>,
    /// How many queued frames go before the progress slot.
    progress_at: usize,
    ping: bool,
    close: Option<CloseReq>,
}

struct Inner {
    /// A std mutex: pushes and takes are a few pointer moves, never an await.
    state: Mutex<State>,
    wake: Notify,
    /// Fired to stop the writer at once, even in the middle of a flush.
    /// A oneshot, not a `CancellationToken`: the writer polls it every time
    /// it wakes, once per batch, and a token's poll takes the token's lock
    /// (2.2% of the server's samples in rooms of 8, issue 17); a oneshot's
    /// is an atomic read.
    kill: Mutex<Option<oneshot::Sender<()>>>,
    /// The writer's end of `kill`, taken when the writer starts.
    killed: Mutex<Option<oneshot::Receiver<()>>>,
    capacity: usize,
    conn: u64,
    /// The connection's socket, when served by the accept loop.
    socket: Option<SockCtl>,
}

/// The cloneable sending side (rooms hold one per member).
#[derive(Clone)]
pub struct Outbox {
    inner: Arc<Inner>,
}

impl Outbox {
    /// An outbox for connection `conn`. Made inside a WebSocket's task (the
    /// `/ws` handler sets [`crate::edge::gate::SOCKET`]), it also reaches the socket.
    pub fn new(capacity: usize, conn: u64) -> Self {
        let (kill, killed) = oneshot::channel();
        Outbox {
            inner: Arc::new(Inner {
                state: Mutex::new(State::default()),
                wake: Notify::new(),
                kill: Mutex::new(Some(kill)),
                killed: Mutex::new(Some(killed)),
                capacity: capacity.max(1),
                conn,
                socket: crate::edge::gate::current_socket(),
            }),
        }
    }

    /// The connection this outbox belongs to.
    pub fn conn(&self) -> u64 {
        self.inner.conn
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.inner.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Queues a frame. A full queue means the client stopped reading: it
    /// is closed with 4002 and the frame dropped.
    pub fn send(&self, f: Frame) {
        if self.push(f) {
            self.wake();
        }
    }

    /// Queues a frame without waking the writer (the caller calls
    /// [`Outbox::wake`] once it has queued all it has for this socket, so
    /// that an answer and a `progress` go out in one batch, one write).
    /// Whether there is anything to wake it for.
    pub fn push(&self, f: Frame) -> bool {
        let mut st = self.lock();
        if st.close.is_some() {
            return false;
        }
        if st.queue.len() >= self.inner.capacity {
            drop(st);
            tracing::warn!(conn = self.inner.conn, "client too slow: outbox full, closing with 4002");
            self.abort(close::TOO_SLOW, "too slow: the server's queue for you is full");
            return false;
        }
        st.queue.push_back(f);
        true
    }

    /// Wakes the writer for what [`Outbox::push`] and
    /// [`Outbox::offer_progress`] queued.
    pub fn wake(&self) {
        self.inner.wake.notify_one();
    }

    pub fn send_msg(&self, msg: &ServerMsg) {
        self.send(frame(msg));
    }

    /// Offers a progress frame: `delta` if the slot is free, else the full
    /// progress `full()` replaces what is waiting (see the module header).
    /// Rooms use [`Outbox::offer_progress`] and wake the writer themselves.
    #[cfg(test)]
    pub fn progress(&self, delta: &Frame, full: &mut dyn FnMut() -> Frame) {
        if self.offer_progress(delta, full) {
            self.wake();
        }
    }

    /// [`Outbox::progress`] without waking the writer (see [`Outbox::push`]).
    pub fn offer_progress(&self, delta: &Frame, full: &mut dyn FnMut() -> Frame) -> bool {
        let mut st = self.lock();
        if st.close.is_some() {
            return false;
        }
        st.progress = Some(if st.progress.is_some() {
            metrics::progress_coalesced();
            full()
        } else {
            delta.clone()
        });
        // The full list supersedes what was missed up to now: it goes after
        // everything queued so far.
        st.progress_at = st.queue.len();
        true
    }

    /// Asks the writer to send a WebSocket ping.
    pub fn ping(&self) {
        self.lock().ping = true;
        self.inner.wake.notify_one();
    }

    /// Sends what is queued, then a close frame; nothing after it.
    pub fn close(&self, code: u16, reason: impl Into<Cow<'static, str>>) {
        let mut st = self.lock();
        if st.close.is_none() {
            st.close = Some(CloseReq { code, reason: reason.into() });
            metrics::client_closed(code);
        }
        drop(st);
        self.inner.wake.notify_one();
    }

    /// Drops whatever is queued and closes now, even if the writer is stuck
    /// writing to a client that does not read.
    pub fn abort(&self, code: u16, reason: impl Into<Cow<'static, str>>) {
        let mut st = self.lock();
        st.queue.clear();
        st.progress = None;
        if st.close.is_none() {
            metrics::client_closed(code);
        }
        st.close = Some(CloseReq { code, reason: reason.into() });
        drop(st);
        if code == close::TOO_SLOW {
            if let Some(sock) = &self.inner.socket {
                sock.reset_on_close();
            }
        }
        if let Some(kill) = self.inner.kill.lock().unwrap_or_else(|p| p.into_inner()).take() {
            let _ = kill.send(());
        }
        self.inner.wake.notify_one();
    }

    pub fn is_closing(&self) -> bool {
        self.lock().close.is_some()
    }

    /// The close code asked for, if any (for logs).
    pub fn close_code(&self) -> Option<u16> {
        self.lock().close.as_ref().map(|c| c.code)
    }
}

/// What one batch holds besides its frames.
struct Batch {
    ping: bool,
    close: Option<CloseReq>,
}

impl Outbox {
    /// Moves everything waiting into `frames` (emptied first, its capacity
    /// reused: the writer keeps one such Vec, so a batch allocates nothing).
    fn take_batch(&self, frames: &mut Vec<Frame>) -> Batch {
        frames.clear();
        let mut st = self.lock();
        let before = st.progress_at.min(st.queue.len());
        st.progress_at = 0;
        frames.extend(st.queue.drain(..before));
        if let Some(p) = st.progress.take() {
            metrics::progress_sent();
            frames.push(p);
        }
        frames.extend(st.queue.drain(..));
        Batch { ping: std::mem::take(&mut st.ping), close: st.close.clone() }
    }
}

/// The writer task: drains the outbox into the socket until a close frame
/// is sent, the socket fails, or the outbox is aborted.
/// `grace` is how long an aborted writer still tries to get its close frame
/// out (a client that stopped reading may start again, e.g. a tab that wakes).
pub async fn run_writer(outbox: Outbox, mut sink: SplitSink<WebSocket, Message>, grace: Duration) {
    let killed = outbox.inner.killed.lock().unwrap_or_else(|p| p.into_inner()).take();
    let kill = async {
        match killed {
            Some(rx) => {
                let _ = rx.await;
            }
            // A second writer for one outbox (never made): only the first is killable.
            None => std::future::pending().await,
        }
    };
    let written = async {
        let mut frames = Vec::new();
        loop {
            let batch = outbox.take_batch(&mut frames);
            if frames.is_empty() && !batch.ping && batch.close.is_none() {
                outbox.inner.wake.notified().await;
                continue;
            }
            for f in frames.drain(..) {
                sink.feed(Message::Text(f)).await?;
            }
            if batch.ping {
                sink.feed(Message::Ping(Default::default())).await?;
            }
            if let Some(c) = batch.close {
                let cf = CloseFrame { code: c.code, reason: Utf8Bytes::from(c.reason.into_owned()) };
                sink.send(Message::Close(Some(cf))).await?;
                return Ok::<_, axum::Error>(());
            }
            sink.flush().await?;
        }
    };
    tokio::select! {
        r = written => {
            if let Err(e) = r {
                tracing::debug!(conn = outbox.conn(), error = %e, "socket write failed");
                // A peer that closed first is owed the echo of its close frame
                // (RFC 6455, 5.5.1). tungstenite queued it when it read the
                // close, refuses our own close after it, and sends the echo
                // only on a flush; without this the client sees a reset (1006).
                let _ = tokio::time::timeout(grace, sink.flush()).await;
            }
        }
        () = kill => {
            // Best effort: a client that stopped reading may never see it.
            let req = outbox.lock().close.clone();
            let (code, reason) = req.map_or((close::TOO_SLOW, Cow::Borrowed("closing")), |c| (c.code, c.reason));
            let cf = CloseFrame { code, reason: Utf8Bytes::from(reason.into_owned()) };
            let _ = tokio::time::timeout(grace, sink.send(Message::Close(Some(cf)))).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(o: &Outbox) -> Vec<String> {
        let mut frames = Vec::new();
        o.take_batch(&mut frames);
        frames.iter().map(|f| f.as_str().to_owned()).collect()
    }

    #[test]
    fn progress_is_replaced_by_the_full_list_when_unsent() {
        let o = Outbox::new(8, 1);
        let full = || Utf8Bytes::from_static("full");
        o.progress(&Utf8Bytes::from_static("d1"), &mut || full());
        assert_eq!(texts(&o), ["d1"], "a free slot takes the delta");
        o.progress(&Utf8Bytes::from_static("d2"), &mut || full());
        o.progress(&Utf8Bytes::from_static("d3"), &mut || full());
        assert_eq!(texts(&o), ["full"], "missed deltas are superseded, not queued");
    }

    #[test]
    fn progress_keeps_its_place_in_line() {
        let o = Outbox::new(8, 1);
        let full = || Utf8Bytes::from_static("full");
        o.send(Utf8Bytes::from_static("welcome"));
        o.send(Utf8Bytes::from_static("snapshot"));
        o.progress(&Utf8Bytes::from_static("p"), &mut || full());
        o.send(Utf8Bytes::from_static("results"));
        assert_eq!(texts(&o), ["welcome", "snapshot", "p", "results"], "never ahead of what came first");
        o.progress(&Utf8Bytes::from_static("d1"), &mut || full());
        o.send(Utf8Bytes::from_static("finished"));
        o.progress(&Utf8Bytes::from_static("d2"), &mut || full());
        o.send(Utf8Bytes::from_static("results"));
        assert_eq!(texts(&o), ["finished", "full", "results"], "a replacement moves to its own place");
    }

    #[test]
    fn progress_goes_before_what_is_queued_after_it() {
        let o = Outbox::new(8, 1);
        o.progress(&Utf8Bytes::from_static("p"), &mut || Utf8Bytes::from_static("full"));
        o.send(Utf8Bytes::from_static("results"));
        assert_eq!(texts(&o), ["p", "results"]);
    }

    #[test]
    fn a_full_queue_closes_with_4002() {
        let o = Outbox::new(3, 1);
        for i in 0..3 {
            o.send(Utf8Bytes::from(format!("m{i}")));
        }
        assert!(!o.is_closing());
        o.send(Utf8Bytes::from_static("one too many"));
        assert_eq!(o.close_code(), Some(close::TOO_SLOW));
        assert!(texts(&o).is_empty(), "the backlog is dropped, not sent");
        o.send(Utf8Bytes::from_static("later"));
        assert!(texts(&o).is_empty(), "nothing after the close");
    }
}
