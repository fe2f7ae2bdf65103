//! [`Store`]: the async handle the server holds. The backend lives on its own
//! std thread behind a bounded queue, so SQLite (fsync on every commit) never
//! blocks the async runtime; each request carries a oneshot for its answer.
//! On PostgreSQL the queue is served by [`POSTGRES_CONNECTIONS`] such threads,
//! one connection each, so commits overlap; requests then run in any order
//! (callers that need one request after another await the first).
//!
//! Backpressure: writes (`begin_run`, `finish_run`, ...) wait for room in the
//! queue, because a result must not be dropped; reads (leaderboards, streaks,
//! replays) fail fast with [`StoreError::Busy`] when the queue is full, so a
//! flood of table requests cannot pile up behind a slow disk.
//!
//! Lifetime: the handle is cheap to clone. When the last clone drops, the
//! workers finish every request already queued, close the database and
//! exit; [`Store::close`] does that and waits for it.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use tokio::sync::{mpsc, oneshot, watch};

use mazerace_protocol::messages::Leaderboard;
use mazerace_protocol::{Action, Game, Size};

use crate::backend::{
    AddressCap, Backend, BeginRun, FinishedRun, NewRun, Outcome, PlayerDay, RankedStart, StoredRun,
    LEADERBOARD_LIMIT,
};
use crate::error::StoreError;
use crate::node::NodeOptions;
use crate::player::PlayerKey;
use crate::postgres::{is_postgres_url, PostgresBackend};
use crate::sqlite::SqliteBackend;
use crate::verify::{verify, VerifyReport};

/// One worker of the store: run queued requests on `backend` until every
/// handle is dropped and the queue is drained. With several workers (one
/// connection each), one waits on the queue at a time and the others for
/// the lock, so each request runs on exactly one connection.
fn serve(mut backend: Box<dyn Backend>, queue: &Mutex<mpsc::Receiver<Job>>) {
    loop {
        let job = queue.lock().unwrap_or_else(|p| p.into_inner()).blocking_recv();
        let Some(job) = job else { break };
        // A panicking request drops its reply (the caller sees `Closed`) but
        // must not take the other requests down with it.
        let _ = catch_unwind(AssertUnwindSafe(|| job(&mut *backend)));
    }
    drop(backend);
}

/// Requests that may wait in the queue before reads are refused as busy.
pub const DEFAULT_QUEUE: usize = 256;

/// Connections a node's store holds to PostgreSQL: every commit waits on
/// the server's WAL flush, and commits in flight together share one flush
/// (PostgreSQL's group commit), so more connections mean more finishes per
/// flush; 16, because a disk of a few hundred flushes a second needs over
/// ten finishes per flush for 2,000 a second (bench/RESULTS.md).
pub const POSTGRES_CONNECTIONS: usize = 16;

/// Where the durable data lives.
#[derive(Clone, PartialEq, Eq)]
pub enum Database {
    /// `mazerace.sqlite` in this data directory (the embedded default).
    SqliteDir(PathBuf),
    /// A PostgreSQL URL (`postgres://user:password@host:port/dbname`).
    Postgres(String),
}

/// Never prints a URL: it may carry a password.
impl std::fmt::Debug for Database {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Database::SqliteDir(dir) => f.debug_tuple("SqliteDir").field(dir).finish(),
            Database::Postgres(_) => f.write_str("Postgres(..)"),
        }
    }
}

impl Database {
    /// From the server's flags: a `postgres://` `database_url` selects
    /// PostgreSQL; none means SQLite in `data_dir`; any other URL is refused.
    pub fn from_flags(
        database_url: Option<&str>,
        data_dir: impl Into<PathBuf>,
    ) -> Result<Database, StoreError> {
        match database_url.map(str::trim).filter(|u| !u.is_empty()) {
            None => Ok(Database::SqliteDir(data_dir.into())),
            Some(url) if is_postgres_url(url) => Ok(Database::Postgres(url.to_owned())),
            Some(_) => Err(StoreError::Invalid(
                "the database URL must start with postgres:// (leave it out for SQLite in the data directory)"
                    .into(),
            )),
        }
    }

