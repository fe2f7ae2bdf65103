//! Every backend, through the store: migrations, the one-ranked-run rule,
//! ranking and ties, entrants, `you`, the top-100 cut, streaks, the salt,
//! replay records, paging, and refused requests. Each test runs on SQLite
//! and (with `MAZERACE_TEST_DATABASE_URL`) on PostgreSQL.

mod common;

use std::time::Duration;

use common::day;
use mazerace_protocol::daily::DailyDate;
use mazerace_protocol::{Action, Dir, Game, Size};
use mazerace_store::{
    BeginRun, Clock, ErrorKind, FixedClock, NewRun, Outcome, PlayerKey, RunState, Store, StoreError,
};

const DAY: &str = "2026-11-29";

fn key(n: u32) -> PlayerKey {
    PlayerKey::from_token(&format!("token-{n}"))
}

fn new_run(player: u32, date: DailyDate, size: Size) -> NewRun {
    NewRun { player: key(player), name: format!("P{player}"), date, game: size.game(), size, seed: 42 }
}

/// Begin and finish one run; returns its id and whether it was ranked.
async fn play(s: &Store, player: u32, size: Size, outcome: Outcome) -> BeginRun {
    let begun = s.begin_run(new_run(player, day(DAY), size)).await.unwrap();
    s.finish_run(begun.run_id, outcome, vec![Action::Move(Dir::Right)], None).await.unwrap();
    begun
}

fn fin(steps: u32, time_ms: u64) -> Outcome {
    Outcome::Finished { steps, time_ms, at_floor: false }
}

both!(async fn a_fresh_database_is_migrated_and_reopens(db) {
    let s = db.store().await;
    s.begin_run(new_run(1, day(DAY), Size::Small)).await.unwrap();
    s.close().await;
    assert_eq!(db.schema_version(), mazerace_store::sqlite::SCHEMA_VERSION);
    let mut tables = vec!["board_entrants", "board_steps", "league_members", "leagues", "meta", "nodes", "players", "runs"];
    if db.is_postgres() {
        // Version 5's sharded step counters (SQLite has one writer: no need).
        tables.insert(1, "board_step_shards");
        tables.push("schema_migrations");
    }
    assert_eq!(db.tables(), tables);
    // Reopening runs no migration twice and keeps the data.
    let s = db.store().await;
    assert_eq!(s.runs_after(0, 10).await.unwrap().len(), 1);
    assert_eq!(db.schema_version(), mazerace_store::sqlite::SCHEMA_VERSION);
    s.close().await;
});

#[test]
fn both_backends_know_the_same_schema_versions() {
    assert_eq!(mazerace_store::sqlite::SCHEMA_VERSION, mazerace_store::postgres::SCHEMA_VERSION);
}

both!(async fn a_newer_schema_is_refused_with_a_clear_message(db) {
    db.store().await.close().await;
    let newer = mazerace_store::sqlite::SCHEMA_VERSION + 1;
    db.set_schema_version(newer);
    let err = Store::connect(db.database(), Default::default()).await.expect_err("refused");
    assert!(matches!(err, StoreError::SchemaTooNew { found, .. } if found == newer), "{err}");
    assert!(err.to_string().contains("newer than this build knows"), "{err}");
});

