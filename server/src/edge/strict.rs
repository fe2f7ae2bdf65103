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
//! - Both `Transfer-Encoding` and `Content-Length` (RFC 9112, 6.3: "ought to
//!   be handled as an error"; a proxy that reads the length and a server
//!   that reads the chunks see two different requests: the classic
//!   smuggling). hyper drops the `Content-Length` before a route could see
//!   it, so [`HeadScan`] finds the pair in the head's bytes too; and a
//!   WebSocket handshake with any `Transfer-Encoding` is refused after the
//!   parse (a handshake has no body, and after the `101` whatever follows
//!   the head would be read as frames), which also covers a head pipelined
//!   where the scan does not look.
//! - More than one `Sec-WebSocket-Key`, or one that is not 16 bytes in
//!   base64 (RFC 6455, 4.2.1), e.g. 1000 bytes of it.

use axum::http::{header, Request, Version};

/// A head refused after hyper's parse: the reason (the 400's body) and
/// whether it looks like smuggling (for the metrics).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Refused {
    pub why: &'static str,
    pub smuggling: bool,
}

const fn malformed(why: &'static str) -> Option<Refused> {
    Some(Refused { why, smuggling: false })
}

/// Why `req` is refused, if it is.
pub fn refused<B>(req: &Request<B>) -> Option<Refused> {
    let headers = req.headers();
    if req.version() == Version::HTTP_11 && headers.get_all(header::HOST).iter().count() != 1 {
        return malformed("an HTTP/1.1 request needs exactly one Host header");
    }
    // hyper has taken any Content-Length beside it away by now: what is
    // left to see is a handshake that claims a body at all.
    if headers.contains_key(header::UPGRADE) && headers.contains_key(header::TRANSFER_ENCODING) {
        return Some(Refused {
            why: "a WebSocket handshake has no body: no Transfer-Encoding",
            smuggling: true,
        });
    }
    let mut keys = headers.get_all(header::SEC_WEBSOCKET_KEY).iter();
    match (keys.next(), keys.next()) {
        (Some(_), Some(_)) => malformed("one Sec-WebSocket-Key, not several"),
        (Some(key), None) if !is_websocket_key(key.as_bytes()) => {
            malformed("a Sec-WebSocket-Key is 16 bytes in base64 (24 characters)")
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

/// The answers to a head refused on the socket itself (a bare LF; both
/// `Transfer-Encoding` and `Content-Length`): written as they are, since
/// hyper never parsed a request to answer.
pub const BARE_LF: &[u8] =
    b"HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain\r\ncontent-length: 35\r\nconnection: close\r\n\r\nlines end with CRLF, not a bare LF\n";
pub const TE_AND_CL: &[u8] =
    b"HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain\r\ncontent-length: 60\r\nconnection: close\r\n\r\na request has Transfer-Encoding or Content-Length, not both\n";

/// The header names [`HeadScan`] looks for, lower case, each with its bit.
const FRAMING: [(u8, &[u8]); 2] = [(1, b"transfer-encoding"), (2, b"content-length")];
/// Both bits of [`FRAMING`].
const BOTH: u8 = 3;

/// Watches the bytes a socket reads inside a request head for a bare LF,
/// and for `Transfer-Encoding` beside `Content-Length` (header names in
/// any case, matched byte by byte as they arrive, so a name split over two
/// reads is found too). It looks at heads only: from the connection's
/// start, and again after each final response the server writes, up to the
/// empty line that ends the head; bodies and, after a `101`, WebSocket
/// frames are never looked at. Six bytes of state per socket. A head
/// pipelined behind another (sent before the answer to the one before it)
/// arrives with that one's body, so it is not looked at: telling it from a
/// body would take parsing the framing, which is hyper's job (hyper closes
/// the connection after a request with both framing headers, and
/// [`refused`] takes a handshake with a `Transfer-Encoding`).
#[derive(Debug)]
pub struct HeadScan {
    mode: Mode,
    /// The previous byte was a CR.
    after_cr: bool,
    /// Nothing but the line ending on the current line yet.
    line_empty: bool,
    /// Bytes of the current line so far (saturating).
    col: u8,
    /// The [`FRAMING`] names the current line may still be starting with.
    names: u8,
    /// The [`FRAMING`] names this head has.
    seen: u8,
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
    /// A line ended by a bare LF: answer [`BARE_LF`] and close.
    BareLf,
    /// Both `Transfer-Encoding` and `Content-Length`: answer [`TE_AND_CL`]
    /// and close.
    TeAndCl,
}

impl Scanned {
    /// The 400 to write for a refused head (`None` for [`Scanned::Fine`]).
    pub fn answer(&self) -> Option<&'static [u8]> {
        match self {
            Scanned::Fine => None,
            Scanned::BareLf => Some(BARE_LF),
            Scanned::TeAndCl => Some(TE_AND_CL),
        }
    }
}

impl Default for HeadScan {
    /// A new socket: its first bytes are a request head.
    fn default() -> HeadScan {
        HeadScan { mode: Mode::Head, after_cr: false, line_empty: true, col: 0, names: BOTH, seen: 0 }
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
                b'\n' => {
                    self.line_empty = true;
                    (self.col, self.names) = (0, BOTH);
                }
                _ => {
                    if b != b'\r' {
                        self.line_empty = false;
                    }
                    if self.names != 0 && self.name_byte(b) == BOTH {
                        return Scanned::TeAndCl;
                    }
                    self.col = self.col.saturating_add(1);
                }
            }
            self.after_cr = b == b'\r';
        }
        Scanned::Fine
    }

    /// Byte `b` at `col` of the current line: narrows the names it may
    /// start with, and notes one whose colon has come. Returns the names
    /// the head has.
    fn name_byte(&mut self, b: u8) -> u8 {
        let col = usize::from(self.col);
        for (bit, name) in FRAMING {
            if self.names & bit == 0 {
                continue;
            }
            match name.get(col) {
                Some(&c) if b.to_ascii_lowercase() == c => continue,
                None if col == name.len() && b == b':' => self.seen |= bit,
                _ => {}
            }
            self.names &= !bit;
        }
        self.seen
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
    fn both_framing_headers_in_one_head_are_found_in_any_case_order_or_split() {
        let scan = |parts: &[&[u8]]| {
            let mut s = HeadScan::default();
            parts.iter().map(|p| s.read(p)).find(|r| *r != Scanned::Fine).unwrap_or(Scanned::Fine)
        };
        let te_cl: &[u8] =
            b"GET /ws HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n";
        assert_eq!(scan(&[te_cl]), Scanned::TeAndCl);
        let cl_te: &[u8] =
            b"POST / HTTP/1.1\r\ncontent-length: 5\r\nHost: x\r\nTRANSFER-ENCODING: chunked\r\n\r\n";
        assert_eq!(scan(&[cl_te]), Scanned::TeAndCl, "either order, any case");
        assert_eq!(
            scan(&[
                b"GET / HTTP/1.1\r\nTransfer-Enc",
                b"oding: chunked\r\nCont",
                b"ent-Length",
                b": 5\r\n\r\n"
            ]),
            Scanned::TeAndCl,
            "names split over reads"
        );
        for fine in [
            &b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"[..],
            b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n",
            b"GET / HTTP/1.1\r\nX-Content-Length: 1\r\nTransfer-Encodings: chunked\r\n\r\n",
            b"GET / HTTP/1.1\r\nX-A: content-length: 1\r\nTransfer-Encoding: chunked\r\n\r\n",
        ] {
            assert_eq!(scan(&[fine]), Scanned::Fine, "{}", String::from_utf8_lossy(fine));
        }
        // Each head on its own: the pair in two heads is no pair, and a
        // body is never read.
        let mut s = HeadScan::default();
        assert_eq!(
            s.read(b"POST / HTTP/1.1\r\nContent-Length: 38\r\n\r\nTransfer-Encoding: chunked\r\n\r\n"),
            Scanned::Fine
        );
        s.wrote(b"HTTP/1.1 200 OK\r\n");
        assert_eq!(s.read(b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"), Scanned::Fine);
    }

    #[test]
    fn the_written_answers_are_whole_http_responses() {
        for answer in [BARE_LF, TE_AND_CL] {
            let text = std::str::from_utf8(answer).unwrap();
            let (head, body) = text.split_once("\r\n\r\n").unwrap();
            assert!(head.starts_with("HTTP/1.1 400 "));
            assert!(head.contains(&format!("content-length: {}\r\n", body.len())), "{text}");
        }
        assert_eq!(Scanned::TeAndCl.answer(), Some(TE_AND_CL));
        assert_eq!(Scanned::Fine.answer(), None);
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
        let body = [("host", "x"), ("upgrade", "websocket"), ("transfer-encoding", "chunked")];
        assert_eq!(
            refused(&req(Version::HTTP_11, &body)).map(|r| r.smuggling),
            Some(true),
            "a handshake with a body"
        );
        let post = [("host", "x"), ("transfer-encoding", "chunked")];
        assert_eq!(refused(&req(Version::HTTP_11, &post)), None, "a chunked body elsewhere is fine");
    }
}
