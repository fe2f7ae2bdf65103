//! `create_room` with `replaces: {code, key}`: a new room for the players of
//! a room whose node is gone. The first to ask makes it; the others who ask
//! with the same code and key are put in it, not in rooms of their own; a
//! wrong key makes a room of its own; the replacement is forgotten when the
//! new room closes; a code open on this node is not replaced.

use mazerace_tests::serde_json::{json, Value};
use mazerace_tests::{Client, TestServer};

async fn replacing(c: &mut Client, code: &str, key: &str) -> Value {
    c.create(
        json!({"game": "maze", "size": "easy", "max_players": 4, "replaces": {"code": code, "key": key}}),
    )
    .await
}

fn code(room: &Value) -> String {
    room["code"].as_str().expect("a code").to_owned()
}

#[tokio::test]
async fn the_first_to_ask_makes_the_room_and_the_others_join_it() {
    let srv = TestServer::start().await;
    let (mut ann, mut bob, mut cy) =
        (srv.player("Ann").await, srv.player("Bob").await, srv.player("Cy").await);
    let first = replacing(&mut ann, "BK7M2", "3f9a0c1d5e7b2a64").await;
    let made = code(&first);
    assert_eq!(first["host"], ann.id, "{first}");
    // Bob, of the same lost room, is put in Ann's (its code, any case).
    let second = replacing(&mut bob, "bk7m2", "3f9a0c1d5e7b2a64").await;
    assert_eq!(code(&second), made, "{second}");
    let ids: Vec<_> = second["players"].as_array().unwrap().iter().map(|p| p["id"].clone()).collect();
    assert_eq!(ids, vec![json!(ann.id), json!(bob.id)], "{second}");
    assert_eq!(code(&ann.recv_room_with(bob.id).await), made, "Ann sees Bob come in");
    // Without the key: a room of its own.
    let other = replacing(&mut cy, "BK7M2", "0000000000000000").await;
    assert_ne!(code(&other), made);

    // Once the new room is gone, the lost one may be replaced again.
    for c in [&mut ann, &mut bob] {
        c.send(json!({"type": "leave_room"})).await;
    }
    mazerace_tests::wait_until("the replacement closed", || srv.server.room_count() == 1).await;
    let again = replacing(&mut ann, "BK7M2", "3f9a0c1d5e7b2a64").await;
    assert_ne!(code(&again), made, "a closed room is not joined");
    assert_eq!(again["players"].as_array().map(Vec::len), Some(1));
}

#[tokio::test]
async fn a_room_open_here_is_not_replaced_and_bad_references_are_refused() {
    let srv = TestServer::start().await;
    let (mut ann, mut bob, mut cy) =
        (srv.player("Ann").await, srv.player("Bob").await, srv.player("Cy").await);
    let open = ann.create(json!({"game": "maze", "size": "easy"})).await;
    let (open_code, key) = (code(&open), open["key"].as_str().unwrap().to_owned());
    let b = replacing(&mut bob, &open_code, &key).await;
    let c = replacing(&mut cy, &open_code, &key).await;
    assert!(code(&b) != open_code && code(&c) != open_code && code(&b) != code(&c), "{b} {c}");

    let mut dee = srv.player("Dee").await;
    for (bad_code, bad_key) in [("not a code", "k"), ("BK7M2", ""), ("BK7M2", &"k".repeat(65))] {
        dee.send(json!({"type": "create_room", "game": "maze", "size": "easy",
            "replaces": {"code": bad_code, "key": bad_key}}))
            .await;
        let e = dee.recv_type("error").await;
        assert_eq!(e["code"], "bad_message", "{bad_code:?} {bad_key:?}: {e}");
    }
}