    /// Open the backend here, on this thread (blocking): for commands such
    /// as `mazerace verify`, and for [`Store::connect`]'s worker.
    pub fn open_backend(&self, node: NodeOptions) -> Result<Box<dyn Backend>, StoreError> {
        Ok(match self {
            Database::SqliteDir(dir) => Box::new(SqliteBackend::open_as(crate::sqlite::db_path(dir), node)?),
            Database::Postgres(url) => Box::new(PostgresBackend::connect_as(url, node)?),
        })
    }

    /// The connections one node's [`Store`] serves requests on: one for
    /// SQLite (one writer at a time anyway), [`POSTGRES_CONNECTIONS`] for
    /// PostgreSQL, all as one node and boot.
    pub fn open_backends(&self, node: NodeOptions) -> Result<Vec<Box<dyn Backend>>, StoreError> {
        match self {
            Database::SqliteDir(_) => Ok(vec![self.open_backend(node)?]),
            Database::Postgres(url) => {
                let me = crate::node::Identity::new(node)?;
                (0..POSTGRES_CONNECTIONS)
                    .map(
                        |_| Ok(Box::new(PostgresBackend::connect_with(url, me.clone())?) as Box<dyn Backend>),
                    )
                    .collect()
            }
        }
    }

    /// A short description for logs, without credentials.
    pub fn describe(&self) -> String {
        match self {
            Database::SqliteDir(dir) => format!("SQLite in {}", crate::sqlite::db_path(dir).display()),
            Database::Postgres(_) => "PostgreSQL".to_owned(),
        }
    }
}

type Job = Box<dyn FnOnce(&mut dyn Backend) + Send>;
type Opener = Box<dyn FnOnce() -> Result<Vec<Box<dyn Backend>>, StoreError> + Send>;

/// The async, cloneable handle to the daily-challenge storage.
#[derive(Clone)]
pub struct Store {
    jobs: mpsc::Sender<Job>,
    /// The worker holds the sender and drops it as its very last act, after
    /// the database is closed: `changed()` failing means "worker gone".
    gone: watch::Receiver<()>,
    /// How often the owner should call [`Store::heartbeat`]: a quarter of
    /// the node's lease, so three beats can be missed before it counts as dead.
    heartbeat_every: std::time::Duration,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("queued", &self.queued()).finish()
    }
}

impl Store {
    /// Open (creating if needed) `data_dir/mazerace.sqlite` on the worker
    /// thread, with the default queue.
    pub async fn open(data_dir: impl Into<PathBuf>) -> Result<Store, StoreError> {
        let dir = data_dir.into();
        let opener: Opener =
            Box::new(move || Ok(vec![Box::new(SqliteBackend::open_data_dir(dir)?) as Box<dyn Backend>]));
        let (store, ready) = Self::start(opener, DEFAULT_QUEUE)?;
        ready.await.map_err(|_| StoreError::Closed)??;
        Ok(store)
    }

    /// Open `db` on the worker thread as the node `node`, with the default queue.
    pub async fn connect(db: Database, node: NodeOptions) -> Result<Store, StoreError> {
        let lease = node.lease;
        let opener: Opener = Box::new(move || db.open_backends(node));
        let (mut store, ready) = Self::start(opener, DEFAULT_QUEUE)?;
        store.heartbeat_every = lease / 4;
        ready.await.map_err(|_| StoreError::Closed)??;
        Ok(store)
    }

    /// A private in-memory database behind the default queue: for tests.
    pub fn open_in_memory() -> Result<Store, StoreError> {
        Self::spawn(Box::new(SqliteBackend::open_in_memory()?), DEFAULT_QUEUE)
    }

    /// Run an already open backend (any [`Backend`]) behind a queue of `capacity`.
    pub fn spawn(backend: Box<dyn Backend>, capacity: usize) -> Result<Store, StoreError> {
        Ok(Self::start(Box::new(move || Ok(vec![backend])), capacity)?.0)
    }

