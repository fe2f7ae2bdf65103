//! The async handle: durability through it, many concurrent callers, the
//! bounded queue (reads refused as busy, writes waiting), and shutdown that
//! finishes queued work first. The database-facing tests run on both backends.

mod common;

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc as std_mpsc, Arc};

use mazerace_protocol::messages::Leaderboard;
use mazerace_protocol::{Action, Dir, Game, Size};
use mazerace_store::{
    verify, Backend, BeginRun, ErrorKind, FinishedRun, NewRun, NodeOptions, Outcome, PlayerKey, RankedRow,
    SqliteBackend, Store, StoreError, StoredRun,
};

const DAY: &str = "2026-11-29";

fn new_run(player: u32, size: Size) -> NewRun {
    NewRun {
        player: PlayerKey::from_token(&format!("token-{player}")),
        name: format!("P{player}"),
        date: DAY.into(),
        game: size.game(),
        size,
        seed: 7,
    }
}

/// Poll a future once and drop it. A request's job is queued on that first
/// poll (or found no room), so this fills the queue without waiting.
async fn poll_once<F: Future>(f: F) -> Option<F::Output> {
    tokio::select! {
        biased;
        out = f => Some(out),
        () = std::future::ready(()) => None,
    }
}

both!(async fn acknowledged_results_survive_dropping_everything(db) {
    let store = Store::connect(db.database(), NodeOptions::default()).await.unwrap();
    store.ping().await.unwrap();
    let salt = store.daily_salt().await.unwrap();
    let mut acked = Vec::new();
    for p in 0..5 {
        let run = store.begin_run(new_run(p, Size::Easy)).await.unwrap();
        let done = store
            .finish_run(
                run.run_id,
                Outcome::Finished { steps: 20 + p, time_ms: 1_000 },
                vec![Action::Move(Dir::Down)],
                Some(vec![0]),
            )
            .await
            .unwrap();
        acked.push(done);
    }
    // No close: the handle is just dropped, as in a crash of the async side.
    drop(store);

    // A fresh connection to the same database sees every acknowledged result
    // (a backend is blocking: off the runtime's threads).
    common::off_runtime(|| {
        let mut b = db.open();
        assert_eq!(b.daily_salt().unwrap(), salt);
        for done in &acked {
            let run = b.run(done.run_id).unwrap().unwrap();
            assert_eq!((run.steps, run.time_ms, run.actions.len()), (done.steps, done.time_ms, 1));
            assert_eq!(b.rank_of(done.run_id).unwrap(), done.rank);
        }
        let board = b.leaderboard(DAY, Game::Maze, Size::Easy, None, 100).unwrap();
        assert_eq!(board.entrants, 5);
    });
});

both!(async fn close_finishes_queued_work_then_reopen_sees_it(db) {
    let store = Store::connect(db.database(), NodeOptions::default()).await.unwrap();
    // Fire-and-forget writes: queued, nobody waits for their answers.
    for p in 0..20 {
        assert!(poll_once(store.begin_run(new_run(p, Size::Small))).await.is_none());
    }
    store.close().await;

    let store = Store::connect(db.database(), NodeOptions::default()).await.unwrap();
    let board = store.leaderboard(DAY.into(), Game::Ghost, Size::Small, None).await.unwrap();
    assert_eq!(board.entrants, 20);
    let again = store.begin_run(new_run(0, Size::Small)).await.unwrap();
    assert!(!again.ranked, "the ranked start was kept across the restart");
    let report = store.verify(None).await.unwrap();
    assert_eq!((report.checked, report.open), (0, 21));
    assert_eq!(store.abandon_open_runs().await.unwrap(), 21);
    store.close().await;
});

