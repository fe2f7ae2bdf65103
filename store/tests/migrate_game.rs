//! Migration 9 (issue 36): a game is a value the store checks against the
//! registry in protocol/ when it reads a row, not a list in the schema. A
//! database of version 8 keeps every run exactly through the migration
//! (SQLite rebuilds `runs`; PostgreSQL drops one check), and afterwards a
//! row of a game this build does not know (one a newer build added) is
//! taken by the schema and never breaks the store: a read of that one run
//! is a clear error, a league's tables leave it out. Each test runs on
//! SQLite and (with `MAZERACE_TEST_DATABASE_URL`) on PostgreSQL.

mod common;

use common::{day, TestDb};
use mazerace_protocol::{Action, Dir, Game, Size};
use mazerace_store::league::{LeagueAnswer, LeagueRequest};
use mazerace_store::sqlite::db_path;
use mazerace_store::{ErrorKind, NewRun, Outcome, PlayerKey, RankedRow, RunState, StoreError};

fn key(n: u32) -> PlayerKey {
    PlayerKey::from_token(&format!("games-{n}"))
}

fn new_run(n: u32, date: &str, size: Size) -> NewRun {
    NewRun { player: key(n), name: format!("P{n}"), date: day(date), game: size.game(), size, seed: 7 }
}

/// Every row of `runs` in id order, each column exactly as stored: on
/// SQLite its type and bytes, on PostgreSQL the row's text form.
fn runs_rows(db: &TestDb) -> Vec<String> {
    if db.is_postgres() {
        return db.strings("SELECT r::text FROM runs r ORDER BY id");
    }
    let c = rusqlite::Connection::open(db_path(db.data_dir())).unwrap();
    let mut stmt = c.prepare("SELECT * FROM runs ORDER BY id").unwrap();
    let n = stmt.column_count();
    let rows = stmt
        .query_map([], |r| {
            (0..n).map(|i| r.get::<_, rusqlite::types::Value>(i)).collect::<Result<Vec<_>, _>>()
        })
        .unwrap();
    rows.map(|r| format!("{:?}", r.unwrap())).collect()
}

/// The columns of `runs` in order, with their types, nullability and defaults.
fn runs_columns(db: &TestDb) -> Vec<String> {
    db.strings(if db.is_postgres() {
        "SELECT column_name || ' ' || data_type || ' ' || is_nullable || ' ' || COALESCE(column_default, '')
         FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'runs'
         ORDER BY ordinal_position"
    } else {
        "SELECT name || ' ' || type || ' ' || \"notnull\" || ' ' || COALESCE(dflt_value, '') || ' ' || pk
         FROM pragma_table_info('runs') ORDER BY cid"
    })
}

/// Every index on `runs`, with its definition.
fn runs_indexes(db: &TestDb) -> Vec<String> {
    db.strings(if db.is_postgres() {
        "SELECT indexname || ': ' || indexdef FROM pg_indexes
         WHERE schemaname = current_schema() AND tablename = 'runs' ORDER BY 1"
    } else {
        "SELECT name || ': ' || sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'runs' ORDER BY name"
    })
}

/// The last run id handed out: where the next one continues from.
fn last_id(db: &TestDb) -> i64 {
    let sql = if db.is_postgres() {
        "SELECT CAST(last_value AS TEXT) FROM runs_id_seq"
    } else {
        "SELECT CAST(seq AS TEXT) FROM sqlite_sequence WHERE name = 'runs'"
    };
    db.strings(sql)[0].parse().unwrap()
}

/// A run of a game no build has (yet): what a newer build's row looks like here.
fn foreign_run(player: &PlayerKey, date: &str, state: &str, time_ms: &str) -> String {
    format!(
        "INSERT INTO runs (player, name, date, game, size, seed, ranked, state, steps, time_ms)
         VALUES ('{}', 'P1', '{date}', 'chess', 'blitz', '9', TRUE, '{state}', 30, {time_ms})",
        player.as_str()
    )
}

