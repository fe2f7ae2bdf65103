//! Issue 13, item 4: a client that never reads costs a bounded amount. The
//! server's socket for it has a fixed send buffer (SO_SNDBUF), so the
//! kernel's queue for it stays under that, and when the server gives up on
//! it (4002) the socket is reset, not left in FIN-WAIT-1 with its queue.
//!
//! The kernel's queue is read from /proc/net/tcp (`tx_queue`: bytes sent
//! and not acknowledged, or not sent yet), so this test is Linux only.

#![cfg(target_os = "linux")]

use mazerace_server::Config;
use mazerace_tests::serde_json::{self, json, Value};
use mazerace_tests::{test_config, wait_until, RawClient, TestServer};
use tokio::net::TcpSocket;

/// The server-side socket from port `local` to port `remote`: (state, tx_queue).
fn server_socket(local: u16, remote: u16) -> Option<(u8, u64)> {
    let table = std::fs::read_to_string("/proc/net/tcp").ok()?;
    table.lines().skip(1).find_map(|line| {
        let f: Vec<&str> = line.split_whitespace().collect();
        let port = |a: &str| a.rsplit(':').next().and_then(|p| u16::from_str_radix(p, 16).ok());
        if port(f.get(1)?)? != local || port(f.get(2)?)? != remote {
            return None;
        }
        let state = u8::from_str_radix(f.get(3)?, 16).ok()?;
        let tx = u64::from_str_radix(f.get(4)?.split(':').next()?, 16).ok()?;
        Some((state, tx))
    })
}

#[tokio::test]
async fn a_reader_that_never_reads_is_bounded_and_reset_at_4002() {
    let send_buffer = 16 * 1024;
    let cfg = Config { outbox_capacity: 64, send_buffer_bytes: send_buffer, ..test_config() };
    let srv = TestServer::with_config(cfg).await;
    let mut host = srv.player("Host").await;
    let room = host.create(json!({"game": "maze", "size": "easy"})).await;
    let code = room["code"].as_str().unwrap().to_owned();

    // The slow client: it joins, then never reads again. A small receive
    // window keeps what it takes in small, so the rest waits on the server.
    let sock = TcpSocket::new_v4().unwrap();
    sock.set_recv_buffer_size(4096).unwrap();
    let tcp = sock.connect(srv.addr).await.unwrap();
    let slow_port = tcp.local_addr().unwrap().port();
    let mut slow = RawClient::over(tcp, srv.addr).await;
    slow.send_text(r#"{"type":"hello","name":"Slow"}"#).await;
    let (_, w) = slow.next_frame().await.unwrap();
    let w: Value = serde_json::from_slice(&w).unwrap();
    slow.send_text(&json!({"type": "join_room", "code": code}).to_string()).await;
    host.recv_room_until(|r| r["players"].as_array().unwrap().len() == 2).await;
    assert!(server_socket(srv.addr.port(), slow_port).is_some(), "the socket is in /proc/net/tcp");

    // The slow client asks (a message of an unknown type, answered with a
    // ~250-byte error) and never reads the answers: fewer at a time than
    // its queue holds, so it is the full socket that fills the queue. A
    // room's broadcasts no longer can: they are coalesced and bounded in
    // size. The host flips its ready flag and reads each `room` until one
    // shows the slow client gone.
    let mut most = 0;
    let mut flips = 0u32;
    loop {
        assert!(flips < 1_000, "the slow client was never dropped");
        flips += 1;
        slow.ask_unread(40).await;
        host.send(json!({"type": "ready", "ready": flips % 2 == 1})).await;
        let r = host.recv_type("room").await;
        if let Some((_, tx)) = server_socket(srv.addr.port(), slow_port) {
            most = most.max(tx);
        }
        if r["players"][1]["connected"] == false {
            assert_eq!(r["players"][1]["id"], w["player_id"]);
            break;
        }
    }
    // Linux doubles SO_SNDBUF for its bookkeeping; the payload queued is
    // under that whatever the client does.
    let bound = 2 * send_buffer as u64;
    assert!(most > 0, "the queue was sampled while full");
    assert!(most <= bound, "the kernel held {most} bytes for a client that does not read (bound {bound})");

    // Closed with 4002 and reset: the server's socket and its queue are
    // gone although the client still has not read a byte.
    wait_until("the server's socket for the slow client is gone", || {
        server_socket(srv.addr.port(), slow_port).is_none()
    })
    .await;
    srv.stop().await;
}
