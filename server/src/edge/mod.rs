//! The network edge: everything between a TCP socket and the code that
//! serves it, and every bound on what one address can make the server hold.
//!
//! - `accept`: the accept loop and each socket's HTTP life until it becomes
//!   a WebSocket (head timeout, bounded shutdown, socket options).
//! - `gate`: every socket's place from accept to close (the server-wide
//!   limit, its reserve, the per-address socket cap) and [`SockCtl`], the
//!   handle the WebSocket keeps on its socket.
//! - `address`: per-address accounting (an IPv4 address or an IPv6 /64) for
//!   what a socket makes the server hold after the upgrade (rooms, sessions).
//! - `proxy`: `--trusted-proxy`, and [`ClientAddr`], the one answer to "who
//!   is this request from" that every route uses.
//! - `limits`: token buckets and the failed-join limiter.
//! - `penalty`: an address whose connections broke the rules waits before
//!   its next upgrades.
//! - `strict`: request heads refused with 400 (no Host, bare LF, both
//!   `Transfer-Encoding` and `Content-Length`, a bad `Sec-WebSocket-Key`).
//! - `net`: the LAN addresses and the start-up banner.
//! - `fdlimit`: the open-file limit.

pub mod accept;
pub mod address;
pub mod fdlimit;
pub mod gate;
pub mod limits;
pub mod net;
pub mod penalty;
pub mod proxy;
pub mod strict;

pub use gate::SockCtl;
pub use proxy::ClientAddr;
