//! [`RawClient`]: a WebSocket peer over a bare socket, for the tests that
//! need one that misbehaves (no pongs, no close reply, no reading).

use std::net::SocketAddr;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::RECV_TIMEOUT;

/// A bare-bones WebSocket client over a raw socket: it answers nothing on
/// its own (no automatic pongs, no close reply), so it can play a peer that
/// is silent or that stops reading.
pub struct RawClient {
    pub tcp: TcpStream,
    buf: Vec<u8>,
}

impl RawClient {
    pub async fn connect(addr: SocketAddr) -> RawClient {
        Self::over(TcpStream::connect(addr).await.expect("connect"), addr).await
    }

    /// Upgrades an already connected socket (e.g. one with a tiny receive buffer).
    pub async fn over(mut tcp: TcpStream, addr: SocketAddr) -> RawClient {
        let req = format!(
            "GET /ws HTTP/1.1\r\nHost: {addr}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
             Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        );
        tcp.write_all(req.as_bytes()).await.expect("handshake write");
        let mut buf = Vec::new();
        loop {
            let mut chunk = [0u8; 1024];
            let n = tokio::time::timeout(RECV_TIMEOUT, tcp.read(&mut chunk))
                .await
                .expect("handshake")
                .expect("read");
            assert!(n > 0, "closed during the handshake");
            buf.extend_from_slice(&chunk[..n]);
            if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&buf[..end]).to_string();
                assert!(head.starts_with("HTTP/1.1 101"), "{head}");
                buf.drain(..end + 4);
                return RawClient { tcp, buf };
            }
        }
    }

    /// Sends one masked text frame (the mask is zero: valid, and readable).
    pub async fn send_text(&mut self, s: &str) {
        assert!(self.try_send_text(s).await, "raw send");
    }

    /// [`RawClient::send_text`]; `false` if the socket is gone (the server
    /// reset it).
    pub async fn try_send_text(&mut self, s: &str) -> bool {
        let mut f = vec![0x81u8];
        let n = s.len();
        if n < 126 {
            f.push(0x80 | n as u8);
        } else {
            f.push(0x80 | 126);
            f.extend_from_slice(&(n as u16).to_be_bytes());
        }
        f.extend_from_slice(&[0, 0, 0, 0]);
        f.extend_from_slice(s.as_bytes());
        self.tcp.write_all(&f).await.is_ok()
    }

    /// Sends `n` messages of an unknown type, each answered with a
    /// `bad_message` error of about 250 bytes that it does not read;
    /// `false` once the socket is gone.
    pub async fn ask_unread(&mut self, n: usize) -> bool {
        for _ in 0..n {
            if !self.try_send_text(r#"{"type":"teleport"}"#).await {
                return false;
            }
        }
        true
    }

    async fn fill(&mut self, want: usize) -> bool {
        while self.buf.len() < want {
            let mut chunk = [0u8; 4096];
            match tokio::time::timeout(RECV_TIMEOUT, self.tcp.read(&mut chunk))
                .await
                .expect("raw read timed out")
            {
                Ok(0) | Err(_) => return false,
                Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
            }
        }
        true
    }

    /// The next frame as (opcode, payload), or `None` at the end of the stream.
    pub async fn next_frame(&mut self) -> Option<(u8, Vec<u8>)> {
        if !self.fill(2).await {
            return None;
        }
        let op = self.buf[0] & 0x0f;
        let (len, head) = match self.buf[1] & 0x7f {
            126 => {
                if !self.fill(4).await {
                    return None;
                }
                (u16::from_be_bytes([self.buf[2], self.buf[3]]) as usize, 4)
            }
            127 => {
                if !self.fill(10).await {
                    return None;
                }
                let mut b = [0u8; 8];
                b.copy_from_slice(&self.buf[2..10]);
                (u64::from_be_bytes(b) as usize, 10)
            }
            n => (n as usize, 2),
        };
        if !self.fill(head + len).await {
            return None;
        }
        let payload = self.buf[head..head + len].to_vec();
        self.buf.drain(..head + len);
        Some((op, payload))
    }

    /// Reads past everything else to the server's close frame.
    pub async fn expect_close(&mut self) -> (u16, String) {
        while let Some((op, p)) = self.next_frame().await {
            if op == 0x8 {
                let code = if p.len() >= 2 { u16::from_be_bytes([p[0], p[1]]) } else { 1005 };
                return (code, String::from_utf8_lossy(p.get(2..).unwrap_or_default()).into_owned());
            }
        }
        panic!("stream ended without a close frame");
    }
}
