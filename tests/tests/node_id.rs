//! A node with an id (issue 14), in-process and without PostgreSQL: every
//! room code it makes begins with its id; a join for a code of another
//! node's answers `wrong_node` naming that node (never `room_not_found`;
//! a failed join like any miss); a code of its own that does not exist is
//! still `room_not_found`; `/ws?room=CODE` is an ordinary WebSocket; and
//! `/healthz` reports the daily store's database. The several-node tests
//! on PostgreSQL and nginx are `nodes.rs` and `pg_outage.rs`.

use std::sync::Arc;

use mazerace_server::{Config, StoreHook};
use mazerace_store::{Store, SystemClock};
use mazerace_tests::cluster::connect;
use mazerace_tests::serde_json::{self, json, Value};
use mazerace_tests::{test_config, TestServer};

fn node(id: char) -> Config {
    Config { node_id: Some(id), join_attempts: 2, ..test_config() }
}

#[tokio::test]
async fn a_nodes_codes_carry_its_id_and_other_nodes_codes_are_wrong_node() {
    let srv = TestServer::with_config(node('B')).await;
    let addr = srv.addr.to_string();
    let mut host = connect(&addr, "/ws").await;
    host.hello("Ann").await;
    for _ in 0..3 {
        let room = host.create(json!({"game": "maze", "size": "easy"})).await;
        let code = room["code"].as_str().unwrap().to_owned();
        assert!(code.starts_with('B') && code.len() == 5, "{code}");
        host.send(json!({"type": "leave_room"})).await; // no answer; messages keep their order
    }
    let room = host.create(json!({"game": "maze", "size": "easy"})).await;
    let code = room["code"].as_str().unwrap().to_owned();

    // The room code in the URL changes nothing for the server.
    let mut guest = connect(&addr, &format!("/ws?room={code}")).await;
    guest.hello("Bob").await;
    guest.join(&code).await;

    let mut lost = connect(&addr, "/ws?room=AK7M2").await;
    lost.hello("Cat").await;
    // Its own prefix, no such room: the usual answer, and counted.
    lost.send(json!({"type": "join_room", "code": "BZZZZ"})).await;
    assert_eq!(lost.recv_type("error").await["code"], "room_not_found");
    // Another node's code is sent there, and counted too: such codes are no
    // free guesses (an old code of a room moved here would be one).
    lost.send(json!({"type": "join_room", "code": "ak7m2"})).await;
    let e = lost.recv_type("error").await;
    assert_eq!(e["code"], "wrong_node", "{e}");
    assert!(e["message"].as_str().unwrap().contains("is on node A"), "{e}");
    // join_attempts (2) spent: another node's code, its own, or not a code.
    for c in ["AK7M2", "BZZZY", "nope"] {
        lost.send(json!({"type": "join_room", "code": c})).await;
        assert_eq!(lost.recv_type("error").await["code"], "too_many_joins", "{c}");
    }
    srv.stop().await;
}

#[tokio::test]
async fn without_a_node_id_any_first_letter_is_this_nodes() {
    let srv = TestServer::start().await;
    let mut c = connect(&srv.addr.to_string(), "/ws").await;
    c.hello("Ann").await;
    c.send(json!({"type": "join_room", "code": "AK7M2"})).await;
    assert_eq!(c.recv_type("error").await["code"], "room_not_found");
    srv.stop().await;
}

#[tokio::test]
async fn healthz_reports_the_daily_database() {
    let store = Store::open_in_memory().unwrap();
    let hook = StoreHook::new(store, Some(b"salt".to_vec()), Arc::new(SystemClock)).await.unwrap();
    let srv = TestServer::with_daily(node('A'), Arc::new(hook)).await;
    let h: Value = serde_json::from_slice(&srv.get("/healthz").await.body).unwrap();
    assert_eq!(h, json!({"status": "ok", "rooms": 0, "sessions": 0, "database": "ok"}));
    srv.stop().await;
}
