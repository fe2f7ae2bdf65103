//! Issue 13, item 1, against the real binary: SIGTERM while five clients
//! hold half-sent requests (`GET /ws HTTP/1.1\r\nHost: x\r\n` and nothing
//! more) ends the process within `--shutdown-grace-secs`, cleanly. Before,
//! it ran until the clients let go.
//!
//! Runs `target/debug/mazerace` (built by `cargo build -p mazerace-server`,
//! as for `crash.rs`). The clock here is the real one, so the only timing
//! asserted is an upper bound, with room for a loaded machine.

#![cfg(unix)]

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

#[tokio::test]
async fn sigterm_ends_the_process_within_the_grace_despite_half_sent_requests() {
    let data = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(mazerace_tests::server_binary());
    cmd.args(["serve", "--bind", "127.0.0.1:0", "--metrics-bind", "", "--shutdown-grace-secs", "2"])
        .arg("--data-dir")
        .arg(data.path())
        .env("RUST_LOG", "warn")
        .stderr(Stdio::null());
    let (mut child, addr) = mazerace_tests::start_serve(cmd).await;

    let mut held = Vec::new();
    for _ in 0..5 {
        let mut s = TcpStream::connect(&addr).await.unwrap();
        s.write_all(b"GET /ws HTTP/1.1\r\nHost: x\r\n").await.unwrap();
        held.push(s);
    }
    // The server has read them: a full request on another socket is answered after them.
    let h = mazerace_tests::http_get(&addr, "/healthz", "").await;
    assert_eq!(h.status, 200);

    let t0 = Instant::now();
    let pid = child.id().to_string();
    let term = Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    assert!(term.success());
    let exited = tokio::task::spawn_blocking(move || child.wait());
    let status = match tokio::time::timeout(Duration::from_secs(15), exited).await {
        Ok(r) => r.unwrap().unwrap(),
        Err(_) => {
            let _ = Command::new("kill").args(["-KILL", &pid]).status();
            panic!("the server was still running 15 s after SIGTERM");
        }
    };
    let took = t0.elapsed();
    assert!(status.success(), "{status:?}");
    assert!(took < Duration::from_secs(8), "SIGTERM took {took:?} with a 2 s grace");
    // The held sockets were closed by the exit.
    for s in &mut held {
        let mut b = [0u8; 64];
        let n =
            tokio::time::timeout(Duration::from_secs(1), s.read(&mut b)).await.expect("closed").unwrap_or(0);
        assert_eq!(n, 0);
    }
}
