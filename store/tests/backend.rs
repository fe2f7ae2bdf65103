//! Every backend, through the `Backend` trait: migrations, the one-ranked-run
//! rule, ranking and ties, entrants, `you`, the top-100 cut, streaks, the
//! salt, replay records, paging, and the player's day. Each test runs on
//! SQLite and (with `MAZERACE_TEST_DATABASE_URL`) on PostgreSQL.

mod common;

use std::time::Duration;

use mazerace_protocol::{Action, Dir, Game, Size};
use mazerace_store::{
    Backend, BeginRun, Clock, ErrorKind, FixedClock, NewRun, Outcome, PlayerKey, RunState, StoreError,
};

const DAY: &str = "2026-11-29";

fn key(n: u32) -> PlayerKey {
    PlayerKey::from_token(&format!("token-{n}"))
}

fn new_run(player: u32, date: &str, size: Size) -> NewRun {
    NewRun {
        player: key(player),
        name: format!("P{player}"),
        date: date.to_owned(),
        game: size.game(),
        size,
        seed: 42,
    }
}

/// Begin and finish one run; returns its id and whether it was ranked.
fn play(b: &mut dyn Backend, player: u32, size: Size, outcome: Outcome) -> BeginRun {
    let begun = b.begin_run(&new_run(player, DAY, size)).unwrap();
    b.finish_run(begun.run_id, outcome, &[Action::Move(Dir::Right)], None).unwrap();
    begun
}

fn fin(steps: u32, time_ms: u64) -> Outcome {
    Outcome::Finished { steps, time_ms }
}

both!(fn a_fresh_database_is_migrated_and_reopens(db) {
    {
        let mut b = db.open();
        b.begin_run(&new_run(1, DAY, Size::Small)).unwrap();
    }
    assert_eq!(db.schema_version(), mazerace_store::sqlite::SCHEMA_VERSION);
    let mut tables = vec!["board_entrants", "board_steps", "league_members", "leagues", "meta", "nodes", "players", "runs"];
    if db.is_postgres() {
        // Version 5's sharded step counters (SQLite has one writer: no need).
        tables.insert(1, "board_step_shards");
        tables.push("schema_migrations");
    }
    assert_eq!(db.tables(), tables);
    // Reopening runs no migration twice and keeps the data.
    let mut b = db.open();
    assert_eq!(b.runs_after(0, 10).unwrap().len(), 1);
    assert_eq!(db.schema_version(), mazerace_store::sqlite::SCHEMA_VERSION);
});

#[test]
fn both_backends_know_the_same_schema_versions() {
    assert_eq!(mazerace_store::sqlite::SCHEMA_VERSION, mazerace_store::postgres::SCHEMA_VERSION);
}

both!(fn a_newer_schema_is_refused_with_a_clear_message(db) {
    drop(db.open());
    let newer = mazerace_store::sqlite::SCHEMA_VERSION + 1;
    db.set_schema_version(newer);
    let err = db.database().open_backend(Default::default()).err().expect("refused");
    assert!(matches!(err, StoreError::SchemaTooNew { found, .. } if found == newer), "{err}");
    assert!(err.to_string().contains("newer than this build knows"), "{err}");
});

both!(fn only_the_first_start_is_ranked_even_across_reopen(db) {
    let first = {
        let mut b = db.open();
        let first = b.begin_run(&new_run(1, DAY, Size::Small)).unwrap();
        assert!(first.ranked);
        // Starting is final: even before finishing, a second start is practice.
        let second = b.begin_run(&new_run(1, DAY, Size::Small)).unwrap();
        assert!(!second.ranked);
        assert_ne!(second.run_id, first.run_id);
        first
    };
    let mut b = db.open();
    let third = b.begin_run(&new_run(1, DAY, Size::Small)).unwrap();
    assert!(!third.ranked);
    assert!(third.run_id > first.run_id);
    // Other boards, days and players each get their own ranked run.
    assert!(b.begin_run(&new_run(1, DAY, Size::Medium)).unwrap().ranked);
    assert!(b.begin_run(&new_run(1, DAY, Size::Easy)).unwrap().ranked);
    assert!(b.begin_run(&new_run(1, "2026-11-30", Size::Small)).unwrap().ranked);
    assert!(b.begin_run(&new_run(2, DAY, Size::Small)).unwrap().ranked);

    // The database itself refuses a second ranked row, whoever writes it.
    let ranked = if db.is_postgres() { "TRUE" } else { "1" };
    let err = db
        .try_exec(&format!(
            "INSERT INTO runs (player, name, date, game, size, seed, ranked)
             VALUES ('{}', 'x', '{DAY}', 'ghost', 'small', '42', {ranked})",
            key(1).as_str()
        ))
        .unwrap_err();
    assert!(err.to_lowercase().contains("unique"), "{err}");
});

