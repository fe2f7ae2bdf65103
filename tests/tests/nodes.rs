//! Several nodes (issue 14) with the real binary: two `mazerace serve`
//! nodes, ids A and B, on one PostgreSQL schema, behind a throwaway nginx
//! running the shipped `deploy/nginx.conf`.
//!
//! - through nginx, a room made on one connection is joined on another with
//!   `/ws?room=CODE` and both are on the code's node; `/r/CODE` goes there
//!   too; a join sent straight to the other node gets `wrong_node`; a
//!   forwarded client address is believed from nginx;
//! - both nodes (and nginx) show the same leaderboard;
//! - one player starting the same daily board on both nodes at once gets
//!   exactly one ranked attempt;
//! - `kill -9` of a node mid-daily leaves the other node's run alone, its own
//!   open run is closed when it restarts, every acknowledged result is kept;
//! - a killed node that never comes back has its open run closed by the
//!   other node once its lease (`--node-lease-secs 2`) has run out;
//! - SIGTERM drains a node: new players through nginx land on the other
//!   node with no error, its `/healthz` says "draining", its race runs to
//!   the end and then it exits by itself;
//! - nginx stops sending new players to a killed node (`max_fails`) while
//!   the other's race goes on, and takes it back when it returns.
//!
//! PostgreSQL: without `MAZERACE_TEST_DATABASE_URL` these tests print "DID
//! NOT RUN" and pass, unless `MAZERACE_REQUIRE_PG=1` (./test.sh sets it),
//! when they fail (see `mazerace_tests::cluster`). The binary is built by
//! `cargo build -p mazerace-server` (./test.sh does it first).

use mazerace_protocol::daily::daily_seed;
use mazerace_tests::cluster::{connect, healthz_becomes, postgres_or_skip, Nginx, Node, Schema, SALT};
use mazerace_tests::serde_json::{self, json, Value};
use mazerace_tests::{http_get, solution, wait_until, Action, Client, Game, Size};

async fn today(addr: &str) -> String {
    let v: Value = serde_json::from_str(&http_get(addr, "/api/daily", "").await.text()).expect("json");
    v["date"].as_str().expect("date").to_owned()
}

async fn healthz(addr: &str) -> Value {
    serde_json::from_str(&http_get(addr, "/healthz", "").await.text()).expect("json")
}

async fn player(addr: &str, path: &str, name: &str) -> Client {
    let mut c = connect(addr, path).await;
    c.hello(name).await;
    c
}