/// The database as version 8 left it, written by the previous build: finished
/// (one at the floor), not finished, practice and playing runs with their
/// times, nodes, addresses and board counters, a league, and the last run
/// deleted (so the sequence is past the highest id left).
fn version_8_with_runs(db: &TestDb) {
    if db.is_postgres() {
        let schema: String =
            mazerace_store::postgres::schema::MIGRATIONS[..8].iter().map(|m| format!("{m};")).collect();
        db.exec(&schema);
        db.exec(
            "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now());
             INSERT INTO schema_migrations (version) VALUES (1), (2), (3), (4), (5), (6), (7), (8);",
        );
    } else {
        std::fs::create_dir_all(db.data_dir()).unwrap();
        let schema: String =
            mazerace_store::sqlite::schema::MIGRATIONS[..8].iter().map(|m| format!("{m};")).collect();
        db.exec(&format!("{schema} PRAGMA user_version = 8;"));
    }
    assert_eq!(db.schema_version(), 8);
    let (p1, p2, p3, p4) = (key(1), key(2), key(3), key(4));
    let (p1, p2, p3, p4) = (p1.as_str(), p2.as_str(), p3.as_str(), p4.as_str());
    db.exec(&format!(
        "INSERT INTO players (key, name) VALUES ('{p1}', 'P1'), ('{p2}', 'P2'), ('{p3}', 'P3'), ('{p4}', 'P4');
         INSERT INTO runs (player, name, date, game, size, seed, ranked, state, steps, time_ms, actions,
                           started_at, ended_at, node, boot, times, address, at_floor) VALUES
           ('{p1}', 'P1', '2026-11-28', 'ghost', 'small', '7', TRUE, 'finished', 12, 3000, '[\"up\",\"left\"]',
            '2026-11-28T09:00:00.000Z', '2026-11-28T09:00:03.000Z', 'A', 'boot-a', '[0,100]', 'addr-1', FALSE),
           ('{p2}', 'P2', '2026-11-28', 'ghost', 'small', '7', TRUE, 'finished', 12, 3000, '[\"down\"]',
            '2026-11-28T09:05:00.000Z', '2026-11-28T09:05:03.000Z', 'A', 'boot-a', NULL, 'addr-1', TRUE),
           ('{p3}', 'P3', '2026-11-28', 'ghost', 'small', '7', TRUE, 'not_finished', 5, NULL, '[]',
            '2026-11-28T10:00:00.000Z', '2026-11-28T10:01:00.000Z', 'B', 'boot-b', NULL, NULL, FALSE),
           ('{p1}', 'P1', '2026-11-28', 'ghost', 'small', '7', FALSE, 'finished', 10, 2000, '[\"up\"]',
            '2026-11-28T11:00:00.000Z', '2026-11-28T11:00:02.000Z', 'A', 'boot-a', '[0]', 'addr-1', FALSE),
           ('{p4}', 'P4', '2026-11-28', 'maze', 'easy', '8', TRUE, 'playing', 0, NULL, '[]',
            '2026-11-28T12:00:00.000Z', NULL, 'B', 'boot-b', NULL, 'addr-4', FALSE),
           ('{p1}', 'P1', '2026-11-29', 'maze', 'easy', '9', TRUE, 'finished', 40, 9000, '[\"right\"]',
            '2026-11-29T08:00:00.000Z', '2026-11-29T08:00:09.000Z', '-', '', '[0]', NULL, FALSE),
           ('{p2}', 'P2', '2026-11-29', 'maze', 'easy', '9', FALSE, 'playing', 0, NULL, '[]',
            '2026-11-29T08:30:00.000Z', NULL, 'A', 'boot-a', NULL, NULL, FALSE);
         DELETE FROM runs WHERE id = 7;
         INSERT INTO board_entrants (date, game, size, shard, n) VALUES
           ('2026-11-28', 'ghost', 'small', 0, 3), ('2026-11-28', 'maze', 'easy', 0, 1),
           ('2026-11-29', 'maze', 'easy', 0, 1);
         INSERT INTO board_steps (date, game, size, steps, n) VALUES
           ('2026-11-28', 'ghost', 'small', 12, 2), ('2026-11-29', 'maze', 'easy', 40, 1);
         INSERT INTO leagues (code, name, owner) VALUES ('CLUB2222', 'Club', '{p1}');
         INSERT INTO league_members (league, player, name) VALUES (1, '{p1}', 'P1'), (1, '{p2}', 'P2');"
    ));
}

