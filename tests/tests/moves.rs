//! Rooms that move off a draining node (issue 27) with the real binary:
//! two nodes on one PostgreSQL behind the shipped nginx config (see
//! `mazerace_tests::cluster`): a lobby and a results room move, their
//! players follow, an old invite link leads to the new room; a player
//! whose other tab is on the adopting node ends up in the moved room; a
//! room claimed by a node that dies before answering is offered again; and
//! a node alone on PostgreSQL keeps its rooms and still drains promptly.
//! The rolling restart of both nodes is in `rolling.rs`.

use mazerace_tests::cluster::{connect, follow, follow_within, postgres_or_skip, Nginx, Node, Schema};
use mazerace_tests::serde_json::{self, json, Value};
use mazerace_tests::{http_get, solution, Client, Size};

async fn player(addr: &str, path: &str, name: &str) -> Client {
    let mut c = connect(addr, path).await;
    c.hello(name).await;
    c
}

/// Plays the board of `race_start` to its goal.
async fn win_round(c: &mut Client, race_start: &Value) {
    let size: Size = serde_json::from_value(race_start["board"]["size"].clone()).expect("size");
    let seed: u64 = race_start["board"]["seed"].as_str().expect("seed").parse().expect("a seed");
    let (_, line) = solution(size, seed);
    let played = c.play(&line, 1).await;
    assert_eq!(played.last().expect("moves")["status"], "won");
}

fn names(room: &Value) -> Vec<String> {
    let players = room["players"].as_array().expect("players");
    players.iter().map(|p| p["name"].as_str().expect("a name").to_owned()).collect()
}

/// A rolling restart's first half with rooms that move: SIGTERM drains A,
/// whose lobby room of 3 and results room (a match Dan won) move to B.
/// Every member follows by themselves to the new code, into a seat their
/// token claims: the same host, settings, players and match tally; an old
/// invite link (old code and key) leads to the new room; the room on B
/// never notices; A exits by itself once both rooms are gone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_draining_node_moves_its_rooms_and_their_members_follow() {
    let Some(admin) = postgres_or_skip("a_draining_node_moves_its_rooms") else { return };
    let db = Schema::fresh(&admin).await;
    let logs = tempfile::tempdir().unwrap();
    let fast = ["--drain-secs", "30", "--intermission-secs", "0"];
    let mut a = Node::start_with('A', &db.url, None, logs.path(), &fast).await;
    let b = Node::start_with('B', &db.url, None, logs.path(), &fast[2..]).await;
    let lb = Nginx::start(&a, &b).await;

    // A lobby room of 3 on A, its guests through nginx by its code.
    let mut ann = player(&a.addr, "/ws", "Ann").await;
    let spec = json!({"game": "ghost", "size": "small", "seed": "7", "max_players": 5, "rank_by": "time"});
    let lobby = ann.create(spec).await;
    let (code1, key1) =
        (lobby["code"].as_str().unwrap().to_owned(), lobby["key"].as_str().unwrap().to_owned());
    let mut bob = player(&lb.addr, &format!("/ws?room={code1}"), "Bob").await;
    bob.join(&code1).await;
    let mut cat = player(&lb.addr, &format!("/ws?room={code1}"), "Cat").await;
    cat.join(&code1).await;

    // A results room on A: a match of 3 rounds, Dan won every round.
    let mut dan = player(&a.addr, "/ws", "Dan").await;
    let made = dan.create(json!({"game": "maze", "size": "easy", "seed": "1", "match": {"rounds": 3}})).await;
    let code2 = made["code"].as_str().unwrap().to_owned();
    let mut eve = player(&lb.addr, &format!("/ws?room={code2}"), "Eve").await;
    eve.join(&code2).await;
    dan.send(json!({"type": "start"})).await;
    for _ in 0..3 {
        let start = dan.recv_type("race_start").await;
        eve.recv_type("race_start").await;
        eve.send(json!({"type": "give_up"})).await;
        win_round(&mut dan, &start).await;
        dan.recv_type("results").await;
    }
    let over = dan.recv_type("match_over").await;
    assert_eq!(over["winners"], json!([dan.id]), "{over}");

    // A room on B, which must never notice.
    let mut fay = player(&b.addr, "/ws", "Fay").await;
    let code3 =
        fay.create(json!({"game": "maze", "size": "easy"})).await["code"].as_str().unwrap().to_owned();
    assert!(code3.starts_with('B'));

    a.signal("TERM");
    // Everyone follows, together, with no click.
    let (mut ann2, room1) = follow(&mut ann, &lb.addr, "Ann").await;
    let (_bob2, _) = follow(&mut bob, &lb.addr, "Bob").await;
    let (_cat2, _) = follow(&mut cat, &lb.addr, "Cat").await;
    let new1 = room1["code"].as_str().unwrap().to_owned();
    assert!(new1.starts_with('B'), "{new1}: adopted by B");
    assert_eq!(room1["host"], ann2.id, "Ann hosts still");
    assert_eq!(
        (&room1["game"], &room1["size"], &room1["max_players"], &room1["rank_by"], &room1["phase"]),
        (&json!("ghost"), &json!("small"), &json!(5), &json!("time"), &json!("lobby")),
        "the same settings: {room1}"
    );
    assert_eq!(names(&room1), ["Ann", "Bob", "Cat"], "the same players, in order");
    let all_back = ann2
        .recv_room_until(|r| r["players"].as_array().unwrap().iter().all(|p| p["connected"] == true))
        .await;
    assert_eq!(names(&all_back), ["Ann", "Bob", "Cat"]);

    let (dan2, room2) = follow(&mut dan, &lb.addr, "Dan").await;
    let (_eve2, _) = follow(&mut eve, &lb.addr, "Eve").await;
    assert_eq!(room2["host"], dan2.id);
    assert_eq!(room2["match"], json!({"rounds": 3, "plan": "same"}), "{room2}");
    assert_eq!(
        room2["tally"],
        json!([{"player_id": dan2.id, "name": "Dan", "wins": 1}]),
        "the match score kept"
    );
    assert_eq!(names(&room2), ["Dan", "Eve"]);

    // An old invite link (old code, old key) lands in the new room.
    let mut gus = player(&lb.addr, &format!("/ws?room={code1}"), "Gus").await;
    gus.send(json!({"type": "join_room", "code": code1, "key": key1})).await;
    let moved = gus.recv_type("room_moved").await;
    assert_eq!(moved["code"], new1.as_str());
    let mut gus2 = player(&lb.addr, &format!("/ws?room={new1}"), "Gus").await;
    gus2.send(json!({"type": "join_room", "code": new1, "key": moved["key"]})).await;
    let joined = gus2.recv_room_with(gus2.id).await;
    assert_eq!(names(&joined), ["Ann", "Bob", "Cat", "Gus"]);
    // The old link's card (its preview, through nginx to the old code's
    // node) says where the room went; the new room's own card, on B, shows it.
    let card = http_get(&lb.addr, &format!("/api/rooms/{code1}?k={key1}"), "").await;
    let card: Value = serde_json::from_slice(&card.body).expect("json");
    assert_eq!(card["moved"], json!({"code": new1.as_str(), "key": moved["key"]}), "{card}");
    let there =
        http_get(&lb.addr, &format!("/api/rooms/{new1}?k={}", moved["key"].as_str().unwrap()), "").await;
    assert_eq!(there.status, 200, "the new room's preview comes from its node");
    // A wrong key learns nothing (A answers "not found", or B, if A is
    // gone by now, "on another node").
    let mut guess = player(&lb.addr, &format!("/ws?room={code1}"), "Hal").await;
    guess.send(json!({"type": "join_room", "code": code1, "key": "wrong"})).await;
    let e = guess.recv().await;
    assert!(e["type"] == "error" && (e["code"] == "room_not_found" || e["code"] == "wrong_node"), "{e}");

    // A leaves by itself, its rooms gone; B's own room never noticed.
    let status = a.exited_within(std::time::Duration::from_secs(20)).await.expect("A exited after the moves");
    assert!(status.success(), "{status:?}");
    fay.send(json!({"type": "ping"})).await;
    assert_eq!(fay.recv().await["type"], "pong", "nothing happened to Fay's room on B");
    drop((b, lb));
}

