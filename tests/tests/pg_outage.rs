//! PostgreSQL stopped mid-race and started again (issue 14), with the real
//! binary on the throwaway cluster ./test.sh made: while the database is
//! down, a room's race runs to its results, a new daily attempt is refused
//! with `daily_unavailable`, `/healthz` says `"database":"unreachable"`, and a
//! daily finish is held (not acknowledged) and retried; once the database is
//! back that finish commits and only then reaches the player.
//!
//! Its own test binary: stopping the cluster would break any PostgreSQL test
//! running beside it. It needs `MAZERACE_TEST_PG_STOP` and
//! `MAZERACE_TEST_PG_START` (shell commands ./test.sh exports) besides
//! `MAZERACE_TEST_DATABASE_URL`; without them it prints "DID NOT RUN" and
//! passes, unless `MAZERACE_REQUIRE_PG=1`, when it fails. A guard starts the
//! cluster again if the test fails while it is stopped.

use std::time::Duration;

use mazerace_protocol::daily::daily_seed;
use mazerace_tests::cluster::{connect, postgres_or_skip, Node, Schema, SALT};
use mazerace_tests::serde_json::{self, json, Value};
use mazerace_tests::{http_get, solution, start_race, Client, Game, Size};

fn command(var: &str) -> Option<String> {
    match std::env::var(var).ok().filter(|c| !c.is_empty()) {
        Some(c) => Some(c),
        None if std::env::var("MAZERACE_REQUIRE_PG").as_deref() == Ok("1") => {
            panic!("MAZERACE_REQUIRE_PG=1 but {var} is unset (./test.sh sets it)")
        }
        None => {
            mazerace_tests::cluster::not_run(&format!(
                "pg_outage: DID NOT RUN: {var} is unset (./test.sh sets it)"
            ));
            None
        }
    }
}

fn run(cmd: &str) {
    let status = std::process::Command::new("sh").arg("-c").arg(cmd).status().expect("run sh");
    assert!(status.success(), "{cmd} failed: {status}");
}

/// Starts the cluster again when dropped while it is stopped.
struct Outage {
    start: String,
    down: bool,
}

impl Outage {
    async fn stop(&mut self, stop: &str) {
        let stop = stop.to_owned();
        tokio::task::spawn_blocking(move || run(&stop)).await.expect("stop");
        self.down = true;
    }

    async fn end(&mut self) {
        let start = self.start.clone();
        tokio::task::spawn_blocking(move || run(&start)).await.expect("start");
        self.down = false;
    }
}

impl Drop for Outage {
    fn drop(&mut self) {
        // No assert here: a panic while unwinding would abort the run.
        if self.down {
            let _ = std::process::Command::new("sh").arg("-c").arg(&self.start).status();
        }
    }
}

async fn healthz(addr: &str) -> Value {
    serde_json::from_str(&http_get(addr, "/healthz", "").await.text()).expect("json")
}

