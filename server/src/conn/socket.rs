//! The connection's socket, read and written by the connection's one task:
//! [`Socket::next`] writes what the [`Outbox`] holds while it waits for the
//! next message, so the task `select!`s over the socket, its deadlines and
//! the shutdown, and nothing else touches the socket (no writer task, no
//! split halves under a lock, no hand-off per frame).
//!
//! Writing: each batch the outbox gives is handed to tungstenite frame by
//! frame and flushed once (one `write` for an answer and the `progress` due
//! with it). A socket that cannot take more leaves the rest of the batch in
//! hand; the outbox fills meanwhile, up to its bound (4002). An aborted
//! outbox stops the writing at the next wake, even mid-flush.
//!
//! [`Socket::finish`] is the close: what the connection's end calls for,
//! bounded by the close linger whatever the client does.

use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use futures_util::{Sink, SinkExt, StreamExt};
use tokio::time::timeout;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::{Error as WsError, Message, Utf8Bytes};

use super::Ws;
use crate::outbox::{CloseReq, Frame, Outbox, Taken};

/// A ready socket goes on; a pending one ends the poll as it is, a failed
/// one as [`Written::Failed`].
macro_rules! ready_or_fail {
    ($poll:expr) => {
        match $poll {
            Poll::Ready(Ok(())) => {}
            Poll::Ready(Err(e)) => return Poll::Ready(Err(failed(e))),
            Poll::Pending => return Poll::Pending,
        }
    };
}

/// Frames an idle connection keeps room for in its batch.
const IDLE_BATCH: usize = 4;

/// Batches written in one wake before the task yields to others (a room
/// that never stops sending must not keep a worker to itself).
const BATCHES_PER_WAKE: usize = 4;

/// Why the writing ended.
pub enum Written {
    /// The close frame the outbox asked for is out.
    CloseSent,
    /// The outbox was aborted (too slow, ...): nothing more was written.
    Killed,
    /// The socket failed (the peer is gone, or closed first).
    Failed,
}

/// What [`Socket::next`] saw.
pub enum Event {
    /// The next message, an error, or the end of the stream.
    Read(Option<Result<Message, WsError>>),
    /// The writing ended (see [`Written`]).
    Written(Written),
}

/// How a connection ends (see [`Socket::finish`]).
pub enum Finish {
    /// The peer sent a close frame: tungstenite's echo is owed (RFC 6455, 5.5.1).
    PeerClosed,
    /// The peer is gone (no close frame, a reset, an error): nobody to tell.
    PeerGone,
    /// The server closes: what is queued, the close frame, then the peer's
    /// reply is read (dropping a socket with unread input would reset it
    /// and could lose the close frame).
    Polite,
    /// The client broke the rules: the close frame goes out and the socket
    /// is not read again (a flood is not read through the linger). It is
    /// held, unread, to the end of the linger (dropping a socket with
    /// unread input resets it, and the reset would overtake the close frame
    /// at the client), then reset.
    Violation,
    /// The writing ended by itself.
    Written(Written),
}

/// The connection's socket and what is in hand to write.
pub struct Socket {
    ws: Ws,
    outbox: Outbox,
    /// The batch being written (its capacity kept from batch to batch).
    frames: Vec<Frame>,
    /// How many of `frames` are handed to tungstenite.
    handed: usize,
    ping: bool,
    close: Option<CloseReq>,
    /// Handed frames not yet flushed.
    unflushed: bool,
    /// The close frame is handed over; flushing it is what is left.
    close_handed: bool,
    done: bool,
}

impl Socket {
    pub fn new(ws: Ws, outbox: Outbox) -> Socket {
        Socket {
            ws,
            outbox,
            frames: Vec::new(),
            handed: 0,
            ping: false,
            close: None,
            unflushed: false,
            close_handed: false,
            done: false,
        }
    }

    /// The next message read, writing meanwhile (see the module header).
    /// Cancel-safe: all its state is in `self`.
    pub async fn next(&mut self) -> Event {
        poll_fn(|cx| self.poll_event(cx, true)).await
    }

