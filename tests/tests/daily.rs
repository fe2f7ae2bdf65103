//! The daily challenge end to end on the real store (SQLite): today's seed,
//! one ranked attempt then practice, ranks, streaks, the share text, the
//! HTTP API with its spoiler rule, the rollover at 00:00 UTC on a fixed
//! clock, and results that survive a restart and verify.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use mazerace_protocol::daily::daily_seed;
use mazerace_server::StoreHook;
use mazerace_store::{Clock, FixedClock, Store};
use mazerace_tests::serde_json::{self, json, Value};
use mazerace_tests::{dir_str, solution, test_config, Action, Board, Client, Game, Size, TestServer};

const SALT: &[u8] = b"test salt";
/// 2026-12-01T12:00:00Z.
const NOON: u64 = 1_796_126_400_000;
const DAY_MS: u64 = 86_400_000;

async fn daily_server(dir: &Path, clock: Arc<FixedClock>) -> TestServer {
    let store = Store::open(dir).await.expect("open store");
    let hook = StoreHook::new(store, Some(SALT.to_vec()), clock).await.expect("hook");
    TestServer::with_daily(test_config(), Arc::new(hook)).await
}

fn seed_of(date: &str, game: Game, size: Size) -> u64 {
    daily_seed(SALT, mazerace_tests::day(date), game, size)
}

/// A daily board as a daily room sends it: without its seed.
fn hidden(size: Size, seed: u64) -> Value {
    serde_json::to_value(Board::build(size, seed).unwrap().public_hidden()).unwrap()
}

/// Plays one daily attempt with `line`; returns (race_start, daily_result).
async fn attempt(c: &mut Client, game: &str, size: &str, line: &[Action]) -> (Value, Value) {
    c.create(json!({"game": game, "size": size, "daily": true})).await;
    c.send(json!({"type": "start"})).await;
    let start = c.recv_type("race_start").await;
    c.play(line, 1).await;
    let result = c.recv_type("daily_result").await;
    c.send(json!({"type": "leave_room"})).await;
    (start, result)
}

#[tokio::test]
async fn one_ranked_attempt_a_day_then_practice() {
    let dir = tempfile::tempdir().unwrap();
    let srv = daily_server(dir.path(), Arc::new(FixedClock::at_unix_ms(NOON))).await;
    let seed = seed_of("2026-12-01", Game::Maze, Size::Easy);
    let (board, line) = solution(Size::Easy, seed);
    let best = board.best().unwrap();

    let mut ann = srv.player("Ann").await;
    let (start, first) = attempt(&mut ann, "maze", "easy", &line).await;
    assert!(start["board"].get("seed").is_none(), "a daily board's seed stays secret: {start}");
    assert_eq!(start["board"], serde_json::to_value(board.public_hidden()).unwrap(), "today's daily board");
    assert_eq!(first["ranked"], true);
    assert_eq!(first["finished"], true);
    assert_eq!(first["steps"], best);
    assert_eq!(first["rank"], 1);
    assert_eq!(first["entrants"], 1);
    assert_eq!(first["streak"], 1);
    let time = first["time_ms"].as_u64().unwrap();
    assert_eq!(
        first["share"],
        format!(
            "mazerace daily 2026-12-01 - Maze easy - {best} moves (shortest {best}) - 0:{:02} - #1 of 1",
            time / 1000
        )
    );

    let (_, second) = attempt(&mut ann, "maze", "easy", &line).await;
    assert_eq!(second["ranked"], false, "the second attempt is practice");
    assert!(second.get("rank").is_none());
    assert!(second["share"].as_str().unwrap().ends_with(" - practice"), "{second}");

    ann.send(json!({"type": "leaderboard", "game": "maze", "size": "easy"})).await;
    let table = ann.recv_type("leaderboard").await;
    assert_eq!(table["entrants"], 1, "practice is never ranked");
    assert_eq!(table["entries"].as_array().unwrap().len(), 1);
    assert_eq!(table["you"]["steps"], best);
    srv.stop().await;
}