both!(fn practice_runs_are_stored_but_never_ranked(db) {
    let mut b = db.open();
    play(&mut *b, 1, Size::Small, fin(30, 9_000));
    let practice = b.begin_run(&new_run(1, DAY, Size::Small)).unwrap();
    let done = b.finish_run(practice.run_id, fin(10, 1_000), &[], None).unwrap();
    assert!(!done.ranked && done.finished);
    assert_eq!(done.rank, None);
    assert_eq!(done.entrants, 1);
    assert_eq!(b.rank_of(practice.run_id).unwrap(), None);
    let board = b.leaderboard(DAY, Game::Ghost, Size::Small, Some(&key(1)), 100).unwrap();
    assert_eq!(board.entries.len(), 1);
    assert_eq!(board.entries[0].steps, 30, "the better practice score is not on the table");
    assert_eq!(board.you.as_ref().map(|y| y.steps), Some(30));
    assert!(!b.run(practice.run_id).unwrap().unwrap().ranked);
});

both!(fn ranking_is_steps_then_time_with_shared_ranks(db) {
    let mut b = db.open();
    // (player, steps, time)
    let lines =
        [(1, 20, 5_000), (2, 16, 9_000), (3, 16, 4_000), (4, 16, 4_000), (5, 18, 1_000), (6, 20, 5_000)];
    let mut ids = Vec::new();
    for (p, steps, time) in lines {
        ids.push(play(&mut *b, p, Size::Medium, fin(steps, time)).run_id);
    }
    let board = b.leaderboard(DAY, Game::Ghost, Size::Medium, None, 100).unwrap();
    let got: Vec<(u32, &str, u32, u64)> =
        board.entries.iter().map(|e| (e.rank, e.name.as_str(), e.steps, e.time_ms)).collect();
    assert_eq!(
        got,
        [
            (1, "P3", 16, 4_000),
            (1, "P4", 16, 4_000),
            (3, "P2", 16, 9_000),
            (4, "P5", 18, 1_000),
            (5, "P1", 20, 5_000),
            (5, "P6", 20, 5_000),
        ]
    );
    assert_eq!(board.entries[0].run_id, ids[2]);
    assert_eq!(board.you, None);
    // rank_of agrees with the table.
    let ranks: Vec<Option<u32>> = ids.iter().map(|&id| b.rank_of(id).unwrap()).collect();
    assert_eq!(ranks, [Some(5), Some(3), Some(1), Some(1), Some(4), Some(5)]);
    // Maze is ranked the same way: moves, then time.
    play(&mut *b, 1, Size::Easy, fin(40, 2_000));
    play(&mut *b, 2, Size::Easy, fin(30, 9_000));
    let maze = b.leaderboard(DAY, Game::Maze, Size::Easy, None, 100).unwrap();
    assert_eq!(maze.entries.iter().map(|e| e.name.as_str()).collect::<Vec<_>>(), ["P2", "P1"]);
});

both!(fn entrants_count_every_ranked_start(db) {
    let mut b = db.open();
    play(&mut *b, 1, Size::Large, fin(20, 1_000));
    play(&mut *b, 2, Size::Large, Outcome::NotFinished { steps: 25 });
    b.begin_run(&new_run(3, DAY, Size::Large)).unwrap(); // still playing
    b.begin_run(&new_run(1, DAY, Size::Large)).unwrap(); // practice: not an entrant
    b.begin_run(&new_run(4, DAY, Size::Small)).unwrap(); // another board
    b.begin_run(&new_run(5, "2026-11-28", Size::Large)).unwrap(); // another day
    let board = b.leaderboard(DAY, Game::Ghost, Size::Large, Some(&key(2)), 100).unwrap();
    assert_eq!(board.entrants, 3);
    assert_eq!(b.entrants(DAY, Game::Ghost, Size::Large).unwrap(), 3);
    assert_eq!(board.entries.len(), 1);
    assert_eq!(board.you, None, "a run that did not finish has no line");
    let empty = b.leaderboard("2026-11-27", Game::Ghost, Size::Large, None, 100).unwrap();
    assert_eq!((empty.entrants, empty.entries.len()), (0, 0));
});

