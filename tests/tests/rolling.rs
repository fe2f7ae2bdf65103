//! A rolling restart with the real binary behind the shipped nginx config
//! on one PostgreSQL (issue 27): 200 players racing in rooms of 2 and 8 on
//! both nodes; A drains (SIGTERM) while they race, its races end, its rooms
//! move to B and their players follow; A exits and starts again on its
//! port; then B drains and every room (B's own and those moved from A)
//! moves to the new A. No room is lost (each one's players, in order, and
//! its host are there at the end), nobody sees an error or a shutdown, the
//! old codes of A's rooms lead to them from the restarted A (which knows
//! the moves only from the database), and the daily results acknowledged
//! on a draining node are in the leaderboard after.
//!
//! Every player is a future of its own, all of them driven at once
//! (`join_all`), and the players who wait while others act are read
//! meanwhile ([`while_reading`]): a socket left unread stops answering the
//! server's pings and would be closed as silent, as a real browser tab
//! never is. All 200 players come from 127.0.0.1 here, so the nodes run
//! with the per-address budgets (which bound one network address, not 200
//! players) raised; those budgets have their own tests.
//! PostgreSQL and nginx as `nodes.rs` (see `mazerace_tests::cluster`).

use std::time::Duration;

use futures_util::future::join_all;
use mazerace_protocol::daily::daily_seed;
use mazerace_tests::cluster::{
    connect, follow, healthz_becomes, postgres_or_skip, Nginx, Node, Schema, SALT,
};
use mazerace_tests::serde_json::{self, json, Value};
use mazerace_tests::{http_get, solution, while_reading, Client, Game, Size};

/// 16 rooms of 8 and 36 of 2: 200 players in 52 rooms.
fn sizes() -> Vec<usize> {
    let mut out: Vec<usize> = (0..16).flat_map(|_| [8, 2, 2]).collect();
    out.extend([2; 4]);
    out
}

/// The nodes' flags: a drain limit the test never reaches, and per-address
/// budgets for 200 players on one address (joins, sessions, sockets; the
/// failed joins of the probes for a node's return).
const FLAGS: [&str; 10] = [
    "--drain-secs",
    "30",
    "--room-joins",
    "1000",
    "--join-attempts",
    "1000",
    "--max-sessions-per-address",
    "1000",
    "--max-conns-per-addr",
    "0",
];

