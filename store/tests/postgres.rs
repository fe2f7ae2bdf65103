//! What only the PostgreSQL backend has: a connection that dies (a server
//! restart, a proxy timeout) is noticed and made again, and the failure in
//! between is a typed "try again", never a wrong answer. Runs when
//! `MAZERACE_TEST_DATABASE_URL` is set.

mod common;

use mazerace_store::{Backend, ErrorKind};

#[test]
fn a_killed_connection_is_noticed_and_made_again() {
    let Some(db) = common::TestDb::postgres() else {
        eprintln!("skipped: {} is not set", common::ENV);
        return;
    };
    let mut b = db.open_postgres();
    let salt = b.daily_salt().unwrap();
    for round in 0..3 {
        // The server ends this test's connections (its application name is
        // the schema); one killed a moment ago may still be listed, exiting.
        let killed = db.strings(&format!(
            "SELECT COALESCE(bool_or(pg_terminate_backend(pid)), false)::text FROM pg_stat_activity
             WHERE application_name = '{}' AND pid <> pg_backend_pid() AND state IS NOT NULL",
            db.schema()
        ));
        assert_eq!(killed, ["true"], "round {round}: the backend's connection was killed");
        // The next request either notices first and reconnects, or fails as
        // "unavailable" and drops the connection; the one after succeeds.
        match b.daily_salt() {
            Ok(again) => assert_eq!(again, salt),
            Err(e) => {
                assert_eq!(e.kind(), ErrorKind::Busy, "{e}");
                assert_eq!(b.daily_salt().unwrap(), salt);
            }
        }
        b.ping().unwrap();
    }
}

#[test]
fn one_store_serves_on_several_connections_as_one_node() {
    let Some(db) = common::TestDb::postgres() else {
        eprintln!("skipped: {} is not set", common::ENV);
        return;
    };
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    rt.block_on(pooled(&db));
}

async fn pooled(db: &common::TestDb) {
    let node = mazerace_store::NodeOptions { node_id: Some('p'), ..Default::default() };
    let store = mazerace_store::Store::connect(db.database(), node).await.unwrap();
    let mut tasks = tokio::task::JoinSet::new();
    for p in 0..32 {
        let store = store.clone();
        tasks.spawn(async move {
            let run = mazerace_store::NewRun {
                player: mazerace_store::PlayerKey::from_token(&format!("pool-{p}")),
                name: format!("P{p}"),
                date: "2026-11-29".into(),
                game: mazerace_protocol::Game::Ghost,
                size: mazerace_protocol::Size::Small,
                seed: 1,
            };
            store.begin_run(run).await.unwrap().ranked
        });
    }
    while let Some(ranked) = tasks.join_next().await {
        assert!(ranked.unwrap());
    }
    let connections = common::off_runtime(|| {
        db.strings(&format!(
            "SELECT COUNT(*)::text FROM pg_stat_activity WHERE application_name = '{}' AND pid <> pg_backend_pid()",
            db.schema()
        ))
    });
    assert_eq!(connections, [(mazerace_store::POSTGRES_CONNECTIONS).to_string()]);
    // Every connection is the same process: one boot, one lease.
    let boots = common::off_runtime(|| db.strings("SELECT DISTINCT node || ' ' || boot FROM runs"));
    assert_eq!(boots.len(), 1, "{boots:?}");
    assert_eq!(common::off_runtime(|| db.strings("SELECT node FROM nodes")), ["p"]);
    assert_eq!(store.heartbeat().await.unwrap(), 0);
    store.close().await;
}
