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
//! Outages: a finish that cannot commit because the store is unavailable
//! (the database is down or unreachable) is tried again, [`FINISH_RETRIES`]
//! times over about 30 s, before the player hears that it was not stored;
//! the result is acknowledged only once it has committed. Repeating a
//! finish is safe (the store accepts an identical repeat), so a commit whose
//! answer was lost is not doubled.
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
use mazerace_protocol::daily::{daily_seed, DailyDate};
use mazerace_protocol::messages::{DailyResult, Leaderboard, ServerMsg};
use mazerace_protocol::{Board, Game, Size};
use mazerace_store::{
    ms_until_next_utc_day, AddressCap, BeginRun, Clock, ErrorKind, NewRun, Outcome, PlayerKey, Store,
    StoreError,
};
use tokio::sync::OnceCell;

use crate::daily::{
    BoardQuery, DailyBoard, DailyError, DailyHook, DailyOutcome, DailyRun, DailySchedule, DailyStart,
    HookFuture, PlayerDay, RankedStart, Replay, RivalQuery, RivalRun,
};

/// A store error as the hook's caller needs it: typed by kind.
pub(crate) fn typed(e: StoreError) -> anyhow::Error {
    match e.kind() {
        ErrorKind::Busy => DailyError::Unavailable(Box::new(e)).into(),
        ErrorKind::Refused => DailyError::Refused(e.to_string()).into(),
        ErrorKind::Internal => anyhow::Error::new(e),
    }
}

type BeginCell = Arc<OnceCell<BeginRun>>;

/// The waits between the tries of a finish while the store is unavailable:
/// five tries in all, the last one about 30 s after the first.
const FINISH_RETRIES: [Duration; 4] =
    [Duration::from_secs(1), Duration::from_secs(3), Duration::from_secs(8), Duration::from_secs(18)];

