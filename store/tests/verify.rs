//! The verifier re-plays real solver lines: honest runs pass, and every kind
//! of tampering with a stored run (steps, outcome, moves, seed) is reported.
//! Both backends.

mod common;

use common::day;
use mazerace_protocol::daily::daily_seed;
use mazerace_protocol::{Action, Board, Game, Size, Status};
use mazerace_store::verify::Problem;
use mazerace_store::{verify, NewRun, Outcome, PlayerKey, RunState, Store};

const DAY: &str = "2026-11-29";

/// The board's own winning line (an exact solver line for Ghost, the
/// shortest route for the maze), and the steps it takes (rewinds are free).
fn solution(size: Size, seed: u64) -> (Vec<Action>, u32) {
    let line = Board::build(size, seed).unwrap().answer().solution().to_vec();
    let steps = line.iter().filter(|a| matches!(a, Action::Move(_))).count() as u32;
    (line, steps)
}

/// A daily seed of this size whose board has a winning line.
fn solvable_seed(salt: &[u8], size: Size) -> u64 {
    let seed = daily_seed(salt, day(DAY), size.game(), size);
    assert!(!solution(size, seed).0.is_empty(), "pick another date: {size} {seed} has no line");
    seed
}

async fn store_run(b: &Store, player: u32, size: Size, seed: u64, outcome: Outcome, line: &[Action]) -> i64 {
    let run = NewRun {
        player: PlayerKey::from_token(&format!("t{player}")),
        name: format!("P{player}"),
        date: day(DAY),
        game: size.game(),
        size,
        seed,
    };
    let id = b.begin_run(run).await.unwrap().run_id;
    b.finish_run(id, outcome, line.to_vec(), None).await.unwrap();
    id
}

both!(async fn honest_runs_pass_and_tampered_ones_are_caught(db) {
    let salt = b"verify-salt";
    let b = db.store().await;
    let mut ids = Vec::new();
    for size in [Size::Small, Size::Medium, Size::Large, Size::Easy, Size::Normal, Size::Hard] {
        let seed = solvable_seed(salt, size);
        let (line, steps) = solution(size, seed);
        if size.game() == Game::Maze {
            assert_eq!(
                Some(steps),
                Board::build(size, seed).unwrap().best(),
                "the maze line is the shortest"
            );
        }
        ids.push(store_run(&b, 1, size, seed, Outcome::Finished { steps, time_ms: 30_000, at_floor: false }, &line).await);
        // An honest did-not-finish: the line without its last step.
        let short = &line[..line.len() - 1];
        let short_steps = short.iter().filter(|a| matches!(a, Action::Move(_))).count() as u32;
        store_run(&b, 2, size, seed, Outcome::NotFinished { steps: short_steps }, short).await;
    }
    b.begin_run(NewRun {
        player: PlayerKey::from_token("t3"),
        name: "P3".into(),
        date: day(DAY),
        game: Game::Ghost,
        size: Size::Small,
        seed: 1,
    })
    .await
    .unwrap(); // still playing: counted as open, not checked

    let report = verify(&b, Some(salt)).await.unwrap();
    assert!(report.ok(), "{report}");
    assert_eq!((report.checked, report.open), (12, 1));

    // Tamper with the stored rows behind the store's back.
    db.exec(&format!(
        "UPDATE runs SET steps = steps - 1 WHERE id = {};
         UPDATE runs SET state = 'not_finished', time_ms = NULL WHERE id = {};
         UPDATE runs SET actions = '[\"rewind\"]' WHERE id = {};
         UPDATE runs SET seed = '12345' WHERE id = {};",
        ids[0], ids[1], ids[3], ids[4]
    ));

    let report = verify(&b, Some(salt)).await.unwrap();
    assert!(!report.ok());
    assert_eq!(report.checked, 12);
    let bad: Vec<(i64, &Problem)> = report.mismatches.iter().map(|m| (m.run_id, &m.problem)).collect();
    assert_eq!(bad.len(), 4, "{report}");
    assert!(
        matches!(bad[0], (id, Problem::Steps { stored, replayed }) if id == ids[0] && stored + 1 == *replayed)
    );
    assert!(matches!(
        bad[1],
        (id, Problem::Outcome { stored: RunState::NotFinished, replayed: Status::Won }) if id == ids[1]
    ));
    assert!(
        matches!(bad[2], (id, Problem::Refused { index: 0, action: Action::Rewind, .. }) if id == ids[3])
    );
    assert!(matches!(bad[3], (id, Problem::WrongSeed { .. }) if id == ids[4]));
    let text = report.to_string();
    assert!(text.contains(&format!("run {}: stored", ids[0])), "{text}");
    assert!(text.ends_with("12 runs checked, 4 mismatched, 1 still open"), "{text}");

    // Without the salt the seed is taken as stored: that run then re-plays on
    // another board, where the stored line no longer wins as recorded.
    let report = verify(&b, None).await.unwrap();
    assert!(report
        .mismatches
        .iter()
        .any(|m| m.run_id == ids[4] && !matches!(m.problem, Problem::WrongSeed { .. })));
});

both!(async fn moves_after_the_finish_are_caught(db) {
    let b = db.store().await;
    let seed = solvable_seed(b"x", Size::Easy);
    let (mut line, steps) = solution(Size::Easy, seed);
    let last = *line.last().unwrap();
    line.push(last);
    let id = store_run(&b, 1, Size::Easy, seed, Outcome::Finished { steps, time_ms: 1, at_floor: false }, &line).await;
    let report = verify(&b, None).await.unwrap();
    assert_eq!(report.mismatches.len(), 1);
    assert_eq!(report.mismatches[0].run_id, id);
    assert!(
        matches!(report.mismatches[0].problem, Problem::Refused { index, .. } if index == line.len() - 1)
    );
});