both!(async fn a_version_8_database_keeps_every_run_and_index_through_migration_9(db) {
    version_8_with_runs(db);
    let (rows, columns, indexes) = (runs_rows(db), runs_columns(db), runs_indexes(db));
    assert_eq!(rows.len(), 6);
    assert_eq!(indexes.len(), if db.is_postgres() { 6 } else { 5 }, "{indexes:#?}");
    let p1 = key(1);
    // Version 8's schema refuses a game it does not list.
    assert!(db.try_exec(&foreign_run(&p1, "2026-11-27", "playing", "NULL")).is_err());
    let checks = |db: &TestDb| {
        db.strings("SELECT conname::text FROM pg_constraint WHERE conrelid = 'runs'::regclass ORDER BY 1")
    };
    let constraints = if db.is_postgres() { checks(db) } else { vec![] };
    // Run 7 was deleted: the sequence is past the highest id left.
    let last = last_id(db);
    assert!(last >= 7, "{last}");

    let s = db.store().await;
    assert_eq!(db.schema_version(), mazerace_store::sqlite::SCHEMA_VERSION);
    // Every row is as it was, byte for byte, under the same columns and indexes.
    assert_eq!(runs_rows(db), rows);
    assert_eq!(runs_columns(db), columns);
    assert_eq!(runs_indexes(db), indexes);
    assert_eq!(last_id(db), last);
    if db.is_postgres() {
        let kept: Vec<String> = constraints.into_iter().filter(|c| c != "runs_game_check").collect();
        assert_eq!(checks(db), kept, "only the game's check is gone");
    } else {
        assert_eq!(db.strings("PRAGMA integrity_check"), ["ok"]);
        let broken = db.strings("SELECT \"table\" || ' ' || rowid FROM pragma_foreign_key_check");
        assert!(broken.is_empty(), "{broken:?}");
        // The rebuild kept foreign keys on: sound only while no table refers to runs.
        let referring = db.strings(
            "SELECT m.name FROM sqlite_master m, pragma_foreign_key_list(m.name) f
             WHERE m.type = 'table' AND f.\"table\" = 'runs'",
        );
        assert!(referring.is_empty(), "{referring:?}");
        assert!(db.strings("SELECT name FROM sqlite_master WHERE name = 'runs_new'").is_empty());
    }

    // The store reads them as the previous build did: tables, ranks (the
    // run at the floor tied on time, ahead), entrants, runs, streaks, days, leagues.
    let (d28, d29) = (day("2026-11-28"), day("2026-11-29"));
    let board = s.leaderboard(d28, Game::Ghost, Size::Small, Some(p1.clone())).await.unwrap();
    let lines: Vec<_> =
        board.entries.iter().map(|e| (e.rank, e.name.as_str(), e.steps, e.time_ms, e.run_id, e.at_floor)).collect();
    assert_eq!(lines, [(1, "P2", 12, 3000, 2, true), (2, "P1", 12, 3000, 1, false)]);
    assert_eq!((board.entrants, board.you.map(|y| (y.rank, y.run_id))), (3, Some((2, 1))));
    let ranks = [s.rank_of(1).await.unwrap(), s.rank_of(2).await.unwrap(), s.rank_of(3).await.unwrap()];
    assert_eq!(ranks, [Some(2), Some(1), None]);
    assert_eq!((s.rank_of(4).await.unwrap(), s.rank_of(6).await.unwrap()), (None, Some(1)));
    assert_eq!(s.entrants(d28, Game::Maze, Size::Easy).await.unwrap(), 1);
    let ranked = s.ranked_run(p1.clone(), d28, Game::Ghost, Size::Small).await.unwrap();
    let expected = RankedRow {
        run_id: 1,
        state: RunState::Finished,
        steps: 12,
        time_ms: Some(3000),
        at_floor: false,
        started_at: "2026-11-28T09:00:00Z".into(),
    };
    assert_eq!(ranked, Some(expected));
    let run = s.run(1).await.unwrap().unwrap();
    assert_eq!((run.date, run.game, run.size, run.seed.0, run.name.as_str()), (d28, Game::Ghost, Size::Small, 7, "P1"));
    assert_eq!(run.actions, [Action::Move(Dir::Up), Action::Move(Dir::Left)]);
    assert_eq!((run.state, run.time_ms, run.times_ms), (RunState::Finished, Some(3000), Some(vec![0, 100])));
    let all: Vec<(i64, RunState)> = s.runs_after(0, 100).await.unwrap().iter().map(|r| (r.id, r.state)).collect();
    use RunState::*;
    assert_eq!(all, [(1, Finished), (2, Finished), (3, NotFinished), (4, Finished), (5, Playing), (6, Finished)]);
    assert_eq!(s.streak(p1.clone(), d29).await.unwrap(), 2);
    let today = s.player_day(p1.clone(), d28).await.unwrap();
    let played: Vec<_> = today
        .boards
        .iter()
        .filter_map(|b| b.result.as_ref().map(|r| (b.size, r.rank, r.entrants, r.run_id)))
        .collect();
    assert_eq!(played, [(Size::Small, Some(2), 3, 1)]);
    let league = s.league_view("CLUB2222".into(), d28, d29).await.unwrap().expect("the league");
    assert_eq!(league.runs.iter().map(|r| r.run_id).collect::<Vec<_>>(), [1, 2, 6]);

    // The next run continues the sequence: the deleted run's id is not handed out again.
    let next = s.begin_run(new_run(3, "2026-11-29", Size::Easy)).await.unwrap();
    assert_eq!((next.run_id, next.ranked), (last + 1, true));
    // Every other constraint holds as before.
    let p = p1.as_str();
    for bad in [
        format!("INSERT INTO runs (player, name, date, game, size, seed, ranked) VALUES ('{p}', 'x', '2026-1-1', 'maze', 'easy', '1', TRUE)"),
        format!("INSERT INTO runs (player, name, date, game, size, seed, ranked, state) VALUES ('{p}', 'x', '2026-11-27', 'maze', 'easy', '1', TRUE, 'won')"),
        format!("INSERT INTO runs (player, name, date, game, size, seed, ranked, state) VALUES ('{p}', 'x', '2026-11-27', 'maze', 'easy', '1', TRUE, 'finished')"),
        format!("INSERT INTO runs (player, name, date, game, size, seed, ranked, steps) VALUES ('{p}', 'x', '2026-11-27', 'maze', 'easy', '1', TRUE, -1)"),
        format!("INSERT INTO runs (player, name, date, game, size, seed, ranked) VALUES ('{}', 'x', '2026-11-27', 'maze', 'easy', '1', TRUE)", key(9).as_str()),
        format!("INSERT INTO runs (player, name, date, game, size, seed, ranked) VALUES ('{p}', 'x', '2026-11-28', 'ghost', 'small', '1', TRUE)"),
    ] {
        assert!(db.try_exec(&bad).is_err(), "refused: {bad}");
    }
    // And a game the schema does not list is taken: adding one is not a migration.
    db.exec(&foreign_run(&p1, "2026-11-27", "playing", "NULL"));
    s.close().await;
});

