//! Smoke check: `mazerace-bench --quick` against the debug race server runs
//! every scenario and reports each one with its goals. Timings are not
//! checked (a debug build on a shared machine proves nothing about speed);
//! that it runs, speaks the protocol without errors, and reports, is.

use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

/// The debug race server next to this test's benchmark binary.
fn server_bin() -> PathBuf {
    let bench = PathBuf::from(env!("CARGO_BIN_EXE_mazerace-bench"));
    let dir = bench.parent().expect("the benchmark binary lives in a target directory");
    let server = dir.join("mazerace");
    assert!(
        server.is_file(),
        "the race server binary {} is missing: build it first with `cargo build -p mazerace-server` \
         (./test.sh does)",
        server.display()
    );
    server
}

#[test]
fn quick_run_reports_every_scenario() {
    let server = server_bin();
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_mazerace-bench"))
        .arg("--quick")
        .arg("--server-bin")
        .arg(&server)
        .output()
        .expect("running mazerace-bench");
    let took = started.elapsed();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "mazerace-bench --quick failed: {}\n{stdout}\n{stderr}", out.status);

    for key in ["boards", "capacity", "idle", "fanout", "races", "churn", "spectators", "screen", "store"] {
        let heading = format!("(`{key}`)");
        assert!(stdout.contains(&heading), "no {key} section in the report:\n{stdout}");
    }
    // Every goal the issue names is printed with a verdict.
    for goal in [
        "board generation p99, Ghost large",
        "board generation p99, Maze hard",
        "20,000 players at 1 move/s",
        "server RSS per idle connected player",
        "saturated moves/s at room size 8 vs bare echo",
        "acknowledged finishes lost in the churn soak",
        "resumes that worked in the churn soak",
        "a screen's cost (CPU, RSS, bytes sent) vs a spectator's, race of 8",
    ] {
        let line = stdout
            .lines()
            .find(|l| l.starts_with("GOAL ") && l.contains(goal))
            .unwrap_or_else(|| panic!("goal {goal:?} not reported:\n{stdout}"));
        assert!(["GOAL PASS", "GOAL MISS", "GOAL CAPPED"].iter().any(|v| line.starts_with(v)), "{line}");
    }
    // The simulated players spoke the protocol without a hitch: no errors,
    // no mismatched answers, every race verified, nothing lost.
    for l in stdout.lines().filter(|l| l.starts_with("| race, rooms of") || l.starts_with("| echo")) {
        assert!(l.contains("| none |"), "trouble in a fan-out phase: {l}");
    }
    let races: Vec<&str> =
        stdout.lines().filter(|l| l.starts_with("| paced") || l.starts_with("| flat out")).collect();
    assert_eq!(
        races.len(),
        3,
        "every race variant reported (paced, paced with a rival, flat out):\n{stdout}"
    );
    for l in races {
        assert!(l.trim_end().ends_with("| 0 |"), "a race failed: {l}");
    }
    // A screen and a spectator each joined the race of 8 and stayed.
    let screen_closed = stdout
        .lines()
        .find(|l| l.contains("connections closed in a race of 8 with a screen or a spectator"))
        .unwrap_or_default();
    assert!(screen_closed.starts_with("GOAL PASS"), "{screen_closed}");
    let churn_lost = stdout.lines().find(|l| l.contains("acknowledged finishes lost")).unwrap_or_default();
    assert!(churn_lost.starts_with("GOAL PASS"), "{churn_lost}");
    assert!(stdout.contains("## Goals"), "no goals summary:\n{stdout}");
    // Reported, not asserted: timings are not what this test checks.
    eprintln!("mazerace-bench --quick took {took:?}");
}