#[tokio::test]
async fn ranks_entrants_and_the_http_table() {
    let dir = tempfile::tempdir().unwrap();
    let srv = daily_server(dir.path(), Arc::new(FixedClock::at_unix_ms(NOON))).await;
    let seed = seed_of("2026-12-01", Game::Maze, Size::Easy);
    let (_, line) = solution(Size::Easy, seed);
    let mut ann = srv.player("Ann").await;
    let (_, a) = attempt(&mut ann, "maze", "easy", &line).await;
    assert_eq!(a["rank"], 1);

    // Bob wastes two moves (off and back) before the same route: ranked second.
    let first = match line[0] {
        Action::Move(d) => d,
        Action::Rewind => unreachable!("a line starts with a move"),
    };
    let mut detour = vec![Action::Move(first), Action::Move(first.opposite())];
    detour.extend_from_slice(&line);
    let mut bob = srv.player("<b>Bob</b>").await;
    let (_, b) = attempt(&mut bob, "maze", "easy", &detour).await;
    assert_eq!(b["rank"], 2);
    assert_eq!(b["entrants"], 2);
    assert_eq!(b["steps"], a["steps"].as_u64().unwrap() + 2);
    assert!(b["share"].as_str().unwrap().ends_with("#2 of 2"));

    // Carol starts and leaves: an entrant who did not finish.
    let mut carol = srv.player("Carol").await;
    carol.create(json!({"game": "maze", "size": "easy", "daily": true})).await;
    carol.send(json!({"type": "start"})).await;
    carol.recv_type("race_start").await;
    carol.mv(dir_str(first), 1).await;
    carol.send(json!({"type": "leave_room"})).await;
    let table = table_when(&srv, "/api/daily/2026-12-01/maze/easy", |t| t["entrants"] == 3).await;
    let names: Vec<&str> =
        table["entries"].as_array().unwrap().iter().map(|e| e["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Ann", "<b>Bob</b>"], "markup in a name is data");
    assert!(table.get("you").is_none(), "no token, no `you`");

    let mine = srv
        .get_with("/api/daily/2026-12-01/maze/easy", &format!("Authorization: Bearer {}\r\n", bob.token))
        .await;
    let mine: Value = serde_json::from_str(&mine.text()).unwrap();
    assert_eq!(mine["you"]["rank"], 2);
    srv.stop().await;
}

/// The table at `path` once `ready` holds (an abandonment is stored a moment
/// after the leave is answered); bounded, never a sleep.
async fn table_when(srv: &TestServer, path: &str, ready: impl Fn(&Value) -> bool) -> Value {
    for _ in 0..2_000 {
        let v: Value = serde_json::from_str(&srv.get(path).await.text()).unwrap();
        if ready(&v) {
            return v;
        }
        tokio::task::yield_now().await;
    }
    panic!("{path} never became ready");
}

#[tokio::test]
async fn api_daily_replays_and_the_spoiler_rule() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(FixedClock::at_unix_ms(NOON));
    let srv = daily_server(dir.path(), clock.clone()).await;

    let today: Value = serde_json::from_str(&srv.get("/api/daily").await.text()).unwrap();
    assert_eq!(today["date"], "2026-12-01");
    assert_eq!(today["next_in_ms"], DAY_MS / 2);
    assert_eq!(today["boards"].as_array().unwrap().len(), 6);
    assert!(!today.to_string().contains("seed"), "today's seeds are not published");

    let (_, line) = solution(Size::Easy, seed_of("2026-12-01", Game::Maze, Size::Easy));
    let mut ann = srv.player("Ann").await;
    attempt(&mut ann, "maze", "easy", &line).await;
    let table: Value =
        serde_json::from_str(&srv.get("/api/daily/2026-12-01/maze/easy").await.text()).unwrap();
    let run_id = table["entries"][0]["run_id"].as_i64().unwrap();

    let path = format!("/api/daily/runs/{run_id}");
    assert_eq!(srv.get(&path).await.status, 403, "today's route would spoil today's board");
    let bob = srv.player("Bob").await;
    let other = srv.get_with(&path, &format!("Authorization: Bearer {}\r\n", bob.token)).await;
    assert_eq!(other.status, 403, "for everyone but its player");
    let own = srv.get_with(&path, &format!("Authorization: Bearer {}\r\n", ann.token)).await;
    assert_eq!(own.status, 200, "a player may replay their own run today");
    assert!(!own.text().contains("seed"), "but not learn the seed before the day is over: {}", own.text());

    clock.advance(Duration::from_millis(DAY_MS));
    let shown = srv.get(&path).await;
    assert_eq!(shown.status, 200);
    let run: Value = serde_json::from_str(&shown.text()).unwrap();
    assert_eq!(run["name"], "Ann");
    assert_eq!(
        run["seed"],
        seed_of("2026-12-01", Game::Maze, Size::Easy).to_string(),
        "revealed the next day"
    );
    assert_eq!(run["actions"], serde_json::to_value(&line).unwrap());
    assert_eq!(run["steps"], line.len());
    let board = Board::build(Size::Easy, seed_of("2026-12-01", Game::Maze, Size::Easy)).unwrap();
    assert_eq!(run["board"], serde_json::to_value(board.public()).unwrap(), "the board to replay it on");

    assert_eq!(srv.get("/api/daily/runs/999").await.status, 404);
    assert_eq!(srv.get("/api/daily/2026-02-30/maze/easy").await.status, 400);
    assert_eq!(srv.get("/api/daily/2026-12-01/maze/small").await.status, 404);
    assert_eq!(srv.get("/api/daily/2026-12-01/chess/easy").await.status, 404);
    srv.stop().await;
}

