//! What only the SQLite backend has: the file itself (WAL, the refusal of an
//! empty file) and the upgrade of a database written by the first schema.

use mazerace_protocol::{Game, Size};
use mazerace_store::sqlite::schema::MIGRATIONS;
use mazerace_store::sqlite::{db_path, SCHEMA_VERSION};
use mazerace_store::{ErrorKind, NewRun, PlayerKey, RunState, Store, StoreError};

#[tokio::test]
async fn the_file_uses_wal() {
    let dir = tempfile::tempdir().unwrap();
    Store::open(dir.path()).await.unwrap().close().await;
    let raw = rusqlite::Connection::open(db_path(dir.path())).unwrap();
    let mode: String = raw.query_row("PRAGMA journal_mode", [], |r| r.get(0)).unwrap();
    assert_eq!(mode, "wal");
}

#[tokio::test]
async fn an_empty_file_is_refused_not_made_anew() {
    let dir = tempfile::tempdir().unwrap();
    let path = db_path(dir.path());
    std::fs::write(&path, b"").unwrap();
    let err = Store::open(dir.path()).await.expect_err("refused");
    assert!(matches!(&err, StoreError::EmptyDatabaseFile(p) if *p == path), "{err}");
    assert_eq!(err.kind(), ErrorKind::Internal);
    let text = err.to_string();
    assert!(text.contains("0 bytes") && text.contains("salt") && text.contains("backup"), "{text}");
    // The file is left as it was.
    assert_eq!(std::fs::metadata(&path).unwrap().len(), 0);
    // A missing file is a new database, as always.
    std::fs::remove_file(&path).unwrap();
    let salt = Store::open(dir.path()).await.unwrap().daily_salt().await.unwrap();
    assert_eq!(salt.len(), 32);
}

#[tokio::test]
async fn a_first_schema_database_is_upgraded_and_keeps_its_runs() {
    let dir = tempfile::tempdir().unwrap();
    let path = db_path(dir.path());
    let player = PlayerKey::from_token("old");
    {
        // A database as the first release wrote it: schema 1, one finished
        // run and one left playing by a crash.
        let raw = rusqlite::Connection::open(&path).unwrap();
        raw.execute_batch(MIGRATIONS[0]).unwrap();
        raw.pragma_update(None, "user_version", 1).unwrap();
        raw.execute("INSERT INTO meta (key, value) VALUES ('daily_salt', x'0102')", []).unwrap();
        raw.execute("INSERT INTO players (key, name) VALUES (?1, 'Old')", [player.as_str()]).unwrap();
        raw.execute_batch(
            "INSERT INTO runs (player, name, date, game, size, seed, ranked, state, steps, time_ms, actions)
             SELECT key, 'Old', '2026-11-28', 'ghost', 'small', '1', 1, 'finished', 1, 500, '[\"up\"]' FROM players;
             INSERT INTO runs (player, name, date, game, size, seed, ranked)
             SELECT key, 'Old', '2026-11-29', 'ghost', 'small', '1', 1 FROM players;",
        )
        .unwrap();
    }
    let b = Store::open(dir.path()).await.unwrap();
    let raw = rusqlite::Connection::open(&path).unwrap();
    let version: u32 = raw.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
    assert_eq!(version, SCHEMA_VERSION);
    assert_eq!(b.daily_salt().await.unwrap(), [1, 2]);
    let old = b.run(1).await.unwrap().unwrap();
    assert_eq!((old.state, old.steps, old.time_ms, old.times_ms), (RunState::Finished, 1, Some(500), None));
    // The board counters were filled from the old rows.
    let (d28, d29) = ("2026-11-28".parse().unwrap(), "2026-11-29".parse().unwrap());
    assert_eq!(b.entrants(d28, Game::Ghost, Size::Small).await.unwrap(), 1);
    assert_eq!(b.entrants(d29, Game::Ghost, Size::Small).await.unwrap(), 1);
    assert_eq!(b.rank_of(1).await.unwrap(), Some(1));
    // The run left playing belonged to the one anonymous node: its restart closes it.
    assert_eq!(b.abandon_open_runs().await.unwrap(), 1);
    assert_eq!(b.run(2).await.unwrap().unwrap().state, RunState::NotFinished);
    // The one-ranked rule still holds for the old rows.
    let again =
        NewRun { player, name: "Old".into(), date: d29, game: Game::Ghost, size: Size::Small, seed: 1 };
    assert!(!b.begin_run(again).await.unwrap().ranked);
}