both!(fn the_table_is_cut_at_the_limit_and_you_is_still_there(db) {
    let mut b = db.open();
    for p in 0..105u32 {
        play(&mut *b, p, Size::Normal, fin(100 + p, 1_000));
    }
    let board = b.leaderboard(DAY, Game::Maze, Size::Normal, Some(&key(104)), 100).unwrap();
    assert_eq!(board.entries.len(), 100);
    assert_eq!(board.entrants, 105);
    assert_eq!(board.entries.last().map(|e| e.rank), Some(100));
    let you = board.you.unwrap();
    assert_eq!((you.rank, you.name.as_str(), you.steps), (105, "P104", 204));
    // And `you` in the top 100 is the same line as in the table.
    let board = b.leaderboard(DAY, Game::Maze, Size::Normal, Some(&key(7)), 100).unwrap();
    assert_eq!(board.you.as_ref(), board.entries.get(7));
});

both!(fn streaks_count_consecutive_days_with_a_fixed_clock(db) {
    let mut b = db.open();
    // 2026-11-29T12:00Z
    let clock = FixedClock::at_unix_ms(1_795_910_400_000 + 12 * 3_600_000);
    let day = Duration::from_secs(86_400);
    let me = key(1);
    let start = |b: &mut dyn Backend, size: Size, clock: &FixedClock| {
        b.begin_run(&NewRun { date: clock.today(), ..new_run(1, DAY, size) }).unwrap()
    };
    assert_eq!(b.streak(&me, &clock.today()).unwrap(), 0);
    start(&mut *b, Size::Small, &clock); // 11-29
    assert_eq!(b.streak(&me, &clock.today()).unwrap(), 1);
    start(&mut *b, Size::Easy, &clock); // a second board the same day counts once
    start(&mut *b, Size::Small, &clock); // practice
    assert_eq!(b.streak(&me, &clock.today()).unwrap(), 1);
    clock.advance(day); // 11-30
    assert_eq!(b.streak(&me, &clock.today()).unwrap(), 1, "not played yet today: yesterday's streak stands");
    start(&mut *b, Size::Hard, &clock);
    assert_eq!(b.streak(&me, &clock.today()).unwrap(), 2);
    clock.advance(day); // 12-01, across the month
    start(&mut *b, Size::Medium, &clock);
    assert_eq!(b.streak(&me, &clock.today()).unwrap(), 3);
    // A finished run reports the streak too.
    let run = start(&mut *b, Size::Large, &clock);
    assert_eq!(b.finish_run(run.run_id, fin(20, 1), &[], None).unwrap().streak, 3);
    clock.advance(day); // 12-02: none yet
    assert_eq!(b.streak(&me, &clock.today()).unwrap(), 3);
    clock.advance(day); // 12-03: a day was missed
    assert_eq!(b.streak(&me, &clock.today()).unwrap(), 0);
    start(&mut *b, Size::Small, &clock);
    assert_eq!(b.streak(&me, &clock.today()).unwrap(), 1);
    // Looking back from an earlier day ignores later ones; other players are apart.
    assert_eq!(b.streak(&me, "2026-11-30").unwrap(), 2);
    assert_eq!(b.streak(&key(2), &clock.today()).unwrap(), 0);
    assert!(matches!(b.streak(&me, "yesterday"), Err(StoreError::Invalid(_))));
});

both!(fn the_salt_is_made_once_and_kept(db) {
    let salt = db.open().daily_salt().unwrap();
    assert_eq!(salt.len(), 32);
    assert_ne!(salt, vec![0u8; 32]);
    let mut again = db.open();
    assert_eq!(again.daily_salt().unwrap(), salt);
    assert_eq!(again.daily_salt().unwrap(), salt);
    // Another database gets its own.
    assert_ne!(mazerace_store::SqliteBackend::open_in_memory().unwrap().daily_salt().unwrap(), salt);
});