both!(async fn only_the_first_start_is_ranked_even_across_reopen(db) {
    let s = db.store().await;
    let first = s.begin_run(new_run(1, day(DAY), Size::Small)).await.unwrap();
    assert!(first.ranked);
    // Starting is final: even before finishing, a second start is practice.
    let second = s.begin_run(new_run(1, day(DAY), Size::Small)).await.unwrap();
    assert!(!second.ranked);
    assert_ne!(second.run_id, first.run_id);
    s.close().await;
    let s = db.store().await;
    let third = s.begin_run(new_run(1, day(DAY), Size::Small)).await.unwrap();
    assert!(!third.ranked);
    assert!(third.run_id > first.run_id);
    // Other boards, days and players each get their own ranked run.
    assert!(s.begin_run(new_run(1, day(DAY), Size::Medium)).await.unwrap().ranked);
    assert!(s.begin_run(new_run(1, day(DAY), Size::Easy)).await.unwrap().ranked);
    assert!(s.begin_run(new_run(1, day("2026-11-30"), Size::Small)).await.unwrap().ranked);
    assert!(s.begin_run(new_run(2, day(DAY), Size::Small)).await.unwrap().ranked);

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

both!(async fn practice_runs_are_stored_but_never_ranked(db) {
    let s = db.store().await;
    play(&s, 1, Size::Small, fin(30, 9_000)).await;
    let practice = s.begin_run(new_run(1, day(DAY), Size::Small)).await.unwrap();
    let done = s.finish_run(practice.run_id, fin(10, 1_000), vec![], None).await.unwrap();
    assert!(!done.ranked && done.finished);
    assert_eq!(done.rank, None);
    assert_eq!(done.entrants, 1);
    assert_eq!(s.rank_of(practice.run_id).await.unwrap(), None);
    let board = s.leaderboard(day(DAY), Game::Ghost, Size::Small, Some(key(1))).await.unwrap();
    assert_eq!(board.entries.len(), 1);
    assert_eq!(board.entries[0].steps, 30, "the better practice score is not on the table");
    assert_eq!(board.you.as_ref().map(|y| y.steps), Some(30));
    assert!(!s.run(practice.run_id).await.unwrap().unwrap().ranked);
});

both!(async fn runs_at_the_floor_tie_on_time_and_the_table_flags_them(db) {
    let s = db.store().await;
    let floor = |steps, time_ms| Outcome::Finished { steps, time_ms, at_floor: true };
    // (player, outcome): a human at 9 s, two at the floor (3 s, 2.9 s) on
    // the same steps, one at the floor with more steps.
    let lines = [(1, fin(36, 9_000)), (2, floor(36, 3_000)), (3, floor(36, 2_900)), (4, floor(40, 2_000))];
    let mut ranks = Vec::new();
    let mut ids = Vec::new();
    for (p, outcome) in lines {
        let begun = s.begin_run(new_run(p, day(DAY), Size::Easy)).await.unwrap();
        ranks.push(s.finish_run(begun.run_id, outcome, vec![], None).await.unwrap().rank);
        ids.push(begun.run_id);
    }
    assert_eq!(ranks, [Some(1), Some(1), Some(1), Some(4)], "each as it finished");
    let board = s.leaderboard(day(DAY), Game::Maze, Size::Easy, Some(key(1))).await.unwrap();
    let got: Vec<(u32, &str, u64, bool)> =
        board.entries.iter().map(|e| (e.rank, e.name.as_str(), e.time_ms, e.at_floor)).collect();
    assert_eq!(
        got,
        [(1, "P2", 3_000, true), (1, "P3", 2_900, true), (3, "P1", 9_000, false), (4, "P4", 2_000, true)],
        "steps first; at the floor a tie on time, shown with its real time"
    );
    assert_eq!(board.you.as_ref().map(|y| (y.rank, y.at_floor)), Some((3, false)));
    assert_eq!(s.rank_of(ids[2]).await.unwrap(), Some(1));
    let day_of_p3 = s.player_day(key(3), day(DAY)).await.unwrap();
    let easy = day_of_p3.boards.iter().find(|b| b.size == Size::Easy).and_then(|b| b.result.as_ref());
    assert_eq!(easy.and_then(|r| r.rank), Some(1));
});

both!(async fn ranking_is_steps_then_time_with_shared_ranks(db) {
    let s = db.store().await;
    // (player, steps, time)
    let lines =
        [(1, 20, 5_000), (2, 16, 9_000), (3, 16, 4_000), (4, 16, 4_000), (5, 18, 1_000), (6, 20, 5_000)];
    let mut ids = Vec::new();
    for (p, steps, time) in lines {
        ids.push(play(&s, p, Size::Medium, fin(steps, time)).await.run_id);
    }
    let board = s.leaderboard(day(DAY), Game::Ghost, Size::Medium, None).await.unwrap();
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
    let mut ranks = Vec::new();
    for &id in &ids {
        ranks.push(s.rank_of(id).await.unwrap());
    }
    assert_eq!(ranks, [Some(5), Some(3), Some(1), Some(1), Some(4), Some(5)]);
    // Maze is ranked the same way: moves, then time.
    play(&s, 1, Size::Easy, fin(40, 2_000)).await;
    play(&s, 2, Size::Easy, fin(30, 9_000)).await;
    let maze = s.leaderboard(day(DAY), Game::Maze, Size::Easy, None).await.unwrap();
    assert_eq!(maze.entries.iter().map(|e| e.name.as_str()).collect::<Vec<_>>(), ["P2", "P1"]);
});

both!(async fn entrants_count_every_ranked_start(db) {
    let s = db.store().await;
    play(&s, 1, Size::Large, fin(20, 1_000)).await;
    play(&s, 2, Size::Large, Outcome::NotFinished { steps: 25 }).await;
    s.begin_run(new_run(3, day(DAY), Size::Large)).await.unwrap(); // still playing
    s.begin_run(new_run(1, day(DAY), Size::Large)).await.unwrap(); // practice: not an entrant
    s.begin_run(new_run(4, day(DAY), Size::Small)).await.unwrap(); // another board
    s.begin_run(new_run(5, day("2026-11-28"), Size::Large)).await.unwrap(); // another day
    let board = s.leaderboard(day(DAY), Game::Ghost, Size::Large, Some(key(2))).await.unwrap();
    assert_eq!(board.entrants, 3);
    assert_eq!(s.entrants(day(DAY), Game::Ghost, Size::Large).await.unwrap(), 3);
    assert_eq!(board.entries.len(), 1);
    assert_eq!(board.you, None, "a run that did not finish has no line");
    let empty = s.leaderboard(day("2026-11-27"), Game::Ghost, Size::Large, None).await.unwrap();
    assert_eq!((empty.entrants, empty.entries.len()), (0, 0));
});

both!(async fn the_table_is_cut_at_the_limit_and_you_is_still_there(db) {
    let s = db.store().await;
    for p in 0..105u32 {
        play(&s, p, Size::Normal, fin(100 + p, 1_000)).await;
    }
    let board = s.leaderboard(day(DAY), Game::Maze, Size::Normal, Some(key(104))).await.unwrap();
    assert_eq!(board.entries.len(), 100);
    assert_eq!(board.entrants, 105);
    assert_eq!(board.entries.last().map(|e| e.rank), Some(100));
    let you = board.you.unwrap();
    assert_eq!((you.rank, you.name.as_str(), you.steps), (105, "P104", 204));
    // And `you` in the top 100 is the same line as in the table.
    let board = s.leaderboard(day(DAY), Game::Maze, Size::Normal, Some(key(7))).await.unwrap();
    assert_eq!(board.you.as_ref(), board.entries.get(7));
});

both!(async fn streaks_count_consecutive_days_with_a_fixed_clock(db) {
    let s = db.store().await;
    // 2026-11-29T12:00Z
    let clock = FixedClock::at_unix_ms(1_795_910_400_000 + 12 * 3_600_000);
    let one_day = Duration::from_secs(86_400);
    let me = || key(1);
    let start = |size: Size, clock: &FixedClock| s.begin_run(new_run(1, clock.today(), size));
    assert_eq!(s.streak(me(), clock.today()).await.unwrap(), 0);
    start(Size::Small, &clock).await.unwrap(); // 11-29
    assert_eq!(s.streak(me(), clock.today()).await.unwrap(), 1);
    start(Size::Easy, &clock).await.unwrap(); // a second board the same day counts once
    start(Size::Small, &clock).await.unwrap(); // practice
    assert_eq!(s.streak(me(), clock.today()).await.unwrap(), 1);
    clock.advance(one_day); // 11-30
    assert_eq!(s.streak(me(), clock.today()).await.unwrap(), 1, "not played yet today: yesterday's streak stands");
    start(Size::Hard, &clock).await.unwrap();
    assert_eq!(s.streak(me(), clock.today()).await.unwrap(), 2);
    clock.advance(one_day); // 12-01, across the month
    start(Size::Medium, &clock).await.unwrap();
    assert_eq!(s.streak(me(), clock.today()).await.unwrap(), 3);
    // A finished run reports the streak too.
    let run = start(Size::Large, &clock).await.unwrap();
    assert_eq!(s.finish_run(run.run_id, fin(20, 1), vec![], None).await.unwrap().streak, 3);
    clock.advance(one_day); // 12-02: none yet
    assert_eq!(s.streak(me(), clock.today()).await.unwrap(), 3);
    clock.advance(one_day); // 12-03: a day was missed
    assert_eq!(s.streak(me(), clock.today()).await.unwrap(), 0);
    start(Size::Small, &clock).await.unwrap();
    assert_eq!(s.streak(me(), clock.today()).await.unwrap(), 1);
    // Looking back from an earlier day ignores later ones; other players are apart.
    assert_eq!(s.streak(me(), day("2026-11-30")).await.unwrap(), 2);
    assert_eq!(s.streak(key(2), clock.today()).await.unwrap(), 0);
});

both!(async fn the_salt_is_made_once_and_kept(db) {
    let salt = db.store().await.daily_salt().await.unwrap();
    assert_eq!(salt.len(), 32);
    assert_ne!(salt, vec![0u8; 32]);
    let again = db.store().await;
    assert_eq!(again.daily_salt().await.unwrap(), salt);
    assert_eq!(again.daily_salt().await.unwrap(), salt);
    // Another database gets its own.
    assert_ne!(Store::open_in_memory().unwrap().daily_salt().await.unwrap(), salt);
});

both!(async fn no_new_salt_is_made_over_stored_runs(db) {
    // Runs stored under a configured salt, then the salt asked of the database:
    // a new one would silently change every stored board.
    let s = db.store().await;
    s.begin_run(new_run(1, day(DAY), Size::Small)).await.unwrap();
    let err = s.daily_salt().await.unwrap_err();
    assert!(matches!(err, StoreError::Corrupt(_)) && err.to_string().contains("--daily-salt"), "{err}");
});

both!(async fn a_run_ends_once_and_is_kept_whole(db) {
    let s = db.store().await;
    let run = s.begin_run(NewRun { seed: u64::MAX, ..new_run(1, day(DAY), Size::Small) }).await.unwrap();
    let moves = vec![Action::Move(Dir::Up), Action::Rewind, Action::Move(Dir::Left)];
    let times = Some(vec![0, 400, 61_000]);
    let done = s.finish_run(run.run_id, fin(2, 61_000), moves.clone(), times.clone()).await.unwrap();
    assert_eq!((done.rank, done.entrants, done.time_ms), (Some(1), 1, Some(61_000)));
    // The same finish again (a retry) answers as the first did, counting nothing twice.
    let again = s.finish_run(run.run_id, fin(2, 61_000), moves.clone(), times.clone()).await.unwrap();
    assert_eq!(again, done);
    let later = play(&s, 3, Size::Small, fin(3, 1)).await;
    assert_eq!(s.rank_of(later.run_id).await.unwrap(), Some(2), "the repeat was not counted");
    let over = s.finish_run(run.run_id, fin(1, 1), vec![], None).await.unwrap_err();
    assert!(matches!(over, StoreError::RunOver(id) if id == run.run_id));
    assert_eq!(over.kind(), ErrorKind::Refused);
    assert!(matches!(s.finish_run(999, fin(1, 1), vec![], None).await, Err(StoreError::UnknownRun(999))));

    let stored = s.run(run.run_id).await.unwrap().unwrap();
    assert_eq!(stored.actions, moves);
    assert_eq!(stored.times_ms, times);
    assert_eq!(stored.seed.0, u64::MAX);
    assert_eq!((stored.state, stored.steps, stored.time_ms), (RunState::Finished, 2, Some(61_000)));
    assert_eq!((stored.game, stored.size, stored.date, stored.name.as_str()), (Game::Ghost, Size::Small, day(DAY), "P1"));
    let json = serde_json::to_value(&stored).unwrap();
    assert_eq!(json["seed"], "18446744073709551615");
    assert_eq!(json["date"], DAY);
    assert_eq!(json["actions"], serde_json::json!(["up", "rewind", "left"]));
    assert_eq!(json["times_ms"], serde_json::json!([0, 400, 61_000]));
    assert_eq!(json["state"], "finished");
    assert!(json.get("player").is_none());
    assert_eq!(s.run(12345).await.unwrap(), None);
    // A run stored without times (as older runs are) has none, and says nothing.
    let older = play(&s, 2, Size::Small, fin(4, 1)).await;
    let older = s.run(older.run_id).await.unwrap().unwrap();
    assert_eq!(older.times_ms, None);
    assert!(serde_json::to_value(&older).unwrap().get("times_ms").is_none());
});

both!(async fn bad_requests_are_refused(db) {
    let s = db.store().await;
    let wrong_game = NewRun { game: Game::Maze, ..new_run(1, day(DAY), Size::Small) };
    assert!(matches!(s.begin_run(wrong_game).await, Err(StoreError::Invalid(_))));
    let err = s.leaderboard(day(DAY), Game::Maze, Size::Small, None).await.unwrap_err();
    assert!(matches!(err, StoreError::Invalid(_)));
    assert_eq!(err.kind(), ErrorKind::Refused);
    let run = s.begin_run(new_run(1, day(DAY), Size::Small)).await.unwrap();
    assert!(matches!(s.finish_run(run.run_id, fin(1, u64::MAX), vec![], None).await, Err(StoreError::Invalid(_))));
    let one_move = vec![Action::Move(Dir::Up)];
    let times = s.finish_run(run.run_id, fin(1, 5), one_move.clone(), Some(vec![1, 2])).await.unwrap_err();
    assert!(matches!(times, StoreError::Invalid(_)), "one time per action: {times}");
    // The refused finishes changed nothing: the run can still end properly.
    assert!(s.finish_run(run.run_id, fin(1, 5), one_move, Some(vec![5])).await.is_ok());
});

both!(async fn a_date_that_does_not_parse_in_storage_is_corrupt_not_a_panic(db) {
    let s = db.store().await;
    let run = s.begin_run(new_run(1, day(DAY), Size::Small)).await.unwrap();
    // Past the schema's own check (SQLite's GLOB, PostgreSQL's pattern): a
    // month 13 has the shape of a date.
    db.exec(&format!("UPDATE runs SET date = '2026-13-01' WHERE id = {}", run.run_id));
    let err = s.run(run.run_id).await.unwrap_err();
    assert!(matches!(err, StoreError::Corrupt(_)) && err.to_string().contains("2026-13-01"), "{err}");
});