/// `finish_run`, tried again (see [`FINISH_RETRIES`]) while the store is
/// unavailable; any other error is returned at once.
async fn finish_with_retries(
    store: &Store,
    run_id: i64,
    outcome: Outcome,
    moves: Vec<mazerace_protocol::Action>,
    times: Option<Vec<u64>>,
) -> Result<mazerace_store::FinishedRun, StoreError> {
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

/// The daily challenge on a [`Store`].
pub struct StoreHook {
    store: Store,
    salt: Vec<u8>,
    clock: Arc<dyn Clock>,
    /// Ranked runs per board per address a day (`--ranked-per-address`).
    per_address: u32,
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
        Ok(StoreHook {
            store,
            salt,
            clock,
            per_address: crate::config::Config::default().ranked_per_address,
            open: Mutex::new(HashMap::new()),
            heartbeat,
        })
    }

    /// At most `n` ranked runs per board per network address a day (0: no cap).
    pub fn with_ranked_per_address(mut self, n: u32) -> Self {
        self.per_address = n;
        self
    }

    /// The cap for a run from `address`: the address is stored only as an
    /// HMAC under the daily salt, so the table cannot be read back into
    /// addresses (an unkeyed hash of an IPv4 address is a 2^32 search).
    fn cap(&self, address: &str) -> Option<AddressCap> {
        if address.is_empty() || self.per_address == 0 {
            return None;
        }
        let key = mazerace_protocol::daily::keyed_hex(&self.salt, &format!("mazerace address v1|{address}"));
        Some(AddressCap { key, limit: self.per_address })
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
async fn begin(
    store: &Store,
    cell: &BeginCell,
    run: &DailyRun,
    cap: Option<AddressCap>,
) -> anyhow::Result<BeginRun> {
    let new = NewRun {
        player: PlayerKey::from_token(&run.token),
        name: run.name.clone(),
        date: run.date.clone(),
        game: run.game,
        size: run.size,
        seed: run.seed,
    };
    Ok(*cell.get_or_try_init(|| store.begin_run_capped(new, cap)).await.map_err(typed)?)
}

impl DailyHook for StoreHook {
    fn today(&self, game: Game, size: Size) -> HookFuture<DailyBoard> {
        let date = self.clock.today();
        let seed = daily_seed(&self.salt, &date, game, size);
        Box::pin(async move {
            Ok(DailyBoard {
                date,
                seed,
                ranked: true,
                ranked_at: None,
                capped: false,
                address: String::new(),
            })
        })
    }

    fn started(&self, run: DailyRun) -> HookFuture<DailyStart> {
        let cell = self.cell(run.attempt, false);
        let store = self.store.clone();
        let cap = self.cap(&run.address);
        Box::pin(async move {
            let begun = begin(&store, &cell, &run, cap).await?;
            tracing::info!(
                run_id = begun.run_id,
                ranked = begun.ranked,
                capped = begun.capped,
                "daily run started"
            );
            Ok(DailyStart { ranked: begun.ranked, capped: begun.capped })
        })
    }

    fn ended(&self, run: DailyRun, outcome: DailyOutcome) -> HookFuture<DailyResult> {
        let cell = self.cell(run.attempt, true);
        let store = self.store.clone();
        Box::pin(async move {
            // The start normally ran already (`started`), so the cap is moot here.
            let begun = begin(&store, &cell, &run, None).await?;
            let stored = match (outcome.finished, outcome.time_ms) {
                (true, Some(time_ms)) => Outcome::Finished { steps: outcome.steps, time_ms },
                _ => Outcome::NotFinished { steps: outcome.steps },
            };
            crate::metrics::store_queue_depth(store.queued());
            let asked = std::time::Instant::now();
            let finished =
                finish_with_retries(&store, begun.run_id, stored, outcome.moves, outcome.move_times_ms)
                    .await
                    .map_err(typed)?;
            crate::metrics::store_commit(asked.elapsed());
            // The best score for the share text: the board is rebuilt from its
            // seed (microseconds) rather than carried through the room.
            let best = Board::build(run.size, run.seed).ok().and_then(|b| b.best());
            let mut result = finished.to_daily_result(best);
            if result.ranked {
                let player = PlayerKey::from_token(&run.token);
                result.leagues =
                    crate::daily_leagues::places(&store, &player, &run.date, run.game, run.size).await;
            }
            Ok(result)
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
            let (run, hidden) = match visible::visible(&store, &today, run_id, token.as_deref()).await? {
                visible::Visible::NotFound => return Ok(Replay::NotFound),
                visible::Visible::Hidden => return Ok(Replay::Hidden),
                visible::Visible::Run(run, day_on) => (run, day_on),
            };
            // The player's own run on today's board comes without the seed:
            // it stays secret until the day is over, like the room's board.
            let built = Board::build(run.size, run.seed.0)?;
            let board = if hidden { built.public_hidden() } else { built.public() };
            let mut json = serde_json::to_value(&run)?;
            if let Some(obj) = json.as_object_mut() {
                if hidden {
                    obj.remove("seed");
                }
                obj.insert("board".into(), serde_json::to_value(board)?);
            }
            Ok(Replay::Run(json))
        })
    }

    fn rival(&self, query: RivalQuery, token: String) -> HookFuture<RivalRun> {
        let today = self.clock.today();
        let store = self.store.clone();
        Box::pin(async move { visible::rival(&store, &today, query, &token).await })
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

    fn is_active_daily_seed(&self, seed: u64) -> bool {
        let today = self.clock.today();
        (0..=crate::daily::COMMIT_DAYS).filter_map(|d| mazerace_store::clock::add_days(&today, d)).any(
            |date| {
                mazerace_store::daily::ALL_SIZES
                    .iter()
                    .any(|&size| daily_seed(&self.salt, &date, size.game(), size) == seed)
            },
        )
    }

    fn commitments(&self) -> Option<crate::daily::Commitments> {
        Some(mazerace_store::commit::commitments(&self.salt, &self.clock.today(), crate::daily::COMMIT_DAYS))
    }

    fn reveal(&self, date: DailyDate) -> crate::daily::RevealAnswer {
        if date >= DailyDate::of(self.clock.now()) {
            return crate::daily::RevealAnswer::NotYet;
        }
        crate::daily::RevealAnswer::Revealed(mazerace_store::commit::reveal(&self.salt, &date.to_string()))
    }

    fn league(
        &self,
        token: String,
        player_name: String,
        op: crate::daily::LeagueOp,
    ) -> HookFuture<ServerMsg> {
        let (store, today) = (self.store.clone(), self.clock.today());
        let player = PlayerKey::from_token(&token);
        Box::pin(crate::daily_leagues::handle(store, today, player, player_name, op))
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
mod tests;
mod visible;