    /// Runs `work` to its end, writing what the outbox holds meanwhile (but
    /// reading nothing: the next message waits for this one). How the
    /// writing ended, if it did. `work` comes pinned by the caller and this
    /// is no `async fn`, so its future is held once, not copied in.
    pub fn writing_while<'a, F: Future>(
        &'a mut self,
        mut work: Pin<&'a mut F>,
    ) -> impl Future<Output = (F::Output, Option<Written>)> + 'a {
        let mut ended = None;
        poll_fn(move |cx| {
            if let Poll::Ready(out) = work.as_mut().poll(cx) {
                return Poll::Ready((out, ended.take()));
            }
            if let Poll::Ready(Event::Written(w)) = self.poll_event(cx, false) {
                ended = Some(w);
            }
            Poll::Pending
        })
    }

    fn poll_event(&mut self, cx: &mut Context<'_>, read: bool) -> Poll<Event> {
        if !self.done {
            if let Poll::Ready(w) = self.poll_write(cx) {
                self.done = true;
                return Poll::Ready(Event::Written(w));
            }
        }
        if read {
            if let Poll::Ready(m) = self.ws.poll_next_unpin(cx) {
                return Poll::Ready(Event::Read(m));
            }
        }
        Poll::Pending
    }

    /// Writes until the outbox is empty or the socket full; ready only when
    /// the writing has ended.
    fn poll_write(&mut self, cx: &mut Context<'_>) -> Poll<Written> {
        for _ in 0..BATCHES_PER_WAKE {
            if self.outbox.is_killed() {
                return Poll::Ready(Written::Killed);
            }
            match self.poll_hand_over(cx) {
                Poll::Ready(Ok(true)) => {}
                Poll::Ready(Ok(false)) => return Poll::Pending,
                Poll::Ready(Err(w)) => return Poll::Ready(w),
                Poll::Pending => return Poll::Pending,
            }
        }
        cx.waker().wake_by_ref();
        Poll::Pending
    }

    /// One batch: hands what is in hand to tungstenite, flushes, and takes
    /// the next batch. `Ok(true)`: a new batch is in hand; `Ok(false)`: the
    /// outbox is empty (and will wake the task).
    fn poll_hand_over(&mut self, cx: &mut Context<'_>) -> Poll<Result<bool, Written>> {
        let mut ws = Pin::new(&mut self.ws);
        if !self.close_handed {
            while self.handed < self.frames.len() {
                ready_or_fail!(ws.as_mut().poll_ready(cx));
                let text = Message::Text(self.frames[self.handed].clone());
                ws.as_mut().start_send(text).map_err(failed)?;
                self.handed += 1;
                self.unflushed = true;
            }
            if self.ping {
                ready_or_fail!(ws.as_mut().poll_ready(cx));
                ws.as_mut().start_send(Message::Ping(Default::default())).map_err(failed)?;
                self.ping = false;
                self.unflushed = true;
            }
            if let Some(c) = &self.close {
                ready_or_fail!(ws.as_mut().poll_ready(cx));
                ws.as_mut().start_send(close_message(c)).map_err(failed)?;
                self.close_handed = true;
                self.unflushed = true;
            }
        }
        if self.unflushed {
            ready_or_fail!(ws.as_mut().poll_flush(cx));
            self.unflushed = false;
        }
        if self.close_handed {
            return Poll::Ready(Err(Written::CloseSent));
        }
        self.handed = 0;
        match self.outbox.take_batch(&mut self.frames, cx.waker()) {
            Taken::Batch { ping, close } => {
                self.ping = ping;
                self.close = close;
                Poll::Ready(Ok(true))
            }
            Taken::Nothing => {
                // Idle now: a burst (a room filling) grew the batch; what a
                // quiet player keeps is room for a few frames.
                self.frames.shrink_to(IDLE_BATCH);
                Poll::Ready(Ok(false))
            }
            Taken::Killed => Poll::Ready(Err(Written::Killed)),
        }
    }

    /// Closes the connection as `how` says, within `linger` whatever the
    /// client does (see [`Finish`]).
    pub async fn finish(mut self, how: Finish, linger: Duration) {
        let (write, read) = match how {
            Finish::PeerGone => return,
            // Both flush tungstenite's echo of a close the peer sent first:
            // it refuses our own close after one, and sends the echo only on
            // a flush (without it the client sees a reset: 1006).
            Finish::PeerClosed | Finish::Written(Written::Failed) => {
                let _ = timeout(linger, self.ws.flush()).await;
                return;
            }
            Finish::Written(Written::Killed) => {
                // Best effort: a client that stopped reading may never see it.
                if let Some(c) = self.outbox.close_req() {
                    let _ = timeout(linger, self.ws.send(close_message(&c))).await;
                }
                return;
            }
            Finish::Polite => (true, true),
            Finish::Written(Written::CloseSent) => (false, true),
            Finish::Violation => (true, false),
        };
        let _ = timeout(linger, async {
            if write && !self.done {
                match poll_fn(|cx| self.poll_event(cx, false)).await {
                    Event::Written(Written::CloseSent) => {}
                    Event::Written(_) | Event::Read(_) => return,
                }
            }
            if !read {
                // A violator: give the close frame time to arrive, unread.
                return std::future::pending().await;
            }
            while let Some(Ok(m)) = self.ws.next().await {
                if matches!(m, Message::Close(_)) {
                    break;
                }
            }
        })
        .await;
    }
}

fn failed(e: WsError) -> Written {
    match e {
        // The outbox keeps every frame under the write limit, so this is
        // a bug, not a peer gone: said where an operator looks.
        WsError::WriteBufferFull(_) => tracing::error!(error = %e, "socket write failed"),
        _ => tracing::debug!(error = %e, "socket write failed"),
    }
    Written::Failed
}

fn close_message(c: &CloseReq) -> Message {
    Message::Close(Some(CloseFrame { code: c.code.into(), reason: Utf8Bytes::from(c.reason.to_string()) }))
}
