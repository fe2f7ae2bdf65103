//! The WebSocket close codes the server sends (PROTOCOL.md, "Close codes").
//! They are wire constants like the messages: a client reads them from the
//! close frame to tell a flood from a slow network from a takeover.
//! 1000 to 1013 are RFC 6455's (7.4.1); 4000 and up are ours.

/// A normal close.
pub const NORMAL: u16 = 1000;
/// The server is shutting down (after `server_shutdown`).
pub const GOING_AWAY: u16 = 1001;
/// A frame RFC 6455 forbids (unmasked, a reserved bit or opcode, ...).
pub const PROTOCOL_ERROR: u16 = 1002;
/// A text frame that is not UTF-8.
pub const INVALID_DATA: u16 = 1007;
/// Flooding: the message rate was exceeded for too long.
pub const POLICY: u16 = 1008;
/// A message or frame over the size limit.
pub const TOO_BIG: u16 = 1009;
/// The server could not send a message it owed this client (one larger
/// than the socket's write limit: a bug the server logs and counts); only
/// this one connection is closed.
pub const SERVER_ERROR: u16 = 1011;
/// The server is full (after `error {code: "server_full"}`).
pub const TRY_LATER: u16 = 1013;
/// No `hello` in time.
pub const HELLO_TIMEOUT: u16 = 4000;
/// A silent peer: no frame, not even a pong, for the idle timeout.
pub const IDLE_TIMEOUT: u16 = 4001;
/// Too slow: the client let the server's queue for it fill.
pub const TOO_SLOW: u16 = 4002;
/// The session was resumed on another connection.
pub const TAKEN_OVER: u16 = 4003;

/// Whether a close with `code` is the client's fault: it broke the protocol
/// or the limits (a flood, a frame RFC 6455 forbids, bad UTF-8, a message
/// over the limit). Such a connection is not read again after the close.
pub fn is_violation(code: u16) -> bool {
    matches!(code, PROTOCOL_ERROR | INVALID_DATA | POLICY | TOO_BIG)
}