both!(fn no_new_salt_is_made_over_stored_runs(db) {
    // Runs stored under a configured salt, then the salt asked of the database:
    // a new one would silently change every stored board.
    let mut b = db.open();
    b.begin_run(&new_run(1, DAY, Size::Small)).unwrap();
    let err = b.daily_salt().unwrap_err();
    assert!(matches!(err, StoreError::Corrupt(_)) && err.to_string().contains("--daily-salt"), "{err}");
});

both!(fn a_run_ends_once_and_is_kept_whole(db) {
    let mut b = db.open();
    let run = b.begin_run(&NewRun { seed: u64::MAX, ..new_run(1, DAY, Size::Small) }).unwrap();
    let moves = [Action::Move(Dir::Up), Action::Rewind, Action::Move(Dir::Left)];
    let done = b.finish_run(run.run_id, fin(2, 61_000), &moves, Some(&[0, 400, 61_000])).unwrap();
    assert_eq!((done.rank, done.entrants, done.time_ms), (Some(1), 1, Some(61_000)));
    // The same finish again (a retry) answers as the first did, counting nothing twice.
    let again = b.finish_run(run.run_id, fin(2, 61_000), &moves, Some(&[0, 400, 61_000])).unwrap();
    assert_eq!(again, done);
    let later = play(&mut *b, 3, Size::Small, fin(3, 1));
    assert_eq!(b.rank_of(later.run_id).unwrap(), Some(2), "the repeat was not counted");
    let over = b.finish_run(run.run_id, fin(1, 1), &[], None).unwrap_err();
    assert!(matches!(over, StoreError::RunOver(id) if id == run.run_id));
    assert_eq!(over.kind(), ErrorKind::Refused);
    assert!(matches!(b.finish_run(999, fin(1, 1), &[], None), Err(StoreError::UnknownRun(999))));

    let stored = b.run(run.run_id).unwrap().unwrap();
    assert_eq!(stored.actions, moves);
    assert_eq!(stored.times_ms.as_deref(), Some(&[0, 400, 61_000][..]));
    assert_eq!(stored.seed.0, u64::MAX);
    assert_eq!((stored.state, stored.steps, stored.time_ms), (RunState::Finished, 2, Some(61_000)));
    assert_eq!(
        (stored.game, stored.size, stored.date.as_str(), stored.name.as_str()),
        (Game::Ghost, Size::Small, DAY, "P1")
    );
    let json = serde_json::to_value(&stored).unwrap();
    assert_eq!(json["seed"], "18446744073709551615");
    assert_eq!(json["actions"], serde_json::json!(["up", "rewind", "left"]));
    assert_eq!(json["times_ms"], serde_json::json!([0, 400, 61_000]));
    assert_eq!(json["state"], "finished");
    assert!(json.get("player").is_none());
    assert_eq!(b.run(12345).unwrap(), None);
    // A run stored without times (as older runs are) has none, and says nothing.
    let older = play(&mut *b, 2, Size::Small, fin(4, 1));
    let older = b.run(older.run_id).unwrap().unwrap();
    assert_eq!(older.times_ms, None);
    assert!(serde_json::to_value(&older).unwrap().get("times_ms").is_none());
});

both!(fn bad_requests_are_refused(db) {
    let mut b = db.open();
    let wrong_game = NewRun { game: Game::Maze, ..new_run(1, DAY, Size::Small) };
    assert!(matches!(b.begin_run(&wrong_game), Err(StoreError::Invalid(_))));
    assert!(matches!(b.begin_run(&new_run(1, "2026-02-30", Size::Small)), Err(StoreError::Invalid(_))));
    let err = b.leaderboard("../x", Game::Ghost, Size::Small, None, 100).unwrap_err();
    assert!(matches!(err, StoreError::Invalid(_)));
    assert_eq!(err.kind(), ErrorKind::Refused);
    let run = b.begin_run(&new_run(1, DAY, Size::Small)).unwrap();
    assert!(matches!(b.finish_run(run.run_id, fin(1, u64::MAX), &[], None), Err(StoreError::Invalid(_))));
    let one_move = [Action::Move(Dir::Up)];
    let times = b.finish_run(run.run_id, fin(1, 5), &one_move, Some(&[1, 2])).unwrap_err();
    assert!(matches!(times, StoreError::Invalid(_)), "one time per action: {times}");
    // The refused finishes changed nothing: the run can still end properly.
    assert!(b.finish_run(run.run_id, fin(1, 5), &one_move, Some(&[5])).is_ok());
});
