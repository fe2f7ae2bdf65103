//! `GET /metrics` (issue 13): served in the Prometheus text format on its
//! own listener only, and its series move with what the server does.
//! One test in this file: the series are process-wide.

use std::net::SocketAddr;
use std::time::Duration;

use mazerace_server::Config;
use mazerace_tests::serde_json::json;
use mazerace_tests::{
    metric, scrape_metrics, solution, start_race, test_config, wait_until, Closed, Size, TestServer,
};
use tokio::io::AsyncReadExt;
use tokio::net::{TcpSocket, TcpStream};

#[tokio::test]
async fn metrics_are_served_on_their_own_port_and_move() {
    let any = SocketAddr::from(([127, 0, 0, 1], 0));
    let cfg = Config {
        metrics_bind: Some(any),
        max_conns_per_addr: 8,
        head_timeout: Duration::from_secs(1),
        msgs_per_sec: 1,
        msgs_burst: 200,
        flood_strikes: 2,
        ..test_config()
    };
    let srv = TestServer::with_config(cfg).await;
    wait_until("/metrics is bound", || srv.server.metrics_addr().is_some()).await;
    let maddr = srv.server.metrics_addr().unwrap();
    assert_eq!(srv.get("/metrics").await.status, 404, "not on the public port");
    let before = scrape_metrics(maddr).await;
    for series in [
        "mazerace_connections{state=\"http\"}",
        "mazerace_connections{state=\"websocket\"}",
        "mazerace_sockets_accepted_total",
        "mazerace_sockets_refused_total{reason=\"per_address\"}",
        "mazerace_sockets_evicted_total",
        "mazerace_http_head_timeouts_total",
        "mazerace_clients_closed_total{code=\"4002\",reason=\"too_slow\"}",
        "mazerace_clients_closed_total{code=\"1008\",reason=\"flood\"}",
        "mazerace_progress_frames_sent_total",
        "mazerace_moves_accepted_total",
        "mazerace_moves_rejected_total{reason=\"wall\"}",
        "mazerace_move_ack_seconds_count",
        "mazerace_rooms{phase=\"racing\"}",
        "mazerace_races_started_total",
        "mazerace_daily_starts_total",
        "mazerace_store_queue_depth",
        "mazerace_store_commit_seconds_count",
    ] {
        metric(&before, series);
    }

    // Two players race: sockets upgraded, progress frames sent.
    let mut ann = srv.player("Ann").await;
    let mut bob = srv.player("Bob").await;
    let (_, line) = solution(Size::Easy, 1);
    let (code, _) =
        start_race(&mut ann, &mut [&mut bob], json!({"game": "maze", "size": "easy", "seed": "1"})).await;
    ann.play(&line[..2], 1).await;
    bob.recv_type("progress").await;
    // A wall and a move from a spectator-to-be: refused by the rules, and not racing.
    let mut wall = None;
    for d in ["up", "left"] {
        let r = bob.mv(d, 1).await;
        if r["ok"] == false {
            wall = Some(r);
        }
    }
    assert_eq!(wall.expect("a wall at the start")["reason"], "wall");
    let mut late = srv.player("Late").await;
    late.join(&code).await;
    late.recv_type("snapshot").await;
    late.send(json!({"type": "move", "dir": "up", "seq": 1})).await;
    assert_eq!(late.recv().await["code"], "not_racing");
    // A flood: closed with 1008.
    let mut flood = srv.connect().await;
    for _ in 0..210 {
        flood.send_text(r#"{"type":"ping"}"#).await;
    }
    let code = loop {
        match flood.next_text().await {
            Ok(_) => {}
            Err(Closed::Frame(code, _)) => break code,
            Err(Closed::Eof) => panic!("no close frame"),
        }
    };
    assert_eq!(code, 1008);
    // An idle socket: closed at the head timeout.
    let mut idle = TcpStream::connect(srv.addr).await.unwrap();
    let mut b = [0u8; 16];
    let n =
        tokio::time::timeout(Duration::from_secs(5), idle.read(&mut b)).await.expect("closed").unwrap_or(0);
    assert_eq!(n, 0);
    // One address over its cap: refused.
    let mut held = Vec::new();
    for _ in 0..8 {
        let s = TcpSocket::new_v4().unwrap();
        s.bind(SocketAddr::from(([127, 0, 0, 3], 0))).unwrap();
        held.push(s.connect(srv.addr).await.unwrap());
    }
    wait_until("eight more sockets", || srv.server.socket_count() >= 10).await;
    let s = TcpSocket::new_v4().unwrap();
    s.bind(SocketAddr::from(([127, 0, 0, 3], 0))).unwrap();
    let mut refused = s.connect(srv.addr).await.unwrap();
    let _ =
        tokio::time::timeout(Duration::from_secs(5), refused.read(&mut b)).await.expect("refused at once");

    let after = scrape_metrics(maddr).await;
    let moved = |series: &str| metric(&after, series) - metric(&before, series);
    assert!(moved("mazerace_sockets_accepted_total") >= 13.0, "{}", moved("mazerace_sockets_accepted_total"));
    assert!(moved("mazerace_connections{state=\"websocket\"}") >= 2.0, "ann and bob are WebSockets");
    assert!(moved("mazerace_connections{state=\"http\"}") >= 8.0, "the held sockets are not upgraded");
    assert!(moved("mazerace_progress_frames_sent_total") >= 1.0);
    assert!(moved("mazerace_clients_closed_total{code=\"1008\",reason=\"flood\"}") >= 1.0);
    assert!(moved("mazerace_http_head_timeouts_total") >= 1.0);
    assert!(moved("mazerace_sockets_refused_total{reason=\"per_address\"}") >= 1.0);
    // The room and race series, from the room's own calls.
    assert!(moved("mazerace_moves_accepted_total") >= 2.0, "ann's two moves");
    assert!(moved("mazerace_moves_rejected_total{reason=\"wall\"}") >= 1.0);
    assert!(moved("mazerace_moves_rejected_total{reason=\"not_racing\"}") >= 1.0);
    assert!(moved("mazerace_move_ack_seconds_count") >= 3.0);
    assert!(moved("mazerace_races_started_total") >= 1.0);
    assert_eq!(moved("mazerace_rooms{phase=\"racing\"}"), 1.0, "one room racing now");
    drop(held);
    srv.stop().await;
    assert!(TcpStream::connect(maddr).await.is_err(), "the metrics listener is closed with the server");
}
