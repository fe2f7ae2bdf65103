//! Issue 15 end to end: a daily board's seed stays secret while its day is
//! on (no seed on the wire, no room on it), commitments published before a
//! day match the seed revealed after it, ranked moves are paced to human
//! input (a run at that floor end to end is flagged in the table and ties
//! on time), and the per-address cap turns extra ranked starts into practice.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use mazerace_protocol::daily::daily_seed;
use mazerace_server::{Config, StoreHook};
use mazerace_store::{FixedClock, Store};
use mazerace_tests::serde_json::{json, Value};
use mazerace_tests::{solution, test_config, Client, Game, Size, TestServer};

const SALT: &[u8] = b"fair salt";
/// 2026-12-01T12:00:00Z.
const NOON: u64 = 1_796_126_400_000;

async fn server(dir: &Path, clock: Arc<FixedClock>, config: Config) -> TestServer {
    let store = Store::open(dir).await.expect("open store");
    let hook = StoreHook::new(store, Some(SALT.to_vec()), clock).await.expect("hook");
    TestServer::with_daily(config, Arc::new(hook)).await
}

async fn create_seeded(c: &mut Client, game: &str, size: &str, seed: u64) -> Value {
    c.send(json!({"type": "create_room", "game": game, "size": size, "seed": seed.to_string()})).await;
    c.recv().await
}

#[tokio::test]
async fn a_daily_seed_is_neither_sent_nor_playable_until_its_day_is_over() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(FixedClock::at_unix_ms(NOON));
    let srv = server(dir.path(), clock.clone(), test_config()).await;
    let mut ann = srv.player("Ann").await;
    ann.create(json!({"game": "maze", "size": "easy", "daily": true})).await;
    ann.send(json!({"type": "start"})).await;
    let cd = ann.recv_type("countdown").await;
    assert!(cd["board"].get("seed").is_none(), "{cd}");
    let rs = ann.recv_type("race_start").await;
    assert!(rs["board"].get("seed").is_none(), "{rs}");
    assert!(rs["board"]["passages"].is_array(), "the board itself is there");
    ann.send(json!({"type": "give_up"})).await;
    ann.recv_type("daily_result").await;
    ann.send(json!({"type": "leave_room"})).await;

    // Today's seed, of this or another board, and a coming day's: refused.
    for (date, size) in [("2026-12-01", Size::Easy), ("2026-12-01", Size::Small), ("2026-12-08", Size::Hard)]
    {
        let seed = daily_seed(SALT, mazerace_tests::day(date), size.game(), size);
        let e = create_seeded(&mut ann, &size.game().to_string(), &size.to_string(), seed).await;
        assert_eq!(e["type"], "error", "{date} {size}: {e}");
        assert_eq!(e["code"], "daily_seed", "{date} {size}");
    }
    // Yesterday's is revealed: any room may use it.
    let old = daily_seed(SALT, mazerace_tests::day("2026-11-30"), Game::Maze, Size::Easy);
    let room = create_seeded(&mut ann, "maze", "easy", old).await;
    assert_eq!(room["type"], "room", "{room}");
    ann.send(json!({"type": "start"})).await;
    let rs = ann.recv_type("race_start").await;
    assert_eq!(rs["board"]["seed"], old.to_string(), "a private room shows its seed");
    srv.stop().await;
}

#[tokio::test]
async fn a_daily_rooms_results_keep_the_solution_until_the_day_is_over() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(FixedClock::at_unix_ms(NOON));
    let srv = server(dir.path(), clock.clone(), test_config()).await;
    // A throwaway token gives up its ranked try at 0 steps, then practises:
    // neither results carries the route a fresh token could replay.
    let mut thrower = srv.player("Throw").await;
    thrower.create(json!({"game": "ghost", "size": "small", "daily": true})).await;
    for _ in ["ranked", "practice"] {
        thrower.send(json!({"type": "start"})).await;
        thrower.recv_type("race_start").await;
        thrower.send(json!({"type": "give_up"})).await;
        let results = thrower.recv_type("results").await;
        assert_eq!(results["reveal"]["solution"], json!([]), "{results}");
        assert_eq!(results["hidden_until"], "2026-12-01", "{results}");
        assert!(results["reveal"]["true_par"].is_u64(), "the count is no route: {results}");
        thrower.send(json!({"type": "rematch", "same_board": true})).await;
    }
    srv.stop().await;
}

