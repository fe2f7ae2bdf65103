//! The per-address cap on ranked runs (issue 15), on every backend: past
//! the cap a player's first start on a board is practice (`capped`), other
//! boards and other addresses are not affected, a player's own second start
//! is practice for the usual reason, and concurrent starts from one address
//! never pass the cap.

mod common;

use mazerace_protocol::{Game, Size};
use mazerace_store::{AddressCap, Backend, NewRun, PlayerKey};

const DAY: &str = "2026-12-01";

fn run(player: u32, size: Size) -> NewRun {
    NewRun {
        player: PlayerKey::from_token(&format!("window-{player}")),
        name: format!("P{player}"),
        date: DAY.into(),
        game: size.game(),
        size,
        seed: 7,
    }
}

fn cap(address: &str, limit: u32) -> AddressCap {
    AddressCap { key: PlayerKey::from_token(address).as_str().to_owned(), limit }
}

both!(fn the_fifth_private_window_on_one_address_is_practice(db) {
    let mut b = db.open();
    let home = cap("home", 4);
    for p in 1..=4 {
        let r = b.begin_run_capped(&run(p, Size::Easy), Some(&home)).unwrap();
        assert!(r.ranked && !r.capped, "window {p}");
    }
    let fifth = b.begin_run_capped(&run(5, Size::Easy), Some(&home)).unwrap();
    assert!(!fifth.ranked && fifth.capped, "the fifth is practice, and says why");
    assert_eq!(b.entrants(DAY, Game::Maze, Size::Easy).unwrap(), 4);
    // Another board, another address: their own caps.
    assert!(b.begin_run_capped(&run(5, Size::Hard), Some(&home)).unwrap().ranked);
    assert!(b.begin_run_capped(&run(6, Size::Easy), Some(&cap("office", 4))).unwrap().ranked);
    // A player's own second start is practice, not capped.
    let again = b.begin_run_capped(&run(1, Size::Easy), Some(&home)).unwrap();
    assert!(!again.ranked && !again.capped);
    // Without a cap nothing changes.
    assert!(b.begin_run(&run(7, Size::Easy)).unwrap().ranked);
});

both!(fn concurrent_starts_from_one_address_never_pass_the_cap(db) {
    drop(db.open());
    let limit = 3;
    let ranked: u32 = std::thread::scope(|s| {
        let threads: Vec<_> = (0..4)
            .map(|t| {
                s.spawn(move || {
                    let mut b: Box<dyn Backend> = db.open();
                    (0..4)
                        .filter(|i| {
                            let r = b.begin_run_capped(&run(t * 10 + i, Size::Normal), Some(&cap("lan", limit)));
                            r.unwrap().ranked
                        })
                        .count() as u32
                })
            })
            .collect();
        threads.into_iter().map(|t| t.join().unwrap()).sum()
    });
    assert_eq!(ranked, limit, "exactly the cap, across connections");
});
