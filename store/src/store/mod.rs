//! [`Store`]: the async, cloneable handle the server holds, on either
//! database. SQLite's one connection lives on its own thread (a commit's
//! fsync never blocks the runtime); each PostgreSQL request runs in a task
//! of its own on a pooled connection, so a caller that stops waiting never
//! cuts a transaction in half. Every request runs the same rules
//! ([`crate::rules`]) on one connection.
//!
//! Backpressure: the store takes at most its queue's capacity of requests
//! at once. Writes (`begin_run`, `finish_run`, ...) wait for room, because
//! a result must not be dropped; reads (leaderboards, streaks, replays)
//! fail fast with [`StoreError::Busy`] when it is full, so a flood of table
//! requests cannot pile up behind a slow disk.
//!
//! Finishes are committed in groups ([`crate::group`]): the finishes waiting
//! together share one transaction and one flush, and each caller still
//! learns its own outcome.
//!
//! Lifetime: the handle is cheap to clone. When the last clone drops, the
//! store finishes every request already queued, closes the database and
//! stops; [`Store::close`] does that and waits for it.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, oneshot, watch, OwnedSemaphorePermit, Semaphore};

mod requests;

use crate::database::Database;
use crate::db::{BoxFuture, Db};
use crate::error::StoreError;
use crate::group::{CommitCounts, Commits, FinishJob};
use crate::node::{Identity, NodeOptions};
use crate::postgres::{PgDb, PoolGuard};
use crate::rules;
use crate::sqlite::worker::{Job, Opener, Request, Worker};
use crate::sqlite::{db_path, SqliteDb};

/// Requests that may be in the store at once before reads are refused as busy.
pub const DEFAULT_QUEUE: usize = 256;

/// How requests reach the database.
enum Engine {
    /// The worker thread and its one connection.
    Sqlite(Worker),
    /// The pool, and the queue of the node's group commits.
    Postgres { pool: Arc<PoolGuard>, finishes: mpsc::Sender<FinishJob> },
}

struct Shared {
    engine: Engine,
    commits: Arc<Commits>,
    permits: Arc<Semaphore>,
    capacity: usize,
    me: Arc<Identity>,
    /// How often the owner should call [`Store::heartbeat`]: a quarter of
    /// the node's lease, so three beats can be missed before it counts as dead.
    heartbeat_every: Duration,
}

/// The async, cloneable handle to the daily-challenge storage.
#[derive(Clone)]
pub struct Store {
    shared: Arc<Shared>,
    /// The store's tasks hold the senders and drop them as their very last
    /// act, after the database is closed: `changed()` failing means "gone".
    gone: watch::Receiver<()>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("queued", &self.queued()).finish()
    }
}

/// `f` boxed as the worker thread's [`Request`]: it holds `permit` until it
/// has its outcome, then answers on `reply` (a caller who has its answer
/// sees the queue without it).
fn worker_request<T, F>(
    f: F,
    permit: OwnedSemaphorePermit,
    reply: oneshot::Sender<Result<T, StoreError>>,
) -> Request
where
    T: Send + 'static,
    F: for<'a> FnOnce(&'a mut dyn Db) -> BoxFuture<'a, Result<T, StoreError>> + Send + 'static,
{
    fn boxed<F>(f: F) -> Request
    where
        F: for<'a> FnOnce(&'a mut dyn Db) -> BoxFuture<'a, ()> + Send + 'static,
    {
        Box::new(f)
    }
    boxed(move |db| {
        Box::pin(async move {
            let out = f(db).await;
            drop(permit);
            let _ = reply.send(out);
        })
    })
}

impl Store {
    /// Open (creating if needed) `data_dir/mazerace.sqlite` as the single
    /// anonymous node.
    pub async fn open(data_dir: impl Into<PathBuf>) -> Result<Store, StoreError> {
        Self::connect(Database::SqliteDir(data_dir.into()), NodeOptions::default()).await
    }

    /// Open `db` as the node `node` (migrating it first), and take the
    /// node's lease; [`DEFAULT_QUEUE`] requests at once.
    pub async fn connect(db: Database, node: NodeOptions) -> Result<Store, StoreError> {
        Self::connect_with_queue(db, node, DEFAULT_QUEUE).await
    }

    /// [`Store::connect`] with room for `queue` requests at once.
    pub async fn connect_with_queue(
        db: Database,
        node: NodeOptions,
        queue: usize,
    ) -> Result<Store, StoreError> {
        let me = Arc::new(Identity::new(node)?);
        let store = match db {
            Database::SqliteDir(dir) => {
                let path = db_path(dir);
                let (store, ready) = Self::start_sqlite(Box::new(move || SqliteDb::open(&path)), me, queue)?;
                ready.await.map_err(|_| StoreError::Closed)??;
                store
            }
            Database::Postgres(url) => Self::start_postgres(&url, me, queue).await?,
        };
        let me = Arc::clone(&store.shared.me);
        store
            .request(true, move |db| Box::pin(async move { rules::runs::renew_lease(db, &me).await }))
            .await?;
        Ok(store)
    }

