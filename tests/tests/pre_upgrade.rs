//! Issue 13, items 1, 2 and 12: what a socket may do before it is a
//! WebSocket. Shutdown ends within its grace whatever clients hold; a
//! request head must be complete in time (slowloris and idle sockets are
//! closed); every socket counts against the limits, one address is capped,
//! and the reserve keeps `/healthz` and honest players served while the
//! limit is full of idle sockets; the listen backlog is what is asked.
//!
//! Timeouts run on paused tokio time: the seconds are virtual and instant.

use std::net::SocketAddr;
use std::time::Duration;

use mazerace_server::Config;
use mazerace_tests::{test_config, wait_until, TestServer, RECV_TIMEOUT};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio::time::{timeout, Instant};

/// A TCP connection from `ip` (any 127.x.y.z is this machine).
async fn tcp_from(srv: &TestServer, ip: [u8; 4]) -> TcpStream {
    let sock = TcpSocket::new_v4().unwrap();
    sock.bind(SocketAddr::from((ip, 0))).unwrap();
    sock.connect(srv.addr).await.unwrap()
}

/// Reads until the server closes the socket; what it sent on the way.
async fn read_to_close(tcp: &mut TcpStream, limit: Duration) -> Vec<u8> {
    let mut got = Vec::new();
    let r = timeout(limit, async {
        let mut b = [0u8; 1024];
        loop {
            match tcp.read(&mut b).await {
                Ok(0) | Err(_) => return,
                Ok(n) => got.extend_from_slice(&b[..n]),
            }
        }
    })
    .await;
    assert!(r.is_ok(), "the server did not close the socket within {limit:?}");
    got
}

/// A `GET /healthz` over `tcp`: the status.
async fn healthz_over(mut tcp: TcpStream) -> u16 {
    tcp.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").await.unwrap();
    let raw = read_to_close(&mut tcp, RECV_TIMEOUT).await;
    let head = String::from_utf8_lossy(&raw);
    head.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or_else(|| panic!("no status in {head:?}"))
}

/// Whether the server has closed `tcp` (without waiting).
fn is_closed(tcp: &TcpStream) -> bool {
    let mut b = [0u8; 64];
    !matches!(tcp.try_read(&mut b), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock)
}

#[tokio::test(start_paused = true)]
async fn shutdown_ends_within_the_grace_while_clients_hold_half_sent_requests() {
    let grace = Duration::from_secs(3);
    let cfg = Config { shutdown_grace: grace, head_timeout: Duration::from_secs(60), ..test_config() };
    let srv = TestServer::with_config(cfg).await;
    let mut held = Vec::new();
    for _ in 0..5 {
        let mut s = TcpStream::connect(srv.addr).await.unwrap();
        s.write_all(b"GET /ws HTTP/1.1\r\nHost: x\r\n").await.unwrap();
        held.push(s);
    }
    let mut player = srv.player("Ann").await;
    wait_until("the server holds all six sockets", || srv.server.socket_count() == 6).await;

    let server = srv.server.clone();
    let t0 = Instant::now();
    server.shutdown();
    srv.join().await.expect("run returned cleanly");
    let took = t0.elapsed();
    assert!(took <= grace, "run took {took:?} with a grace of {grace:?}");
    let (code, _) = player.expect_close().await;
    assert_eq!(code, 1001, "the player is still told");
    for s in &mut held {
        read_to_close(s, Duration::from_secs(1)).await;
    }
}

#[tokio::test(start_paused = true)]
async fn a_slowloris_socket_is_closed_after_the_head_timeout() {
    let head_timeout = Duration::from_secs(10);
    let srv = TestServer::with_config(Config { head_timeout, ..test_config() }).await;
    let mut tcp = TcpStream::connect(srv.addr).await.unwrap();
    let t0 = Instant::now();
    // One byte every two seconds, a head that never ends.
    let head = b"GET /ws HTTP/1.1\r\nHost: x\r\nX-Slow: ".iter().chain(std::iter::repeat(&b'a'));
    let mut closed_at = None;
    for &byte in head.take(60) {
        if tcp.write_all(&[byte]).await.is_err() {
            closed_at = Some(t0.elapsed());
            break;
        }
        let mut b = [0u8; 256];
        match timeout(Duration::from_secs(2), tcp.read(&mut b)).await {
            Err(_) => continue,
            Ok(_) => {
                closed_at = Some(t0.elapsed());
                break;
            }
        }
    }
    let at = closed_at.expect("the slowloris socket was never closed (120 s)");
    assert!(at >= head_timeout && at <= head_timeout + Duration::from_secs(2), "closed at {at:?}");
    wait_until("its place is free", || srv.server.socket_count() == 0).await;
    srv.stop().await;
}