/// Sends `line` without waiting, then reads every answer: (ok, reason) in order.
async fn blast(c: &mut Client, line: &[mazerace_tests::Action]) -> Vec<(bool, Value)> {
    for (i, a) in line.iter().enumerate() {
        let mazerace_tests::Action::Move(d) = a else { panic!("a maze line") };
        c.send(json!({"type": "move", "dir": d, "seq": i + 1})).await;
    }
    let mut out = Vec::new();
    for i in 0..line.len() {
        let r = c.recv_type("move_result").await;
        assert_eq!(r["seq"], i + 1);
        out.push((r["ok"] == true, r["reason"].clone()));
    }
    out
}

#[tokio::test]
async fn ranked_moves_faster_than_the_floor_are_refused_and_practice_moves_are_not() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(FixedClock::at_unix_ms(NOON));
    // A long floor, so the machine's speed cannot blur the test.
    let config = Config {
        ranked_move_floor: std::time::Duration::from_secs(60),
        ranked_move_burst: 3,
        ..test_config()
    };
    let srv = server(dir.path(), clock, config).await;
    let seed = daily_seed(SALT, mazerace_tests::day("2026-12-01"), Game::Maze, Size::Easy);
    let (_, line) = solution(Size::Easy, seed);
    let mut ann = srv.player("Ann").await;
    ann.create(json!({"game": "maze", "size": "easy", "daily": true})).await;
    ann.send(json!({"type": "start"})).await;
    ann.recv_type("race_start").await;
    let got = blast(&mut ann, &line[..8]).await;
    assert!(got[..3].iter().all(|(ok, _)| *ok), "the burst passes: {got:?}");
    for (ok, reason) in &got[3..] {
        assert!(!ok && reason == "too_fast", "{got:?}");
    }
    ann.send(json!({"type": "give_up"})).await;
    let ranked = ann.recv_type("daily_result").await;
    assert_eq!(
        (ranked["ranked"].clone(), ranked["steps"].clone()),
        (json!(true), json!(3)),
        "refused moves are not counted"
    );
    ann.send(json!({"type": "rematch", "same_board": true})).await;
    ann.send(json!({"type": "start"})).await;
    ann.recv_type("race_start").await;
    let got = blast(&mut ann, &line).await;
    assert!(got.iter().all(|(ok, _)| *ok), "practice is not paced: {got:?}");
    let practice = ann.recv_type("daily_result").await;
    assert_eq!((practice["ranked"].clone(), practice["finished"].clone()), (json!(false), json!(true)));
    srv.stop().await;
}

