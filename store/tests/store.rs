//! The async handle: durability through it, many concurrent callers, the
//! bounded queue (reads refused as busy, writes waiting), shutdown that
//! finishes queued work first, and group commit: finishes waiting together
//! are committed in one transaction, each caller learns its own outcome,
//! and an error in one finish fails only that one. The database-facing
//! tests run on both backends.

mod common;

use std::future::Future;
use std::time::{Duration, Instant};

use common::{day, TestDb};
use mazerace_protocol::{Action, Dir, Game, Size};
use mazerace_store::{ErrorKind, FinishedRun, NewRun, NodeOptions, Outcome, PlayerKey, Store, StoreError};

const DAY: &str = "2026-11-29";

fn new_run(player: u32, size: Size) -> NewRun {
    NewRun {
        player: PlayerKey::from_token(&format!("token-{player}")),
        name: format!("P{player}"),
        date: day(DAY),
        game: size.game(),
        size,
        seed: 7,
    }
}

/// Poll a future once and drop it. A request takes its place in the queue
/// on that first poll (or finds no room), so this fills the queue without
/// waiting; the request stays queued and is still carried out.
async fn poll_once<F: Future>(f: F) -> Option<F::Output> {
    tokio::select! {
        biased;
        out = f => Some(out),
        () = std::future::ready(()) => None,
    }
}