#[tokio::test(start_paused = true)]
async fn idle_sockets_count_against_the_limit_and_are_closed() {
    let cfg = Config {
        max_connections: 6,
        reserve_connections: 2,
        max_conns_per_addr: 0,
        head_timeout: Duration::from_secs(10),
        ..test_config()
    };
    let srv = TestServer::with_config(cfg).await;
    let mut idle = Vec::new();
    for _ in 0..6 {
        idle.push(TcpStream::connect(srv.addr).await.unwrap());
    }
    wait_until("six idle sockets are counted", || srv.server.socket_count() == 6).await;
    // A player past the limit gets in through the reserve, and the oldest
    // idle socket is closed to make room.
    let mut ann = srv.player("Ann").await;
    read_to_close(&mut idle[0], Duration::from_secs(1)).await;
    ann.send(mazerace_tests::serde_json::json!({"type": "ping"})).await;
    assert_eq!(ann.recv().await["type"], "pong");
    // The others are closed at the head timeout; the player stays.
    for s in &mut idle[1..] {
        read_to_close(s, Duration::from_secs(11)).await;
    }
    wait_until("only the player is left", || srv.server.socket_count() == 1).await;
    ann.send(mazerace_tests::serde_json::json!({"type": "ping"})).await;
    assert_eq!(ann.recv().await["type"], "pong");
    srv.stop().await;
}

#[tokio::test]
async fn a_request_head_over_16_kib_is_refused() {
    let srv = TestServer::start().await;
    let mut tcp = TcpStream::connect(srv.addr).await.unwrap();
    let big = format!("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\n\r\n", "a".repeat(20 * 1024));
    let _ = tcp.write_all(big.as_bytes()).await;
    let answer = read_to_close(&mut tcp, RECV_TIMEOUT).await;
    assert!(
        answer.starts_with(b"HTTP/1.1 431"),
        "{:?}",
        String::from_utf8_lossy(&answer[..answer.len().min(80)])
    );
    assert_eq!(healthz_over(TcpStream::connect(srv.addr).await.unwrap()).await, 200, "a normal head is fine");
    srv.stop().await;
}

#[tokio::test]
async fn one_address_is_capped_and_others_are_not() {
    let cfg = Config { max_conns_per_addr: 3, ..test_config() };
    let srv = TestServer::with_config(cfg).await;
    let mut held = Vec::new();
    for _ in 0..3 {
        held.push(tcp_from(&srv, [127, 0, 0, 1]).await);
    }
    wait_until("three sockets are counted", || srv.server.socket_count() == 3).await;
    let mut fourth = tcp_from(&srv, [127, 0, 0, 1]).await;
    let answer = read_to_close(&mut fourth, RECV_TIMEOUT).await;
    assert!(answer.starts_with(b"HTTP/1.1 429"), "{:?}", String::from_utf8_lossy(&answer));
    assert_eq!(healthz_over(tcp_from(&srv, [127, 0, 0, 2]).await).await, 200, "another address is served");
    // A place freed is a place for the same address again.
    drop(held.pop());
    wait_until("the place is free", || srv.server.socket_count() == 2).await;
    assert_eq!(healthz_over(tcp_from(&srv, [127, 0, 0, 1]).await).await, 200);
    srv.stop().await;
}

#[tokio::test]
async fn healthz_and_players_are_served_while_the_limit_is_full_of_idle_sockets() {
    let cfg = Config { max_connections: 16, reserve_connections: 4, max_conns_per_addr: 0, ..test_config() };
    let srv = TestServer::with_config(cfg).await;
    let mut idle = Vec::new();
    let mut most = 0;
    for _ in 0..60 {
        idle.push(TcpStream::connect(srv.addr).await.unwrap());
        most = most.max(srv.server.socket_count());
    }
    // The server keeps at most the limit and its reserve: the oldest idle
    // sockets are closed to make room for newer ones.
    wait_until("the excess idle sockets are closed", || idle.iter().filter(|s| is_closed(s)).count() >= 40)
        .await;
    for _ in 0..5 {
        assert_eq!(healthz_over(TcpStream::connect(srv.addr).await.unwrap()).await, 200);
        most = most.max(srv.server.socket_count());
    }
    let mut ann = srv.player("Ann").await;
    ann.send(mazerace_tests::serde_json::json!({"type": "ping"})).await;
    assert_eq!(ann.recv().await["type"], "pong");
    assert!(most <= 20, "never more than the limit and its reserve: {most}");
    assert!(srv.server.socket_count() <= 20);
    srv.stop().await;
}

#[tokio::test]
async fn the_listen_backlog_is_what_is_asked() {
    // Nobody accepts: connections complete only while the backlog has room.
    async fn completed(backlog: Option<u32>) -> usize {
        let sock = TcpSocket::new_v4().unwrap();
        sock.bind("127.0.0.1:0".parse().unwrap()).unwrap();
        let listener = sock.listen(4).unwrap();
        if let Some(b) = backlog {
            mazerace_server::set_backlog(&listener, b).unwrap();
        }
        let addr = listener.local_addr().unwrap();
        let tries = (0..30).map(|_| timeout(Duration::from_millis(500), TcpStream::connect(addr)));
        let done = futures_util::future::join_all(tries).await;
        drop(listener);
        done.into_iter().filter(|r| matches!(r, Ok(Ok(_)))).count()
    }
    assert!(completed(None).await < 30, "a backlog of 4 turns connections away (the test can fail)");
    assert_eq!(completed(Some(64)).await, 30, "a backlog of 64 holds them all");
}
