//! Lobby behaviour: exact JSON of welcome/room/pong, joining, ready flags,
//! leaving, host hand-over, max players, rooms removed when empty.

use mazerace_tests::serde_json::json;
use mazerace_tests::{wait_until, TestServer};

#[tokio::test]
async fn welcome_room_and_pong_are_exact_json() {
    let srv = TestServer::start().await;
    let mut ann = srv.connect().await;
    ann.send_text(r#"{"type":"hello","name":"Ann"}"#).await;
    let welcome = ann.recv_text().await;
    let v: mazerace_tests::serde_json::Value = mazerace_tests::serde_json::from_str(&welcome).unwrap();
    let token = v["token"].as_str().unwrap();
    assert_eq!(token.len(), 32);
    // The limits are the test server's own (tests/src/lib.rs raises the rate).
    assert_eq!(
        welcome,
        format!(
            r#"{{"type":"welcome","player_id":1,"token":"{token}","resumed":false,"name":"Ann","limits":{{"msgs_per_sec":10000,"msgs_burst":10000,"max_name_chars":24,"resume_window_ms":60000,"ranked_move_ms":0,"ranked_move_burst":3}}}}"#
        )
    );

    ann.send_text(r#"{"type":"create_room","game":"ghost","size":"small","seed":"7"}"#).await;
    let room = ann.recv_text().await;
    let v = mazerace_tests::serde_json::from_str::<mazerace_tests::serde_json::Value>(&room).unwrap();
    let code = v["code"].as_str().unwrap().to_owned();
    let key = v["key"].as_str().unwrap().to_owned();
    assert!(key.len() == 16 && key.bytes().all(|b| b.is_ascii_hexdigit()), "{key}");
    assert_eq!(
        room,
        format!(
            r#"{{"type":"room","code":"{code}","host":1,"game":"ghost","size":"small","phase":"lobby","rank_by":"time","max_players":16,"key":"{key}","players":[{{"id":1,"name":"Ann","ready":false,"spectator":false,"connected":true,"colour":0}}]}}"#
        )
    );
    assert_eq!(code.len(), 5);
    assert!(code.bytes().all(|b| b"ABCDEFGHJKMNPQRSTUVWXYZ23456789".contains(&b)), "{code}");

    ann.send_text(r#"{"type":"ping"}"#).await;
    assert_eq!(ann.recv_text().await, r#"{"type":"pong"}"#);
    srv.stop().await;
}

#[tokio::test]
async fn join_ready_and_leave() {
    let srv = TestServer::start().await;
    let mut ann = srv.player("Ann").await;
    let mut bob = srv.player("Bob").await;
    let room = ann.create(json!({"game": "maze", "size": "easy", "rank_by": "steps"})).await;
    assert_eq!(room["rank_by"], "steps");
    let code = room["code"].as_str().unwrap().to_owned();

    // Codes are case-insensitive on the way in.
    let joined = bob.join(&code.to_lowercase()).await;
    assert_eq!(joined["players"].as_array().unwrap().len(), 2);
    let seen = ann.recv_room_with(bob.id).await;
    assert_eq!(seen["players"][1]["name"], "Bob");
    assert_eq!(seen["host"], ann.id);

    bob.send(json!({"type": "ready", "ready": true})).await;
    let r = ann.recv_room_until(|r| r["players"][1]["ready"] == true).await;
    assert_eq!(r["players"][0]["ready"], false);

    bob.send(json!({"type": "leave_room"})).await;
    let r = ann.recv_room_until(|r| r["players"].as_array().unwrap().len() == 1).await;
    assert_eq!(r["players"][0]["id"], ann.id);

    // Leaving twice is an error, not a crash.
    bob.send(json!({"type": "leave_room"})).await;
    let e = bob.recv_type("error").await;
    assert_eq!(e["code"], "not_in_room");
    srv.stop().await;
}

#[tokio::test]
async fn host_hands_over_when_the_host_leaves() {
    let srv = TestServer::start().await;
    let mut ann = srv.player("Ann").await;
    let mut bob = srv.player("Bob").await;
    let mut cat = srv.player("Cat").await;
    let room = ann.create(json!({"game": "maze", "size": "easy"})).await;
    let code = room["code"].as_str().unwrap().to_owned();
    bob.join(&code).await;
    cat.join(&code).await;

    // A non-host cannot start.
    cat.send(json!({"type": "start"})).await;
    let e = cat.recv_type("error").await;
    assert_eq!(e["code"], "not_host");

    ann.send(json!({"type": "leave_room"})).await;
    let r = bob.recv_room_until(|r| r["players"].as_array().unwrap().len() == 2).await;
    assert_eq!(r["host"], bob.id, "the next member in join order becomes host");

    // The new host can start; the old one is gone.
    bob.send(json!({"type": "start"})).await;
    cat.recv_type("race_start").await;
    bob.recv_type("race_start").await;
    srv.stop().await;
}

#[tokio::test]
async fn max_players_room_full_and_spectators() {
    let srv = TestServer::start().await;
    let mut ann = srv.player("Ann").await;
    let mut bob = srv.player("Bob").await;
    let mut cat = srv.player("Cat").await;
    let room = ann.create(json!({"game": "ghost", "size": "medium", "max_players": 2})).await;
    assert_eq!(room["max_players"], 2);
    let code = room["code"].as_str().unwrap().to_owned();
    bob.join(&code).await;

    cat.send(json!({"type": "join_room", "code": code})).await;
    let e = cat.recv().await;
    assert_eq!(e, json!({"type": "error", "code": "room_full", "message": "that room is full"}));

    cat.send(json!({"type": "join_room", "code": code, "spectate": true})).await;
    let r = cat.recv_room_with(cat.id).await;
    assert_eq!(r["players"][2]["spectator"], true);
    srv.stop().await;
}

#[tokio::test]
async fn max_players_is_capped() {
    let srv = TestServer::start().await;
    let mut ann = srv.player("Ann").await;
    let room = ann.create(json!({"game": "ghost", "size": "small", "max_players": 1000})).await;
    assert_eq!(room["max_players"], 64);
    srv.stop().await;
}

#[tokio::test]
async fn rooms_are_removed_when_empty() {
    let srv = TestServer::start().await;
    let mut ann = srv.player("Ann").await;
    let room = ann.create(json!({"game": "maze", "size": "normal"})).await;
    let code = room["code"].as_str().unwrap().to_owned();
    assert_eq!(srv.server.room_count(), 1);
    ann.send(json!({"type": "leave_room"})).await;
    wait_until("the room is gone", || srv.server.room_count() == 0).await;

    let mut bob = srv.player("Bob").await;
    bob.send(json!({"type": "join_room", "code": code})).await;
    assert_eq!(bob.recv_type("error").await["code"], "room_not_found");
    srv.stop().await;
}

#[tokio::test]
async fn create_and_join_need_no_room_and_a_real_size() {
    let srv = TestServer::start().await;
    let mut ann = srv.player("Ann").await;
    ann.send(json!({"type": "create_room", "game": "ghost", "size": "easy"})).await;
    let e = ann.recv().await;
    assert_eq!(e["code"], "bad_size", "{e}");

    let room = ann.create(json!({"game": "ghost", "size": "large"})).await;
    ann.send(json!({"type": "create_room", "game": "maze", "size": "easy"})).await;
    assert_eq!(ann.recv_type("error").await["code"], "already_in_room");
    ann.send(json!({"type": "join_room", "code": room["code"]})).await;
    assert_eq!(ann.recv_type("error").await["code"], "already_in_room");
    srv.stop().await;
}