/// One room as the test knows it: its code and key, and its players (the
/// host first) with their names.
struct Room {
    code: String,
    key: String,
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

fn all_connected(room: &Value) -> bool {
    room["players"].as_array().is_some_and(|p| p.iter().all(|p| p["connected"] == true))
}

/// Every player of every room, for [`while_reading`].
fn everyone(rooms: &mut [Room]) -> Vec<&mut Client> {
    rooms.iter_mut().flat_map(|r| r.players.iter_mut().map(|(_, c)| c)).collect()
}

/// No idle player saw an error, a shutdown or a move while others acted.
fn nothing_bad(seen: &[Vec<Value>]) {
    for m in seen.iter().flatten() {
        assert!(!matches!(m["type"].as_str(), Some("error" | "server_shutdown" | "room_moved")), "{m}");
    }
}

/// Room `r` of `size`, its host on node `host_at` (the rooms alternate
/// between the nodes: both sizes on both), its guests through nginx by its
/// code as an invite link sends them; in a race on the easy maze of seed 1.
async fn racing_room(r: usize, size: usize, host_at: &str, lb: &str) -> Room {
    let host_name = format!("R{r}P0");
    let mut host = player(host_at, "/ws", &host_name).await;
    let made = host.create(json!({"game": "maze", "size": "easy", "seed": "1", "max_players": 8})).await;
    let code = made["code"].as_str().expect("a code").to_owned();
    let key = made["key"].as_str().expect("a key").to_owned();
    let mut players = vec![(host_name, host)];
    for p in 1..size {
        let name = format!("R{r}P{p}");
        let mut c = player(lb, &format!("/ws?room={code}"), &name).await;
        c.join(&code).await;
        players.push((name, c));
    }
    players[0].1.send(json!({"type": "start"})).await;
    join_all(players.iter_mut().map(|(_, c)| c.recv_type("race_start"))).await;
    Room { code, key, players }
}

/// Every player of `rooms` follows its move, all at once; each room's code
/// becomes its new one. Returns each room as its host's snapshot shows it.
async fn follow_rooms(rooms: Vec<&mut Room>, lb: &str) -> Vec<Value> {
    join_all(rooms.into_iter().map(|room| async move {
        let infos = join_all(room.players.iter_mut().map(|(name, c)| async move {
            let (n, info) = follow(c, lb, name).await;
            *c = n;
            info
        }))
        .await;
        let info = infos.into_iter().next().expect("a player");
        room.code = info["code"].as_str().expect("a code").to_owned();
        info
    }))
    .await
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
    let mut a = Node::start_with('A', &db.url, None, logs.path(), &FLAGS).await;
    let mut b = Node::start_with('B', &db.url, None, logs.path(), &FLAGS).await;
    let lb = Nginx::start(&a, &b).await;
    let date: Value = serde_json::from_str(&http_get(&lb.addr, "/api/daily", "").await.text()).unwrap();
    let date = date["date"].as_str().expect("today").to_owned();

    let plan = sizes();
    assert_eq!((plan.iter().sum::<usize>(), plan.len()), (200, 52));
    let nodes = [a.addr.clone(), b.addr.clone()];
    let made = plan.iter().enumerate().map(|(r, &size)| racing_room(r, size, &nodes[r % 2], &lb.addr));
    let mut rooms = join_all(made).await;
    for (id, size) in [('A', 2), ('A', 8), ('B', 2), ('B', 8)] {
        let n = rooms.iter().filter(|r| r.code.starts_with(id) && r.players.len() == size).count();
        assert!(n > 0, "rooms of {size} on node {id}");
    }
    let hosts: Vec<String> = rooms.iter().map(|r| r.players[0].0.clone()).collect();
    let members: Vec<Vec<String>> =
        rooms.iter().map(|r| r.players.iter().map(|p| p.0.clone()).collect()).collect();
    // A's rooms as their invite links name them: code and key.
    let old_a: Vec<(usize, String, String)> = (rooms.iter().enumerate())
        .filter(|(_, r)| r.code.starts_with('A'))
        .map(|(i, r)| (i, r.code.clone(), r.key.clone()))
        .collect();
    let (mut day_a, rest_a, seq_a) = daily_halfway(&a.addr, "DayA", &date).await;

    // 1. A drains while its races go on; they end, and A's rooms move to B.
    a.signal("TERM");
    assert_eq!(healthz_becomes(&a.addr, 503).await.text(), "draining");
    let (_, line) = solution(Size::Easy, 1);
    let racing = everyone(&mut rooms).into_iter().map(|c| c.play(&line, 1));
    let (played, ()) = tokio::join!(join_all(racing), finish_daily(&mut day_a, &rest_a, seq_a));
    for moves in played {
        assert!(moves.iter().all(|m| m["ok"] == true), "the races go on through the drain");
    }
    let (infos, seen) = {
        let (moving, staying): (Vec<&mut Room>, Vec<&mut Room>) =
            rooms.iter_mut().partition(|r| r.code.starts_with('A'));
        let idle = staying.into_iter().flat_map(|r| r.players.iter_mut().map(|(_, c)| c)).collect();
        while_reading(idle, follow_rooms(moving, &lb.addr)).await
    };
    nothing_bad(&seen);
    for info in &infos {
        assert!(info["code"].as_str().is_some_and(|c| c.starts_with('B')), "adopted by B: {info}");
        assert_eq!(info["phase"], "lobby");
    }
    assert_eq!(infos.len(), old_a.len());

    // 2. A comes back on its port, nginx takes it back; its old codes still
    //    lead to where they went, from the database's memory of the moves
    //    (the new A never saw A's old rooms). Everyone is read meanwhile.
    let port = a.port();
    let links: Vec<(&str, &str, String)> =
        old_a.iter().map(|(i, old, key)| (old.as_str(), key.as_str(), rooms[*i].code.clone())).collect();
    let restart = async {
        let status = a.exited_within(Duration::from_secs(20)).await.expect("A exited after its moves");
        assert!(status.success(), "{status:?}");
        drop(a);
        let a2 = Node::start_with('A', &db.url, Some(port), logs.path(), &FLAGS).await;
        nginx_routes_to(&lb.addr, 'A').await;
        let lb = &lb.addr;
        join_all(links.iter().map(|(old, key, new)| async move {
            let mut c = player(lb, &format!("/ws?room={old}"), "Link").await;
            c.send(json!({"type": "join_room", "code": old, "key": key})).await;
            let moved = c.recv().await;
            assert_eq!((&moved["type"], &moved["code"]), (&json!("room_moved"), &json!(new)), "{old}");
        }))
        .await;
        let day_b = daily_halfway(&b.addr, "DayB", &date).await;
        (a2, day_b)
    };
    let ((a2, (mut day_b, rest_b, seq_b)), seen) = while_reading(everyone(&mut rooms), restart).await;
    nothing_bad(&seen);

    // 3. B drains: every room moves to the new A.
    b.signal("TERM");
    let (infos, ()) = tokio::join!(
        follow_rooms(rooms.iter_mut().collect(), &lb.addr),
        finish_daily(&mut day_b, &rest_b, seq_b)
    );
    for info in &infos {
        assert!(info["code"].as_str().is_some_and(|c| c.starts_with('A')), "adopted by the new A: {info}");
    }
    let status = b.exited_within(Duration::from_secs(20)).await.expect("B exited after its moves");
    assert!(status.success(), "{status:?}");

    // No room lost: each has its players, in order, and its host (once all
    // are back: the host's snapshot shows it if the host came in last).
    let all_back = rooms.iter_mut().zip(infos).map(|(room, snapshot)| async move {
        let host = &mut room.players[0].1;
        let id = host.id;
        let info =
            if all_connected(&snapshot) { snapshot } else { host.recv_room_until(all_connected).await };
        (info, id)
    });
    for (r, (info, id)) in join_all(all_back).await.into_iter().enumerate() {
        assert_eq!(names(&info), members[r], "room {r}'s players");
        assert_eq!(info["host"], id, "room {r}'s host is {}", hosts[r]);
    }
    // Both daily results told on a draining node are kept.
    let board = http_get(&a2.addr, &format!("/api/daily/{date}/maze/easy"), "").await.text();
    assert!(board.contains("\"DayA\"") && board.contains("\"DayB\""), "{board}");
    drop((a2, lb));
}