both!(async fn a_run_of_a_game_this_build_does_not_know_is_an_error_alone_and_left_out_of_leagues(db) {
    let s = db.store().await;
    let p1 = key(1);
    let (d27, d28) = (day("2026-11-27"), day("2026-11-28"));
    let mine = s.begin_run(new_run(1, "2026-11-28", Size::Small)).await.unwrap().run_id;
    let done = Outcome::Finished { steps: 12, time_ms: 3000, at_floor: false };
    s.finish_run(mine, done, vec![], None).await.unwrap();
    // A newer build's game, on the day before (ranked, finished and counted
    // as that build counts it) and today (playing).
    db.exec(&foreign_run(&p1, "2026-11-27", "finished", "5000"));
    db.exec(
        "INSERT INTO board_entrants (date, game, size, shard, n) VALUES ('2026-11-27', 'chess', 'blitz', 0, 1);
         INSERT INTO board_steps (date, game, size, steps, n) VALUES ('2026-11-27', 'chess', 'blitz', 30, 1);",
    );
    db.exec(&foreign_run(&p1, "2026-11-28", "playing", "NULL"));
    let ids = db.strings("SELECT CAST(id AS TEXT) FROM runs WHERE game = 'chess' ORDER BY id");
    let (finished, playing): (i64, i64) = (ids[0].parse().unwrap(), ids[1].parse().unwrap());

    // One run read alone: a clear error naming the game, never a panic.
    let unknown = |e: StoreError| {
        assert!(matches!(e, StoreError::Corrupt(_)), "{e}");
        assert_eq!(e.kind(), ErrorKind::Internal);
        let text = e.to_string();
        assert!(text.contains("\"chess\"") && text.contains("not one this build knows"), "{text}");
    };
    unknown(s.run(finished).await.unwrap_err());
    unknown(s.rank_of(finished).await.unwrap_err());
    // The verifier's pages fail rather than skip it: it cannot replay that run.
    unknown(s.runs_after(0, 100).await.unwrap_err());
    unknown(mazerace_store::verify(&s, None).await.unwrap_err());
    // It cannot be ended here: refused before anything is written or counted.
    let counts = "SELECT CAST(COUNT(*) AS TEXT) FROM board_steps WHERE game = 'chess'";
    unknown(s.finish_run(playing, done, vec![], None).await.unwrap_err());
    let state = db.strings(&format!("SELECT state FROM runs WHERE id = {playing}"));
    assert_eq!((state, db.strings(counts)), (vec!["playing".to_owned()], vec!["1".to_owned()]));
    if db.is_postgres() {
        assert_eq!(db.strings("SELECT COUNT(*)::text FROM board_step_shards WHERE game = 'chess'"), ["0"]);
    }

    // The boards of this build's games are untouched by it.
    let board = s.leaderboard(d28, Game::Ghost, Size::Small, Some(p1.clone())).await.unwrap();
    assert_eq!((board.entrants, board.entries.len(), board.you.map(|y| y.rank)), (1, 1, Some(1)));
    let today = s.player_day(p1.clone(), d28).await.unwrap();
    assert_eq!(today.boards.iter().filter(|b| b.played).count(), 1);
    // A ranked run of any game is a day played: the streak counts it, as
    // the newer build does.
    assert_eq!((today.streak, s.streak(p1.clone(), d28).await.unwrap()), (2, 2));
    // A league's tables leave it out: this build shows no board of that game.
    let create = LeagueRequest::Create {
        player: p1.as_str().into(),
        player_name: "P1".into(),
        name: "Club".into(),
        code: "CLUB3333".into(),
        max_leagues: 2,
        cap: None,
    };
    assert!(matches!(s.league(create).await.unwrap(), LeagueAnswer::League(_)));
    let view = s.league_view("CLUB3333".into(), d27, d28).await.unwrap().expect("the league");
    assert_eq!(view.runs.iter().map(|r| r.run_id).collect::<Vec<_>>(), [mine]);
    assert_eq!(view.streaks, [(p1.as_str().to_owned(), 2)]);
    let runs = s.league(LeagueRequest::Runs { code: "CLUB3333".into(), from: d27, to: d28 }).await.unwrap();
    assert!(matches!(&runs, LeagueAnswer::Runs(r) if r.len() == 1 && r[0].run_id == mine), "{runs:?}");
    s.close().await;
});
