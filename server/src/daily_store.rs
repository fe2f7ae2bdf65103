//! The real [`DailyHook`]: the daily challenge backed by `mazerace-store`
//! (SQLite by default, PostgreSQL with `--database-url`). It turns the race
//! server's "attempt started/ended" into stored runs, serves the day's seeds
//! and the leaderboards, and keeps this node's lease alive (a heartbeat
//! task, which also closes the open runs of nodes that died).
//!
//! Errors: every store error becomes a typed [`DailyError`] by its
//! [`ErrorKind`] (busy or unreachable: `Unavailable`; a refused request:
//! `Refused`); internal ones stay plain `anyhow` errors.
//!
//! Ordering: a room reports `started` and later `ended` for the same
//! attempt, each as its own task, so `ended` could reach the store first.
//! Both therefore go through one per-attempt cell that runs `begin_run`
//! exactly once; `finish_run` waits for it. `started` registers the cell
//! synchronously, before its future runs, so `ended` always finds it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Context;
use mazerace_protocol::daily::daily_seed;
use mazerace_protocol::messages::{DailyResult, Leaderboard};
use mazerace_protocol::{Board, Game, Size};
use mazerace_store::{
    ms_until_next_utc_day, BeginRun, Clock, ErrorKind, NewRun, Outcome, PlayerKey, Store, StoreError,
};
use tokio::sync::OnceCell;

use crate::daily::{
    BoardQuery, DailyBoard, DailyError, DailyHook, DailyOutcome, DailyRun, DailySchedule, HookFuture,
    PlayerDay, RankedStart, Replay,
};

/// A store error as the hook's caller needs it: typed by kind.
fn typed(e: StoreError) -> anyhow::Error {
    match e.kind() {
        ErrorKind::Busy => DailyError::Unavailable(Box::new(e)).into(),
        ErrorKind::Refused => DailyError::Refused(e.to_string()).into(),
        ErrorKind::Internal => anyhow::Error::new(e),
    }
}

type BeginCell = Arc<OnceCell<BeginRun>>;

/// The daily challenge on a [`Store`].
pub struct StoreHook {
    store: Store,
    salt: Vec<u8>,
    clock: Arc<dyn Clock>,
    /// Attempts between `started` and `ended`, by attempt id.
    open: Mutex<HashMap<u64, BeginCell>>,
    /// The heartbeat task, stopped with the hook (it holds a store handle).
    heartbeat: tokio::task::AbortHandle,
}

impl Drop for StoreHook {
    fn drop(&mut self) {
        self.heartbeat.abort();
    }
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
            tracing::warn!(
                closed,
                "daily runs left open by this node's last stop are recorded as not finished"
            );
        }
        let salt = match salt {
            Some(s) => s,
            None => store.daily_salt().await.context("reading the daily salt")?,
        };
        let heartbeat = tokio::spawn(heartbeat(store.clone())).abort_handle();
        Ok(StoreHook { store, salt, clock, open: Mutex::new(HashMap::new()), heartbeat })
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

