//! Spectators see everything and cannot move; a player joining mid-race
//! watches this race (with a snapshot) and races the next one.

use mazerace_tests::serde_json::json;
use mazerace_tests::{solution, Size, TestServer};

#[tokio::test]
async fn spectator_sees_the_race_and_cannot_move() {
    let srv = TestServer::start().await;
    let mut ann = srv.player("Ann").await;
    let mut sam = srv.player("Sam").await;
    let (board, line) = solution(Size::Easy, 3);
    let room = ann.create(json!({"game": "maze", "size": "easy", "seed": "3"})).await;
    let code = room["code"].as_str().unwrap().to_owned();
    sam.send(json!({"type": "join_room", "code": code, "spectate": true})).await;
    let r = sam.recv_room_with(sam.id).await;
    assert_eq!(
        r["players"][1],
        json!({"id": sam.id, "name": "Sam", "ready": false, "spectator": true, "connected": true})
    );

    ann.send(json!({"type": "start"})).await;
    for s in [3, 2, 1] {
        // The board comes with every number: everyone studies it as long.
        let board = mazerace_tests::serde_json::to_value(board.public()).unwrap();
        assert_eq!(
            sam.recv_type("countdown").await,
            json!({"type": "countdown", "seconds": s, "board": board})
        );
    }
    sam.recv_type("race_start").await;
    ann.recv_type("race_start").await;

    sam.send(json!({"type": "move", "dir": "down", "seq": 1})).await;
    let e = sam.recv_type("error").await;
    assert_eq!(e["code"], "not_racing");

    ann.play(&line, 1).await;
    let p = sam.recv_type("progress").await;
    assert_eq!(p["players"][0]["id"], ann.id);
    assert_eq!(sam.recv_type("finished").await["player_id"], ann.id);
    let res = sam.recv_type("results").await;
    assert_eq!(res["rankings"].as_array().unwrap().len(), 1, "spectators are not ranked");
    srv.stop().await;
}

#[tokio::test]
async fn joining_mid_race_means_watching_with_a_snapshot_then_racing_next_time() {
    let srv = TestServer::start().await;
    let mut ann = srv.player("Ann").await;
    let mut cat = srv.player("Cat").await;
    let (board, line) = solution(Size::Easy, 11);
    let room = ann.create(json!({"game": "maze", "size": "easy", "seed": "11"})).await;
    let code = room["code"].as_str().unwrap().to_owned();
    ann.send(json!({"type": "start"})).await;
    ann.recv_type("race_start").await;
    ann.play(&line[..3], 1).await;

    cat.send(json!({"type": "join_room", "code": code})).await;
    let r = cat.recv_type("room").await;
    let me = r["players"].as_array().unwrap().iter().find(|p| p["id"] == cat.id).unwrap().clone();
    assert_eq!(me["spectator"], true, "not in this race");
    let snap = cat.recv_type("snapshot").await;
    assert_eq!(snap["board"], mazerace_tests::serde_json::to_value(board.public()).unwrap());
    assert_eq!(snap["room"]["phase"], "racing");
    assert!(snap.get("you").is_none(), "a watcher has no game");
    assert_eq!(snap["players"][0]["id"], ann.id);
    assert_eq!(snap["players"][0]["steps"], 3);
    assert!(snap["elapsed_ms"].is_u64());

    cat.send(json!({"type": "move", "dir": "down", "seq": 1})).await;
    assert_eq!(cat.recv_type("error").await["code"], "not_racing");

    ann.play(&line[3..], 4).await;
    cat.recv_type("results").await;
    ann.send(json!({"type": "rematch"})).await;
    let lobby = cat.recv_room_until(|r| r["phase"] == "lobby").await;
    let me = lobby["players"].as_array().unwrap().iter().find(|p| p["id"] == cat.id).unwrap().clone();
    assert_eq!(me["spectator"], false, "races the next one");
    ann.send(json!({"type": "start"})).await;
    cat.recv_type("race_start").await;
    let r = cat.mv("down", 1).await;
    assert_eq!(r["type"], "move_result");
    srv.stop().await;
}