    /// A private in-memory SQLite database as the anonymous node: for tests.
    pub fn open_in_memory() -> Result<Store, StoreError> {
        let db = SqliteDb::open_in_memory()?;
        let me = Arc::new(Identity::new(NodeOptions::default())?);
        Ok(Self::start_sqlite(Box::new(move || Ok(db)), me, DEFAULT_QUEUE)?.0)
    }

    fn start_sqlite(
        open: Opener,
        me: Arc<Identity>,
        capacity: usize,
    ) -> Result<(Store, oneshot::Receiver<Result<(), StoreError>>), StoreError> {
        let (gone_tx, gone) = watch::channel(());
        let commits = Arc::new(Commits::default());
        let (worker, ready) = Worker::start(open, capacity, Arc::clone(&commits), gone_tx)?;
        Ok((Self::new(Engine::Sqlite(worker), commits, me, capacity, gone), ready))
    }

    async fn start_postgres(url: &str, me: Arc<Identity>, capacity: usize) -> Result<Store, StoreError> {
        let (gone_tx, gone) = watch::channel(());
        let pool = Arc::new(PoolGuard::new(crate::postgres::connect(url).await?, gone_tx));
        let (finishes, queue) = mpsc::channel(capacity.max(1));
        let commits = Arc::new(Commits::default());
        let committer = crate::postgres::finish::committer(
            Arc::clone(&pool),
            me.node.clone(),
            queue,
            Arc::clone(&commits),
        );
        tokio::spawn(committer);
        Ok(Self::new(Engine::Postgres { pool, finishes }, commits, me, capacity, gone))
    }

    fn new(
        engine: Engine,
        commits: Arc<Commits>,
        me: Arc<Identity>,
        capacity: usize,
        gone: watch::Receiver<()>,
    ) -> Store {
        let capacity = capacity.max(1);
        let heartbeat_every = me.options.lease / 4;
        let permits = Arc::new(Semaphore::new(capacity));
        let shared = Shared { engine, commits, permits, capacity, me, heartbeat_every };
        Store { shared: Arc::new(shared), gone }
    }

    /// A place in the queue: waited for by writes, refused as busy to reads.
    async fn permit(&self, wait: bool) -> Result<OwnedSemaphorePermit, StoreError> {
        let permits = Arc::clone(&self.shared.permits);
        if wait {
            permits.acquire_owned().await.map_err(|_| StoreError::Closed)
        } else {
            permits.try_acquire_owned().map_err(|e| match e {
                tokio::sync::TryAcquireError::NoPermits => StoreError::Busy,
                tokio::sync::TryAcquireError::Closed => StoreError::Closed,
            })
        }
    }

    /// Run `f` (a request's rules) on a connection (see [`Store::permit`]
    /// for `wait`). Once queued, a request is carried out even if its caller
    /// stops waiting: a transaction is never cut in half.
    async fn request<T, F>(&self, wait: bool, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: for<'a> FnOnce(&'a mut dyn Db) -> BoxFuture<'a, Result<T, StoreError>> + Send + 'static,
    {
        let permit = self.permit(wait).await?;
        let (reply, answer) = oneshot::channel();
        match &self.shared.engine {
            Engine::Sqlite(worker) => worker.send(Job::Run(worker_request(f, permit, reply))).await?,
            Engine::Postgres { pool, .. } => {
                let pool = Arc::clone(pool);
                tokio::spawn(async move {
                    let out = match pool.pool.get().await {
                        Ok(client) => {
                            let mut db = PgDb::new(client);
                            let out = f(&mut db).await;
                            db.release(&pool.pool, matches!(out, Err(StoreError::Unavailable(_)))).await;
                            out
                        }
                        Err(e) => Err(e.into()),
                    };
                    drop(permit);
                    let _ = reply.send(out);
                });
            }
        }
        answer.await.map_err(|_| StoreError::Closed)?
    }

    /// The room-move mailbox ([`crate::postgres::moves`]): on PostgreSQL
    /// only, where other nodes share the database; `None` on SQLite.
    pub fn room_moves(&self) -> Option<crate::postgres::moves::RoomMoves> {
        match &self.shared.engine {
            Engine::Postgres { pool, .. } => {
                Some(crate::postgres::moves::RoomMoves::new(Arc::clone(pool), self.shared.me.boot.clone()))
            }
            Engine::Sqlite(_) => None,
        }
    }

    /// Requests in the store now (the queue's depth).
    pub fn queued(&self) -> usize {
        self.shared.capacity - self.shared.permits.available_permits()
    }

    /// The group commits so far (see [`crate::group`]): finishes committed
    /// and the transactions that committed them.
    pub fn commits(&self) -> CommitCounts {
        self.shared.commits.snapshot()
    }

    /// Drop this handle and wait until the store has finished every queued
    /// request and closed the database. Returns once *all* clones are gone:
    /// drop the others first.
    pub async fn close(self) {
        let Store { shared, mut gone } = self;
        drop(shared);
        while gone.changed().await.is_ok() {}
    }
}
