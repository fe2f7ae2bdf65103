//! The `mazerace` binary itself: the start-up line scripts parse, serving,
//! SIGTERM ending it cleanly, and `verify` refusing a missing database.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::Duration;

#[test]
fn serve_prints_its_address_answers_and_stops_on_sigterm() {
    serve_and_stop(&[]);
}

/// The same on a single-threaded runtime (`--worker-threads 0`).
#[test]
fn serves_on_a_current_thread_runtime_too() {
    serve_and_stop(&["--worker-threads", "0"]);
}

fn serve_and_stop(extra: &[&str]) {
    let data = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_mazerace"))
        .args(["--bind", "127.0.0.1:0", "--data-dir"])
        .arg(data.path())
        .args(extra)
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn mazerace");
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    let addr = first
        .trim_end()
        .strip_prefix("mazerace listening on http://")
        .unwrap_or_else(|| panic!("first line was {first:?}"))
        .to_owned();
    assert!(addr.starts_with("127.0.0.1:"), "{addr}");

    let mut tcp = TcpStream::connect(&addr).unwrap();
    tcp.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    write!(tcp, "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").unwrap();
    let mut resp = String::new();
    tcp.read_to_string(&mut resp).unwrap();
    assert!(resp.starts_with("HTTP/1.1 200"), "{resp}");
    assert!(resp.contains(r#""status":"ok""#), "{resp}");

    let kill = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(kill.success());
    let status = child.wait().unwrap();
    assert!(status.success(), "exit after SIGTERM: {status}");
}

#[test]
fn verify_refuses_a_data_dir_without_a_database() {
    let empty = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_mazerace"))
        .arg("verify")
        .arg("--data-dir")
        .arg(empty.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no daily database"), "{out:?}");
}
