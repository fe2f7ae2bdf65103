//! The connection's life after the upgrade: messages and deadlines (and
//! the shutdown, which comes through the outbox), `select!`ed in the
//! connection's one task, until one of them
//! ends it; and what a failed read means for the close. Every frame goes
//! to the connection's [`Lobby`], which answers it and says whether to
//! read on ([`Flow`]); the bytes and the deadlines are all this file does.

use mazerace_protocol::close;
use tokio::time::{sleep_until, Instant};
use tokio_tungstenite::tungstenite::{Error as WsError, Message, Utf8Bytes};

use super::deadlines::{Deadlines, Due};
use super::socket::{Event, Finish, Socket};
use super::ConnLimits;
use crate::lobby::{Flow, Lobby};
use crate::metrics::{self, PeerLeft};

/// What the transport does with the lobby's [`Flow`]: a violation's close
/// is asked of the outbox, and the connection ends as a violation.
fn carry_out(flow: Flow, lobby: &Lobby) -> Option<Finish> {
    match flow {
        Flow::Go => None,
        Flow::Violation { code, reason } => {
            lobby.outbox().close(code, reason);
            Some(Finish::Violation)
        }
    }
}

/// What a read asks of the connection's loop.
enum Step {
    /// A text message, for the lobby.
    Text(Utf8Bytes),
    /// Read on.
    Next,
    /// The connection is over.
    End(Finish),
}

/// The connection's life: messages, deadlines and shutdown until one of
/// them ends it; how it is to be closed.
pub(super) async fn serve(cfg: &ConnLimits, lobby: &mut Lobby, socket: &mut Socket) -> Finish {
    let outbox = lobby.outbox().clone();
    let mut deadlines = Deadlines::new(Instant::now(), cfg);
    let timer = sleep_until(deadlines.next(cfg, false));
    tokio::pin!(timer);
    // Shutdown comes through the outbox (`live.rs`): `server_shutdown`
    // and the 1001 close are written like any frame, then the socket
    // says the writing is over.
    loop {
        // The select ends before a text is handled: what it read lives
        // in this future only as the text, not beside the event and the
        // frame it came in (each would be memory per idle player).
        let text = tokio::select! {
            biased;
            event = socket.next() => {
                deadlines.last_frame = Instant::now();
                match read_step(event, cfg, lobby) {
                    Step::Text(text) => text,
                    Step::Next => continue,
                    Step::End(finish) => return finish,
                }
            }
            () = &mut timer => {
                let said_hello = lobby.said_hello();
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
                continue;
            }
        };
        // The socket goes on being written while the message is handled
        // (a store call may take a while): the room's frames do not wait
        // for it.
        let (flow, written) = {
            let work = std::pin::pin!(lobby.on_text(text.as_str()));
            socket.writing_while(work).await
        };
        if let Some(finish) = carry_out(flow, lobby) {
            return finish;
        }
        if let Some(w) = written {
            return Finish::Written(w);
        }
    }
}

/// What the socket's event means: a text for the lobby, or what the
/// transport does itself (binary and control frames, a failed read, the
/// end of the writing).
fn read_step(event: Event, cfg: &ConnLimits, lobby: &mut Lobby) -> Step {
    let outbox = lobby.outbox();
    let frame = match event {
        Event::Written(w) => {
            // The close the outbox asked for is out, the outbox was
            // aborted (too slow), or the socket failed.
            if let Some(code) = outbox.close_code() {
                tracing::info!(code, "connection closed by the server");
            }
            return Step::End(Finish::Written(w));
        }
        Event::Read(frame) => frame,
    };
    let flow = match frame {
        None => {
            metrics::peer_left(PeerLeft::Eof);
            return Step::End(Finish::PeerGone);
        }
        Some(Err(e)) => {
            return Step::End(match ReadFailure::of(&e) {
                ReadFailure::TooBig => {
                    tracing::info!("message over the size limit: closing with 1009");
                    let reason = format!("message too big (limit {} bytes)", cfg.max_message_bytes);
                    outbox.close(close::TOO_BIG, reason);
                    Finish::Violation
                }
                // RFC 6455 7.4.1: a protocol violation is 1002, a text
                // frame that is not UTF-8 is 1007.
                ReadFailure::Protocol => {
                    tracing::info!(error = %e, "protocol violation: closing with 1002");
                    outbox.close(close::PROTOCOL_ERROR, "protocol violation");
                    Finish::Violation
                }
                ReadFailure::NotUtf8 => {
                    tracing::info!("text frame not UTF-8: closing with 1007");
                    outbox.close(close::INVALID_DATA, "text frames must be UTF-8");
                    Finish::Violation
                }
                ReadFailure::Left(how) => {
                    tracing::debug!(error = %e, "the peer left");
                    metrics::peer_left(how);
                    Finish::PeerGone
                }
            });
        }
        Some(Ok(Message::Text(text))) => return Step::Text(text),
        Some(Ok(Message::Binary(_))) => lobby.on_binary(),
        Some(Ok(Message::Close(_))) => {
            metrics::peer_left(PeerLeft::CloseFrame);
            return Step::End(Finish::PeerClosed);
        }
        // Pings are answered by tungstenite; pongs prove liveness. Both
        // count against the message rate: a flood of pings is a flood
        // (each one costs a pong). Raw frames are only ever sent, never
        // read.
        Some(Ok(Message::Frame(_))) => Flow::Go,
        Some(Ok(Message::Ping(_) | Message::Pong(_))) => lobby.on_control(),
    };
    match carry_out(flow, lobby) {
        Some(finish) => Step::End(finish),
        None => Step::Next,
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
    fn of(e: &WsError) -> ReadFailure {
        use tokio_tungstenite::tungstenite::error::ProtocolError;
        match e {
            WsError::Capacity(_) => ReadFailure::TooBig,
            // The stream ended (a FIN) with no close frame first: the peer
            // left, it broke nothing we could still tell it about.
            WsError::Protocol(ProtocolError::ResetWithoutClosingHandshake) => {
                ReadFailure::Left(PeerLeft::Eof)
            }
            WsError::Protocol(_) => ReadFailure::Protocol,
            WsError::Utf8(_) => ReadFailure::NotUtf8,
            WsError::Io(io) if io.kind() == std::io::ErrorKind::ConnectionReset => {
                ReadFailure::Left(PeerLeft::Reset)
            }
            _ => ReadFailure::Left(PeerLeft::Error),
        }
    }
}
