//! One daily attempt's life in the store: its run begun once, its ending
//! committed once, in that order, whatever order the room's two reports
//! arrive in.
//!
//! Ordering: a room reports `started` and later `ended` for the same
//! attempt, each as its own task, so `ended` could reach the store first.
//! Both therefore go through one per-attempt cell that runs `begin_run`
//! exactly once; `finish_run` waits for it. `started` registers the cell
//! synchronously, before its future runs, so `ended` always finds it.
//!
//! Outages: a finish that cannot commit because the store is unavailable
//! (the database is down or unreachable) is tried again, [`FINISH_RETRIES`]
//! times over about 30 s, before the player hears that it was not stored;
//! the result is acknowledged only once it has committed. Repeating a
//! finish is safe (the store answers an identical repeat as the first), so
//! a commit whose answer was lost is not doubled.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mazerace_store::{
    AddressCap, BeginRun, ErrorKind, FinishedRun, NewRun, Outcome, PlayerKey, Store, StoreError,
};
use tokio::sync::OnceCell;

use super::error::DailyError;
use super::seam::{DailyOutcome, DailyRun};

type BeginCell = Arc<OnceCell<BeginRun>>;

/// The waits between the tries of a finish while the store is unavailable:
/// five tries in all, the last one about 30 s after the first.
const FINISH_RETRIES: [Duration; 4] =
    [Duration::from_secs(1), Duration::from_secs(3), Duration::from_secs(8), Duration::from_secs(18)];

/// The attempts between `started` and `ended`, by attempt id.
pub(crate) struct Attempts {
    store: Store,
    open: Mutex<HashMap<u64, BeginCell>>,
}

impl Attempts {
    pub fn new(store: Store) -> Attempts {
        Attempts { store, open: Mutex::new(HashMap::new()) }
    }

    /// The attempt's cell: kept while it is open, taken out at its end.
    fn cell(&self, attempt: u64, take: bool) -> BeginCell {
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        let cell = if take { open.remove(&attempt) } else { open.get(&attempt).cloned() };
        cell.unwrap_or_else(|| {
            let cell = BeginCell::default();
            if !take {
                open.insert(attempt, Arc::clone(&cell));
            }
            cell
        })
    }

    /// The attempt starts: its run is begun (once), under `cap`. The cell
    /// is registered now, before the future runs.
    pub fn begin(
        &self,
        run: DailyRun,
        cap: Option<AddressCap>,
    ) -> impl Future<Output = Result<BeginRun, DailyError>> + Send + 'static {
        let (cell, store) = (self.cell(run.attempt, false), self.store.clone());
        async move { begin(&store, &cell, &run, cap).await }
    }

    /// The attempt is over: its run is begun if `started` has not done it
    /// yet (the cap is moot by then), and its ending committed.
    pub fn end(
        &self,
        run: DailyRun,
        outcome: DailyOutcome,
    ) -> impl Future<Output = Result<FinishedRun, DailyError>> + Send + 'static {
        let (cell, store) = (self.cell(run.attempt, true), self.store.clone());
        async move {
            let begun = begin(&store, &cell, &run, None).await?;
            let stored = match (outcome.finished, outcome.time_ms) {
                (true, Some(time_ms)) => {
                    Outcome::Finished { steps: outcome.steps, time_ms, at_floor: outcome.at_floor }
                }
                _ => Outcome::NotFinished { steps: outcome.steps },
            };
            crate::metrics::store_queue_depth(store.queued());
            let asked = Instant::now();
            let finished =
                finish_with_retries(&store, begun.run_id, stored, outcome.moves, outcome.move_times_ms)
                    .await?;
            crate::metrics::store_commit(asked.elapsed());
            Ok(finished)
        }
    }
}

/// Run `begin_run` for this attempt once, whoever asks first.
async fn begin(
    store: &Store,
    cell: &BeginCell,
    run: &DailyRun,
    cap: Option<AddressCap>,
) -> Result<BeginRun, DailyError> {
    let new = NewRun {
        player: PlayerKey::from_token(&run.token),
        name: run.name.clone(),
        date: run.date,
        game: run.game,
        size: run.size,
        seed: run.seed,
    };
    Ok(*cell.get_or_try_init(|| store.begin_run_capped(new, cap)).await?)
}

/// `finish_run`, tried again (see [`FINISH_RETRIES`]) while the store is
/// unavailable; any other error is returned at once.
async fn finish_with_retries(
    store: &Store,
    run_id: i64,
    outcome: Outcome,
    moves: Vec<mazerace_protocol::Action>,
    times: Option<Vec<u64>>,
) -> Result<FinishedRun, StoreError> {
    let mut waits = FINISH_RETRIES.iter();
    loop {
        match store.finish_run(run_id, outcome, moves.clone(), times.clone()).await {
            Err(e) if e.kind() == ErrorKind::Busy => match waits.next() {
                Some(wait) => {
                    tracing::warn!(run_id, error = %e, retry_in_ms = wait.as_millis() as u64, "daily result not committed yet: retrying");
                    tokio::time::sleep(*wait).await;
                }
                None => return Err(e),
            },
            done => return done,
        }
    }
}
