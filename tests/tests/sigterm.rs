//! Issue 13, item 1, against the real binary: SIGTERM while five clients
//! hold half-sent requests (`GET /ws HTTP/1.1\r\nHost: x\r\n` and nothing
//! more) ends the process within `--shutdown-grace-secs`, cleanly. Before,
//! it ran until the clients let go.
//!
//! The signals' meanings: SIGTERM drains (`--drain-secs`: the node stays up
//! while a race runs on it), a second SIGTERM ends the drain at once, and
//! SIGINT shuts down at once as before.
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

/// `mazerace serve --drain-secs 60` on SQLite, a race of two running on it.
async fn node_with_a_race(
    data: &std::path::Path,
) -> (std::process::Child, String, [mazerace_tests::Client; 2]) {
    use mazerace_tests::serde_json::json;
    let mut cmd = Command::new(mazerace_tests::server_binary());
    cmd.args(["serve", "--bind", "127.0.0.1:0", "--metrics-bind", "", "--shutdown-grace-secs", "2"])
        .args(["--drain-secs", "60", "--countdown-secs", "1"])
        .arg("--data-dir")
        .arg(data)
        .env("RUST_LOG", "warn")
        .stderr(Stdio::null());
    let (child, addr) = mazerace_tests::start_serve(cmd).await;
    let mut ann = mazerace_tests::cluster::connect(&addr, "/ws").await;
    ann.hello("Ann").await;
    let mut bob = mazerace_tests::cluster::connect(&addr, "/ws").await;
    bob.hello("Bob").await;
    let spec = json!({"game": "maze", "size": "easy", "seed": "1"});
    mazerace_tests::start_race(&mut ann, &mut [&mut bob], spec).await;
    (child, addr, [ann, bob])
}

/// SIGTERM drains (the race is left to run: the node stays up, `/healthz`
/// says "draining"); a second SIGTERM ends the drain at once.
#[tokio::test]
async fn sigterm_drains_and_a_second_sigterm_shuts_down_at_once() {
    use mazerace_tests::cluster::{exited_within, healthz_becomes, send_signal};
    let data = tempfile::tempdir().unwrap();
    let (mut child, addr, [mut ann, _bob]) = node_with_a_race(data.path()).await;
    send_signal(child.id(), "TERM");
    let h = healthz_becomes(&addr, 503).await;
    assert_eq!(h.text(), "draining");
    // Still up for the race: a move is answered.
    let (_, line) = mazerace_tests::solution(mazerace_tests::Size::Easy, 1);
    assert_eq!(ann.play(&line[..1], 1).await[0]["ok"], true);
    assert!(child.try_wait().unwrap().is_none(), "the race keeps the node up");

    let t0 = Instant::now();
    send_signal(child.id(), "TERM");
    assert_eq!(ann.recv_type("server_shutdown").await["type"], "server_shutdown");
    let status = exited_within(&mut child, Duration::from_secs(15)).await;
    let _ = child.kill();
    let status = status.expect("still running 15 s after the second SIGTERM");
    assert!(status.success(), "{status:?}");
    assert!(t0.elapsed() < Duration::from_secs(8), "took {:?}", t0.elapsed());
}

/// SIGINT (Ctrl-C) keeps its meaning: shut down at once, race or not.
#[tokio::test]
async fn sigint_shuts_down_at_once_even_with_a_race_running() {
    use mazerace_tests::cluster::{exited_within, send_signal};
    let data = tempfile::tempdir().unwrap();
    let (mut child, _addr, [mut ann, _bob]) = node_with_a_race(data.path()).await;
    let t0 = Instant::now();
    send_signal(child.id(), "INT");
    assert_eq!(ann.recv_type("server_shutdown").await["type"], "server_shutdown");
    let status = exited_within(&mut child, Duration::from_secs(15)).await;
    let _ = child.kill();
    let status = status.expect("still running 15 s after SIGINT");
    assert!(status.success(), "{status:?}");
    assert!(t0.elapsed() < Duration::from_secs(8), "took {:?}", t0.elapsed());
}