/// Issue 34, item 4: a past day's ended run never changes, so its replay
/// carries an ETag (with the server's version) and may be kept a day; asked
/// again with it, it is a 304 with no body, answered without reading the
/// store. Today's own run (it still hides its seed) carries none.
#[tokio::test]
async fn a_past_days_replay_carries_an_etag_and_is_answered_304_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(FixedClock::at_unix_ms(NOON));
    let srv = daily_server(dir.path(), clock.clone()).await;
    let (_, line) = solution(Size::Easy, seed_of("2026-12-01", Game::Maze, Size::Easy));
    let mut ann = srv.player("Ann").await;
    attempt(&mut ann, "maze", "easy", &line).await;
    let table: Value =
        serde_json::from_str(&srv.get("/api/daily/2026-12-01/maze/easy").await.text()).unwrap();
    let path = format!("/api/daily/runs/{}", table["entries"][0]["run_id"]);
    let own = srv.get_with(&path, &format!("Authorization: Bearer {}\r\n", ann.token)).await;
    assert_eq!(own.status, 200);
    assert_eq!(own.header("etag"), None, "today's run: not settled");

    clock.advance(Duration::from_millis(DAY_MS));
    let shown = srv.get(&path).await;
    assert_eq!(shown.status, 200);
    let etag = shown.header("etag").expect("a past day's run has an ETag").to_owned();
    assert_eq!(shown.header("cache-control"), Some("public, max-age=86400"));
    // The 304 is the early answer, before the store (counted only there).
    let not_modified = || {
        let text = mazerace_server::metrics::render();
        let line = text.lines().find_map(|l| l.strip_prefix("mazerace_replays_not_modified_total "));
        line.and_then(|v| v.parse::<f64>().ok()).expect("the series is exported")
    };
    let before = not_modified();
    let again = srv.get_with(&path, &format!("If-None-Match: {etag}\r\n")).await;
    assert_eq!(again.status, 304, "{}", again.text());
    assert!(not_modified() > before, "answered from the ETag alone");
    assert!(again.body.is_empty());
    assert_eq!(again.header("etag"), Some(etag.as_str()));
    let other = srv.get_with(&path, "If-None-Match: \"run-1-0.0.0\"\r\n").await;
    assert_eq!((other.status, other.text()), (200, shown.text()), "another tag: the run itself");
    srv.stop().await;
}

#[tokio::test]
async fn the_day_rolls_over_at_midnight_utc() {
    let dir = tempfile::tempdir().unwrap();
    let last_ms = NOON + DAY_MS / 2 - 1; // 2026-12-01T23:59:59.999Z
    let clock = Arc::new(FixedClock::at_unix_ms(last_ms));
    let srv = daily_server(dir.path(), clock.clone()).await;
    let today: Value = serde_json::from_str(&srv.get("/api/daily").await.text()).unwrap();
    assert_eq!(today["date"], "2026-12-01");
    assert_eq!(today["next_in_ms"], 1);

    let mut ann = srv.player("Ann").await;
    let late = seed_of("2026-12-01", Game::Maze, Size::Easy);
    let (start, r1) = attempt(&mut ann, "maze", "easy", &solution(Size::Easy, late).1).await;
    assert_eq!(start["board"], hidden(Size::Easy, late));
    assert_eq!(r1["ranked"], true);

    clock.advance(Duration::from_millis(1));
    let next = seed_of("2026-12-02", Game::Maze, Size::Easy);
    assert_ne!(next, late);
    let (start, r2) = attempt(&mut ann, "maze", "easy", &solution(Size::Easy, next).1).await;
    assert_eq!(start["board"], hidden(Size::Easy, next), "a new board at 00:00 UTC");
    assert_eq!(r2["date"], "2026-12-02");
    assert_eq!(r2["ranked"], true, "a new day, a new ranked attempt");
    assert_eq!(r2["streak"], 2, "two days in a row");
    srv.stop().await;
}

#[tokio::test]
async fn acknowledged_results_survive_a_restart_and_verify() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(FixedClock::at_unix_ms(NOON));
    let mut acked = Vec::new();
    {
        let srv = daily_server(dir.path(), clock.clone()).await;
        for (name, game, size) in [("Ann", "maze", Size::Easy), ("Bob", "ghost", Size::Medium)] {
            let game_e = if game == "maze" { Game::Maze } else { Game::Ghost };
            let (_, line) = solution(size, seed_of("2026-12-01", game_e, size));
            let mut c = srv.player(name).await;
            let (_, r) = attempt(&mut c, game, size.as_str(), &line).await;
            acked.push((name, game, size, r["steps"].clone()));
        }
        srv.stop().await;
    }
    let srv = daily_server(dir.path(), clock.clone()).await;
    for (name, game, size, steps) in &acked {
        let table: Value =
            serde_json::from_str(&srv.get(&format!("/api/daily/2026-12-01/{game}/{size}")).await.text())
                .unwrap();
        assert_eq!(table["entries"][0]["name"], *name);
        assert_eq!(table["entries"][0]["steps"], *steps);
    }
    srv.stop().await;
    let store = Store::open(dir.path()).await.unwrap();
    let report = mazerace_store::verify(&store, Some(SALT)).await.unwrap();
    store.close().await;
    assert!(report.ok(), "{report}");
    assert_eq!(report.checked, 2);
    let _ = clock.now();
}

