//! Racing a stored run (issue 16) end to end on the real store: the day's
//! #1 raced from the daily room after its result, a rival added by the host
//! of a room of two players, and the runs refused (a ranked try still to
//! come, another player's run while its day is on, another board, a stored
//! run that no longer replays to its result).

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use mazerace_protocol::daily::daily_seed;
use mazerace_server::StoreHook;
use mazerace_store::{Database, FixedClock, NewRun, NodeOptions, Outcome, PlayerKey, Store};
use mazerace_tests::cluster::{postgres_or_skip, Schema};
use mazerace_tests::serde_json::{json, Value};
use mazerace_tests::{solution, test_config, Client, Game, Size, TestServer};

const SALT: &[u8] = b"test salt";
/// 2026-12-01T12:00:00Z.
const NOON: u64 = 1_796_126_400_000;
const TODAY: &str = "2026-12-01";
const RIVAL: u64 = u32::MAX as u64;

async fn daily_server(dir: &Path, clock: Arc<FixedClock>) -> (TestServer, Store) {
    on_store(Store::open(dir).await.expect("open store"), clock).await
}

async fn on_store(store: Store, clock: Arc<FixedClock>) -> (TestServer, Store) {
    let hook = StoreHook::new(store.clone(), Some(SALT.to_vec()), clock).await.expect("hook");
    (TestServer::with_daily(test_config(), Arc::new(hook)).await, store)
}

/// The `error` code the next error carries.
async fn refused(c: &mut Client, msg: Value) -> String {
    c.send(msg).await;
    let e = c.recv_type("error").await;
    e["code"].as_str().expect("a code").to_owned()
}

/// Adds a rival and waits for the `room` that lists it.
async fn add_rival(c: &mut Client, msg: Value) -> Value {
    c.send(msg).await;
    loop {
        let v = c.recv().await;
        assert_ne!(v["type"], "error", "{v}");
        if v["type"] == "room" && v["players"].as_array().unwrap().iter().any(|p| p["rival"] == true) {
            return v;
        }
    }
}

/// Today's easy maze's seed.
fn todays_seed() -> u64 {
    daily_seed(SALT, mazerace_tests::day(TODAY), Game::Maze, Size::Easy)
}

/// Ann's ranked try at today's easy maze, played on its best line in a daily
/// room: her connection (in the room, its results next), the line and her
/// `daily_result`.
async fn anns_ranked_try(srv: &TestServer) -> (Client, Vec<mazerace_tests::Action>, Value) {
    let (_, line) = solution(Size::Easy, todays_seed());
    let mut ann = srv.player("Ann").await;
    ann.create(json!({"game": "maze", "size": "easy", "daily": true})).await;
    ann.send(json!({"type": "start"})).await;
    ann.recv_type("race_start").await;
    ann.play(&line, 1).await;
    let result = ann.recv_type("daily_result").await;
    (ann, line, result)
}

fn rival_line(results: &Value) -> &Value {
    results["rankings"].as_array().unwrap().iter().find(|l| l["rival"] == true).expect("a rival line")
}

