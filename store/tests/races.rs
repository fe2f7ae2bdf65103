//! Two store instances (two nodes, or two processes on one SQLite file)
//! racing on one database: the salt is made once, and one player starting
//! the same board on both at once gets exactly one ranked attempt. Both
//! backends; the database decides, never a read-then-write.

mod common;

use common::day;
use mazerace_protocol::Size;
use mazerace_store::{NewRun, NodeOptions, PlayerKey, Store};

const DAY: &str = "2026-11-29";

async fn two_nodes(db: &common::TestDb) -> (Store, Store) {
    let node = |c| NodeOptions { node_id: Some(c), ..NodeOptions::default() };
    let a = Store::connect(db.database(), node('a')).await.unwrap();
    let b = Store::connect(db.database(), node('b')).await.unwrap();
    (a, b)
}

both!(async fn the_salt_is_made_once_under_concurrent_first_use(db) {
    let (a, b) = two_nodes(db).await;
    // Both ask at once, many times over: one salt, the same for everyone.
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..16 {
        let store = if i % 2 == 0 { a.clone() } else { b.clone() };
        tasks.spawn(async move { store.daily_salt().await });
    }
    let mut salts = Vec::new();
    while let Some(joined) = tasks.join_next().await {
        salts.push(joined.unwrap().unwrap());
    }
    salts.dedup();
    assert_eq!(salts.len(), 1, "one salt");
    assert_eq!(salts[0].len(), 32);
    assert_eq!(db.strings("SELECT key FROM meta"), ["daily_salt"]);
    a.close().await;
    b.close().await;
});

both!(async fn one_ranked_attempt_under_concurrent_starts_on_two_nodes(db) {
    let (a, b) = two_nodes(db).await;
    const PLAYERS: u32 = 24;
    let mut tasks = tokio::task::JoinSet::new();
    for p in 0..PLAYERS {
        for store in [a.clone(), b.clone()] {
            let run = NewRun {
                player: PlayerKey::from_token(&format!("racer-{p}")),
                name: format!("R{p}"),
                date: day(DAY),
                game: Size::Hard.game(),
                size: Size::Hard,
                seed: 3,
            };
            tasks.spawn(async move { (p, store.begin_run(run).await.unwrap()) });
        }
    }
    let mut ranked = vec![0u32; PLAYERS as usize];
    let mut starts = 0;
    while let Some(joined) = tasks.join_next().await {
        let (p, begun) = joined.unwrap();
        starts += 1;
        if begun.ranked {
            ranked[p as usize] += 1;
        }
    }
    assert_eq!(starts, 2 * PLAYERS);
    assert!(ranked.iter().all(|&n| n == 1), "exactly one ranked start each: {ranked:?}");
    let board = a.leaderboard(day(DAY), Size::Hard.game(), Size::Hard, None).await.unwrap();
    assert_eq!(board.entrants, PLAYERS);
    a.close().await;
    b.close().await;
});
