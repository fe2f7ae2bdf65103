//! Issue 13, item 2: an accept error does not end the server. With the
//! process out of file descriptors, accept() fails (EMFILE); the accept loop
//! backs off and retries, and serves the waiting client once a descriptor
//! is free again. One test in this file: it changes the process's limit.

#![cfg(target_os = "linux")]

use std::collections::BTreeSet;

use mazerace_tests::{wait_until, TestServer, RECV_TIMEOUT};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The open-file limit, (soft, hard).
fn nofile() -> (u64, u64) {
    rlimit::getrlimit(rlimit::Resource::NOFILE).unwrap()
}

fn set_nofile((soft, hard): (u64, u64)) {
    // Lowering the soft limit needs no privilege.
    rlimit::setrlimit(rlimit::Resource::NOFILE, soft, hard).unwrap();
}

/// The two lowest descriptor numbers not in use now.
fn two_free_fds() -> (u64, u64) {
    let used: BTreeSet<u64> = std::fs::read_dir("/proc/self/fd")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .collect();
    let mut free = (0..).filter(|n| !used.contains(n));
    (free.next().unwrap(), free.next().unwrap())
}

fn accept_errors() -> f64 {
    let text = mazerace_server::metrics::render();
    text.lines()
        .find_map(|l| l.strip_prefix("mazerace_accept_errors_total ")?.parse().ok())
        .expect("the accept error series")
}

#[tokio::test]
async fn accept_errors_are_retried_until_descriptors_are_free() {
    let srv = TestServer::start().await;
    assert_eq!(srv.get("/healthz").await.status, 200);
    let before = nofile();
    let errors = accept_errors();

    // Room for exactly one more descriptor: the client's socket. The
    // server's accept() would need a second one.
    let (_, second) = two_free_fds();
    set_nofile((second, before.1));
    let connected = TcpStream::connect(srv.addr).await;
    let mut tcp = match connected {
        Ok(t) => t,
        Err(e) => {
            set_nofile(before);
            panic!("the client could not connect: {e}");
        }
    };
    let failing = tokio::time::timeout(RECV_TIMEOUT, async {
        while accept_errors() <= errors {
            tokio::task::yield_now().await;
        }
    })
    .await;
    set_nofile(before);
    assert!(failing.is_ok(), "accept() never failed with the limit lowered");

    // Descriptors again: the waiting client is accepted and served.
    tcp.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").await.unwrap();
    let mut raw = Vec::new();
    tokio::time::timeout(RECV_TIMEOUT, tcp.read_to_end(&mut raw))
        .await
        .expect("served after the errors")
        .unwrap();
    assert!(raw.starts_with(b"HTTP/1.1 200"), "{:?}", String::from_utf8_lossy(&raw));
    wait_until("the server is healthy", || srv.server.socket_count() == 0).await;
    srv.stop().await;
}
