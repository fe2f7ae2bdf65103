//! A rolling restart with the real binary behind the shipped nginx config
//! on one PostgreSQL (issue 27): rooms of 2 and 8 racing on both nodes; A
//! drains (SIGTERM) while they race, its races end, its rooms move to B and
//! their players follow; A exits and starts again on its port; then B
//! drains and every room (B's own and those moved from A) moves to the new
//! A. No room is lost (each one's players, in order, and its host are
//! there at the end), nobody sees an error or a shutdown, the old codes of
//! A's rooms lead to them from the restarted A (which knows the moves only
//! from the database), and the daily results acknowledged on a draining
//! node are in the leaderboard after.
//!
//! Sized for the test suite on a small machine (24 players in 6 rooms); the
//! bench's rolling-restart scenario runs the 200 (bench/RESULTS.md).
//! PostgreSQL and nginx as `nodes.rs` (see `mazerace_tests::cluster`).

use std::time::Duration;

use mazerace_protocol::daily::daily_seed;
use mazerace_tests::cluster::{
    connect, follow, healthz_becomes, postgres_or_skip, Nginx, Node, Schema, SALT,
};
use mazerace_tests::serde_json::{self, json, Value};
use mazerace_tests::{http_get, solution, Client, Game, Size};

const SIZES: [usize; 6] = [2, 8, 2, 2, 8, 2];

/// One room as the test knows it: its code, and its players (the host
/// first) with their names.
struct Room {
    code: String,
    players: Vec<(String, Client)>,
}

async fn player(addr: &str, path: &str, name: &str) -> Client {
    let mut c = connect(addr, path).await;
    c.hello(name).await;
    c
}

fn names(room: &Value) -> Vec<String> {
    let players = room["players"].as_array().expect("players");
    players.iter().map(|p| p["name"].as_str().expect("a name").to_owned()).collect()
}

/// Rooms made through nginx (least_conn spreads them over both nodes), each
/// in a race on the easy maze of seed 1.
async fn racing_rooms(lb: &str) -> Vec<Room> {
    let mut rooms = Vec::new();
    for (r, &size) in SIZES.iter().enumerate() {
        let host_name = format!("R{r}P0");
        let mut host = player(lb, "/ws", &host_name).await;
        let made = host.create(json!({"game": "maze", "size": "easy", "seed": "1", "max_players": 8})).await;
        let code = made["code"].as_str().expect("a code").to_owned();
        let mut players = vec![(host_name, host)];
        for p in 1..size {
            let name = format!("R{r}P{p}");
            let mut c = player(lb, &format!("/ws?room={code}"), &name).await;
            c.join(&code).await;
            players.push((name, c));
        }
        players[0].1.send(json!({"type": "start"})).await;
        for (_, c) in &mut players {
            c.recv_type("race_start").await;
        }
        rooms.push(Room { code, players });
    }
    rooms
}

/// Every player of `room` follows its move; the room as its new host sees it.
async fn follow_room(room: &mut Room, lb: &str) -> Value {
    let mut seen = None;
    for (name, c) in &mut room.players {
        let (n, info) = follow(c, lb, name).await;
        *c = n;
        seen.get_or_insert(info);
    }
    let info = seen.expect("a player");
    room.code = info["code"].as_str().expect("a code").to_owned();
    info
}

