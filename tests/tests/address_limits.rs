//! What one network address may hold (issue 13, item 5): live sessions and
//! live rooms are capped per address (IPv6 by /64, see `address.rs`'s unit
//! tests), and a place comes back when the thing it held is gone. Every
//! client here is 127.0.0.1, so they all share one address.

use std::time::Duration;

use mazerace_server::Config;
use mazerace_tests::serde_json::json;
use mazerace_tests::{test_config, wait_until, TestServer};

#[tokio::test]
async fn sessions_per_address_are_capped_until_one_ends() {
    let cfg =
        Config { max_sessions_per_address: 3, resume_window: Duration::from_millis(100), ..test_config() };
    let srv = TestServer::with_config(cfg).await;
    let mut players = Vec::new();
    for name in ["A", "B", "C"] {
        players.push(srv.player(name).await);
    }
    let mut d = srv.connect().await;
    d.send(json!({"type": "hello", "name": "D"})).await;
    let e = d.recv().await;
    assert_eq!(e["code"], "too_many_sessions", "{e}");
    // A dropped player keeps their place for the resume window, then frees it.
    players.pop().unwrap().close().await;
    wait_until("the session ends", || srv.server.session_count() == 2).await;
    d.send(json!({"type": "hello", "name": "D"})).await;
    assert_eq!(d.recv().await["type"], "welcome");
    srv.stop().await;
}

#[tokio::test]
async fn live_rooms_per_address_are_capped_until_one_closes() {
    let cfg = Config { max_rooms_per_address: 2, ..test_config() };
    let srv = TestServer::with_config(cfg).await;
    let mut a = srv.player("A").await;
    let mut b = srv.player("B").await;
    let mut c = srv.player("C").await;
    a.create(json!({"game": "maze", "size": "easy"})).await;
    b.create(json!({"game": "maze", "size": "easy"})).await;
    c.send(json!({"type": "create_room", "game": "maze", "size": "easy"})).await;
    let e = c.recv().await;
    assert_eq!(
        (e["code"].as_str(), e["message"].as_str()),
        (Some("too_many_rooms"), Some("too many open rooms from your network address"))
    );
    a.send(json!({"type": "leave_room"})).await;
    wait_until("a's room is gone", || srv.server.room_count() == 1).await;
    c.create(json!({"game": "maze", "size": "easy"})).await;
    srv.stop().await;
}