    fn start(
        opener: Opener,
        capacity: usize,
    ) -> Result<(Store, oneshot::Receiver<Result<(), StoreError>>), StoreError> {
        let (jobs, queue) = mpsc::channel::<Job>(capacity.max(1));
        let queue = Arc::new(Mutex::new(queue));
        let (gone_tx, gone) = watch::channel(());
        let gone_tx = Arc::new(gone_tx);
        let (ready_tx, ready) = oneshot::channel();
        std::thread::Builder::new().name("mazerace-store".into()).spawn(move || {
            let mut backends = match opener() {
                Ok(b) if !b.is_empty() => b,
                Ok(_) => {
                    let _ = ready_tx.send(Err(StoreError::Invalid("no connection to serve".into())));
                    return;
                }
                Err(e) => {
                    let _ = ready_tx.send(Err(e));
                    return;
                }
            };
            let first = backends.remove(0);
            for (i, backend) in backends.into_iter().enumerate() {
                let (queue, gone) = (Arc::clone(&queue), Arc::clone(&gone_tx));
                let spawned =
                    std::thread::Builder::new().name(format!("mazerace-store-{}", i + 1)).spawn(move || {
                        serve(backend, &queue);
                        drop(gone);
                    });
                if let Err(e) = spawned {
                    // The workers already running end when the handle drops.
                    let _ = ready_tx.send(Err(e.into()));
                    return;
                }
            }
            let _ = ready_tx.send(Ok(()));
            serve(first, &queue);
            drop(gone_tx);
        })?;
        Ok((Store { jobs, gone, heartbeat_every: crate::node::DEFAULT_LEASE / 4 }, ready))
    }