both!(async fn many_concurrent_callers_are_all_answered(db) {
    let store = Store::connect(db.database(), NodeOptions::default()).await.unwrap();
    let mut tasks = tokio::task::JoinSet::new();
    for p in 0..64u32 {
        let store = store.clone();
        tasks.spawn(async move {
            let size = if p % 2 == 0 { Size::Medium } else { Size::Hard };
            let first = store.begin_run(new_run(p, size)).await?;
            let second = store.begin_run(new_run(p, size)).await?;
            let done = store
                .finish_run(
                    first.run_id,
                    Outcome::Finished { steps: 10 + p % 5, time_ms: u64::from(p) },
                    vec![],
                    None,
                )
                .await?;
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
        let board = store.leaderboard(DAY.into(), game, size, None).await.unwrap();
        assert_eq!((board.entrants, board.entries.len()), (32, 32));
    }
    store.close().await;
});

#[tokio::test]
async fn opening_an_impossible_directory_fails_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("not-a-dir");
    std::fs::write(&file, b"x").unwrap();
    assert!(matches!(Store::open(file.join("data")).await, Err(StoreError::Io(_))));
}

/// An in-memory backend whose `rank_of` blocks until the test lets it go,
/// and which says when it is dropped.
struct Gate {
    inner: SqliteBackend,
    entered: std_mpsc::Sender<()>,
    release: std_mpsc::Receiver<()>,
    dropped: Arc<AtomicBool>,
}

impl Drop for Gate {
    fn drop(&mut self) {
        self.dropped.store(true, Ordering::SeqCst);
    }
}

impl Backend for Gate {
    fn ping(&mut self) -> Result<(), StoreError> {
        self.inner.ping()
    }
    fn daily_salt(&mut self) -> Result<Vec<u8>, StoreError> {
        self.inner.daily_salt()
    }
    fn begin_run(&mut self, run: &NewRun) -> Result<BeginRun, StoreError> {
        self.inner.begin_run(run)
    }
    fn finish_run(
        &mut self,
        id: i64,
        o: Outcome,
        a: &[Action],
        t: Option<&[u64]>,
    ) -> Result<FinishedRun, StoreError> {
        self.inner.finish_run(id, o, a, t)
    }
    fn abandon_open_runs(&mut self) -> Result<u64, StoreError> {
        self.inner.abandon_open_runs()
    }
    fn heartbeat(&mut self) -> Result<u64, StoreError> {
        self.inner.heartbeat()
    }
    fn entrants(&mut self, date: &str, game: Game, size: Size) -> Result<u32, StoreError> {
        self.inner.entrants(date, game, size)
    }
    fn ranked_run(
        &mut self,
        p: &PlayerKey,
        date: &str,
        game: Game,
        size: Size,
    ) -> Result<Option<RankedRow>, StoreError> {
        self.inner.ranked_run(p, date, game, size)
    }
    fn leaderboard(
        &mut self,
        date: &str,
        game: Game,
        size: Size,
        you: Option<&PlayerKey>,
        limit: u32,
    ) -> Result<Leaderboard, StoreError> {
        self.inner.leaderboard(date, game, size, you, limit)
    }
    fn rank_of(&mut self, id: i64) -> Result<Option<u32>, StoreError> {
        let _ = self.entered.send(());
        let _ = self.release.recv();
        self.inner.rank_of(id)
    }
    fn streak(&mut self, player: &PlayerKey, today: &str) -> Result<u32, StoreError> {
        self.inner.streak(player, today)
    }
    fn run(&mut self, id: i64) -> Result<Option<StoredRun>, StoreError> {
        self.inner.run(id)
    }
    fn owns_run(&mut self, id: i64, player: &PlayerKey) -> Result<bool, StoreError> {
        self.inner.owns_run(id, player)
    }
    fn runs_after(&mut self, after: i64, limit: u32) -> Result<Vec<StoredRun>, StoreError> {
        self.inner.runs_after(after, limit)
    }
}

#[tokio::test]
async fn a_full_queue_refuses_reads_but_holds_writes_and_close_waits() {
    let (entered_tx, entered) = std_mpsc::channel();
    let (release, release_rx) = std_mpsc::channel();
    let dropped = Arc::new(AtomicBool::new(false));
    let gate = Gate {
        inner: SqliteBackend::open_in_memory().unwrap(),
        entered: entered_tx,
        release: release_rx,
        dropped: Arc::clone(&dropped),
    };
    let store = Store::spawn(Box::new(gate), 2).unwrap();

    // Occupy the worker inside the backend.
    let blocked = tokio::spawn({
        let store = store.clone();
        async move { store.rank_of(1).await }
    });
    tokio::task::spawn_blocking(move || entered.recv()).await.unwrap().unwrap();

    // Fill the queue (capacity 2) with requests nobody waits for.
    assert!(poll_once(store.rank_of(2)).await.is_none());
    assert!(poll_once(store.streak(PlayerKey::from_token("a"), DAY.into())).await.is_none());
    // Reads are refused at once, typed as "try again"...
    let busy = store.leaderboard(DAY.into(), Game::Ghost, Size::Small, None).await.unwrap_err();
    assert!(matches!(busy, StoreError::Busy));
    assert_eq!(busy.kind(), ErrorKind::Busy);
    let day = store.player_day(PlayerKey::from_token("a"), DAY.into()).await.unwrap_err();
    assert_eq!(day.kind(), ErrorKind::Busy);
    assert!(matches!(store.run(1).await, Err(StoreError::Busy)));
    // ... a write waits for room instead.
    let write = tokio::spawn({
        let store = store.clone();
        async move { store.begin_run(new_run(1, Size::Small)).await }
    });

    // Let every gated call through (the blocked one and the queued rank_of).
    release.send(()).unwrap();
    release.send(()).unwrap();
    assert_eq!(blocked.await.unwrap().unwrap(), None);
    let begun = write.await.unwrap().unwrap();
    assert!(begun.ranked);
    assert!(!dropped.load(Ordering::SeqCst));

    // Reads are served again once there is room.
    let board = store.leaderboard(DAY.into(), Game::Ghost, Size::Small, None).await.unwrap();
    assert_eq!(board.entrants, 1);
    let report = store.call(|b| verify(b, None)).await.unwrap();
    assert_eq!(report.open, 1);

    store.close().await;
    assert!(dropped.load(Ordering::SeqCst), "close returns after the backend is gone");
}

#[tokio::test]
async fn a_panicking_request_loses_only_its_own_answer() {
    let store = Store::open_in_memory().unwrap();
    // A request that panics inside the worker loses only its own answer.
    let panicked = store.call(|_| -> Result<(), StoreError> { panic!("boom") }).await;
    assert!(matches!(panicked, Err(StoreError::Closed)));
    assert_eq!(StoreError::Closed.kind(), ErrorKind::Internal);
    assert_eq!(store.daily_salt().await.unwrap().len(), 32);
    store.close().await;
}

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
