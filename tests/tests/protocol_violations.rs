//! Frames RFC 6455 forbids close the connection with the code it names
//! (1002 protocol error, 1007 invalid data), and control frames count
//! against the message rate like any other message. The frames are written
//! by hand on a raw socket: no WebSocket library will send them.

use std::time::Duration;

use mazerace_server::Config;
use mazerace_tests::{test_config, TestServer};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::timeout;

/// A socket past the WebSocket handshake.
async fn raw_ws(srv: &TestServer) -> TcpStream {
    let mut tcp = TcpStream::connect(srv.addr).await.unwrap();
    let req = format!(
        "GET /ws HTTP/1.1\r\nHost: {}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
        srv.addr
    );
    tcp.write_all(req.as_bytes()).await.unwrap();
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        let mut b = [0u8; 1];
        tcp.read_exact(&mut b).await.unwrap();
        head.push(b[0]);
    }
    assert!(head.starts_with(b"HTTP/1.1 101"), "{}", String::from_utf8_lossy(&head));
    tcp
}

/// A client frame, masked unless `masked` is false.
fn frame(first: u8, payload: &[u8], masked: bool) -> Vec<u8> {
    assert!(payload.len() < 126);
    let key = [0x12, 0x34, 0x56, 0x78];
    let mut f = vec![first, payload.len() as u8 | if masked { 0x80 } else { 0 }];
    if masked {
        f.extend_from_slice(&key);
        f.extend(payload.iter().enumerate().map(|(i, b)| b ^ key[i % 4]));
    } else {
        f.extend_from_slice(payload);
    }
    f
}

/// Reads server frames until a close and returns its code.
async fn close_code(tcp: &mut TcpStream) -> u16 {
    timeout(Duration::from_secs(10), async {
        loop {
            let mut h = [0u8; 2];
            tcp.read_exact(&mut h).await.unwrap();
            let len = match h[1] & 0x7f {
                126 => {
                    let mut l = [0u8; 2];
                    tcp.read_exact(&mut l).await.unwrap();
                    u16::from_be_bytes(l) as usize
                }
                n => n as usize,
            };
            let mut payload = vec![0u8; len];
            tcp.read_exact(&mut payload).await.unwrap();
            if h[0] & 0x0f == 0x8 {
                return u16::from_be_bytes([payload[0], payload[1]]);
            }
        }
    })
    .await
    .expect("a close frame in time")
}

#[tokio::test]
async fn invalid_utf8_closes_with_1007_and_bad_frames_with_1002() {
    let srv = TestServer::start().await;
    for (bytes, code, what) in [
        (frame(0x81, &[0xff, 0xfe, 0x41], true), 1007, "a text frame that is not UTF-8"),
        (frame(0x81, br#"{"type":"ping"}"#, false), 1002, "an unmasked frame"),
        (frame(0x83, b"x", true), 1002, "a reserved opcode"),
        (frame(0xc1, b"x", true), 1002, "a reserved bit"),
    ] {
        let mut tcp = raw_ws(&srv).await;
        tcp.write_all(&bytes).await.unwrap();
        assert_eq!(close_code(&mut tcp).await, code, "{what}");
    }
    srv.stop().await;
}

#[tokio::test]
async fn a_flood_of_pings_is_a_flood() {
    let cfg = Config { msgs_per_sec: 5, msgs_burst: 5, flood_strikes: 5, ..test_config() };
    let srv = TestServer::with_config(cfg).await;
    let mut tcp = raw_ws(&srv).await;
    let mut burst = Vec::new();
    for _ in 0..200 {
        burst.extend(frame(0x89, b"p", true));
    }
    tcp.write_all(&burst).await.unwrap();
    assert_eq!(close_code(&mut tcp).await, 1008, "pings count against the message rate");
    srv.stop().await;
}
