//! The real [`DailyHook`]: the daily challenge backed by `mazerace-store`
//! (SQLite by default). It turns the race server's "attempt started/ended"
//! into stored runs, and serves the day's seeds and the leaderboards.
//!
//! Ordering: a room reports `started` and later `ended` for the same
//! attempt, each as its own task, so `ended` could reach the store first.
//! Both therefore go through one per-attempt cell that runs `begin_run`
//! exactly once; `finish_run` waits for it. `started` registers the cell
//! synchronously, before its future runs, so `ended` always finds it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use anyhow::Context;
use mazerace_protocol::daily::{daily_seed, is_valid_date};
use mazerace_protocol::messages::{DailyResult, Leaderboard};
use mazerace_protocol::{Board, Game, Size};
use mazerace_store::{ms_until_next_utc_day, BeginRun, Clock, NewRun, Outcome, PlayerKey, Store};
use tokio::sync::OnceCell;

use crate::daily::{DailyBoard, DailyHook, DailyOutcome, DailyRun, DailySchedule, HookFuture, Replay};

type BeginCell = Arc<OnceCell<BeginRun>>;

/// The daily challenge on a [`Store`].
pub struct StoreHook {
    store: Store,
    salt: Vec<u8>,
    clock: Arc<dyn Clock>,
    /// Attempts between `started` and `ended`, by attempt id.
    open: Mutex<HashMap<u64, BeginCell>>,
}

impl StoreHook {
    /// `salt`: the configured one, or `None` to use (and on first start make)
    /// the one kept in the database.
    pub async fn new(
        store: Store,
        salt: Option<Vec<u8>>,
        clock: Arc<dyn Clock>,
    ) -> anyhow::Result<StoreHook> {
        let closed = store.abandon_open_runs().await.context("closing runs left open by the last stop")?;
        if closed > 0 {
            tracing::warn!(closed, "daily runs left open by the last stop are recorded as not finished");
        }
        let salt = match salt {
            Some(s) => s,
            None => store.daily_salt().await.context("reading the daily salt")?,
        };
        Ok(StoreHook { store, salt, clock, open: Mutex::new(HashMap::new()) })
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Today's UTC date by this hook's clock.
    pub fn today(&self) -> String {
        self.clock.today()
    }

    pub fn clock(&self) -> &Arc<dyn Clock> {
        &self.clock
    }

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
}

/// Run `begin_run` for this attempt once, whoever asks first.
async fn begin(store: &Store, cell: &BeginCell, run: &DailyRun) -> anyhow::Result<BeginRun> {
    let new = NewRun {
        player: PlayerKey::from_token(&run.token),
        name: run.name.clone(),
        date: run.date.clone(),
        game: run.game,
        size: run.size,
        seed: run.seed,
    };
    Ok(*cell.get_or_try_init(|| store.begin_run(new)).await?)
}

impl DailyHook for StoreHook {
    fn today(&self, game: Game, size: Size) -> HookFuture<DailyBoard> {
        let date = self.clock.today();
        let seed = daily_seed(&self.salt, &date, game, size);
        Box::pin(async move { Ok(DailyBoard { date, seed, ranked: true, ranked_at: None }) })
    }

    fn started(&self, run: DailyRun) -> HookFuture<bool> {
        let cell = self.cell(run.attempt, false);
        let store = self.store.clone();
        Box::pin(async move {
            let begun = begin(&store, &cell, &run).await?;
            tracing::info!(run_id = begun.run_id, ranked = begun.ranked, "daily run started");
            Ok(begun.ranked)
        })
    }

    fn ended(&self, run: DailyRun, outcome: DailyOutcome) -> HookFuture<DailyResult> {
        let cell = self.cell(run.attempt, true);
        let store = self.store.clone();
        Box::pin(async move {
            let begun = begin(&store, &cell, &run).await?;
            let stored = match (outcome.finished, outcome.time_ms) {
                (true, Some(time_ms)) => Outcome::Finished { steps: outcome.steps, time_ms },
                _ => Outcome::NotFinished { steps: outcome.steps },
            };
            let finished = store.finish_run(begun.run_id, stored, outcome.moves).await?;
            // The best score for the share text: the board is rebuilt from its
            // seed (microseconds) rather than carried through the room.
            let best = Board::build(run.size, run.seed).ok().and_then(|b| b.best());
            Ok(finished.to_daily_result(best))
        })
    }

    fn leaderboard(
        &self,
        game: Game,
        size: Size,
        date: Option<String>,
        token: Option<String>,
    ) -> HookFuture<Leaderboard> {
        let date = date.unwrap_or_else(|| self.clock.today());
        let store = self.store.clone();
        Box::pin(async move {
            anyhow::ensure!(is_valid_date(&date), "{date:?} is not a YYYY-MM-DD date");
            anyhow::ensure!(size.game() == game, "{size} is not a {game} size");
            let you = token.as_deref().map(PlayerKey::from_token);
            Ok(store.leaderboard(date, game, size, you).await?)
        })
    }

    fn schedule(&self) -> DailySchedule {
        let now = self.clock.now();
        DailySchedule { date: mazerace_store::utc_date(now), next_in_ms: ms_until_next_utc_day(now) }
    }

    fn replay(&self, run_id: i64, token: Option<String>) -> HookFuture<Replay> {
        let today = self.clock.today();
        let store = self.store.clone();
        Box::pin(async move {
            let Some(run) = store.run(run_id).await? else { return Ok(Replay::NotFound) };
            // Dates compare as strings: YYYY-MM-DD sorts by time. A run on
            // today's board would spoil it, except for the one who made it.
            if run.date >= today {
                let mine = match token {
                    Some(t) => store.owns_run(run_id, PlayerKey::from_token(&t)).await?,
                    None => false,
                };
                if !mine {
                    return Ok(Replay::Hidden);
                }
            }
            let board = Board::build(run.size, run.seed.0)?.public();
            let mut json = serde_json::to_value(&run)?;
            if let Some(obj) = json.as_object_mut() {
                obj.insert("board".into(), serde_json::to_value(board)?);
            }
            Ok(Replay::Run(json))
        })
    }
}