/// A daily attempt on maze easy played to the end: its `daily_result`.
async fn daily_finish(c: &mut Client, date: &str) -> Value {
    let seed = daily_seed(SALT.as_bytes(), mazerace_tests::day(date), Game::Maze, Size::Easy);
    let (_, line) = solution(Size::Easy, seed);
    c.create(json!({"game": "maze", "size": "easy", "daily": true})).await;
    c.send(json!({"type": "start"})).await;
    c.recv_type("race_start").await;
    c.play(&line, 1).await;
    c.recv_type("daily_result").await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rooms_route_by_code_and_the_daily_is_shared() {
    let Some(admin) = postgres_or_skip("rooms_route_by_code_and_the_daily_is_shared") else { return };
    let db = Schema::fresh(&admin).await;
    let logs = tempfile::tempdir().unwrap();
    let a = Node::start('A', &db.url, None, logs.path()).await;
    let b = Node::start('B', &db.url, None, logs.path()).await;
    let lb = Nginx::start(&a, &b).await;
    let node_addr = |id: char| if id == 'A' { a.addr.clone() } else { b.addr.clone() };

    // Two hosts through nginx without a code: spread over both nodes.
    let mut host1 = player(&lb.addr, "/ws", "Ann").await;
    let code1 =
        host1.create(json!({"game": "maze", "size": "easy"})).await["code"].as_str().unwrap().to_owned();
    let mut host2 = player(&lb.addr, "/ws", "Bea").await;
    let code2 =
        host2.create(json!({"game": "maze", "size": "easy"})).await["code"].as_str().unwrap().to_owned();
    let (n1, n2) = (code1.chars().next().unwrap(), code2.chars().next().unwrap());
    assert!(n1 == 'A' || n1 == 'B', "{code1}: every code begins with its node's id");
    assert_ne!(n1, n2, "least_conn spread the two hosts ({code1}, {code2})");

    // A second client joins through nginx with the code in the URL.
    let mut guest = player(&lb.addr, &format!("/ws?room={code1}"), "Cat").await;
    let room = guest.join(&code1).await;
    assert_eq!(room["players"].as_array().unwrap().len(), 2, "{room}");
    let owner = healthz(&node_addr(n1)).await;
    let other = healthz(&node_addr(n2)).await;
    assert_eq!((owner["sessions"].as_u64(), owner["database"].as_str()), (Some(2), Some("ok")), "{owner}");
    assert_eq!(other["sessions"], 1, "only host2 is on the other node: {other}");

    // The room page goes to the room's node, by nginx's own log.
    assert_eq!(http_get(&lb.addr, &format!("/r/{code2}"), "").await.status, 200);
    let want = format!("/r/{code2} {} 200", node_addr(n2));
    assert!(lb.access_log().lines().any(|l| l == want), "{want:?} not in\n{}", lb.access_log());

    // Misrouted: straight to the node that does not own the code.
    let mut lost = player(&node_addr(n2), "/ws", "Dan").await;
    lost.send(json!({"type": "join_room", "code": code1})).await;
    let e = lost.recv_type("error").await;
    assert_eq!(e["code"], "wrong_node", "{e}");
    assert!(e["message"].as_str().unwrap().contains(&format!("node {n1}")), "{e}");

    // The address nginx forwards is believed (nginx on 127.0.0.1 is trusted).
    let mut req = tokio_tungstenite::tungstenite::client::IntoClientRequest::into_client_request(format!(
        "ws://{}/ws?room={code1}",
        lb.addr
    ))
    .unwrap();
    req.headers_mut().insert("x-forwarded-for", "203.0.113.9".parse().unwrap());
    let (mut ws, _) = tokio_tungstenite::connect_async(req).await.expect("connect");
    use futures_util::SinkExt;
    ws.send(tokio_tungstenite::tungstenite::Message::text(r#"{"type":"hello","name":"Eve"}"#)).await.unwrap();
    let mut eve = Client { ws, id: 0, token: String::new() };
    eve.recv_type("welcome").await;
    // Its `hello` log line (written as the welcome goes out) names that
    // address as the peer (the line has colour codes around `peer=`).
    let log = logs.path().join(format!("node-{n1}.log"));
    wait_until("the forwarded client is the connection's address", || {
        std::fs::read_to_string(&log)
            .is_ok_and(|l| l.lines().any(|l| l.contains("203.0.113.9:") && l.contains("Eve")))
    })
    .await;

    // One leaderboard for all: a finish on A is on B's and nginx's table.
    let date = today(&a.addr).await;
    let mut fin = player(&a.addr, "/ws", "Fay").await;
    let result = daily_finish(&mut fin, &date).await;
    assert_eq!(result["ranked"], true, "{result}");
    let path = format!("/api/daily/{date}/maze/easy");
    let on_a = http_get(&a.addr, &path, "").await.text();
    assert!(on_a.contains("\"Fay\""), "{on_a}");
    assert_eq!(http_get(&b.addr, &path, "").await.text(), on_a);
    assert_eq!(http_get(&lb.addr, &path, "").await.text(), on_a);

    // One player, the same board, both nodes at once: one ranked attempt.
    let mut on_a = player(&a.addr, "/ws", "Gus").await;
    let mut on_b = connect(&b.addr, "/ws").await;
    on_b.send(json!({"type": "hello", "name": "Gus", "token": on_a.token})).await;
    on_b.recv_type("welcome").await;
    for c in [&mut on_a, &mut on_b] {
        c.create(json!({"game": "ghost", "size": "small", "daily": true})).await;
    }
    let start = json!({"type": "start"});
    let (ra, rb) = tokio::join!(on_a.send(start.clone()), on_b.send(start));
    let _ = (ra, rb);
    on_a.recv_type("race_start").await;
    on_b.recv_type("race_start").await;
    let rows = db.rows("SELECT ranked::text FROM runs WHERE name = 'Gus' ORDER BY ranked").await;
    assert_eq!(rows, vec![vec!["false".to_owned()], vec!["true".to_owned()]], "one ranked, one practice");
    drop((host1, host2, guest, lost, eve, fin, on_a, on_b, lb));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_node_leaves_the_other_alone_and_closes_its_runs_on_restart() {
    let Some(admin) = postgres_or_skip("a_killed_node_leaves_the_other_alone") else { return };
    let db = Schema::fresh(&admin).await;
    let logs = tempfile::tempdir().unwrap();
    let a = Node::start('A', &db.url, None, logs.path()).await;
    let b = Node::start('B', &db.url, None, logs.path()).await;
    let date = today(&a.addr).await;
    let seed = daily_seed(SALT.as_bytes(), mazerace_tests::day(&date), Game::Maze, Size::Easy);
    let (_, line) = solution(Size::Easy, seed);
    let half = line.len() / 2;

    // An acknowledged result on A, and a run in flight on each node.
    let mut done = player(&a.addr, "/ws", "Acked").await;
    let acked = daily_finish(&mut done, &date).await;
    let mut in_flight = Vec::new();
    for (addr, name) in [(&a.addr, "OnA"), (&b.addr, "OnB")] {
        in_flight.push(halfway(addr, name, &line[..half]).await);
    }
    let mut on_b = in_flight.pop().unwrap();
    let port_a = a.port();
    a.kill();
    drop(in_flight);

    let states = || db.rows("SELECT name, state FROM runs ORDER BY name");
    let pairs = |v: &[(&str, &str)]| -> Vec<Vec<String>> {
        v.iter().map(|(a, b)| vec![(*a).to_owned(), (*b).to_owned()]).collect()
    };
    assert_eq!(states().await, pairs(&[("Acked", "finished"), ("OnA", "playing"), ("OnB", "playing")]));

    // A comes back (same id): it closes its own dead run, not B's live one.
    let a = Node::start('A', &db.url, Some(port_a), logs.path()).await;
    assert_eq!(states().await, pairs(&[("Acked", "finished"), ("OnA", "not_finished"), ("OnB", "playing")]));

    // B's racer never noticed and finishes; the acknowledged result is intact.
    on_b.play(&line[half..], 1 + half as u32).await;
    let result = on_b.recv_type("daily_result").await;
    assert_eq!(result["finished"], true, "{result}");
    assert_eq!(states().await, pairs(&[("Acked", "finished"), ("OnA", "not_finished"), ("OnB", "finished")]));
    let steps = db.rows(&format!("SELECT steps::text FROM runs WHERE id = {}", acked["run_id"])).await;
    assert_eq!(steps, vec![vec![acked["steps"].to_string()]]);
    drop(a);
}

/// A player on `addr` in a ranked daily try on today's easy maze, `first` of its route played.
async fn halfway(addr: &str, name: &str, first: &[Action]) -> Client {
    let mut c = player(addr, "/ws", name).await;
    c.create(json!({"game": "maze", "size": "easy", "daily": true})).await;
    c.send(json!({"type": "start"})).await;
    c.recv_type("race_start").await;
    c.play(first, 1).await;
    c
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_that_never_returns_has_its_runs_closed_when_its_lease_runs_out() {
    let Some(admin) = postgres_or_skip("a_node_that_never_returns") else { return };
    let db = Schema::fresh(&admin).await;
    let logs = tempfile::tempdir().unwrap();
    let lease = ["--node-lease-secs", "2"];
    let a = Node::start_with('A', &db.url, None, logs.path(), &lease).await;
    let b = Node::start_with('B', &db.url, None, logs.path(), &lease).await;
    let date = today(&a.addr).await;
    let seed = daily_seed(SALT.as_bytes(), mazerace_tests::day(&date), Game::Maze, Size::Easy);
    let (_, line) = solution(Size::Easy, seed);
    let half = line.len() / 2;
    let mut racers = Vec::new();
    for (addr, name) in [(&a.addr, "OnA"), (&b.addr, "OnB")] {
        racers.push(halfway(addr, name, &line[..half]).await);
    }
    b.kill();
    // A heartbeats every half second; B's lease ends 2 s after its last beat.
    // Polled: nothing announces it.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let states = || db.rows("SELECT name, state FROM runs ORDER BY name");
    loop {
        let rows = states().await;
        if rows.iter().any(|r| r[0] == "OnB" && r[1] == "not_finished") {
            assert!(
                rows.iter().any(|r| r[0] == "OnA" && r[1] == "playing"),
                "A's live run untouched: {rows:?}"
            );
            break;
        }
        assert!(std::time::Instant::now() < deadline, "B's run was never closed: {rows:?}");
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    let nodes = db.rows("SELECT node FROM nodes ORDER BY node").await;
    assert_eq!(nodes, vec![vec!["A".to_owned()]], "the dead boot's lease row is gone");
    // A's racer finishes as if nothing happened.
    let mut on_a = racers.remove(0);
    on_a.play(&line[half..], 1 + half as u32).await;
    assert_eq!(on_a.recv_type("daily_result").await["finished"], true);
    drop(a);
}

/// Makes a room through nginx on a fresh connection; its code.
async fn new_room_through(lb: &str, name: &str) -> (Client, String) {
    let mut c = player(lb, "/ws", name).await;
    let room = c.create(json!({"game": "maze", "size": "easy"})).await;
    let code = room["code"].as_str().expect("a code").to_owned();
    (c, code)
}

/// A rolling restart's first half: SIGTERM drains node A. New players
/// through nginx land on B without an error (A answers 503, nginx retries),
/// A's own `/healthz` says "draining", the race on A runs to its end with
/// its players connected through nginx, and A then exits by itself.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_draining_node_gets_no_new_players_and_exits_when_its_race_is_over() {
    let Some(admin) = postgres_or_skip("a_draining_node_gets_no_new_players") else { return };
    let db = Schema::fresh(&admin).await;
    let logs = tempfile::tempdir().unwrap();
    let mut a = Node::start_with('A', &db.url, None, logs.path(), &["--drain-secs", "60"]).await;
    let b = Node::start('B', &db.url, None, logs.path()).await;
    let lb = Nginx::start(&a, &b).await;

    // A race on A: its host on A, a guest through nginx by the room code.
    let mut ann = player(&a.addr, "/ws", "Ann").await;
    let code = ann.create(json!({"game": "maze", "size": "easy", "seed": "1"})).await["code"]
        .as_str()
        .unwrap()
        .to_owned();
    let mut bob = player(&lb.addr, &format!("/ws?room={code}"), "Bob").await;
    bob.join(&code).await;
    ann.send(json!({"type": "start"})).await;
    ann.recv_type("race_start").await;
    bob.recv_type("race_start").await;

    a.signal("TERM");
    assert_eq!(healthz_becomes(&a.addr, 503).await.text(), "draining");
    // New players: every one lands on B, none sees an error.
    let mut newcomers = Vec::new();
    for i in 0..4 {
        let (c, new_code) = new_room_through(&lb.addr, &format!("New{i}")).await;
        assert!(new_code.starts_with('B'), "{new_code}: made on the draining node");
        newcomers.push(c);
    }
    let h = http_get(&lb.addr, "/healthz", "").await;
    assert_eq!(h.status, 200, "nginx answers from the living node: {}", h.text());
    // Any other request that names no room too (not `/` here: a debug
    // build's first compression of the client's files takes seconds).
    assert_eq!(http_get(&lb.addr, "/api/urls", "").await.status, 200, "the lobby's helpers too");
    // nginx did ask A, got its 503 and tried B (a socket's line is logged when it closes).
    drop(newcomers);
    let retried = format!("/ws {}, {} 101", a.addr, b.addr);
    wait_until("nginx logs a /ws retried from A to B", || lb.access_log().lines().any(|l| l == retried))
        .await;

    // The race on A goes on to its end, then A leaves by itself, cleanly.
    let (_, line) = solution(Size::Easy, 1);
    let moves = ann.play(&line, 1).await;
    assert!(moves.iter().all(|m| m["ok"] == true));
    bob.send(json!({"type": "give_up"})).await;
    assert!(ann.recv_type("results").await["rankings"].is_array());
    ann.recv_type("server_shutdown").await;
    let status = a.exited_within(std::time::Duration::from_secs(20)).await.expect("A exited after its race");
    assert!(status.success(), "{status:?}");
    drop((a, b, lb));
}

/// `kill -9` of node A: B's race goes on untouched; nginx sends new players
/// to B only (A refused once is skipped for `fail_timeout`), sends A's
/// rooms' players to B (`backup`) instead of failing, where they make one
/// new room together (`replaces`), and takes A back when it returns on its
/// port.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nginx_skips_a_killed_node_and_takes_it_back_when_it_returns() {
    let Some(admin) = postgres_or_skip("nginx_skips_a_killed_node") else { return };
    let db = Schema::fresh(&admin).await;
    let logs = tempfile::tempdir().unwrap();
    let a = Node::start('A', &db.url, None, logs.path()).await;
    let b = Node::start('B', &db.url, None, logs.path()).await;
    let lb = Nginx::start(&a, &b).await;

    // A race on B, through nginx.
    let mut host = player(&b.addr, "/ws", "Host").await;
    let code = host.create(json!({"game": "maze", "size": "easy", "seed": "1"})).await["code"]
        .as_str()
        .unwrap()
        .to_owned();
    let mut rival = player(&lb.addr, &format!("/ws?room={code}"), "Rival").await;
    rival.join(&code).await;
    host.send(json!({"type": "start"})).await;
    host.recv_type("race_start").await;
    rival.recv_type("race_start").await;
    let (_, line) = solution(Size::Easy, 1);
    let half = line.len() / 2;
    rival.play(&line[..half], 1).await;

    // And a room on A, which dies with it.
    let mut on_a = player(&a.addr, "/ws", "OnA").await;
    let a_room = on_a.create(json!({"game": "maze", "size": "easy"})).await;
    let (a_code, a_key) = (a_room["code"].as_str().unwrap().to_owned(), a_room["key"].clone());
    let port_a = a.port();
    let a_addr = a.addr.clone();
    a.kill();
    drop(on_a);
    // Its players, coming back by its code, reach B (A's `backup`), which
    // answers (no gateway error); each then asks for a new room replacing
    // the lost one (the web client's "New room, same settings"): the first
    // makes it on B, the second is put in it.
    let replacing = json!({"game": "maze", "size": "easy", "replaces": {"code": a_code, "key": a_key}});
    let mut rejoined = Vec::new();
    for name in ["OnA", "Guest"] {
        let mut lost = player(&lb.addr, &format!("/ws?room={a_code}"), name).await;
        lost.send(json!({"type": "join_room", "code": a_code})).await;
        assert_eq!(lost.recv_type("error").await["code"], "wrong_node");
        let room = lost.create(replacing.clone()).await;
        rejoined.push((lost, room));
    }
    let new_code = rejoined[0].1["code"].as_str().unwrap().to_owned();
    assert!(new_code.starts_with('B'), "{new_code}");
    assert_eq!(rejoined[1].1["code"], new_code.as_str(), "the second player joined the first's room");
    assert_eq!(rejoined[1].1["players"].as_array().map(Vec::len), Some(2));
    drop(rejoined);
    // New players through nginx: all on B, none sees an error.
    let mut newcomers = Vec::new();
    for i in 0..4 {
        let (c, new_code) = new_room_through(&lb.addr, &format!("New{i}")).await;
        assert!(new_code.starts_with('B'), "{new_code}: sent to the dead node");
        newcomers.push(c);
    }
    drop(newcomers);
    let retried = format!("/ws {a_addr}, {} 101", b.addr);
    wait_until("nginx logs a /ws retried from A to B", || lb.access_log().lines().any(|l| l == retried))
        .await;
    // B's race never noticed.
    let rest = rival.play(&line[half..], 1 + half as u32).await;
    assert!(rest.iter().all(|m| m["ok"] == true));
    assert_eq!(rival.recv_type("finished").await["player_id"], rival.id);

    // A returns on its port; once `fail_timeout` is over nginx tries it
    // again, and with fewer connections it gets the next new players.
    // Polled: nothing announces nginx's retry.
    let a = Node::start('A', &db.url, Some(port_a), logs.path()).await;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let mut tries = 0;
    loop {
        let (c, new_code) = new_room_through(&lb.addr, "Back").await;
        tries += 1;
        if new_code.starts_with('A') {
            break;
        }
        drop(c);
        assert!(std::time::Instant::now() < deadline, "nginx never took A back ({tries} rooms on B)");
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
    }
    drop((a, b, lb, host));
}