/// Plays `line` to the exit one move every `gap` at least, as a paced
/// script does: a move refused as `too_fast` is sent again a millisecond
/// later, so the moves go as fast as the floor lets them.
async fn paced(c: &mut Client, line: &[mazerace_tests::Action], gap: Duration) {
    let mut seq = 0;
    for a in line {
        let mazerace_tests::Action::Move(d) = a else { panic!("a maze line") };
        loop {
            seq += 1;
            c.send(json!({"type": "move", "dir": d, "seq": seq})).await;
            let r = c.recv_type("move_result").await;
            if r["ok"] == true {
                break;
            }
            assert_eq!(r["reason"], "too_fast", "{r}");
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        // The bot's pace, not a wait for the server: the answer is in.
        tokio::time::sleep(gap).await;
    }
}

#[tokio::test]
async fn a_ranked_run_paced_at_the_floor_end_to_end_is_flagged_and_ties_on_time() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(FixedClock::at_unix_ms(NOON));
    let floor = Duration::from_millis(50);
    let config = Config { ranked_move_floor: floor, ranked_move_burst: 3, ..test_config() };
    let srv = server(dir.path(), clock, config).await;
    let seed = daily_seed(SALT, mazerace_tests::day("2026-12-01"), Game::Maze, Size::Easy);
    let (_, line) = solution(Size::Easy, seed);
    // A script at the floor (it waits half a floor, then retries on
    // `too_fast`) and a fast hand at twice the floor, the same moves.
    for (name, gap) in [("Bot", floor / 2), ("Ann", floor * 2)] {
        let mut c = srv.player(name).await;
        c.create(json!({"game": "maze", "size": "easy", "daily": true})).await;
        c.send(json!({"type": "start"})).await;
        c.recv_type("race_start").await;
        paced(&mut c, &line, gap).await;
        let result = c.recv_type("daily_result").await;
        assert_eq!((result["ranked"].clone(), result["finished"].clone()), (json!(true), json!(true)));
    }
    let mut asker = srv.player("Cat").await;
    asker.send(json!({"type": "leaderboard", "game": "maze", "size": "easy"})).await;
    let table = asker.recv_type("leaderboard").await;
    let lines: Vec<(Value, Value, Value)> = table["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["name"].clone(), e["rank"].clone(), e.get("at_floor").cloned().unwrap_or(json!(false))))
        .collect();
    assert_eq!(
        lines,
        [(json!("Bot"), json!(1), json!(true)), (json!("Ann"), json!(2), json!(false))],
        "{table}"
    );
    srv.stop().await;
}

async fn get_json(srv: &TestServer, path: &str) -> (u16, Value) {
    let r = srv.get(path).await;
    (r.status, serde_json::from_str(&r.text()).unwrap_or(Value::Null))
}

#[tokio::test]
async fn commitments_published_before_a_day_match_the_seed_revealed_after_it() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(FixedClock::at_unix_ms(NOON)); // 2026-12-01
    let srv = server(dir.path(), clock.clone(), test_config()).await;
    let (status, published) = get_json(&srv, "/api/daily/commitments").await;
    assert_eq!(status, 200);
    assert_eq!(published["today"], "2026-12-01");
    assert_eq!(published["boards"].as_array().unwrap().len(), 8 * 6, "today and the next 7 days");
    assert!(!published.to_string().contains("seed"), "no seed is published in advance");
    for date in ["2026-12-01", "2026-12-02", "2026-12-31"] {
        let (status, _) = get_json(&srv, &format!("/api/daily/{date}/reveal")).await;
        assert_eq!(status, 403, "{date} is not over");
    }
    assert_eq!(srv.get("/api/daily/2026-02-30/reveal").await.status, 400);

    // On 2026-12-02 Ann plays that day's board; on 2026-12-03 it is revealed.
    clock.advance(std::time::Duration::from_millis(86_400_000));
    let mut ann = srv.player("Ann").await;
    ann.create(json!({"game": "maze", "size": "easy", "daily": true})).await;
    ann.send(json!({"type": "start"})).await;
    ann.recv_type("race_start").await;
    ann.send(json!({"type": "give_up"})).await;
    let played = ann.recv_type("daily_result").await;
    clock.advance(std::time::Duration::from_millis(86_400_000));
    let (status, revealed) = get_json(&srv, "/api/daily/2026-12-02/reveal").await;
    assert_eq!(status, 200, "{revealed}");
    let day: mazerace_protocol::daily::reveal::Reveal = serde_json::from_value(revealed.clone()).unwrap();
    let before: mazerace_protocol::daily::reveal::Commitments =
        serde_json::from_value(published.clone()).unwrap();
    let boards = mazerace_protocol::daily::reveal::check(&day, Some(&before))
        .expect("the reveal matches what was published");
    assert_eq!(boards.len(), 6);
    // The revealed seed is the one the room played: the replay, now public, says so.
    let (_, run) = get_json(&srv, &format!("/api/daily/runs/{}", played["run_id"])).await;
    let easy = day.boards.iter().find(|b| b.size == Size::Easy).unwrap();
    assert_eq!(run["seed"], easy.seed.to_string());

    // The command anyone can run, on the two saved answers.
    let bin = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/debug/mazerace");
    assert!(bin.exists(), "run `cargo build -p mazerace-server` first");
    let files = tempfile::tempdir().unwrap();
    let (c, r) = (files.path().join("c.json"), files.path().join("r.json"));
    std::fs::write(&c, published.to_string()).unwrap();
    std::fs::write(&r, revealed.to_string()).unwrap();
    let run = |reveal: &std::path::Path| {
        std::process::Command::new(&bin)
            .args(["verify-daily", "2026-12-02", "--commitments"])
            .arg(&c)
            .arg("--reveal")
            .arg(reveal)
            .output()
            .unwrap()
    };
    let ok = run(&r);
    assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stdout));
    assert!(
        String::from_utf8_lossy(&ok.stdout).contains("6 boards verified against the published commitments")
    );
    let mut forged = revealed.clone();
    forged["boards"][3]["seed"] = json!("12345");
    let bad = files.path().join("forged.json");
    std::fs::write(&bad, forged.to_string()).unwrap();
    assert_eq!(run(&bad).status.code(), Some(1), "a changed seed fails");
    // Fetched from the server itself, against the commitments saved before
    // (off the runtime: the server answers on this test's one thread).
    let server = format!("http://{}", srv.addr);
    let fetch = |date: &'static str| {
        let (bin, c, server) = (bin.clone(), c.clone(), server.clone());
        tokio::task::spawn_blocking(move || {
            let mut cmd = std::process::Command::new(&bin);
            cmd.args(["verify-daily", date, "--commitments"]).arg(&c).args(["--server", &server]);
            cmd.output().unwrap()
        })
    };
    let fetched = fetch("2026-12-02").await.unwrap();
    assert!(fetched.status.success(), "{}", String::from_utf8_lossy(&fetched.stderr));
    let early = fetch("2026-12-03").await.unwrap();
    assert!(!early.status.success(), "today is not revealed");
    assert!(
        String::from_utf8_lossy(&early.stderr).contains("403"),
        "{}",
        String::from_utf8_lossy(&early.stderr)
    );
    srv.stop().await;
}