#[tokio::test]
async fn race_the_number_one_after_a_daily_from_its_room() {
    let dir = tempfile::tempdir().unwrap();
    let (srv, _store) = daily_server(dir.path(), Arc::new(FixedClock::at_unix_ms(NOON))).await;
    let (_, line) = solution(Size::Easy, todays_seed());

    let mut ann = srv.player("Ann").await;
    ann.create(json!({"game": "maze", "size": "easy", "daily": true})).await;
    let code = refused(&mut ann, json!({"type": "add_rival", "pick": "best"})).await;
    assert_eq!(code, "rival_refused", "no rival before the ranked try");
    ann.send(json!({"type": "start"})).await;
    ann.recv_type("race_start").await;
    ann.play(&line, 1).await;
    let ranked = ann.recv_type("daily_result").await;
    assert_eq!((ranked["ranked"].clone(), ranked["rank"].clone()), (json!(true), json!(1)));
    let stored_time = ranked["time_ms"].as_u64().unwrap();

    // "Race the #1" from the result card: same board again, the #1 added.
    ann.send(json!({"type": "rematch", "same_board": true})).await;
    let room = add_rival(&mut ann, json!({"type": "add_rival", "pick": "best"})).await;
    let rival = room["players"].as_array().unwrap().iter().find(|p| p["rival"] == true).unwrap().clone();
    assert_eq!(rival["id"], RIVAL);
    assert_eq!(rival["name"], "Ann");
    assert_eq!(rival["run_id"], ranked["run_id"]);
    assert_eq!(room["ranked"], false, "racing a rival is never ranked");

    ann.send(json!({"type": "start"})).await;
    let start = ann.recv_type("race_start").await;
    assert_eq!(start["clock"], "start", "a rival is someone to race");
    // Let the rival win: it finishes at its stored time after the start.
    let fin = ann.recv_type("finished").await;
    assert_eq!(fin["player_id"], RIVAL);
    assert_eq!(fin["time_ms"].as_u64(), Some(stored_time), "{fin}");
    assert_eq!(fin["steps"], line.len());
    ann.play(&line, 1).await;
    let results = ann.recv_type("results").await;
    let r = rival_line(&results);
    assert_eq!((r["rank"].clone(), r["time_ms"].as_u64()), (json!(1), Some(stored_time)), "{results}");
    let practice = ann.recv_type("daily_result").await;
    assert_eq!(practice["ranked"], false);

    // That practice run (raced on the start signal's clock) is stored timed
    // from its first move like every daily run, so it races in turn; and a
    // rival is taken out again with remove_rival.
    ann.send(json!({"type": "rematch", "same_board": true})).await;
    ann.send(json!({"type": "add_rival", "run_id": practice["run_id"]})).await;
    let rivals = |r: &Value| r["players"].as_array().unwrap().iter().filter(|p| p["rival"] == true).count();
    // The #1 is kept for a same-board rematch; the practice run comes second.
    let room = ann.recv_room_until(|r| rivals(r) == 2).await;
    let second = &room["players"][2];
    assert_eq!((second["id"].as_u64(), &second["run_id"]), (Some(RIVAL - 1), &practice["run_id"]), "{room}");
    ann.send(json!({"type": "remove_rival", "id": RIVAL})).await;
    let room =
        ann.recv_room_until(|r| r["players"].as_array().unwrap().iter().all(|p| p["id"] != RIVAL)).await;
    assert_eq!(room["players"].as_array().unwrap().len(), 2, "{room}");

    // The table holds only the ranked run: the rival took no slot.
    ann.send(json!({"type": "leaderboard", "game": "maze", "size": "easy"})).await;
    let table = ann.recv_type("leaderboard").await;
    assert_eq!(table["entries"].as_array().unwrap().len(), 1, "{table}");
    srv.stop().await;
}

#[tokio::test]
async fn a_rival_races_a_room_of_two_and_hidden_other_and_changed_runs_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(FixedClock::at_unix_ms(NOON));
    let (srv, store) = daily_server(dir.path(), Arc::clone(&clock)).await;
    room_of_two(srv, store, clock).await;
}

/// The same on PostgreSQL (the shared database of several nodes).
#[tokio::test]
async fn a_rival_races_a_room_of_two_on_postgres_too() {
    let Some(admin) = postgres_or_skip("a_rival_races_a_room_of_two_on_postgres_too") else { return };
    let db = Schema::fresh(&admin).await;
    let store =
        Store::connect(Database::Postgres(db.url.clone()), NodeOptions::default()).await.expect("connect");
    let clock = Arc::new(FixedClock::at_unix_ms(NOON));
    let (srv, store) = on_store(store, Arc::clone(&clock)).await;
    room_of_two(srv, store, clock).await;
}

