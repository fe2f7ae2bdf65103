//! Request heads refused with 400 before any route sees them: what the
//! RFCs forbid and hyper lets through. Smuggling and cache poisoning live in
//! the gaps between a proxy's reading of a head and ours, so both should
//! read only heads with one meaning.
//!
//! - An HTTP/1.1 request without exactly one `Host` (RFC 9112, 3.2: a
//!   server MUST answer 400).
//! - A line ended by a bare LF instead of CRLF (RFC 9112, 2.2: a recipient
//!   MAY accept them; we do not). hyper's parser accepts them and has no
//!   option against it, so [`HeadScan`] watches the bytes of every request
//!   head as they are read (the accept loop's socket runs them through it).
//! - More than one `Sec-WebSocket-Key`, or one that is not 16 bytes in
//!   base64 (RFC 6455, 4.2.1), e.g. 1000 bytes of it.

use axum::http::{header, Request, Version};

/// Why `req` is refused, if it is.
pub fn refused<B>(req: &Request<B>) -> Option<&'static str> {
    let headers = req.headers();
    if req.version() == Version::HTTP_11 && headers.get_all(header::HOST).iter().count() != 1 {
        return Some("an HTTP/1.1 request needs exactly one Host header");
    }
    let mut keys = headers.get_all(header::SEC_WEBSOCKET_KEY).iter();
    match (keys.next(), keys.next()) {
        (Some(_), Some(_)) => Some("one Sec-WebSocket-Key, not several"),
        (Some(key), None) if !is_websocket_key(key.as_bytes()) => {
            Some("a Sec-WebSocket-Key is 16 bytes in base64 (24 characters)")
        }
        _ => None,
    }
}

/// 16 bytes in base64: 22 characters of the alphabet and `==`.
fn is_websocket_key(key: &[u8]) -> bool {
    key.len() == 24
        && key[..22].iter().all(|b| b.is_ascii_alphanumeric() || *b == b'+' || *b == b'/')
        && &key[22..] == b"=="
}

/// The answer to a head refused on the socket itself (a bare LF): written
/// as is, since hyper never parsed a request to answer.
pub const BAD_REQUEST: &[u8] =
    b"HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain\r\ncontent-length: 35\r\nconnection: close\r\n\r\nlines end with CRLF, not a bare LF\n";

/// Watches the bytes a socket reads for a bare LF inside a request head.
/// It looks at heads only: from the connection's start, and again after
/// each final response the server writes, up to the empty line that ends
/// the head; bodies and, after a `101`, WebSocket frames are never looked
/// at. Three bytes of state per socket. A head pipelined behind another
/// (sent before the answer to the one before it) arrives with that one's
/// body, so it is not looked at: telling it from a body would take parsing
/// the framing, which is hyper's job.
#[derive(Debug)]
pub struct HeadScan {
    mode: Mode,
    /// The previous byte was a CR.
    after_cr: bool,
    /// Nothing but the line ending on the current line yet.
    line_empty: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Reading a request head.
    Head,
    /// Past the head (its body, or the answer being made).
    Past,
    /// A WebSocket now: never looked at again.
    Upgraded,
}

/// What [`HeadScan::read`] found.
#[derive(Debug, PartialEq, Eq)]
pub enum Scanned {
    Fine,
    /// A line ended by a bare LF: answer [`BAD_REQUEST`] and close.
    BareLf,
}

impl Default for HeadScan {
    /// A new socket: its first bytes are a request head.
    fn default() -> HeadScan {
        HeadScan { mode: Mode::Head, after_cr: false, line_empty: true }
    }
}

impl HeadScan {
    /// Bytes just read from the socket.
    pub fn read(&mut self, bytes: &[u8]) -> Scanned {
        if self.mode != Mode::Head {
            return Scanned::Fine;
        }
        for &b in bytes {
            match b {
                b'\n' if !self.after_cr => return Scanned::BareLf,
                b'\n' if self.line_empty => {
                    // The empty line: the head is over.
                    self.mode = Mode::Past;
                    return Scanned::Fine;
                }
                b'\n' => self.line_empty = true,
                b'\r' => {}
                _ => self.line_empty = false,
            }
            self.after_cr = b == b'\r';
        }
        Scanned::Fine
    }

    /// The server starts a write of `bytes`: after a final response head
    /// the next bytes read are the next request's head; after a `101`
    /// nothing is looked at again; an interim `100 Continue` changes nothing.
    pub fn wrote(&mut self, bytes: &[u8]) {
        if bytes.starts_with(b"HTTP/1.1 101") {
            self.mode = Mode::Upgraded;
        } else if self.mode == Mode::Past
            && bytes.starts_with(b"HTTP/1.")
            && !bytes.starts_with(b"HTTP/1.1 1")
        {
            *self = HeadScan::default();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads_with_a_bare_lf_are_found_and_bodies_and_frames_are_not_read() {
        let mut s = HeadScan::default();
        assert_eq!(s.read(b"GET / HTTP/1.1\r\nHost: x\r\n"), Scanned::Fine);
        assert_eq!(s.read(b"\r\n{\"a\":\n1}"), Scanned::Fine, "a body is not a head");
        s.wrote(b"HTTP/1.1 200 OK\r\n");
        assert_eq!(s.read(b"GET / HTTP/1.1\nHost: x\n\n"), Scanned::BareLf, "the next head is looked at");
        let mut s = HeadScan::default();
        assert_eq!(s.read(b"GET /ws HTTP/1.1\r"), Scanned::Fine);
        assert_eq!(s.read(b"\nHost: x\r\n\r\n"), Scanned::Fine, "a CRLF split over two reads");
        s.wrote(b"HTTP/1.1 101 Switching Protocols\r\n");
        assert_eq!(s.read(b"\x81\x0a\n\n\n"), Scanned::Fine, "WebSocket frames are never looked at");
        s.wrote(b"HTTP/1.1 200 OK");
        assert_eq!(s.read(b"\n"), Scanned::Fine, "not even after a write that looks like a head");
        assert_eq!(HeadScan::default().read(b"GET / HTTP/1.1\r\nHost: x\n"), Scanned::BareLf);
    }

    #[test]
    fn hosts_and_websocket_keys() {
        let req = |v: Version, headers: &[(&str, &str)]| {
            let mut b = Request::builder().uri("/ws").version(v);
            for (k, val) in headers {
                b = b.header(*k, *val);
            }
            b.body(()).unwrap()
        };
        let key = "dGhlIHNhbXBsZSBub25jZQ==";
        assert_eq!(refused(&req(Version::HTTP_11, &[("host", "x"), ("sec-websocket-key", key)])), None);
        assert!(refused(&req(Version::HTTP_11, &[])).is_some(), "no Host");
        assert!(refused(&req(Version::HTTP_11, &[("host", "x"), ("host", "y")])).is_some(), "two");
        assert_eq!(refused(&req(Version::HTTP_10, &[])), None, "HTTP/1.0 needs none");
        let long = "A".repeat(1000);
        for bad in
            [long.as_str(), "dGhlIHNhbXBsZSBub25jZQ", "dGhlIHNhbXBsZSBub25jZQ=!", "dGhl IHNhbXBsZSBub25jZ=="]
        {
            assert!(
                refused(&req(Version::HTTP_11, &[("host", "x"), ("sec-websocket-key", bad)])).is_some(),
                "{bad}"
            );
        }
        let two = [("host", "x"), ("sec-websocket-key", key), ("sec-websocket-key", key)];
        assert!(refused(&req(Version::HTTP_11, &two)).is_some(), "duplicated");
    }
}