#[tokio::test]
async fn the_fifth_private_window_on_one_address_plays_practice_and_is_told_why_in_the_lobby() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).await.expect("open store");
    let clock = Arc::new(FixedClock::at_unix_ms(NOON));
    let hook =
        StoreHook::new(store, Some(SALT.to_vec()), clock).await.expect("hook").with_ranked_per_address(4);
    let srv = TestServer::with_daily(test_config(), Arc::new(hook)).await;
    for window in 1..=5 {
        // A private window: a new token, the same address (127.0.0.1).
        let mut c = srv.player(&format!("W{window}")).await;
        let lobby = c.create(json!({"game": "maze", "size": "easy", "daily": true})).await;
        // The lobby says it before the start, as the start will.
        if window <= 4 {
            assert_eq!(lobby["ranked"], true, "window {window}: {lobby}");
        } else {
            assert_eq!(lobby["ranked"], false, "past the cap the lobby says practice up front: {lobby}");
            assert_eq!(lobby["practice"], "address_cap", "{lobby}");
        }
        c.send(json!({"type": "start"})).await;
        let room = c.recv_room_until(|r| r["phase"] == "countdown").await;
        c.recv_type("race_start").await;
        c.send(json!({"type": "give_up"})).await;
        let result = c.recv_type("daily_result").await;
        if window <= 4 {
            assert_eq!(result["ranked"], true, "window {window}");
            assert!(room.get("practice").is_none(), "{room}");
        } else {
            assert_eq!(result["ranked"], false, "past the cap a start is practice");
            assert_eq!(room["ranked"], false);
            assert_eq!(room["practice"], "address_cap", "and the room says why: {room}");
            assert_eq!(result["entrants"], 4);
        }
    }
    srv.stop().await;
}