/// The token is the daily identity: after a restart (every session gone) a
/// player who says hello with their old token is still the same daily
/// player, so their one ranked attempt stays used and their streak goes on.
#[tokio::test]
async fn the_daily_identity_outlives_the_session() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(FixedClock::at_unix_ms(NOON));
    let (_, line) = solution(Size::Easy, seed_of("2026-12-01", Game::Maze, Size::Easy));
    let token = {
        let srv = daily_server(dir.path(), clock.clone()).await;
        let mut ann = srv.player("Ann").await;
        let (_, r) = attempt(&mut ann, "maze", "easy", &line).await;
        assert_eq!(r["ranked"], true);
        let token = ann.token.clone();
        srv.stop().await;
        token
    };
    let srv = daily_server(dir.path(), clock.clone()).await;
    let mut ann = srv.connect().await;
    ann.send(json!({"type": "hello", "name": "Ann", "token": token})).await;
    let w = ann.recv_type("welcome").await;
    assert_eq!(w["token"], token.as_str(), "the token is kept");
    let (_, again) = attempt(&mut ann, "maze", "easy", &line).await;
    assert_eq!(again["ranked"], false, "still the same player: this attempt is practice");

    clock.advance(Duration::from_millis(DAY_MS));
    let (_, line2) = solution(Size::Easy, seed_of("2026-12-02", Game::Maze, Size::Easy));
    let (_, next_day) = attempt(&mut ann, "maze", "easy", &line2).await;
    assert_eq!(next_day["ranked"], true);
    assert_eq!(next_day["streak"], 2, "the streak survives the restart");
    srv.stop().await;
}

/// What the home page shows: a daily room says before the start whether the
/// try is ranked (and when the ranked one was), and `GET /api/daily` with the
/// player's token has their day on every board and their streak.
#[tokio::test]
async fn a_practice_room_says_why_and_the_day_is_summed_up() {
    let dir = tempfile::tempdir().unwrap();
    let srv = daily_server(dir.path(), Arc::new(FixedClock::at_unix_ms(NOON))).await;
    let (_, line) = solution(Size::Easy, seed_of("2026-12-01", Game::Maze, Size::Easy));
    let mut ann = srv.player("Ann").await;
    let room = ann.create(json!({"game": "maze", "size": "easy", "daily": true})).await;
    assert_eq!((&room["ranked"], room.get("ranked_at")), (&json!(true), None));
    ann.send(json!({"type": "leave_room"})).await;
    let (_, first) = attempt(&mut ann, "maze", "easy", &line).await;
    assert_eq!(first["ranked"], true, "making a room and leaving it used no try");

    let room = ann.create(json!({"game": "maze", "size": "easy", "daily": true})).await;
    assert_eq!(room["ranked"], false, "{room}");
    // The database's own clock stamps a run's start (one clock for every node).
    let at = room["ranked_at"].as_str().unwrap();
    let shape = at.len() == 20 && at.as_bytes()[10] == b'T' && at.ends_with('Z');
    assert!(shape && at[..10].parse::<mazerace_protocol::daily::DailyDate>().is_ok(), "RFC 3339 UTC: {at}");
    ann.send(json!({"type": "leave_room"})).await;

    let day = srv.get_with("/api/daily", &format!("Authorization: Bearer {}\r\n", ann.token)).await;
    let day: Value = serde_json::from_str(&day.text()).unwrap();
    assert_eq!(day["you"]["streak"], 1);
    let boards = day["you"]["boards"].as_array().unwrap();
    assert_eq!(boards.len(), 6);
    let easy = boards.iter().find(|b| b["game"] == "maze" && b["size"] == "easy").unwrap();
    assert_eq!((&easy["played"], &easy["finished"], &easy["rank"]), (&json!(true), &json!(true), &json!(1)));
    assert_eq!(boards.iter().filter(|b| b["played"] == false).count(), 5);
    let anonymous: Value = serde_json::from_str(&srv.get("/api/daily").await.text()).unwrap();
    assert!(anonymous.get("you").is_none(), "no token, no `you`");
    srv.stop().await;
}
