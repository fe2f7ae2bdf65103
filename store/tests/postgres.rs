//! What only the PostgreSQL backend has: a connection that dies (a server
//! restart, a proxy timeout) is noticed and made again, and the failure in
//! between is a typed "try again", never a wrong answer; one store's pool
//! is one node; schema version 5's sharded step counters beside a node of
//! the previous build. Runs when `MAZERACE_TEST_DATABASE_URL` is set (and
//! fails, with `MAZERACE_REQUIRE_PG=1`, when it is not).

mod common;

use common::{day, TestDb};
use mazerace_protocol::{Game, Size};
use mazerace_store::{ErrorKind, NewRun, NodeOptions, Outcome, PlayerKey};

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap()
}

#[test]
fn a_killed_connection_is_noticed_and_made_again() {
    let Some(db) = TestDb::postgres() else { return };
    runtime().block_on(async {
        let s = db.store().await;
        let salt = s.daily_salt().await.unwrap();
        for round in 0..3 {
            // The server ends this test's connections (its application name
            // is the schema); one killed a moment ago may still be listed, exiting.
            let killed = common::off_runtime(|| {
                db.strings(&format!(
                    "SELECT COALESCE(bool_or(pg_terminate_backend(pid)), false)::text FROM pg_stat_activity
                     WHERE application_name = '{}' AND pid <> pg_backend_pid() AND state IS NOT NULL",
                    db.schema()
                ))
            });
            assert_eq!(killed, ["true"], "round {round}: the store's connection was killed");
            // The next request either notices first and reconnects, or fails
            // as "unavailable" and drops the connection; the one after succeeds.
            match s.daily_salt().await {
                Ok(again) => assert_eq!(again, salt),
                Err(e) => {
                    assert_eq!(e.kind(), ErrorKind::Busy, "{e}");
                    assert_eq!(s.daily_salt().await.unwrap(), salt);
                }
            }
            s.ping().await.unwrap();
        }
    });
}

#[test]
fn one_store_serves_on_several_connections_as_one_node() {
    let Some(db) = TestDb::postgres() else { return };
    runtime().block_on(async {
        let node = NodeOptions { node_id: Some('p'), ..Default::default() };
        let store = db.store_as(node).await;
        let mut tasks = tokio::task::JoinSet::new();
        for p in 0..32 {
            let store = store.clone();
            tasks.spawn(async move {
                let run = NewRun {
                    player: PlayerKey::from_token(&format!("pool-{p}")),
                    name: format!("P{p}"),
                    date: day("2026-11-29"),
                    game: Game::Ghost,
                    size: Size::Small,
                    seed: 1,
                };
                store.begin_run(run).await.unwrap().ranked
            });
        }
        while let Some(ranked) = tasks.join_next().await {
            assert!(ranked.unwrap());
        }
        let connections: usize = common::off_runtime(|| {
            db.strings(&format!(
                "SELECT COUNT(*)::text FROM pg_stat_activity WHERE application_name = '{}' AND pid <> pg_backend_pid()",
                db.schema()
            ))
        })[0]
            .parse()
            .unwrap();
        assert!((1..=mazerace_store::POSTGRES_CONNECTIONS).contains(&connections), "{connections} connections");
        // Every connection is the same process: one boot, one lease.
        let boots = common::off_runtime(|| db.strings("SELECT DISTINCT node || ' ' || boot FROM runs"));
        assert_eq!(boots.len(), 1, "{boots:?}");
        assert_eq!(common::off_runtime(|| db.strings("SELECT node FROM nodes")), ["p"]);
        assert_eq!(store.heartbeat().await.unwrap(), 0);
        store.close().await;
        // The server notices the closed sockets on its own time: polled.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        loop {
            let left = common::off_runtime(|| {
                db.strings(&format!(
                    "SELECT COUNT(*)::text FROM pg_stat_activity WHERE application_name = '{}' AND pid <> pg_backend_pid()",
                    db.schema()
                ))
            });
            if left == ["0"] {
                break;
            }
            assert!(std::time::Instant::now() < deadline, "closing the store closes its connections: {left:?} left");
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    });
}

