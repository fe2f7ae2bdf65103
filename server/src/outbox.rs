//! One client's outgoing side: a bounded queue of ready-made frames and a
//! single slot for the latest `progress`, filled by rooms and the lobby from
//! any task, drained by the connection's own task (`conn/socket.rs`), which
//! alone reads and writes the socket. Filling wakes that task; nothing here
//! waits.
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
//! - The slot keeps its place in line: the batch holds it after the frames
//!   queued before it was (last) filled and before those queued after. So a
//!   client sees everything in the order the server said it: `progress`
//!   never overtakes the `welcome`, `snapshot` or `race_start` before it,
//!   and never trails a `results` sent after it.
//! - A client closed as too slow (4002) has its socket reset when it is
//!   closed (SO_LINGER 0, through the [`SockCtl`] the outbox is handed):
//!   what the kernel still held for it is dropped at once instead of
//!   lingering in FIN-WAIT-1 for a peer that does not read. So a slow reader
//!   costs at most the outbox, tungstenite's write buffer and the socket's
//!   send buffer (SECURITY.md).
//!
//! - A frame larger than the socket can take (`max_frame`: tungstenite's
//!   write limit, less what may wait in its buffer and the frame's header)
//!   is not queued: tungstenite would fail the write and drop the
//!   connection with nothing said. The server bounds every message it
//!   builds under that limit (a test measures the largest room's largest
//!   message), so this is a bug caught, not a policy: that one socket is
//!   closed with 1011 after what is queued, logged and counted
//!   (`mazerace_frames_too_large_total`); its room is not touched.
//!
//! Every close the server asks for is counted by code, and every `progress`
//! handed to the socket or superseded in its slot ([`crate::metrics`]).

use std::borrow::Cow;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::Waker;

use mazerace_protocol::close;
use mazerace_protocol::messages::ServerMsg;
use tokio_tungstenite::tungstenite::Utf8Bytes;

use crate::edge::SockCtl;
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

/// A close the server asked for: its code and reason.
#[derive(Debug, Clone)]
pub struct CloseReq {
    pub code: u16,
    pub reason: Cow<'static, str>,
}

#[derive(Default)]
struct State {
    queue: VecDeque<Frame>,
    progress: Option<Frame>,
    /// How many queued frames go before the progress slot.
    progress_at: usize,
    ping: bool,
    close: Option<CloseReq>,
    /// The connection's task, woken when there is something to send.
    waker: Option<Waker>,
}

impl State {
    fn wake(&self) {
        if let Some(w) = &self.waker {
            w.wake_by_ref();
        }
    }
}

struct Inner {
    /// A std mutex: pushes and takes are a few pointer moves, never an await.
    state: Mutex<State>,
    /// Set by [`Outbox::abort`]: the connection stops writing at once, even
    /// in the middle of a write to a client that does not read. An atomic,
    /// so that the task checks it on every wake without the lock.
    killed: AtomicBool,
    capacity: usize,
    /// The largest frame the socket can take (see the module header).
    max_frame: usize,
    conn: u64,
    /// The connection's socket, when served by the accept loop.
    socket: Option<SockCtl>,
}

/// The cloneable sending side (rooms hold one per member).
#[derive(Clone)]
pub struct Outbox {
    inner: Arc<Inner>,
}

/// What [`Outbox::take_batch`] found.
pub enum Taken {
    /// Frames in the batch, and maybe a ping and the close after them.
    Batch { ping: bool, close: Option<CloseReq> },
    /// Nothing to send: the task is woken when there is.
    Nothing,
    /// [`Outbox::abort`]ed: write nothing more.
    Killed,
}

impl Outbox {
    /// An outbox for connection `conn` on `socket` (none for a connection
    /// not served by the accept loop): at most `capacity` frames queued, none
    /// larger than `max_frame` bytes.
    pub fn new(capacity: usize, max_frame: usize, conn: u64, socket: Option<SockCtl>) -> Self {
        Outbox {
            inner: Arc::new(Inner {
                state: Mutex::new(State::default()),
                killed: AtomicBool::new(false),
                capacity: capacity.max(1),
                max_frame,
                conn,
                socket,
            }),
        }
    }

    /// The connection this outbox belongs to.
    pub fn conn(&self) -> u64 {
        self.inner.conn
    }

