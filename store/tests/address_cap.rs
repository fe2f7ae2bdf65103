//! The per-address cap on ranked runs (issue 15), on every backend: past
//! the cap a player's first start on a board is practice (`capped`), other
//! boards and other addresses are not affected, a player's own second start
//! is practice for the usual reason, and concurrent starts from one address
//! never pass the cap.

mod common;

use common::day;
use mazerace_protocol::{Game, Size};
use mazerace_store::{AddressCap, NewRun, PlayerKey};

const DAY: &str = "2026-12-01";

fn run(player: u32, size: Size) -> NewRun {
    NewRun {
        player: PlayerKey::from_token(&format!("window-{player}")),
        name: format!("P{player}"),
        date: day(DAY),
        game: size.game(),
        size,
        seed: 7,
    }
}

fn cap(address: &str, limit: u32) -> AddressCap {
    AddressCap { key: PlayerKey::from_token(address).as_str().to_owned(), limit }
}

both!(async fn the_fifth_private_window_on_one_address_is_practice(db) {
    let b = db.store().await;
    let home = || Some(cap("home", 4));
    for p in 1..=4 {
        let r = b.begin_run_capped(run(p, Size::Easy), home()).await.unwrap();
        assert!(r.ranked && !r.capped, "window {p}");
    }
    let fifth = b.begin_run_capped(run(5, Size::Easy), home()).await.unwrap();
    assert!(!fifth.ranked && fifth.capped, "the fifth is practice, and says why");
    assert_eq!(b.entrants(day(DAY), Game::Maze, Size::Easy).await.unwrap(), 4);
    // Another board, another address: their own caps.
    assert!(b.begin_run_capped(run(5, Size::Hard), home()).await.unwrap().ranked);
    assert!(b.begin_run_capped(run(6, Size::Easy), Some(cap("office", 4))).await.unwrap().ranked);
    // A player's own second start is practice, not capped.
    let again = b.begin_run_capped(run(1, Size::Easy), home()).await.unwrap();
    assert!(!again.ranked && !again.capped);
    // Without a cap nothing changes.
    assert!(b.begin_run(run(7, Size::Easy)).await.unwrap().ranked);
});

both!(async fn concurrent_starts_from_one_address_never_pass_the_cap(db) {
    let limit = 3;
    // Four stores (four processes, or nodes) on one database, four starts each at once.
    let mut stores = Vec::new();
    for _ in 0..4 {
        stores.push(db.store().await);
    }
    let mut tasks = tokio::task::JoinSet::new();
    for (t, store) in stores.iter().enumerate() {
        for i in 0..4 {
            let store = store.clone();
            let player = t as u32 * 10 + i;
            tasks.spawn(async move { store.begin_run_capped(run(player, Size::Normal), Some(cap("lan", limit))).await });
        }
    }
    let mut ranked = 0;
    while let Some(r) = tasks.join_next().await {
        ranked += u32::from(r.unwrap().unwrap().ranked);
    }
    assert_eq!(ranked, limit, "exactly the cap, across connections");
});