/// Version 5 counts ranked finishes in shards per step count (a shard per
/// committer of the node). A board counted before it keeps its counts, a
/// node of the previous build still counting the old way after it is not
/// refused, and ranks sum both.
#[test]
fn version_5_shards_new_counts_and_keeps_counting_the_old_ones() {
    let Some(db) = TestDb::postgres() else { return };
    // The schema as version 4 left it, with one ranked finish counted.
    let old_schema: String =
        mazerace_store::postgres::schema::MIGRATIONS[..4].iter().map(|m| format!("{m};")).collect();
    db.exec(&old_schema);
    let finished_the_old_way = |n: u32, time_ms: i64| {
        let key = PlayerKey::from_token(&format!("p{n}"));
        let key = key.as_str();
        db.exec(&format!(
            "INSERT INTO players (key, name) VALUES ('{key}', 'p{n}');
             INSERT INTO runs (player, name, date, game, size, seed, ranked, state, steps, time_ms)
                 VALUES ('{key}', 'p{n}', '2026-12-01', 'maze', 'easy', '7', TRUE, 'finished', 20, {time_ms});
             INSERT INTO board_entrants (date, game, size, shard, n) VALUES ('2026-12-01', 'maze', 'easy', 0, 1)
                 ON CONFLICT (date, game, size, shard) DO UPDATE SET n = board_entrants.n + 1;
             INSERT INTO board_steps (date, game, size, steps, n) VALUES ('2026-12-01', 'maze', 'easy', 20, 1)
                 ON CONFLICT (date, game, size, steps) DO UPDATE SET n = board_steps.n + 1;"
        ));
    };
    db.exec(
        "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now());
         INSERT INTO schema_migrations (version) VALUES (1), (2), (3), (4);",
    );
    finished_the_old_way(8, 500);
    runtime().block_on(async {
        let s = db.store().await;
        // A node of the previous build, still up during the upgrade, counts one more.
        common::off_runtime(|| finished_the_old_way(9, 450));
        let mut ranks = Vec::new();
        for (n, steps, time_ms) in [(1, 20, 400), (2, 20, 600), (3, 25, 100)] {
            let run = NewRun {
                player: PlayerKey::from_token(&format!("p{n}")),
                name: format!("p{n}"),
                date: day("2026-12-01"),
                game: Game::Maze,
                size: Size::Easy,
                seed: 7,
            };
            let id = s.begin_run(run).await.unwrap().run_id;
            ranks.push(
                s.finish_run(id, Outcome::Finished { steps, time_ms, at_floor: false }, vec![], None)
                    .await
                    .unwrap()
                    .rank,
            );
        }
        assert_eq!(ranks, [Some(1), Some(4), Some(5)], "ranked against the old counts and the new");
        s.close().await;
    });
    assert_eq!(
        db.strings("SELECT SUM(n)::text FROM board_steps WHERE steps = 20"),
        ["2"],
        "the old counter keeps what it counted, and counts on"
    );
    let shards = db.strings("SELECT SUM(n)::text FROM board_step_shards WHERE steps = 20");
    assert_eq!(shards, ["2"], "the two new finishes on that step count, counted in the shards");
}

/// The room-move mailbox (schema version 8): a post is claimed by another
/// boot only, once (two boots claiming at once never share a room), its
/// answer reaches the poster, the move is looked up by its old code, a
/// withdrawal works only while unclaimed, and old moves are forgotten.
#[test]
fn the_room_move_mailbox_hands_each_room_to_one_other_boot() {
    let Some(db) = TestDb::postgres() else { return };
    runtime().block_on(async {
        let (a, b, c) = (db.store().await, db.store().await, db.store().await);
        let (a, b, c) = (a.room_moves().unwrap(), b.room_moves().unwrap(), c.room_moves().unwrap());
        let first = a.post("AAAAA", "k1", "{\"room\":1}").await.unwrap();
        let second = a.post("AAAAB", "k2", "{\"room\":2}").await.unwrap();
        assert!(a.claim(10).await.unwrap().is_empty(), "a boot never adopts its own rooms");
        let (got_b, got_c) = tokio::join!(b.claim(1), c.claim(10));
        let (got_b, got_c) = (got_b.unwrap(), got_c.unwrap());
        let mut ids: Vec<i64> = got_b.iter().chain(&got_c).map(|m| m.id).collect();
        ids.sort();
        assert_eq!(ids, [first, second], "each room claimed exactly once");
        // Whichever boot claimed it answers it (an answer names its claimer).
        let (claimer, by_b) = match got_b.first() {
            Some(m) => (&b, m),
            None => (&c, &got_c[0]),
        };
        assert_eq!(a.answer_of(by_b.id).await.unwrap(), None, "not answered yet");
        a.answer(by_b.id, "AAAAZ", "k0").await.unwrap();
        assert_eq!(a.answer_of(by_b.id).await.unwrap(), None, "only its claimer answers it");
        claimer.answer(by_b.id, "BBBBB", "k9").await.unwrap();
        assert_eq!(a.answer_of(by_b.id).await.unwrap(), Some(("BBBBB".into(), "k9".into())));
        let moved = a.lookup(&by_b.old_code).await.unwrap().expect("remembered");
        assert_eq!(
            (moved.code.as_str(), moved.key.as_str(), moved.old_key.as_str()),
            ("BBBBB", "k9", by_b.old_key.as_str())
        );
        assert!(!a.withdraw(by_b.id).await.unwrap(), "a claimed room cannot be taken back");
        let third = a.post("AAAAC", "k3", "{}").await.unwrap();
        assert!(a.withdraw(third).await.unwrap(), "an unclaimed one can");
        assert!(b.claim(10).await.unwrap().is_empty(), "and is gone");
        assert_eq!(a.forget(3600.0).await.unwrap(), 0, "nothing is an hour old");
        assert_eq!(a.forget(0.0).await.unwrap(), 2, "forgotten");
        assert_eq!(a.lookup("AAAAA").await.unwrap(), None);
    });
}