/// Renew this node's lease for ever (until aborted); the first beat is at once.
async fn heartbeat(store: Store) {
    // A quarter of the lease: three beats may be missed before others close our runs.
    let period = store.heartbeat_interval().max(Duration::from_millis(100));
    let mut every = tokio::time::interval(period);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        every.tick().await;
        match store.heartbeat().await {
            Ok(0) => {}
            Ok(closed) => tracing::warn!(closed, "closed the open daily runs of a node whose lease ran out"),
            Err(e) => tracing::warn!(error = %e, "daily store heartbeat failed"),
        }
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
    Ok(*cell.get_or_try_init(|| store.begin_run(new)).await.map_err(typed)?)
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
            let finished = store
                .finish_run(begun.run_id, stored, outcome.moves, outcome.move_times_ms)
                .await
                .map_err(typed)?;
            // The best score for the share text: the board is rebuilt from its
            // seed (microseconds) rather than carried through the room.
            let best = Board::build(run.size, run.seed).ok().and_then(|b| b.best());
            Ok(finished.to_daily_result(best))
        })
    }

    fn leaderboard(&self, q: BoardQuery, token: Option<String>) -> HookFuture<Leaderboard> {
        let date = q.date.map_or_else(|| self.clock.today(), |d| d.to_string());
        let store = self.store.clone();
        Box::pin(async move {
            let you = token.as_deref().map(PlayerKey::from_token);
            store.leaderboard(date, q.game, q.size, you).await.map_err(typed)
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
            let Some(run) = store.run(run_id).await.map_err(typed)? else { return Ok(Replay::NotFound) };
            // Dates compare as strings: YYYY-MM-DD sorts by time. A run on
            // today's board would spoil it, except for the one who made it.
            if run.date >= today {
                let mine = match token {
                    Some(t) => store.owns_run(run_id, PlayerKey::from_token(&t)).await.map_err(typed)?,
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

    fn ranked_start(
        &self,
        token: String,
        date: String,
        game: Game,
        size: Size,
    ) -> HookFuture<Option<RankedStart>> {
        let store = self.store.clone();
        Box::pin(async move {
            let player = PlayerKey::from_token(&token);
            store.ranked_start(player, date, game, size).await.map_err(typed)
        })
    }

    fn ping(&self) -> HookFuture<()> {
        let store = self.store.clone();
        Box::pin(async move { store.ping().await.map_err(typed) })
    }

    fn player_day(&self, token: String) -> HookFuture<Option<PlayerDay>> {
        let today = self.clock.today();
        let store = self.store.clone();
        Box::pin(async move {
            let day = store.player_day(PlayerKey::from_token(&token), today).await.map_err(typed)?;
            Ok(Some(day))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::daily::{daily_error_kind, BoardQuery, DailyErrorKind};

    #[test]
    fn store_errors_are_typed_by_kind_not_text() {
        let kind = |e: StoreError| daily_error_kind(&typed(e));
        assert_eq!(kind(StoreError::Busy), DailyErrorKind::Unavailable);
        let gone = StoreError::Unavailable(Box::new(std::io::Error::other("connection refused")));
        assert_eq!(kind(gone), DailyErrorKind::Unavailable);
        assert_eq!(kind(StoreError::RunOver(3)), DailyErrorKind::Refused);
        assert_eq!(kind(StoreError::Invalid("bad date".into())), DailyErrorKind::Refused);
        assert_eq!(kind(StoreError::Corrupt("x".into())), DailyErrorKind::Internal);
        assert_eq!(kind(StoreError::Closed), DailyErrorKind::Internal);
        assert_eq!(daily_error_kind(&anyhow::anyhow!("busy")), DailyErrorKind::Internal, "text is not read");
        // A refusal's text is the store's, safe to show.
        assert_eq!(typed(StoreError::RunOver(3)).to_string(), "run 3 is already over");
    }

    fn run(attempt: u64, token: &str, size: Size) -> DailyRun {
        DailyRun {
            attempt,
            date: "2026-12-01".into(),
            game: size.game(),
            size,
            seed: 9,
            token: token.into(),
            name: "Ann".into(),
        }
    }

    /// 2026-12-01T12:00:00Z.
    const NOON: u64 = 1_796_126_400_000;

    #[tokio::test]
    async fn the_players_queries_go_through_the_hook_and_dropping_it_stops_the_heartbeat() {
        let store = Store::open_in_memory().unwrap();
        let clock = Arc::new(mazerace_store::FixedClock::at_unix_ms(NOON));
        let hook = StoreHook::new(store.clone(), Some(b"salt".to_vec()), clock).await.unwrap();
        let (token, date) = ("tok".to_string(), "2026-12-01".to_string());
        assert_eq!(
            hook.ranked_start(token.clone(), date.clone(), Game::Ghost, Size::Small).await.unwrap(),
            None
        );
        hook.started(run(1, &token, Size::Small)).await.unwrap();
        let outcome = DailyOutcome {
            finished: true,
            steps: 3,
            time_ms: Some(900),
            moves: vec![],
            move_times_ms: Some(vec![]),
        };
        let result = hook.ended(run(1, &token, Size::Small), outcome).await.unwrap();
        let start = hook.ranked_start(token.clone(), date, Game::Ghost, Size::Small).await.unwrap();
        assert_eq!(start.map(|s| s.run_id), Some(result.run_id));
        let day = hook.player_day(token).await.unwrap().unwrap();
        assert_eq!((day.streak, day.boards.iter().filter(|b| b.played).count()), (1, 1));
        hook.ping().await.unwrap();
        assert!(
            BoardQuery::new(Game::Ghost, Size::Easy, None).is_err(),
            "a size of the other game cannot even be asked for"
        );
        // The heartbeat task holds a store handle: the hook's drop must end it,
        // or closing the store would wait for ever.
        drop(hook);
        let closed = tokio::time::timeout(std::time::Duration::from_secs(10), store.close()).await;
        assert!(closed.is_ok(), "the store closed once the hook was gone");
    }
}
