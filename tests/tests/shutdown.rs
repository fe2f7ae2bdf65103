//! Graceful shutdown: every client hears `server_shutdown`, then a 1001
//! close; `run` returns only when every connection and room task is done.

use mazerace_tests::serde_json::json;
use mazerace_tests::{solution, start_race, Size, TestServer};

#[tokio::test]
async fn shutdown_tells_everyone_and_waits_for_every_task() {
    let srv = TestServer::start().await;
    let mut ann = srv.player("Ann").await;
    let mut bob = srv.player("Bob").await;
    let mut idle = srv.player("Idle").await;
    let mut shy = srv.connect().await; // never says hello
    let (_, line) = solution(Size::Easy, 1);
    start_race(&mut ann, &mut [&mut bob], json!({"game": "maze", "size": "easy", "seed": "1"})).await;
    ann.play(&line[..2], 1).await;
    assert!(srv.server.task_count() > 0);

    let server = srv.server.clone();
    server.shutdown();
    for c in [&mut ann, &mut bob, &mut idle, &mut shy] {
        let last = c.recv_type("server_shutdown").await;
        assert_eq!(last, json!({"type": "server_shutdown"}));
        let (code, reason) = c.expect_close().await;
        assert_eq!(code, 1001);
        assert_eq!(reason, "server shutting down");
    }
    let addr = srv.addr;
    srv.join().await.expect("run returned cleanly");
    assert_eq!(server.task_count(), 0, "every connection, room and timer task ended");
    assert_eq!(server.room_count(), 0);
    // Nothing listens any more.
    assert!(tokio::net::TcpStream::connect(addr).await.is_err());
}

/// A `TestServer` dropped without `stop` shuts its server down: its clients
/// hear so and its tasks end, and the drop does not block.
#[tokio::test]
async fn dropping_a_test_server_shuts_it_down() {
    let srv = TestServer::start().await;
    let mut ann = srv.player("Ann").await;
    let server = srv.server.clone();
    assert!(server.task_count() > 0);
    drop(srv);
    assert_eq!(ann.recv_type("server_shutdown").await, json!({"type": "server_shutdown"}));
    assert_eq!(ann.expect_close().await.0, 1001);
    tokio::time::timeout(std::time::Duration::from_secs(10), async {
        // Nothing signals the last task's end: hand the runtime to the
        // server's tasks until they are gone.
        while server.task_count() > 0 {
            tokio::task::yield_now().await;
        }
    })
    .await
    .expect("every task of the dropped server ended");
}