/// A node alone on PostgreSQL has nowhere to move its rooms: a lobby waits
/// for an adopter at most 10 s (not the whole drain limit), then stays, and
/// its players are told `server_shutdown` as before when the node exits.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lone_node_keeps_its_rooms_and_drains_without_waiting_out_its_limit() {
    let Some(admin) = postgres_or_skip("a_lone_node_keeps_its_rooms") else { return };
    let db = Schema::fresh(&admin).await;
    let logs = tempfile::tempdir().unwrap();
    let mut a = Node::start_with('A', &db.url, None, logs.path(), &["--drain-secs", "60"]).await;
    let mut ann = player(&a.addr, "/ws", "Ann").await;
    ann.create(json!({"game": "maze", "size": "easy"})).await;
    let t0 = std::time::Instant::now();
    a.signal("TERM");
    let status = a.exited_within(std::time::Duration::from_secs(20)).await.expect("A exited");
    let took = t0.elapsed();
    assert!(status.success(), "{status:?}");
    // Read after the exit: the frames wait in the socket.
    let shut = ann.recv_type("server_shutdown").await;
    assert_eq!(shut, json!({"type": "server_shutdown"}));
    assert!(took < std::time::Duration::from_secs(30), "not held for the 60 s drain limit: {took:?}");
    let left = db.rows("SELECT count(*)::text FROM room_moves").await;
    assert_eq!(left, [["0"]], "the unadopted post was withdrawn");
}

