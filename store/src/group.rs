//! Group commit: finishes that wait together are committed in one
//! transaction, so one disk flush acknowledges many. A finish travels as a
//! [`FinishJob`]: checked and encoded before it queues, answered on its own
//! channel with its own outcome (its rank, or the error that was its alone).
//! Each backend takes every job waiting behind the first (up to
//! [`MAX_BATCH`]) and commits them its way: SQLite one savepoint per finish on its one
//! thread (`sqlite/worker.rs`), PostgreSQL one statement for the whole batch
//! (`postgres/finish.rs`).

use std::sync::atomic::{AtomicU64, Ordering};

use tokio::sync::{oneshot, OwnedSemaphorePermit};

use crate::error::StoreError;
use crate::record::FinishedRun;
use crate::rules::convert::Ending;

/// The most finishes one transaction commits: a bound on how long a
/// batch's locks are held and how large its statement grows.
pub(crate) const MAX_BATCH: usize = 128;

/// One finish waiting to be committed.
pub(crate) struct FinishJob {
    pub run_id: i64,
    pub end: Ending,
    pub reply: oneshot::Sender<Result<FinishedRun, StoreError>>,
    /// The caller's place in the store's queue, given back once answered
    /// (held for its drop).
    pub _permit: OwnedSemaphorePermit,
}

impl FinishJob {
    /// Tell the caller (who may have stopped waiting: nothing to do then).
    /// The place in the queue is given back first, so a caller who has its
    /// answer sees the queue without it.
    pub fn answer(self, outcome: Result<FinishedRun, StoreError>) {
        let FinishJob { reply, _permit, .. } = self;
        drop(_permit);
        let _ = reply.send(outcome);
    }
}

/// The group commits so far: how many transactions committed finishes, and
/// how many finishes they committed (their ratio is the finishes a flush).
#[derive(Debug, Default)]
pub(crate) struct Commits {
    batches: AtomicU64,
    finishes: AtomicU64,
}

impl Commits {
    /// A batch of `finishes` committed.
    pub fn record(&self, finishes: usize) {
        self.batches.fetch_add(1, Ordering::Relaxed);
        self.finishes.fetch_add(finishes as u64, Ordering::Relaxed);
    }

    pub fn snapshot(&self) -> CommitCounts {
        CommitCounts {
            batches: self.batches.load(Ordering::Relaxed),
            finishes: self.finishes.load(Ordering::Relaxed),
        }
    }
}

/// [`crate::Store::commits`]: the store's group commits so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CommitCounts {
    /// Transactions that committed finishes.
    pub batches: u64,
    /// Finishes they committed (refused ones not counted).
    pub finishes: u64,
}
