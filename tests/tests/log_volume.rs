//! Issue 13, item 3, against the real binary's log: one client joining and
//! leaving a room hundreds of times, renaming and sending junk costs a
//! bounded number of log lines, each of a bounded length. Before, every
//! join added another `room=` field to the connection's span (11.7 KB lines
//! after 890 joins) and every action wrote its lines.

#![cfg(unix)]

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use mazerace_tests::serde_json::json;
use mazerace_tests::Client;

const CYCLES: usize = 300;

#[tokio::test]
async fn a_noisy_client_writes_a_bounded_log() {
    let data = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(mazerace_tests::server_binary());
    cmd.args(["serve", "--bind", "127.0.0.1:0", "--metrics-bind", ""])
        .args(["--msgs-per-sec", "100000", "--msgs-burst", "100000"])
        // Join budget lifted: the cycles are what this test logs.
        .args(["--room-joins", "100000"])
        .arg("--data-dir")
        .arg(data.path())
        .env("RUST_LOG", "info")
        .stderr(Stdio::piped());
    let (mut child, addr) = mazerace_tests::start_serve(cmd).await;
    let err = child.stderr.take().unwrap();
    let log = tokio::task::spawn_blocking(move || {
        BufReader::new(err).lines().map_while(Result::ok).collect::<Vec<_>>()
    });

    let mut host = Client::connect_addr(&addr).await;
    host.hello("Host").await;
    let room = host.create(json!({"game": "maze", "size": "easy"})).await;
    let code = room["code"].as_str().unwrap().to_owned();
    let mut noisy = Client::connect_addr(&addr).await;
    noisy.hello("Noisy").await;
    for i in 0..CYCLES {
        noisy.join(&code).await;
        noisy.send(json!({"type": "leave_room"})).await;
        noisy.send(json!({"type": "rename", "name": format!("N{i}")})).await;
        assert_eq!(noisy.recv_type("renamed").await["name"], format!("N{i}"));
        noisy.send_text(r#"{"type":"teleport"}"#).await;
        noisy.recv_type("error").await;
    }
    noisy.close().await;
    host.close().await;

    assert!(Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap().success());
    assert!(child.wait().unwrap().success());
    let lines = log.await.unwrap();
    let longest = lines.iter().map(String::len).max().unwrap_or(0);
    // Per connection and per room: a burst of 40 (logs.rs), and a few more
    // earned over the test's seconds; start-up and shutdown besides.
    assert!(lines.len() < 200, "{} lines for {CYCLES} cycles, e.g. {:?}", lines.len(), lines.last());
    assert!(longest < 400, "a line of {longest} bytes: {:?}", lines.iter().max_by_key(|l| l.len()));
}