/// Waits until `cond` holds (the condition is polled: nothing announces it).
async fn until(what: &str, mut cond: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !cond() {
        assert!(Instant::now() < deadline, "never: {what}");
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

both!(async fn acknowledged_results_survive_dropping_everything(db) {
    let store = db.store().await;
    store.ping().await.unwrap();
    let salt = store.daily_salt().await.unwrap();
    let mut acked = Vec::new();
    for p in 0..5 {
        let run = store.begin_run(new_run(p, Size::Easy)).await.unwrap();
        let outcome = Outcome::Finished { steps: 20 + p, time_ms: 1_000, at_floor: false };
        acked.push(store.finish_run(run.run_id, outcome, vec![Action::Move(Dir::Down)], Some(vec![0])).await.unwrap());
    }
    // No close: the handle is just dropped, as in a crash of the async side.
    drop(store);
    // A fresh store on the same database sees every acknowledged result.
    let again = db.store().await;
    assert_eq!(again.daily_salt().await.unwrap(), salt);
    for done in &acked {
        let run = again.run(done.run_id).await.unwrap().unwrap();
        assert_eq!((run.steps, run.time_ms, run.actions.len()), (done.steps, done.time_ms, 1));
        assert_eq!(again.rank_of(done.run_id).await.unwrap(), done.rank);
    }
    let board = again.leaderboard(day(DAY), Game::Maze, Size::Easy, None).await.unwrap();
    assert_eq!(board.entrants, 5);
});

both!(async fn close_finishes_queued_work_then_reopen_sees_it(db) {
    let store = db.store().await;
    // Fire-and-forget writes: queued, nobody waits for their answers.
    for p in 0..20 {
        assert!(poll_once(store.begin_run(new_run(p, Size::Small))).await.is_none());
    }
    store.close().await;

    let store = db.store().await;
    let board = store.leaderboard(day(DAY), Game::Ghost, Size::Small, None).await.unwrap();
    assert_eq!(board.entrants, 20);
    let again = store.begin_run(new_run(0, Size::Small)).await.unwrap();
    assert!(!again.ranked, "the ranked start was kept across the restart");
    let report = mazerace_store::verify(&store, None).await.unwrap();
    assert_eq!((report.checked, report.open), (0, 21));
    assert_eq!(store.abandon_open_runs().await.unwrap(), 21);
    store.close().await;
});

both!(async fn many_concurrent_callers_are_all_answered(db) {
    let store = db.store().await;
    let mut tasks = tokio::task::JoinSet::new();
    for p in 0..64u32 {
        let store = store.clone();
        tasks.spawn(async move {
            let size = if p % 2 == 0 { Size::Medium } else { Size::Hard };
            let first = store.begin_run(new_run(p, size)).await?;
            let second = store.begin_run(new_run(p, size)).await?;
            let outcome = Outcome::Finished { steps: 10 + p % 5, time_ms: u64::from(p), at_floor: false };
            let done = store.finish_run(first.run_id, outcome, vec![], None).await?;
            Ok::<_, StoreError>((first, second, done))
        });
    }
    let mut answered = 0;
    while let Some(joined) = tasks.join_next().await {
        let (first, second, done) = joined.unwrap().unwrap();
        assert!(first.ranked && !second.ranked);
        assert!(done.rank.is_some());
        answered += 1;
    }
    assert_eq!(answered, 64);
    for (game, size) in [(Game::Ghost, Size::Medium), (Game::Maze, Size::Hard)] {
        let board = store.leaderboard(day(DAY), game, size, None).await.unwrap();
        assert_eq!((board.entrants, board.entries.len()), (32, 32));
    }
    let commits = store.commits();
    assert_eq!(commits.finishes, 64);
    assert!(commits.batches >= 1 && commits.batches <= 64, "{commits:?}");
    store.close().await;
});

#[tokio::test]
async fn opening_an_impossible_directory_fails_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("not-a-dir");
    std::fs::write(&file, b"x").unwrap();
    assert!(matches!(Store::open(file.join("data")).await, Err(StoreError::Io(_))));
}

/// Holds SQLite's one write lock from another connection until dropped (or
/// released): the store's next write waits inside its busy timeout.
struct WriteLock(rusqlite::Connection);

impl WriteLock {
    fn take(db: &TestDb) -> WriteLock {
        let c = rusqlite::Connection::open(mazerace_store::sqlite::db_path(db.data_dir())).unwrap();
        c.execute_batch("BEGIN IMMEDIATE").unwrap();
        WriteLock(c)
    }

    fn release(self) {
        self.0.execute_batch("COMMIT").unwrap();
    }
}

#[tokio::test]
async fn a_full_queue_refuses_reads_but_holds_writes_and_close_waits() {
    let db = TestDb::sqlite();
    let store = Store::connect_with_queue(db.database(), NodeOptions::default(), 2).await.unwrap();
    let lock = WriteLock::take(&db);
    // The worker is held inside a write (it waits for the lock), and the
    // second place in the queue goes to a read nobody waits for.
    let blocked = tokio::spawn({
        let store = store.clone();
        async move { store.begin_run(new_run(1, Size::Small)).await }
    });
    until("the blocked write holds its place", || store.queued() == 1).await;
    assert!(poll_once(store.rank_of(2)).await.is_none());
    assert_eq!(store.queued(), 2);
    // Reads are refused at once, typed as "try again"...
    let busy = store.leaderboard(day(DAY), Game::Ghost, Size::Small, None).await.unwrap_err();
    assert!(matches!(busy, StoreError::Busy));
    assert_eq!(busy.kind(), ErrorKind::Busy);
    let player_day = store.player_day(PlayerKey::from_token("a"), day(DAY)).await.unwrap_err();
    assert_eq!(player_day.kind(), ErrorKind::Busy);
    assert!(matches!(store.run(1).await, Err(StoreError::Busy)));
    // ... a write waits for room instead.
    let write = tokio::spawn({
        let store = store.clone();
        async move { store.begin_run(new_run(2, Size::Small)).await }
    });
    lock.release();
    assert!(blocked.await.unwrap().unwrap().ranked);
    assert!(write.await.unwrap().unwrap().ranked);
    // Reads are served again once there is room.
    let board = store.leaderboard(day(DAY), Game::Ghost, Size::Small, None).await.unwrap();
    assert_eq!(board.entrants, 2);
    store.close().await;
    // Closed means closed: the file is free for another writer at once.
    let c = rusqlite::Connection::open(mazerace_store::sqlite::db_path(db.data_dir())).unwrap();
    c.busy_timeout(Duration::ZERO).unwrap();
    c.execute_batch("BEGIN IMMEDIATE; COMMIT").unwrap();
}

/// Holds the store's finishes back until released. SQLite: its write lock
/// is taken and a start occupies the worker, waiting for it, so every
/// finish queued meanwhile waits behind. PostgreSQL: the step counters every
/// batch writes are locked, so the batches in flight wait.
enum Hold {
    Sqlite(WriteLock, tokio::task::JoinHandle<Result<mazerace_store::BeginRun, StoreError>>),
    Postgres(tokio_postgres::Client),
}

impl Hold {
    async fn take(db: &TestDb, store: &Store) -> Hold {
        if !db.is_postgres() {
            let lock = WriteLock::take(db);
            let before = store.queued();
            let s = store.clone();
            let start = tokio::spawn(async move { s.begin_run(new_run(9_999, Size::Small)).await });
            until("the start occupies the worker", || store.queued() > before).await;
            return Hold::Sqlite(lock, start);
        }
        let (client, conn) = tokio_postgres::connect(&db.url(), tokio_postgres::NoTls).await.unwrap();
        tokio::spawn(conn);
        client.batch_execute("BEGIN; LOCK TABLE board_step_shards IN EXCLUSIVE MODE").await.unwrap();
        Hold::Postgres(client)
    }

    async fn release(self) {
        match self {
            Hold::Sqlite(lock, start) => {
                lock.release();
                assert!(start.await.unwrap().unwrap().ranked);
            }
            Hold::Postgres(client) => client.batch_execute("COMMIT").await.unwrap(),
        }
    }
}

/// Begun ranked runs on one board, one per player from `first`.
async fn begun(store: &Store, first: u32, n: u32) -> Vec<i64> {
    let mut ids = Vec::new();
    for p in first..first + n {
        ids.push(store.begin_run(new_run(p, Size::Large)).await.unwrap().run_id);
    }
    ids
}

/// Queue one finish per `(run, steps)`, in order, each queued before the
/// next (the queue's depth says so); their answers come back in order.
async fn queue_finishes(
    store: &Store,
    finishes: &[(i64, u32)],
) -> Vec<tokio::task::JoinHandle<Result<FinishedRun, StoreError>>> {
    let mut answers = Vec::new();
    for &(run_id, steps) in finishes {
        let before = store.queued();
        let s = store.clone();
        answers.push(tokio::spawn(async move {
            s.finish_run(run_id, Outcome::Finished { steps, time_ms: 1_000, at_floor: false }, vec![], None)
                .await
        }));
        until("the finish is queued", || store.queued() > before).await;
    }
    answers
}

both!(async fn finishes_waiting_together_commit_in_one_transaction_each_with_its_own_rank(db) {
    let store = db.store().await;
    let ids = begun(&store, 1, 40).await;
    let hold = Hold::take(db, &store).await;
    // 40 finishes wait together; the step counts fall as they go, so each
    // is better than every one before it.
    let plan: Vec<(i64, u32)> = ids.iter().enumerate().map(|(i, &id)| (id, 100 - i as u32)).collect();
    let answers = queue_finishes(&store, &plan).await;
    let before = store.commits();
    hold.release().await;
    let mut ranks = Vec::new();
    for a in answers {
        ranks.push(a.await.unwrap().unwrap().rank);
    }
    // Each rank is the board's as the batch commits: the i-th is behind the
    // 39 - i after it. (PostgreSQL's batches in flight together see each
    // other only once committed, so an earlier batch may rank ahead of the
    // later ones, never behind: the batch statement's own ranks are tested
    // in `postgres/finish.rs`.)
    let as_committed: Vec<Option<u32>> = (0..40).map(|i| Some(40 - i)).collect();
    if db.is_postgres() {
        assert!(ranks.iter().zip(&as_committed).all(|(r, most)| r.is_some() && r <= most), "{ranks:?}");
    } else {
        assert_eq!(ranks, as_committed);
    }
    let after = store.commits();
    assert_eq!(after.finishes - before.finishes, 40);
    // SQLite: one batch (the worker took them all at once). PostgreSQL: its
    // two committers each took a batch while the counters were locked, and
    // the rest went together once one was free.
    let most = if db.is_postgres() { 1 + mazerace_store::postgres::COMMITTERS as u64 } else { 1 };
    assert!(after.batches - before.batches <= most, "{before:?} -> {after:?}");
    // The table agrees: the last is first, the first is last.
    let board = store.leaderboard(day(DAY), Game::Ghost, Size::Large, None).await.unwrap();
    assert_eq!(board.entries[0].run_id, ids[39]);
    assert_eq!(board.entries.last().map(|e| (e.run_id, e.rank)), Some((ids[0], 40)));
    store.close().await;
});

both!(async fn an_error_in_one_finish_fails_only_that_one(db) {
    let store = db.store().await;
    let ids = begun(&store, 100, 6).await;
    // One run's ending cannot be written: the database refuses it (a
    // trigger stands in for any failing statement).
    let doomed = ids[2];
    if db.is_postgres() {
        db.exec(&format!(
            "CREATE FUNCTION refuse() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$ LANGUAGE plpgsql;
             CREATE TRIGGER refuse BEFORE UPDATE ON runs FOR EACH ROW WHEN (NEW.id = {doomed}) EXECUTE FUNCTION refuse();"
        ));
    } else {
        db.exec(&format!(
            "CREATE TRIGGER refuse BEFORE UPDATE ON runs WHEN NEW.id = {doomed} BEGIN SELECT RAISE(ABORT, 'refused'); END;"
        ));
    }
    // A finished run finished differently, and a run that does not exist:
    // refused by the rules, in the same batch.
    store.finish_run(ids[4], Outcome::NotFinished { steps: 3 }, vec![], None).await.unwrap();
    let hold = Hold::take(db, &store).await;
    // All tie: each finish's rank is 1 however the batch is split (nobody
    // is strictly better), unless it fails.
    let plan = [(ids[0], 30), (ids[1], 30), (doomed, 30), (ids[3], 30), (ids[4], 30), (999_999, 30), (ids[5], 30)];
    let answers = queue_finishes(&store, &plan).await;
    hold.release().await;
    let mut got = Vec::new();
    for a in answers {
        got.push(a.await.unwrap());
    }
    let ranks: Vec<Option<u32>> = got.iter().map(|r| r.as_ref().ok().and_then(|d| d.rank)).collect();
    // The others committed, each with its own rank.
    assert_eq!(ranks, [Some(1), Some(1), None, Some(1), None, None, Some(1)]);
    assert!(matches!(got[2], Err(StoreError::Db(_))), "{:?}", got[2]);
    assert!(matches!(got[4], Err(StoreError::RunOver(_))), "{:?}", got[4]);
    assert!(matches!(got[5], Err(StoreError::UnknownRun(999_999))), "{:?}", got[5]);
    // Nothing of the failed finish was kept, and it can still end once the
    // database takes it.
    let stored = store.run(doomed).await.unwrap().unwrap();
    assert_eq!(stored.state, mazerace_store::RunState::Playing);
    db.exec(if db.is_postgres() { "DROP TRIGGER refuse ON runs" } else { "DROP TRIGGER refuse" });
    let done = store.finish_run(doomed, Outcome::Finished { steps: 29, time_ms: 1_000, at_floor: false }, vec![], None).await.unwrap();
    assert_eq!(done.rank, Some(1), "ahead of the four kept finishes");
    let board = store.leaderboard(day(DAY), Game::Ghost, Size::Large, None).await.unwrap();
    assert_eq!(board.entries.iter().map(|e| e.rank).collect::<Vec<_>>(), [1, 2, 2, 2, 2]);
    store.close().await;
});

#[tokio::test]
async fn an_unreachable_database_is_a_typed_try_again() {
    // Nothing listens on port 1: connecting fails at once, as "unavailable".
    let db = mazerace_store::Database::Postgres("postgres://nobody@127.0.0.1:1/none".into());
    let err = Store::connect(db, NodeOptions::default()).await.unwrap_err();
    assert!(matches!(err, StoreError::Unavailable(_)), "{err}");
    assert_eq!(err.kind(), ErrorKind::Busy);
    assert!(!err.to_string().contains("nobody"), "no URL in the message: {err}");
}

#[test]
fn database_flags_pick_the_backend() {
    use mazerace_store::Database;
    assert_eq!(Database::from_flags(None, "d").unwrap(), Database::SqliteDir("d".into()));
    assert_eq!(Database::from_flags(Some(" "), "d").unwrap(), Database::SqliteDir("d".into()));
    let pg = Database::from_flags(Some("postgresql://u:secret@h/db"), "d").unwrap();
    assert_eq!(pg, Database::Postgres("postgresql://u:secret@h/db".into()));
    assert!(!format!("{pg:?}").contains("secret"));
    assert!(matches!(Database::from_flags(Some("mysql://h/db"), "d"), Err(StoreError::Invalid(_))));
}