/// The player whose room moves already has a session on the adopting node
/// (another tab of theirs, in a room there): the tab that follows the move
/// takes the token over, as a resume from another connection always does.
/// Ann ends up in the moved room with Bob, hosting it still; her other tab
/// is closed as taken over and leaves its room on B, where Fay stays.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_moved_seat_is_claimed_over_the_players_other_tab_on_the_new_node() {
    let Some(admin) = postgres_or_skip("a_moved_seat_is_claimed_over_the_players_other_tab") else { return };
    let db = Schema::fresh(&admin).await;
    let logs = tempfile::tempdir().unwrap();
    let a = Node::start_with('A', &db.url, None, logs.path(), &["--drain-secs", "30"]).await;
    let b = Node::start('B', &db.url, None, logs.path()).await;
    let lb = Nginx::start(&a, &b).await;

    let mut ann = player(&a.addr, "/ws", "Ann").await;
    let code = ann.create(json!({"game": "maze", "size": "easy"})).await["code"].as_str().unwrap().to_owned();
    let mut bob = player(&lb.addr, &format!("/ws?room={code}"), "Bob").await;
    bob.join(&code).await;
    // Ann's other tab, on B with her token, in a room of hers there with Fay.
    let mut tab = connect(&b.addr, "/ws").await;
    tab.send(json!({"type": "hello", "name": "Ann", "token": ann.token})).await;
    let w = tab.recv_type("welcome").await;
    assert_eq!(w["token"], ann.token.as_str(), "the same player on B");
    let other =
        tab.create(json!({"game": "maze", "size": "easy"})).await["code"].as_str().unwrap().to_owned();
    let mut fay = player(&lb.addr, &format!("/ws?room={other}"), "Fay").await;
    fay.join(&other).await;

    a.signal("TERM");
    let (mut ann2, room) = follow(&mut ann, &lb.addr, "Ann").await;
    let (_bob2, _) = follow(&mut bob, &lb.addr, "Bob").await;
    assert!(room["code"].as_str().unwrap().starts_with('B'), "{room}");
    assert_eq!(names(&room), ["Ann", "Bob"], "Ann is in the moved room: {room}");
    assert_eq!(room["host"], ann2.id, "and hosts it still");
    let back = ann2
        .recv_room_until(|r| r["players"].as_array().unwrap().iter().all(|p| p["connected"] == true))
        .await;
    assert_eq!(names(&back), ["Ann", "Bob"]);
    // The other tab was taken over, and Ann left its room; Fay stays there.
    let (close, _) = tab.expect_close().await;
    assert_eq!(close, mazerace_protocol::close::TAKEN_OVER);
    let left = fay.recv_room_until(|r| names(r) == ["Fay"]).await;
    assert_eq!(left["host"], fay.id, "{left}");
    drop((a, b, lb));
}

/// The node that claims a posted room dies before it answers: the draining
/// node offers the room again, and a living node adopts it; its players
/// follow there together. The dead adopter is played by this test in the
/// database: it claims the posted row, as a node's poll does, and never
/// answers, which is the whole trace a node killed (`kill -9`) between its
/// claim and its answer leaves (a real kill cannot be timed into the
/// milliseconds between the two). The living node starts after that claim.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_room_claimed_by_a_node_that_died_is_offered_again() {
    let Some(admin) = postgres_or_skip("a_room_claimed_by_a_node_that_died") else { return };
    let db = Schema::fresh(&admin).await;
    let logs = tempfile::tempdir().unwrap();
    let mut a = Node::start_with('A', &db.url, None, logs.path(), &["--drain-secs", "60"]).await;
    let mut ann = player(&a.addr, "/ws", "Ann").await;
    let code =
        ann.create(json!({"game": "ghost", "size": "small"})).await["code"].as_str().unwrap().to_owned();
    let mut bob = player(&a.addr, "/ws", "Bob").await;
    bob.join(&code).await;

    a.signal("TERM");
    let claim = "UPDATE room_moves SET adopted_by = 'killed-adopter' WHERE adopted_by IS NULL \
                 RETURNING old_code";
    let mut claimed = Vec::new();
    for _ in 0..250 {
        claimed = db.rows(claim).await;
        if !claimed.is_empty() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(claimed, [[code.clone()]], "A posted its room and the doomed adopter claimed it");
    let b = Node::start('B', &db.url, None, logs.path()).await;

    // The first offer's wait (10 s) and its grace (1 s) pass; the second is adopted by B.
    let limit = std::time::Duration::from_secs(30);
    let (ann2, room) = follow_within(&mut ann, &b.addr, "Ann", limit).await;
    let (_bob2, _) = follow_within(&mut bob, &b.addr, "Bob", limit).await;
    assert!(room["code"].as_str().unwrap().starts_with('B'), "{room}");
    assert_eq!(names(&room), ["Ann", "Bob"]);
    assert_eq!(room["host"], ann2.id);
    let rows = db.rows("SELECT adopted_by, (new_code IS NOT NULL)::text FROM room_moves ORDER BY id").await;
    assert_eq!(rows.len(), 2, "two offers: {rows:?}");
    assert_eq!(rows[0], ["killed-adopter", "false"], "the dead adopter's claim, never answered");
    assert_eq!(rows[1][1], "true", "the second offer, answered by B");
    let status = a.exited_within(std::time::Duration::from_secs(20)).await.expect("A exited");
    assert!(status.success(), "{status:?}");
    drop(b);
}
