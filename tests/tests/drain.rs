//! The drain (SIGTERM's meaning, `Server::drain`): a draining node makes no
//! new room and takes no new player (every request that names no room gets
//! 503 "draining", `/healthz` too, so nginx sends them elsewhere), lets the
//! races on it finish and then shuts down; `--drain-secs` bounds the wait,
//! and 0 keeps the old meaning (shut down at once). The signals themselves
//! are tested on the real binary in `nodes.rs`.

use std::time::Duration;

use mazerace_tests::cluster::connect;
use mazerace_tests::serde_json::json;
use mazerace_tests::{solution, start_race, test_config, Size, TestServer};

#[tokio::test]
async fn a_draining_node_makes_no_room_and_shuts_down_once_its_race_is_over() {
    let srv =
        TestServer::with_config(mazerace_server::Config { drain: Duration::from_secs(60), ..test_config() })
            .await;
    let addr = srv.addr.to_string();
    let mut ann = srv.player("Ann").await;
    let mut bob = srv.player("Bob").await;
    let mut idle = srv.player("Idle").await;
    let (_, line) = solution(Size::Easy, 1);
    start_race(&mut ann, &mut [&mut bob], json!({"game": "maze", "size": "easy", "seed": "1"})).await;
    ann.play(&line[..2], 1).await;
    let mut lobby = srv.player("Cy").await;
    let lobby_room = lobby.create(json!({"game": "ghost", "size": "small"})).await;
    let lobby_code = lobby_room["code"].as_str().unwrap().to_owned();
    let lobby_key = lobby_room["key"].as_str().unwrap().to_owned();
    assert_eq!(srv.get("/healthz").await.status, 200);

    srv.server.drain();
    assert!(srv.server.is_draining());
    // Requests that name no room: 503 "draining", for the balancer to retry elsewhere.
    for path in ["/healthz", "/", "/ws", "/api/daily", "/api/urls"] {
        let r = srv.get(path).await;
        assert_eq!((r.status, r.text().as_str()), (503, "draining"), "{path}");
        assert_eq!(r.header("retry-after"), Some("5"), "{path}");
    }
    // What a player of a room here needs is still served (`/r/CODE` and the
    // client's files too, by the unit test beside the rule: a debug build's
    // first compression of those files can take seconds).
    assert_eq!(srv.get(&format!("/api/rooms/{lobby_code}?k={lobby_key}")).await.status, 200);
    let mut late = connect(&addr, &format!("/ws?room={lobby_code}")).await;
    late.hello("Dee").await;
    assert_eq!(late.join(&lobby_code).await["players"].as_array().unwrap().len(), 2);
    // A connection already here cannot make a room.
    idle.send(json!({"type": "create_room", "game": "maze", "size": "easy"})).await;
    let e = idle.recv_type("error").await;
    assert_eq!(e["code"], "draining", "{e}");
    assert!(e["message"].as_str().unwrap().contains("restarting"), "{e}");

    // The race goes on: moves are still answered, and nobody is told to go.
    let moved = ann.play(&line[2..4], 3).await;
    assert!(moved.iter().all(|m| m["ok"] == true), "{moved:?}");
    assert_eq!(srv.server.room_count(), 2, "both rooms still open");
    // It ends (Ann finishes, Bob gives up): then the node shuts down.
    ann.play(&line[4..], 5).await;
    bob.send(json!({"type": "give_up"})).await;
    let results = ann.recv_type("results").await;
    assert_eq!(results["rankings"].as_array().map(Vec::len), Some(2), "{results}");
    for c in [&mut ann, &mut bob, &mut idle, &mut lobby, &mut late] {
        assert_eq!(c.recv_type("server_shutdown").await, json!({"type": "server_shutdown"}));
        assert_eq!(c.expect_close().await.0, 1001);
    }
    srv.join().await.expect("run returned cleanly");
}

#[tokio::test]
async fn the_drain_limit_ends_a_race_that_goes_on() {
    let cfg = mazerace_server::Config { drain: Duration::from_secs(1), ..test_config() };
    let srv = TestServer::with_config(cfg).await;
    let mut ann = srv.player("Ann").await;
    let mut bob = srv.player("Bob").await;
    start_race(&mut ann, &mut [&mut bob], json!({"game": "maze", "size": "easy", "seed": "1"})).await;
    srv.server.drain();
    // Nobody moves: the race would last its 10 minutes; the limit ends it.
    let t0 = std::time::Instant::now();
    let last = ann.recv_type("server_shutdown").await;
    assert_eq!(last, json!({"type": "server_shutdown"}));
    assert!(t0.elapsed() >= Duration::from_millis(900), "not before the limit: {:?}", t0.elapsed());
    srv.join().await.expect("run returned cleanly");
}

#[tokio::test]
async fn a_zero_drain_is_the_old_shutdown_and_an_idle_node_drains_at_once() {
    for drain in [Duration::ZERO, Duration::from_secs(60)] {
        let srv = TestServer::with_config(mazerace_server::Config { drain, ..test_config() }).await;
        let mut ann = srv.player("Ann").await;
        ann.create(json!({"game": "maze", "size": "easy"})).await;
        srv.server.drain();
        // No race here: nothing to wait for, whatever the limit.
        assert_eq!(ann.recv_type("server_shutdown").await, json!({"type": "server_shutdown"}), "{drain:?}");
        srv.join().await.expect("run returned cleanly");
    }
}