/// The next `daily_result`, waiting up to `limit` (the retries take seconds).
async fn daily_result_within(c: &mut Client, limit: Duration) -> Value {
    let wait = async {
        loop {
            let t = c.next_text_untimed().await.expect("the connection stayed up");
            let v: Value = serde_json::from_str(&t).expect("json");
            assert_ne!(v["type"], "error", "{v}");
            if v["type"] == "daily_result" {
                return v;
            }
        }
    };
    tokio::time::timeout(limit, wait).await.expect("no daily_result in time")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn races_go_on_while_postgres_is_down_and_held_results_commit_after() {
    let Some(admin) = postgres_or_skip("pg_outage") else { return };
    let (Some(stop), Some(start)) = (command("MAZERACE_TEST_PG_STOP"), command("MAZERACE_TEST_PG_START"))
    else {
        return;
    };
    let db = Schema::fresh(&admin).await;
    let logs = tempfile::tempdir().unwrap();
    let node = Node::start('A', &db.url, None, logs.path()).await;
    let addr = node.addr.clone();
    let date: Value = serde_json::from_str(&http_get(&addr, "/api/daily", "").await.text()).unwrap();
    let date = date["date"].as_str().unwrap().to_owned();
    let (_, daily_line) =
        solution(Size::Easy, daily_seed(SALT.as_bytes(), mazerace_tests::day(&date), Game::Maze, Size::Easy));
    let half = daily_line.len() / 2;

    // A daily attempt half played, and a two-player race under way.
    let mut solo = connect(&addr, "/ws").await;
    solo.hello("Solo").await;
    solo.create(json!({"game": "maze", "size": "easy", "daily": true})).await;
    solo.send(json!({"type": "start"})).await;
    solo.recv_type("race_start").await;
    solo.play(&daily_line[..half], 1).await;
    let (mut r1, mut r2) = (connect(&addr, "/ws").await, connect(&addr, "/ws").await);
    r1.hello("Rae").await;
    r2.hello("Ray").await;
    start_race(&mut r1, &mut [&mut r2], json!({"game": "maze", "size": "easy", "seed": "7"})).await;
    let (_, race_line) = solution(Size::Easy, 7);

    let mut outage = Outage { start, down: false };
    outage.stop(&stop).await;

    // The race finishes and is ranked without the database.
    r1.play(&race_line, 1).await;
    r2.play(&race_line, 1).await;
    for r in [&mut r1, &mut r2] {
        let results = r.recv_type("results").await;
        assert_eq!(results["rankings"].as_array().map(Vec::len), Some(2), "{results}");
    }
    // The daily finish is held: no acknowledgement while it cannot commit.
    solo.play(&daily_line[half..], 1 + half as u32).await;
    // A new daily attempt is refused with the clear error.
    let mut late = connect(&addr, "/ws").await;
    late.hello("Late").await;
    // Refused as the room is made: whether the try would be ranked cannot be told.
    late.send(json!({"type": "create_room", "game": "ghost", "size": "small", "daily": true})).await;
    let refused = late.recv_type("error").await;
    assert_eq!(refused["code"], "daily_unavailable", "{refused}");
    let health = healthz(&addr).await;
    assert_eq!((health["status"].as_str(), health["database"].as_str()), (Some("ok"), Some("unreachable")));

    outage.end().await;

    // /healthz follows (its ping may wait out the store's one-second
    // fail-fast window after a failed connect): poll, nothing announces it.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while healthz(&addr).await["database"] != "ok" {
        assert!(std::time::Instant::now() < deadline, "/healthz never saw the database back");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Daily attempts start again. The store's connections each fail fast
    // for a second after a failed connect, so a start right after the
    // database's return may still hear "try again shortly": it may, for a
    // few seconds, as the error says.
    // Either step may hear it: making the room (is the try ranked?) or its
    // start (the attempt is saved first); a refused start leaves the room in
    // its lobby, so the start is asked again.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let mut in_room = false;
    'ask: loop {
        let ask = if in_room {
            json!({"type": "start"})
        } else {
            json!({"type": "create_room", "game": "ghost", "size": "small", "daily": true})
        };
        late.send(ask).await;
        loop {
            let answer = late.recv().await;
            match answer["type"].as_str() {
                Some("race_start") => break 'ask,
                Some("room") if !in_room => {
                    in_room = true;
                    continue 'ask;
                }
                Some("room" | "countdown" | "progress") => {}
                Some("error") if answer["code"] == "daily_unavailable" => {
                    assert!(std::time::Instant::now() < deadline, "daily starts stayed refused: {answer}");
                    tokio::time::sleep(Duration::from_millis(300)).await;
                    continue 'ask;
                }
                _ => panic!("unexpected answer: {answer}"),
            }
        }
    }

    // The held finish commits (a retry) and only then reaches the player.
    let result = daily_result_within(&mut solo, Duration::from_secs(45)).await;
    assert_eq!(
        (result["finished"].as_bool(), result["ranked"].as_bool()),
        (Some(true), Some(true)),
        "{result}"
    );
    let log = std::fs::read_to_string(logs.path().join("node-A.log")).unwrap_or_default();
    assert!(log.contains("daily result not committed yet: retrying"), "the finish was retried:\n{log}");
    let stored =
        db.rows(&format!("SELECT state, steps::text FROM runs WHERE id = {}", result["run_id"])).await;
    assert_eq!(stored, vec![vec!["finished".to_owned(), result["steps"].to_string()]]);
}