    /// The socket it writes to, if any.
    pub fn socket(&self) -> Option<&SockCtl> {
        self.inner.socket.as_ref()
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

    /// Queues a frame without waking the connection (the caller calls
    /// [`Outbox::wake`] once it has queued all it has for this socket, so
    /// that an answer and a `progress` go out in one batch, one write).
    /// Whether there is anything to wake it for.
    pub fn push(&self, f: Frame) -> bool {
        if self.too_large(&f) {
            return false;
        }
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

    /// A frame the socket could not take: dropped, and the connection closed
    /// (1011) after what is queued (see the module header).
    fn too_large(&self, f: &Frame) -> bool {
        if f.len() <= self.inner.max_frame {
            return false;
        }
        // Every message begins with its type (our own word, never a name).
        let kind = f.as_str().strip_prefix(r#"{"type":""#).and_then(|r| r.split('"').next()).unwrap_or("?");
        tracing::error!(
            conn = self.inner.conn,
            bytes = f.len(),
            limit = self.inner.max_frame,
            kind,
            "a message larger than the socket can take: not sent, closing this connection with 1011"
        );
        metrics::frame_too_large();
        self.close(close::SERVER_ERROR, "the server could not send you a message");
        true
    }

    /// Wakes the connection for what [`Outbox::push`] and
    /// [`Outbox::offer_progress`] queued.
    pub fn wake(&self) {
        self.lock().wake();
    }

    pub fn send_msg(&self, msg: &ServerMsg) {
        self.send(frame(msg));
    }

    /// Offers a progress frame: `delta` if the slot is free, else the full
    /// progress `full()` replaces what is waiting (see the module header).
    /// Rooms use [`Outbox::offer_progress`] and wake the connection themselves.
    #[cfg(test)]
    pub fn progress(&self, delta: &Frame, full: &mut dyn FnMut() -> Frame) {
        if self.offer_progress(delta, full) {
            self.wake();
        }
    }

    /// [`Outbox::progress`] without waking the connection (see [`Outbox::push`]).
    pub fn offer_progress(&self, delta: &Frame, full: &mut dyn FnMut() -> Frame) -> bool {
        let mut st = self.lock();
        if st.close.is_some() {
            return false;
        }
        let next = if st.progress.is_some() {
            metrics::progress_coalesced();
            full()
        } else {
            delta.clone()
        };
        if next.len() > self.inner.max_frame {
            drop(st);
            return self.too_large(&next);
        }
        st.progress = Some(next);
        // The full list supersedes what was missed up to now: it goes after
        // everything queued so far.
        st.progress_at = st.queue.len();
        true
    }

    /// Asks for a WebSocket ping.
    pub fn ping(&self) {
        let mut st = self.lock();
        st.ping = true;
        st.wake();
    }

    /// Sends what is queued, then a close frame; nothing after it.
    pub fn close(&self, code: u16, reason: impl Into<Cow<'static, str>>) {
        let mut st = self.lock();
        if st.close.is_none() {
            st.close = Some(CloseReq { code, reason: reason.into() });
            metrics::client_closed(code);
        }
        st.wake();
    }

    /// Drops whatever is queued and closes now, even if the connection is
    /// stuck writing to a client that does not read.
    pub fn abort(&self, code: u16, reason: impl Into<Cow<'static, str>>) {
        let mut st = self.lock();
        st.queue.clear();
        st.progress = None;
        if st.close.is_none() {
            metrics::client_closed(code);
        }
        st.close = Some(CloseReq { code, reason: reason.into() });
        if code == close::TOO_SLOW {
            if let Some(sock) = &self.inner.socket {
                sock.reset_on_close();
            }
        }
        self.inner.killed.store(true, Ordering::Release);
        st.wake();
    }

    #[cfg(test)]
    pub fn is_closing(&self) -> bool {
        self.lock().close.is_some()
    }

    /// The close asked for, if any.
    pub fn close_req(&self) -> Option<CloseReq> {
        self.lock().close.clone()
    }

    /// The close code asked for, if any (for logs).
    pub fn close_code(&self) -> Option<u16> {
        self.lock().close.as_ref().map(|c| c.code)
    }

    /// Whether [`Outbox::abort`] was called.
    pub fn is_killed(&self) -> bool {
        self.inner.killed.load(Ordering::Acquire)
    }

    /// Moves everything waiting into `frames` (emptied first, its capacity
    /// reused: the connection keeps one such Vec, so a batch allocates
    /// nothing). With nothing waiting, `waker` is woken when there is.
    pub fn take_batch(&self, frames: &mut Vec<Frame>, waker: &Waker) -> Taken {
        frames.clear();
        let mut st = self.lock();
        if self.is_killed() {
            return Taken::Killed;
        }
        let before = st.progress_at.min(st.queue.len());
        st.progress_at = 0;
        frames.extend(st.queue.drain(..before));
        if let Some(p) = st.progress.take() {
            metrics::progress_sent();
            frames.push(p);
        }
        frames.extend(st.queue.drain(..));
        let ping = std::mem::take(&mut st.ping);
        if frames.is_empty() && !ping && st.close.is_none() {
            if !st.waker.as_ref().is_some_and(|w| w.will_wake(waker)) {
                st.waker = Some(waker.clone());
            }
            return Taken::Nothing;
        }
        Taken::Batch { ping, close: st.close.clone() }
    }
}

#[cfg(test)]
#[path = "outbox_tests.rs"]
mod tests;
