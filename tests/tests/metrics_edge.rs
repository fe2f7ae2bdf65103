//! `/metrics` under abuse and what it says about clients leaving: idle
//! sockets on the metrics listener do not lock the scraper out (16 of them
//! made it answer 503), and a client that leaves with a close frame, a FIN
//! without one, or a reset is counted as that, never as a close of the
//! server's (a FIN was counted as a 1002 protocol error, a reset as a 1000).
//! One test in this file: the series are process-wide.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::Duration;

use mazerace_server::Config;
use mazerace_tests::{metric, scrape_metrics, test_config, wait_until, RawClient, TestServer};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

const LEFT_EOF: &str = "mazerace_clients_left_total{how=\"eof\"}";
const LEFT_RESET: &str = "mazerace_clients_left_total{how=\"reset\"}";
const LEFT_CLOSE: &str = "mazerace_clients_left_total{how=\"close_frame\"}";
const CLOSED_1000: &str = "mazerace_clients_closed_total{code=\"1000\",reason=\"normal\"}";
const CLOSED_1002: &str = "mazerace_clients_closed_total{code=\"1002\",reason=\"protocol_error\"}";

/// Scrapes until `series` has moved by `by` from `before`.
async fn until_moved(maddr: SocketAddr, before: &HashMap<String, f64>, series: &str, by: f64) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        let now = scrape_metrics(maddr).await;
        if metric(&now, series) - metric(before, series) >= by {
            return;
        }
        assert!(tokio::time::Instant::now() < deadline, "{series} did not move by {by}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test]
async fn idle_sockets_do_not_lock_out_the_scraper_and_leaving_is_counted_as_it_happened() {
    let cfg = Config { metrics_bind: Some(SocketAddr::from(([127, 0, 0, 1], 0))), ..test_config() };
    let srv = TestServer::with_config(cfg).await;
    wait_until("/metrics is bound", || srv.server.metrics_addr().is_some()).await;
    let maddr = srv.server.metrics_addr().unwrap();

    // Forty idle sockets on the metrics port: the scraper still gets in.
    let mut idle = Vec::new();
    for _ in 0..40 {
        idle.push(TcpStream::connect(maddr).await.unwrap());
    }
    let before = scrape_metrics(maddr).await;
    for series in [LEFT_EOF, LEFT_RESET, LEFT_CLOSE, CLOSED_1000, CLOSED_1002] {
        metric(&before, series);
    }

    // A FIN without a close frame.
    let mut fin = RawClient::connect(srv.addr).await;
    fin.send_text(r#"{"type":"hello","name":"Fin"}"#).await;
    assert!(fin.next_frame().await.is_some(), "welcome");
    fin.tcp.shutdown().await.unwrap();
    until_moved(maddr, &before, LEFT_EOF, 1.0).await;

    // A reset (SO_LINGER 0, then close).
    let reset = RawClient::connect(srv.addr).await;
    reset.tcp.set_zero_linger().unwrap();
    drop(reset);
    until_moved(maddr, &before, LEFT_RESET, 1.0).await;

    // A close frame: echoed, and counted as the client's.
    let c = srv.player("Closer").await;
    c.close().await;
    until_moved(maddr, &before, LEFT_CLOSE, 1.0).await;

    let after = scrape_metrics(maddr).await;
    assert_eq!(metric(&after, CLOSED_1002), metric(&before, CLOSED_1002), "a FIN is not a protocol error");
    assert_eq!(metric(&after, CLOSED_1000), metric(&before, CLOSED_1000), "the server closed nothing itself");
    drop(idle);
    srv.stop().await;
}