    /// Run `f` on the backend thread; fails fast with [`StoreError::Busy`]
    /// when the queue is full. For anything the typed methods do not cover.
    pub async fn call<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&mut dyn Backend) -> Result<T, StoreError> + Send + 'static,
    {
        self.request(false, f).await
    }

    async fn request<T, F>(&self, wait: bool, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&mut dyn Backend) -> Result<T, StoreError> + Send + 'static,
    {
        let (reply, answer) = oneshot::channel();
        let job: Job = Box::new(move |b| {
            let _ = reply.send(f(b));
        });
        if wait {
            self.jobs.send(job).await.map_err(|_| StoreError::Closed)?;
        } else {
            self.jobs.try_send(job).map_err(|e| match e {
                mpsc::error::TrySendError::Full(_) => StoreError::Busy,
                mpsc::error::TrySendError::Closed(_) => StoreError::Closed,
            })?;
        }
        answer.await.map_err(|_| StoreError::Closed)?
    }

    /// Whether the database answers right now (for `/healthz`): fails fast
    /// with [`StoreError::Busy`] when the queue is full, and with
    /// [`StoreError::Unavailable`] when the database cannot be reached.
    /// Requests waiting for the database now (the queue's depth).
    pub fn queued(&self) -> usize {
        self.jobs.max_capacity() - self.jobs.capacity()
    }

    pub async fn ping(&self) -> Result<(), StoreError> {
        self.request(false, |b| b.ping()).await
    }

    /// The daily salt, made and kept on first use. See [`Backend::daily_salt`].
    pub async fn daily_salt(&self) -> Result<Vec<u8>, StoreError> {
        self.request(true, |b| b.daily_salt()).await
    }

    /// Start a run; ranked if it is the player's first on this board.
    pub async fn begin_run(&self, run: NewRun) -> Result<BeginRun, StoreError> {
        self.request(true, move |b| b.begin_run(&run)).await
    }

    /// Start a run under a per-address cap (see [`Backend::begin_run_capped`]).
    pub async fn begin_run_capped(
        &self,
        run: NewRun,
        cap: Option<AddressCap>,
    ) -> Result<BeginRun, StoreError> {
        self.request(true, move |b| b.begin_run_capped(&run, cap.as_ref())).await
    }

    /// End a run; returns only after the result and moves are committed.
    /// `times_ms`: each action's ms since the run's first move, one per
    /// action, or `None` when not measured (see [`Backend::finish_run`]).
    pub async fn finish_run(
        &self,
        run_id: i64,
        outcome: Outcome,
        actions: Vec<Action>,
        times_ms: Option<Vec<u64>>,
    ) -> Result<FinishedRun, StoreError> {
        self.request(true, move |b| b.finish_run(run_id, outcome, &actions, times_ms.as_deref())).await
    }

    /// Close this node's runs left open by its previous process (call once
    /// at startup); other nodes' runs are left alone.
    pub async fn abandon_open_runs(&self) -> Result<u64, StoreError> {
        self.request(true, |b| b.abandon_open_runs()).await
    }

    /// How often to call [`Store::heartbeat`] (a quarter of the lease).
    pub fn heartbeat_interval(&self) -> std::time::Duration {
        self.heartbeat_every
    }

    /// Renew this node's lease and close the runs of nodes whose lease ran
    /// out; returns how many runs were closed (see [`Backend::heartbeat`]).
    pub async fn heartbeat(&self) -> Result<u64, StoreError> {
        self.request(true, |b| b.heartbeat()).await
    }

    /// The player's ranked try on a board, if any, and when it began.
    pub async fn ranked_start(
        &self,
        player: PlayerKey,
        date: String,
        game: Game,
        size: Size,
    ) -> Result<Option<RankedStart>, StoreError> {
        self.request(false, move |b| b.ranked_start(&player, &date, game, size)).await
    }

    /// Every board of `date` with the player's ranked result, and their streak.
    pub async fn player_day(&self, player: PlayerKey, date: String) -> Result<PlayerDay, StoreError> {
        self.request(false, move |b| b.player_day(&player, &date)).await
    }

    /// A board's top 100, entrants, and `you`'s own line.
    pub async fn leaderboard(
        &self,
        date: String,
        game: Game,
        size: Size,
        you: Option<PlayerKey>,
    ) -> Result<Leaderboard, StoreError> {
        self.request(false, move |b| b.leaderboard(&date, game, size, you.as_ref(), LEADERBOARD_LIMIT)).await
    }

    pub async fn rank_of(&self, run_id: i64) -> Result<Option<u32>, StoreError> {
        self.request(false, move |b| b.rank_of(run_id)).await
    }

    /// See [`Backend::streak`].
    pub async fn streak(&self, player: PlayerKey, today: String) -> Result<u32, StoreError> {
        self.request(false, move |b| b.streak(&player, &today)).await
    }

    /// One run for the replay view.
    pub async fn run(&self, run_id: i64) -> Result<Option<StoredRun>, StoreError> {
        self.request(false, move |b| b.run(run_id)).await
    }

    /// Whether `player` made run `run_id`.
    pub async fn owns_run(&self, run_id: i64, player: PlayerKey) -> Result<bool, StoreError> {
        self.request(false, move |b| b.owns_run(run_id, &player)).await
    }

    /// A league request (see [`crate::league`]); writes wait for room in the queue.
    pub async fn league(
        &self,
        req: crate::league::LeagueRequest,
    ) -> Result<crate::league::LeagueAnswer, StoreError> {
        self.request(true, move |b| b.league(req)).await
    }

    /// A league's members, their ranked runs from `from` to `to` and each
    /// member's streak as of `to`, in one request: `None` for an unknown code.
    pub async fn league_view(
        &self,
        code: String,
        from: String,
        to: String,
    ) -> Result<Option<crate::league::LeagueView>, StoreError> {
        use crate::league::{LeagueAnswer, LeagueRequest};
        self.request(false, move |b| {
            let LeagueAnswer::Members(league, members) =
                b.league(LeagueRequest::Members { code: code.clone() })?
            else {
                return Ok(None);
            };
            let LeagueAnswer::Runs(runs) = b.league(LeagueRequest::Runs { code, from, to: to.clone() })?
            else {
                return Ok(None);
            };
            let mut streaks = Vec::with_capacity(members.len());
            for m in &members {
                streaks.push((m.player.clone(), b.streak(&PlayerKey::from_stored(m.player.clone()), &to)?));
            }
            Ok(Some(crate::league::LeagueView { league, members, runs, streaks }))
        })
        .await
    }

    /// Re-play every stored run (see [`verify`]). Holds the worker for the
    /// whole check: an admin action, not a per-request one.
    pub async fn verify(&self, salt: Option<Vec<u8>>) -> Result<VerifyReport, StoreError> {
        self.request(false, move |b| verify(b, salt.as_deref())).await
    }

    /// Drop this handle and wait until the worker has finished every queued
    /// request and closed the database. Returns once *all* clones are gone:
    /// drop the others first.
    pub async fn close(self) {
        let Store { jobs, mut gone, .. } = self;
        drop(jobs);
        while gone.changed().await.is_ok() {}
    }
}