/// Waits until nginx sends node `id`'s room codes to node `id` again (it
/// skips a node for `fail_timeout` after it went away): a join of an unused
/// code of that node is answered `room_not_found` there, `wrong_node` by
/// the backup.
async fn nginx_routes_to(lb: &str, id: char) {
    let code = format!("{id}ZZZZ");
    for _ in 0..200 {
        let mut c = player(lb, &format!("/ws?room={code}"), "Probe").await;
        c.send(json!({"type": "join_room", "code": code})).await;
        let e = c.recv_type("error").await;
        if e["code"] == "room_not_found" {
            return;
        }
        assert_eq!(e["code"], "wrong_node", "{e}");
        // nginx retries the node once its fail_timeout is over.
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("nginx never took node {id} back");
}

/// A daily attempt on `addr` (a node), raced halfway: finished after the
/// drain began, its result must still be told and kept.
async fn daily_halfway(addr: &str, name: &str, date: &str) -> (Client, Vec<mazerace_tests::Action>, u32) {
    let seed = daily_seed(SALT.as_bytes(), mazerace_tests::day(date), Game::Maze, Size::Easy);
    let (_, line) = solution(Size::Easy, seed);
    let mut c = player(addr, "/ws", name).await;
    c.create(json!({"game": "maze", "size": "easy", "daily": true})).await;
    c.send(json!({"type": "start"})).await;
    c.recv_type("race_start").await;
    let half = line.len() / 2;
    c.play(&line[..half], 1).await;
    (c, line[half..].to_vec(), half as u32 + 1)
}

async fn finish_daily(c: &mut Client, rest: &[mazerace_tests::Action], first_seq: u32) {
    c.play(rest, first_seq).await;
    let r = c.recv_type("daily_result").await;
    assert_eq!(r["finished"], true, "{r}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rolling_restart_of_both_nodes_keeps_every_room_and_result() {
    let Some(admin) = postgres_or_skip("a_rolling_restart_of_both_nodes") else { return };
    let db = Schema::fresh(&admin).await;
    let logs = tempfile::tempdir().unwrap();
    let flags = ["--drain-secs", "30"];
    let mut a = Node::start_with('A', &db.url, None, logs.path(), &flags).await;
    let mut b = Node::start_with('B', &db.url, None, logs.path(), &flags).await;
    let lb = Nginx::start(&a, &b).await;
    let date: Value = serde_json::from_str(&http_get(&lb.addr, "/api/daily", "").await.text()).unwrap();
    let date = date["date"].as_str().expect("today").to_owned();

    let mut rooms = racing_rooms(&lb.addr).await;
    let on = |rooms: &[Room], id: char| rooms.iter().filter(|r| r.code.starts_with(id)).count();
    assert!(on(&rooms, 'A') > 0 && on(&rooms, 'B') > 0, "rooms on both nodes");
    let hosts: Vec<String> = rooms.iter().map(|r| r.players[0].0.clone()).collect();
    let everyone: Vec<Vec<String>> =
        rooms.iter().map(|r| r.players.iter().map(|p| p.0.clone()).collect()).collect();
    let (mut day_a, rest_a, seq_a) = daily_halfway(&a.addr, "DayA", &date).await;

    let old_a: Vec<(usize, String)> = rooms
        .iter()
        .enumerate()
        .filter(|(_, r)| r.code.starts_with('A'))
        .map(|(i, r)| (i, r.code.clone()))
        .collect();

    // 1. A drains while its races go on; they end, and A's rooms move to B.
    a.signal("TERM");
    assert_eq!(healthz_becomes(&a.addr, 503).await.text(), "draining");
    let (_, line) = solution(Size::Easy, 1);
    for room in &mut rooms {
        for (_, c) in &mut room.players {
            let moves = c.play(&line, 1).await;
            assert!(moves.iter().all(|m| m["ok"] == true), "the races go on through the drain");
        }
    }
    finish_daily(&mut day_a, &rest_a, seq_a).await;
    for room in rooms.iter_mut().filter(|r| r.code.starts_with('A')) {
        let info = follow_room(room, &lb.addr).await;
        assert!(room.code.starts_with('B'), "{}: adopted by B", room.code);
        assert_eq!(info["phase"], "lobby");
    }
    let status = a.exited_within(Duration::from_secs(20)).await.expect("A exited after its moves");
    assert!(status.success(), "{status:?}");

    // 2. A comes back on its port, nginx takes it back; then B drains and
    //    every room moves to the new A.
    let port = a.port();
    drop(a);
    let a2 = Node::start_with('A', &db.url, Some(port), logs.path(), &flags).await;
    nginx_routes_to(&lb.addr, 'A').await;
    // The new A never saw A's old rooms: their codes still lead to where
    // they went, from the database's memory of the moves.
    for (i, old) in &old_a {
        let mut c = player(&lb.addr, &format!("/ws?room={old}"), "Link").await;
        c.send(json!({"type": "join_room", "code": old})).await;
        let moved = c.recv().await;
        assert_eq!((&moved["type"], &moved["code"]), (&json!("room_moved"), &json!(rooms[*i].code)), "{old}");
    }
    let (mut day_b, rest_b, seq_b) = daily_halfway(&b.addr, "DayB", &date).await;
    b.signal("TERM");
    finish_daily(&mut day_b, &rest_b, seq_b).await;
    for room in &mut rooms {
        follow_room(room, &lb.addr).await;
        assert!(room.code.starts_with('A'), "{}: adopted by the new A", room.code);
    }
    let status = b.exited_within(Duration::from_secs(20)).await.expect("B exited after its moves");
    assert!(status.success(), "{status:?}");

    // No room lost: each has its players, in order, and its host.
    for (r, room) in rooms.iter_mut().enumerate() {
        let host = &mut room.players[0].1;
        let id = host.id;
        let info = host
            .recv_room_until(|i| {
                i["players"].as_array().is_some_and(|p| p.iter().all(|p| p["connected"] == true))
            })
            .await;
        assert_eq!(names(&info), everyone[r], "room {r}'s players");
        assert_eq!(info["host"], id, "room {r}'s host is {}", hosts[r]);
    }
    // Both daily results told on a draining node are kept.
    let board = http_get(&a2.addr, &format!("/api/daily/{date}/maze/easy"), "").await.text();
    assert!(board.contains("\"DayA\"") && board.contains("\"DayB\""), "{board}");
    drop((a2, lb));
}
