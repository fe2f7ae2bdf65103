//! SQLite's one connection on its own thread, so a commit's fsync never
//! blocks the async runtime. The store hands it [`Job`]s through a channel
//! as long as the store's queue (the store's permits bound what is in it,
//! so a send never waits); each request's rules run to completion here, on
//! a current-thread runtime of this thread's own (SQLite's calls are
//! synchronous, so they never yield), and answer on their own channels.
//!
//! Group commit: a finish takes every finish already waiting behind it
//! (other requests met on the way run right after) and commits them in one
//! immediate transaction, one savepoint each: a finish that fails is rolled
//! back to its savepoint and fails alone, the others commit, and one fsync
//! acknowledges them all. Savepoints here cost no round trip, so nothing is
//! retried. Ranks are as of the commit, as on PostgreSQL: once every finish
//! of the batch is written, each ranked one is ranked again, counting the
//! batch's own better finishes too.

use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use tokio::sync::{mpsc, oneshot, watch};

use super::SqliteDb;
use crate::db::{BoxFuture, Db, TxKind};
use crate::error::StoreError;
use crate::group::{Commits, FinishJob, MAX_BATCH};
use crate::record::FinishedRun;

/// A request: it runs the rules on the connection and answers by itself.
pub(crate) type Request = Box<dyn for<'a> FnOnce(&'a mut dyn Db) -> BoxFuture<'a, ()> + Send>;

/// What the worker is asked to do.
pub(crate) enum Job {
    /// A request, holding its place in the store's queue until it answers.
    Run(Request),
    Finish(FinishJob),
}

/// The store's side of the worker thread.
pub(crate) struct Worker {
    jobs: mpsc::Sender<Job>,
}

/// Opens the connection, on the worker thread.
pub(crate) type Opener = Box<dyn FnOnce() -> Result<SqliteDb, StoreError> + Send>;

impl Worker {
    /// Start the thread; the receiver says once the database is open (or why
    /// not). `gone` is dropped as the thread's last act, after the database
    /// is closed.
    pub fn start(
        open: Opener,
        capacity: usize,
        commits: Arc<Commits>,
        gone: watch::Sender<()>,
    ) -> Result<(Worker, oneshot::Receiver<Result<(), StoreError>>), StoreError> {
        let (jobs, queue) = mpsc::channel(capacity.max(1));
        let (ready_tx, ready) = oneshot::channel();
        std::thread::Builder::new().name("mazerace-store".into()).spawn(move || {
            let db = match open() {
                Ok(db) => db,
                Err(e) => {
                    let _ = ready_tx.send(Err(e));
                    return;
                }
            };
            let _ = ready_tx.send(Ok(()));
            serve(db, queue, &commits);
            drop(gone);
        })?;
        Ok((Worker { jobs }, ready))
    }

    /// Queue a job (its permit guarantees room).
    pub async fn send(&self, job: Job) -> Result<(), StoreError> {
        self.jobs.send(job).await.map_err(|_| StoreError::Closed)
    }
}

/// Serve jobs until every sender is gone and the queue is empty.
fn serve(mut db: SqliteDb, mut queue: mpsc::Receiver<Job>, commits: &Commits) {
    let rt = match tokio::runtime::Builder::new_current_thread().build() {
        Ok(rt) => rt,
        Err(e) => {
            tracing::error!(error = %e, "the store's worker could not start its runtime");
            return;
        }
    };
    // Jobs met while gathering a batch, run before the queue's next.
    let mut later: VecDeque<Job> = VecDeque::new();
    while let Some(job) = later.pop_front().or_else(|| queue.blocking_recv()) {
        match job {
            Job::Run(request) => {
                // A panic in one request must not end the worker: its caller
                // hears `Closed` (its answer channel is dropped), others go on.
                let ran = catch_unwind(AssertUnwindSafe(|| rt.block_on(request(&mut db))));
                if ran.is_err() {
                    tracing::error!("a store request panicked");
                }
                db.roll_back_open();
            }
            Job::Finish(first) => {
                let mut batch = vec![first];
                while batch.len() < MAX_BATCH {
                    match queue.try_recv() {
                        Ok(Job::Finish(next)) => batch.push(next),
                        Ok(other) => later.push_back(other),
                        Err(_) => break,
                    }
                }
                let answers =
                    catch_unwind(AssertUnwindSafe(|| rt.block_on(commit(&mut db, &batch, commits))));
                db.roll_back_open();
                match answers {
                    Ok(answers) => batch.into_iter().zip(answers).for_each(|(job, a)| job.answer(a)),
                    Err(_) => tracing::error!("a batch of finishes panicked"),
                }
            }
        }
    }
}

/// Commit `batch` in one transaction, a savepoint per finish; one outcome
/// per finish, in order.
async fn commit(
    db: &mut SqliteDb,
    batch: &[FinishJob],
    commits: &Commits,
) -> Vec<Result<FinishedRun, StoreError>> {
    if let Err(e) = (db as &mut dyn Db).begin(TxKind::Write).await {
        return batch.iter().map(|_| Err(e.for_each_caller())).collect();
    }
    let mut out = Vec::with_capacity(batch.len());
    for job in batch {
        let done = match db.conn.execute_batch("SAVEPOINT finish") {
            Ok(()) => crate::rules::runs::finish_one(db, job.run_id, &job.end).await,
            Err(e) => Err(e.into()),
        };
        // Kept: released into the batch. Failed: undone alone.
        let close = if done.is_ok() { "RELEASE finish" } else { "ROLLBACK TO finish; RELEASE finish" };
        let closed = db.conn.execute_batch(close);
        out.push(match (done, closed) {
            (Ok(d), Ok(())) => Ok(d),
            (Err(e), _) => Err(e),
            (Ok(_), Err(e)) => Err(e.into()),
        });
        if !db.in_transaction() {
            // SQLite rolled the whole transaction back (a full disk, an I/O
            // error): nothing of this batch is kept.
            break;
        }
    }
    let committed = if db.in_transaction() {
        match rank_as_committed(db, batch, &mut out).await {
            Ok(()) => db.conn.execute_batch("COMMIT").map_err(StoreError::from),
            Err(e) => Err(e),
        }
    } else {
        Err(StoreError::Db("the batch's transaction was rolled back by SQLite".into()))
    };
    match committed {
        Ok(()) => {
            commits.record(out.iter().filter(|r| r.is_ok()).count());
            out
        }
        Err(e) => batch.iter().map(|_| Err(e.for_each_caller())).collect(),
    }
}

/// Each ranked finish of the batch ranked again, now that all are written:
/// its rank as of the commit (by the time it ranks by: 0 at the floor).
async fn rank_as_committed(
    db: &mut SqliteDb,
    batch: &[FinishJob],
    out: &mut [Result<FinishedRun, StoreError>],
) -> Result<(), StoreError> {
    for (job, done) in batch.iter().zip(out.iter_mut()) {
        let Ok(done) = done else { continue };
        if let (true, Some(rank_ms)) = (done.ranked, job.end.rank_db()) {
            let steps = i64::from(done.steps);
            done.rank =
                Some(crate::rules::runs::rank_in(db, done.date, done.game, done.size, steps, rank_ms).await?);
        }
    }
    Ok(())
}
