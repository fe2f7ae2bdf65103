//! A client that stops reading: its bounded outbox fills, it is closed
//! (4002, best effort: its socket is full) and shown disconnected; the rest
//! of the room carries on at full speed, and the slow player can resume.

use std::time::Duration;

use mazerace_server::Config;
use mazerace_tests::serde_json::{self, json, Value};
use mazerace_tests::{test_config, RawClient, TestServer};
use tokio::net::TcpSocket;

#[tokio::test]
async fn a_client_that_stops_reading_is_dropped_without_holding_up_the_room() {
    let cfg = Config { outbox_capacity: 32, write_buffer_max: 16 * 1024, ..test_config() };
    let srv = TestServer::with_config(cfg).await;
    let mut host = srv.player("Host").await;
    let room = host.create(json!({"game": "maze", "size": "easy"})).await;
    let code = room["code"].as_str().unwrap().to_owned();

    // The slow client: a tiny receive buffer, and it never answers pings.
    let sock = TcpSocket::new_v4().unwrap();
    sock.set_recv_buffer_size(2048).unwrap();
    let tcp = sock.connect(srv.addr).await.unwrap();
    let mut slow = RawClient::over(tcp, srv.addr).await;
    slow.send_text(r#"{"type":"hello","name":"Slow"}"#).await;
    let (_, w) = slow.next_frame().await.unwrap();
    let w: Value = serde_json::from_slice(&w).unwrap();
    let (slow_id, token) = (w["player_id"].clone(), w["token"].as_str().unwrap().to_owned());
    slow.send_text(&json!({"type": "join_room", "code": code}).to_string()).await;
    host.recv_room_until(|r| r["players"].as_array().unwrap().len() == 2).await;

    // The slow client asks and asks (a message of an unknown type, answered
    // with a ~250-byte error) and reads none of the answers, fewer at a time
    // than its queue holds: its socket fills, then its queue. (A room's
    // broadcasts no longer fill anyone's queue: they are coalesced and
    // bounded in size.) The host meanwhile flips its ready flag and reads
    // every `room`.
    let mut worst = Duration::ZERO;
    let mut flips = 0u32;
    let dropped = loop {
        assert!(flips < 1_000, "the slow client was never dropped");
        flips += 1;
        slow.ask_unread(16).await;
        let t = tokio::time::Instant::now();
        host.send(json!({"type": "ready", "ready": flips % 2 == 1})).await;
        let r = host.recv_type("room").await;
        worst = worst.max(t.elapsed());
        if r["players"][1]["connected"] == false {
            break r;
        }
    };
    assert_eq!(dropped["players"][1]["id"], slow_id);
    assert!(worst < Duration::from_secs(2), "the host waited {worst:?} for one answer");

    // The slow client's stream ends: with the 4002 close frame if it got
    // through, or at least with the end of the stream.
    let mut frames = 0;
    while let Some((op, payload)) = slow.next_frame().await {
        frames += 1;
        if op == 0x8 {
            assert_eq!(u16::from_be_bytes([payload[0], payload[1]]), 4002);
            break;
        }
    }
    assert!(frames > 0);

    // Being slow is not an offence: the player resumes with a snapshot.
    let mut back = srv.connect().await;
    back.send(json!({"type": "hello", "name": "Slow", "token": token})).await;
    assert_eq!(back.recv().await["resumed"], true);
    let snap = back.recv_type("snapshot").await;
    assert_eq!(snap["room"]["players"][1]["connected"], true);
    srv.stop().await;
}