async fn room_of_two(srv: TestServer, store: Store, clock: Arc<FixedClock>) {
    let (mut ann, line, anns) = anns_ranked_try(&srv).await;
    let seed = todays_seed();
    let run_id = anns["run_id"].as_i64().unwrap();
    ann.send(json!({"type": "leave_room"})).await;

    // Bob's ranked try is over, but Ann's run is on today's board.
    let mut bob = srv.player("Bob").await;
    bob.create(json!({"game": "maze", "size": "easy", "daily": true})).await;
    bob.send(json!({"type": "start"})).await;
    bob.recv_type("race_start").await;
    bob.send(json!({"type": "give_up"})).await;
    bob.recv_type("daily_result").await;
    bob.send(json!({"type": "rematch", "same_board": true})).await;
    bob.recv_type("room").await;
    let hidden = refused(&mut bob, json!({"type": "add_rival", "run_id": run_id})).await;
    assert_eq!(hidden, "rival_hidden");
    assert_eq!(refused(&mut bob, json!({"type": "add_rival", "pick": "mine"})).await, "rival_not_found");
    let gone = refused(&mut bob, json!({"type": "add_rival", "run_id": 999_999})).await;
    assert_eq!(gone, "rival_not_found");
    // Except the day's #1 ("Race the #1"), now that his own try is spent.
    let room = add_rival(&mut bob, json!({"type": "add_rival", "pick": "best"})).await;
    let best = room["players"].as_array().unwrap().iter().find(|p| p["rival"] == true).unwrap();
    assert_eq!((best["name"].clone(), best["run_id"].as_i64()), (json!("Ann"), Some(run_id)), "{room}");
    bob.send(json!({"type": "leave_room"})).await;

    // The next day the board is revealed: a private room on its seed.
    clock.advance(Duration::from_secs(86_400));
    let spec = json!({"game": "maze", "size": "easy", "seed": seed.to_string()});
    let other = json!({"game": "maze", "size": "easy", "seed": (seed ^ 1).to_string()});
    bob.create(other).await;
    let code = refused(&mut bob, json!({"type": "add_rival", "run_id": run_id})).await;
    assert_eq!(code, "rival_other_board");
    bob.send(json!({"type": "leave_room"})).await;

    // A stored run whose stored steps its moves do not make.
    let player = PlayerKey::from_token("someone");
    let new = NewRun {
        player,
        name: "Eve".into(),
        date: mazerace_tests::day(TODAY),
        game: Game::Maze,
        size: Size::Easy,
        seed,
    };
    let eve = store.begin_run(new).await.unwrap();
    let wrong = Outcome::Finished { steps: line.len() as u32 + 2, time_ms: 900, at_floor: false };
    store.finish_run(eve.run_id, wrong, line.clone(), None).await.unwrap();

    let room = ann.create(spec).await;
    let code = room["code"].as_str().unwrap().to_owned();
    bob.join(&code).await;
    let changed = refused(&mut ann, json!({"type": "add_rival", "run_id": eve.run_id})).await;
    assert_eq!(changed, "rival_changed");
    assert_eq!(refused(&mut bob, json!({"type": "add_rival", "run_id": run_id})).await, "not_host");
    add_rival(&mut ann, json!({"type": "add_rival", "run_id": run_id})).await;
    let seen = bob.recv_room_until(|r| r["players"].as_array().unwrap().len() == 3).await;
    assert!(seen["players"].as_array().unwrap().iter().any(|p| p["rival"] == true && p["name"] == "Ann"));

    ann.send(json!({"type": "start"})).await;
    ann.recv_type("race_start").await;
    bob.recv_type("race_start").await;
    // Bob sees the rival move in progress, like any racer.
    loop {
        let p = bob.recv_type("progress").await;
        if p["players"].as_array().unwrap().iter().any(|x| x["id"] == RIVAL && x["steps"].as_u64() > Some(0))
        {
            break;
        }
    }
    ann.play(&line, 1).await;
    bob.send(json!({"type": "give_up"})).await;
    let results = bob.recv_type("results").await;
    let lines = results["rankings"].as_array().unwrap();
    assert_eq!(lines.len(), 3, "{results}");
    let r = rival_line(&results);
    assert_eq!(r["status"], "finished");
    assert_eq!(r["steps"], line.len());
    assert_eq!(r["time_ms"], anns["time_ms"], "its stored time");
    assert_eq!(lines[2]["status"], "gave_up");
    srv.stop().await;
}

#[tokio::test]
async fn the_same_run_is_a_rival_once() {
    // Before, `best` asked three times raced the one run three times.
    let dir = tempfile::tempdir().unwrap();
    let (srv, _store) = daily_server(dir.path(), Arc::new(FixedClock::at_unix_ms(NOON))).await;
    let (mut ann, _, ranked) = anns_ranked_try(&srv).await;
    ann.send(json!({"type": "rematch", "same_board": true})).await;
    add_rival(&mut ann, json!({"type": "add_rival", "pick": "best"})).await;
    for again in [
        json!({"type": "add_rival", "pick": "best"}),
        json!({"type": "add_rival", "run_id": ranked["run_id"]}),
    ] {
        ann.send(again).await;
        let e = ann.recv_type("error").await;
        assert_eq!(e["code"], "rival_refused", "{e}");
        assert_eq!(e["message"], "that run is already a rival in this room");
    }
    // The room still races it once: a `ready` shows the room as it is now.
    ann.send(json!({"type": "ready", "ready": true})).await;
    let ann_id = ann.id;
    let room = ann
        .recv_room_until(|r| {
            r["players"].as_array().unwrap().iter().any(|p| p["id"] == ann_id && p["ready"] == true)
        })
        .await;
    let rivals = room["players"].as_array().unwrap().iter().filter(|p| p["rival"] == true).count();
    assert_eq!(rivals, 1, "{room}");
    srv.stop().await;
}
