//! The server's clock, on paused tokio time with the production timings:
//! a 3-2-1 countdown one second apart, and the 10-minute race limit that
//! ends the race with everyone still racing `timed_out`.

use std::net::SocketAddr;
use std::time::Duration;

use mazerace_server::Config;
use mazerace_tests::serde_json::json;
use mazerace_tests::{Client, TestServer};
use tokio::time::Instant;

/// Production settings, bound to loopback.
fn production() -> Config {
    Config { bind: SocketAddr::from(([127, 0, 0, 1], 0)), metrics_bind: None, ..Config::default() }
}

/// The next message of type `ty`, with no per-message timeout (on paused
/// time the clock jumps to the server's next timer whenever all is idle).
async fn next_of(c: &mut Client, ty: &str) -> mazerace_tests::serde_json::Value {
    loop {
        let t = c.next_text_untimed().await.expect("connection ended");
        let v: mazerace_tests::serde_json::Value = mazerace_tests::serde_json::from_str(&t).unwrap();
        if v["type"] == ty {
            return v;
        }
    }
}

#[tokio::test(start_paused = true)]
async fn countdown_and_time_limit_on_the_server_clock() {
    let srv = TestServer::with_config(production()).await;
    let mut ann = srv.player("Ann").await;
    let mut bob = srv.player("Bob").await;
    let room = ann.create(json!({"game": "maze", "size": "hard"})).await;
    bob.join(room["code"].as_str().unwrap()).await;

    let t0 = Instant::now();
    ann.send(json!({"type": "start"})).await;
    let mut marks = Vec::new();
    for want in [3, 2, 1] {
        let c = next_of(&mut ann, "countdown").await;
        assert_eq!(c["seconds"], want);
        marks.push(t0.elapsed());
    }
    let rs = next_of(&mut ann, "race_start").await;
    let started = t0.elapsed();
    assert_eq!(rs["time_limit_ms"], 600_000);
    assert!(marks[0] < Duration::from_millis(100), "{marks:?}");
    assert!(marks[1] >= Duration::from_secs(1) && marks[1] < Duration::from_millis(1100), "{marks:?}");
    assert!(marks[2] >= Duration::from_secs(2) && marks[2] < Duration::from_millis(2100), "{marks:?}");
    assert!(started >= Duration::from_secs(3) && started < Duration::from_millis(3100), "{started:?}");

    // Ann makes one move; then nobody moves for ten minutes. Both keep
    // reading, so their libraries answer the server's pings.
    ann.send(json!({"type": "move", "dir": "right", "seq": 1})).await;
    let r = next_of(&mut ann, "move_result").await;
    let moved = r["ok"] == true;
    let watch = tokio::spawn(async move {
        let res = next_of(&mut bob, "results").await;
        (bob, res)
    });
    let res = next_of(&mut ann, "results").await;
    let waited = t0.elapsed() - started;
    assert!(waited >= Duration::from_secs(600) && waited < Duration::from_secs(601), "{waited:?}");
    let (_bob, res_b) = watch.await.unwrap();
    assert_eq!(res, res_b);
    let rankings = res["rankings"].as_array().unwrap();
    assert_eq!(rankings.len(), 2);
    for r in rankings {
        assert_eq!(r["status"], "timed_out");
        assert!(r.get("rank").is_none());
    }
    let ann_line = rankings.iter().find(|r| r["name"] == "Ann").unwrap();
    assert_eq!(ann_line["steps"], if moved { 1 } else { 0 });
    srv.stop().await;
}

/// Plays `line` move by move, reading each answer, and returns `finished`.
async fn play_to_finish(
    c: &mut Client,
    line: &[mazerace_tests::Action],
) -> mazerace_tests::serde_json::Value {
    for (i, a) in line.iter().enumerate() {
        let msg = match a {
            mazerace_tests::Action::Move(d) => {
                json!({"type": "move", "dir": mazerace_tests::dir_str(*d), "seq": i})
            }
            mazerace_tests::Action::Rewind => json!({"type": "rewind", "seq": i}),
        };
        c.send(msg).await;
    }
    next_of(c, "finished").await
}

/// RULES.md: solo times run from the first accepted move (looking at the
/// board is free); races with others from the start signal.
#[tokio::test(start_paused = true)]
async fn solo_time_starts_at_the_first_move_and_races_at_the_signal() {
    let srv = TestServer::with_config(production()).await;
    let (_, line) = mazerace_tests::solution(mazerace_tests::Size::Easy, 3);

    let mut solo = srv.player("Solo").await;
    solo.create(json!({"game": "maze", "size": "easy", "seed": "3"})).await;
    solo.send(json!({"type": "start"})).await;
    next_of(&mut solo, "race_start").await;
    tokio::time::advance(Duration::from_secs(5)).await;
    let f = play_to_finish(&mut solo, &line).await;
    assert!(f["time_ms"].as_u64().unwrap() < 1000, "studying the board is free: {f}");

    let mut ann = srv.player("Ann").await;
    let mut bob = srv.player("Bob").await;
    let room = ann.create(json!({"game": "maze", "size": "easy", "seed": "3"})).await;
    bob.join(room["code"].as_str().unwrap()).await;
    ann.send(json!({"type": "start"})).await;
    next_of(&mut ann, "race_start").await;
    tokio::time::advance(Duration::from_secs(5)).await;
    let f = play_to_finish(&mut ann, &line).await;
    assert!(f["time_ms"].as_u64().unwrap() >= 5000, "a race's clock runs from the signal: {f}");
    srv.stop().await;
}
