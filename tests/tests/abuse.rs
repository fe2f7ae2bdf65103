//! Abuse controls: flood (token bucket, then 1008), too many rooms from one
//! connection, code guessing limited per address, no hello in time (4000),
//! a silent peer (4001), and the connection cap.

use std::net::SocketAddr;
use std::time::Duration;

use mazerace_server::Config;
use mazerace_tests::serde_json::json;
use mazerace_tests::{
    dir_str, free_first_step, start_race, test_config, Board, Client, Closed, RawClient, Size, TestServer,
};
use tokio::net::TcpSocket;

#[tokio::test]
async fn floods_are_refused_then_closed_with_1008() {
    let cfg = Config { msgs_per_sec: 1, msgs_burst: 10, flood_strikes: 5, ..test_config() };
    let srv = TestServer::with_config(cfg).await;
    let mut bob = srv.player("Bob").await;
    let mut c = srv.connect().await;
    for _ in 0..40 {
        c.send_text(r#"{"type":"ping"}"#).await;
    }
    let (mut pongs, mut limited) = (0, 0);
    let (code, reason) = loop {
        match c.next_text().await {
            Ok(t) if t == r#"{"type":"pong"}"# => pongs += 1,
            Ok(t) => {
                assert!(t.contains(r#""code":"rate_limited""#), "{t}");
                limited += 1;
            }
            Err(Closed::Frame(code, reason)) => break (code, reason),
            Err(Closed::Eof) => panic!("no close frame"),
        }
    };
    assert_eq!(code, 1008, "{reason}");
    assert!((10..=12).contains(&pongs), "the burst is served: {pongs}");
    assert!((5..=7).contains(&limited), "then refusals: {limited}");
    // Someone else's connection is untouched.
    bob.send(json!({"type": "ping"})).await;
    assert_eq!(bob.recv().await["type"], "pong");
    srv.stop().await;
}

#[tokio::test]
async fn too_many_rooms_from_one_connection() {
    let cfg = Config { rooms_per_conn: 2, room_refill: Duration::from_secs(3600), ..test_config() };
    let srv = TestServer::with_config(cfg).await;
    let mut c = srv.player("Ann").await;
    for _ in 0..2 {
        c.create(json!({"game": "maze", "size": "easy"})).await;
        c.send(json!({"type": "leave_room"})).await;
    }
    c.send(json!({"type": "create_room", "game": "maze", "size": "easy"})).await;
    let e = c.recv_type("error").await;
    assert_eq!(e["code"], "too_many_rooms");
    // A fresh connection has its own allowance.
    let mut d = srv.player("Dan").await;
    d.create(json!({"game": "maze", "size": "easy"})).await;
    srv.stop().await;
}

/// A client whose socket comes from `ip` (any 127.x.y.z is this machine).
async fn client_from(srv: &TestServer, ip: [u8; 4]) -> Client {
    let sock = TcpSocket::new_v4().unwrap();
    sock.bind(SocketAddr::from((ip, 0))).unwrap();
    let tcp = sock.connect(srv.addr).await.unwrap();
    let (ws, _) =
        tokio_tungstenite::client_async(srv.ws_url(), tokio_tungstenite::MaybeTlsStream::Plain(tcp))
            .await
            .unwrap();
    let mut c = Client { ws, id: 0, token: String::new() };
    c.hello("Guesser").await;
    c
}

#[tokio::test]
async fn code_guessing_is_limited_per_address() {
    let cfg = Config { join_attempts: 3, join_refill: Duration::from_secs(3600), ..test_config() };
    let srv = TestServer::with_config(cfg).await;
    let mut host = srv.player("Host").await;
    let room = host.create(json!({"game": "maze", "size": "easy"})).await;
    let real = room["code"].as_str().unwrap().to_owned();

    let mut g = srv.player("Guesser").await;
    for code in ["AAAAA", "BBBBB", "CCCCC"] {
        g.send(json!({"type": "join_room", "code": code})).await;
        assert_eq!(g.recv().await["code"], "room_not_found");
    }
    g.send(json!({"type": "join_room", "code": "DDDDD"})).await;
    assert_eq!(g.recv().await["code"], "too_many_joins");
    // Even the right code, and from a new connection on the same address.
    let mut g2 = srv.player("Again").await;
    g2.send(json!({"type": "join_room", "code": real})).await;
    assert_eq!(g2.recv().await["code"], "too_many_joins");
    // Another address is not affected.
    let mut other = client_from(&srv, [127, 0, 0, 2]).await;
    other.send(json!({"type": "join_room", "code": real})).await;
    assert_eq!(other.recv().await["type"], "room");
    srv.stop().await;
}

/// Issue 13, item 7: guessing must not lock out the honest player on the
/// same address (a LAN party, a NAT). An invite link carries the room's key;
/// a join with the right key is never held up, and a wrong key counts as a
/// failed join, so keys cannot be guessed instead.
#[tokio::test]
async fn an_invite_key_gets_in_whatever_the_guessers_did() {
    let cfg = Config { join_attempts: 3, join_refill: Duration::from_secs(3600), ..test_config() };
    let srv = TestServer::with_config(cfg).await;
    let mut host = srv.player("Host").await;
    let room = host.create(json!({"game": "maze", "size": "easy"})).await;
    let (real, key) = (room["code"].as_str().unwrap().to_owned(), room["key"].as_str().unwrap().to_owned());
    assert_eq!(key.len(), 16, "64 bits of key: {key}");

    let mut g = srv.player("Guesser").await;
    g.send(json!({"type": "join_room", "code": real, "key": "0000000000000000"})).await;
    assert_eq!(g.recv().await["code"], "room_not_found", "a wrong key is a failed join");
    for code in ["AAAAA", "BBBBB"] {
        g.send(json!({"type": "join_room", "code": code})).await;
        assert_eq!(g.recv().await["code"], "room_not_found");
    }
    g.send(json!({"type": "join_room", "code": real})).await;
    assert_eq!(g.recv().await["code"], "too_many_joins", "the address is locked out of typed codes");
    let mut friend = srv.player("Friend").await;
    friend.send(json!({"type": "join_room", "code": real.to_lowercase(), "key": key})).await;
    let r = friend.recv_room_with(friend.id).await;
    assert_eq!(r["code"], real.as_str(), "the link's key gets the friend in");
    srv.stop().await;
}

#[tokio::test(start_paused = true)]
async fn no_hello_within_ten_seconds_closes_with_4000() {
    // Production settings: paused time makes the ten seconds instant.
    let cfg = Config { bind: SocketAddr::from(([127, 0, 0, 1], 0)), metrics_bind: None, ..Config::default() };
    let srv = TestServer::with_config(cfg).await;
    let mut c = srv.connect().await;
    let t0 = tokio::time::Instant::now();
    let (code, reason) =
        tokio::time::timeout(Duration::from_secs(60), c.expect_close_within(Duration::from_secs(60)))
            .await
            .unwrap();
    let waited = t0.elapsed();
    assert_eq!(code, 4000);
    assert!(reason.contains("hello"), "{reason}");
    assert!(waited >= Duration::from_secs(10) && waited < Duration::from_secs(11), "{waited:?}");
    srv.stop().await;
}

#[tokio::test]
async fn a_silent_peer_is_closed_and_a_live_one_is_not() {
    let idle = Duration::from_millis(300);
    let cfg = Config { ping_interval: Duration::from_millis(50), idle_timeout: idle, ..test_config() };
    let srv = TestServer::with_config(cfg).await;
    let mut live = srv.player("Liv").await;
    // The live client keeps reading (its library answers pings) for three
    // idle timeouts, sending nothing of its own.
    let watch = tokio::spawn(async move {
        let until = tokio::time::Instant::now() + 3 * idle;
        loop {
            match tokio::time::timeout_at(until, futures_util::StreamExt::next(&mut live.ws)).await {
                Err(_) => break live,
                Ok(Some(Ok(m))) => assert!(m.is_ping(), "only pings while idle: {m:?}"),
                Ok(other) => panic!("live client lost its connection: {other:?}"),
            }
        }
    });
    // A raw client never answers the server's pings.
    let mut silent = RawClient::connect(srv.addr).await;
    silent.send_text(r#"{"type":"hello","name":"Sil"}"#).await;
    let t0 = tokio::time::Instant::now();
    let (code, reason) = silent.expect_close().await;
    let waited = t0.elapsed();
    assert_eq!(code, 4001, "{reason}");
    assert!(reason.contains("no frame"), "{reason}");
    assert!(waited >= idle, "closed after {waited:?}");

    let mut live = watch.await.expect("the live client stayed connected");
    live.send(json!({"type": "ping"})).await;
    assert_eq!(live.recv().await["type"], "pong");
    srv.stop().await;
}

#[tokio::test]
async fn the_connection_cap_answers_server_full() {
    let cfg = Config { max_connections: 2, ..test_config() };
    let srv = TestServer::with_config(cfg).await;
    let _a = srv.player("A").await;
    let _b = srv.player("B").await;
    let mut c = srv.connect().await;
    let e = c.recv().await;
    assert_eq!(e["code"], "server_full");
    let (code, _) = c.expect_close().await;
    assert_eq!(code, 1013);
    srv.stop().await;
}

/// A burst of moves over the message rate: every one is answered by its
/// `seq` (issue 24: the dropped ones got only an `error` naming nothing),
/// in order, the dropped ones refused as `rate_limited` with the game as
/// it stands, so a client can reconcile its prediction.
#[tokio::test]
async fn every_move_over_the_rate_is_answered_by_its_seq() {
    const MOVES: u32 = 30;
    let cfg = Config { msgs_per_sec: 1, msgs_burst: 12, flood_strikes: 100, ..test_config() };
    let srv = TestServer::with_config(cfg).await;
    let mut ann = srv.player("Ann").await;
    start_race(&mut ann, &mut [], json!({"game": "maze", "size": "easy", "seed": "5"})).await;
    let there = free_first_step(&Board::build(Size::Easy, 5).unwrap());
    let back = there.opposite();
    for seq in 1..=MOVES {
        let dir = if seq % 2 == 1 { there } else { back };
        ann.send(json!({"type": "move", "dir": dir_str(dir), "seq": seq})).await;
    }
    let (mut applied, mut steps) = (0, 0);
    for seq in 1..=MOVES {
        let m = ann.recv_type("move_result").await;
        assert_eq!(m["seq"], seq, "every move answered once, in order: {m}");
        if m["ok"] == true {
            applied += 1;
            steps += 1;
        } else {
            assert_eq!(m["reason"], "rate_limited", "{m}");
        }
        assert_eq!(m["steps"], steps, "a dropped move used no step: {m}");
    }
    // hello, create_room and start took 3 of the burst of 12.
    assert!((9..=10).contains(&applied), "the burst's moves applied: {applied}");
    srv.stop().await;
}
