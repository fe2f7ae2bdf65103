//! [`StoreHook`]: the daily challenge backed by `mazerace-store` (SQLite by
//! default, PostgreSQL with `--database-url`). It turns the race server's
//! "attempt started/ended" into stored runs ([`super::attempts`]), serves
//! the day's seeds and the leaderboards, answers leagues, replays and
//! rivals, and keeps this node's lease alive (a heartbeat task, which also
//! closes the open runs of nodes that died).
//!
//! Errors: every store error becomes a typed [`DailyError`] by its kind
//! (`From<StoreError>`); nothing here is an `anyhow`.

use std::sync::Arc;
use std::time::Duration;

use mazerace_protocol::daily::day::PlayerDay;
use mazerace_protocol::daily::reveal::Commitments;
use mazerace_protocol::daily::{daily_seed, ms_until_next_utc_day, DailyDate};
use mazerace_protocol::messages::{DailyResult, Leaderboard, ServerMsg};
use mazerace_protocol::{Board, Game, Size};
use mazerace_store::{AddressCap, Clock, PlayerKey, Store};

use super::attempts::Attempts;
use super::error::DailyError;
use super::seam::{
    BoardQuery, DailyBoard, DailyHook, DailyOutcome, DailyRun, DailySchedule, DailyStart, HookFuture,
    LeagueAsker, LeagueOp, Replay, RevealAnswer, RivalQuery, RivalRun,
};
use super::{leagues, secrecy, visible};

/// The daily challenge on a [`Store`].
pub struct StoreHook {
    store: Store,
    salt: Vec<u8>,
    clock: Arc<dyn Clock>,
    /// Ranked runs per board per address a day (`--ranked-per-address`).
    per_address: u32,
    /// Attempts between `started` and `ended`.
    attempts: Arc<Attempts>,
    /// The per-address budget and daily cap on making leagues.
    makers: Arc<leagues::Makers>,
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
    /// the one kept in the database. Closes the runs this node's previous
    /// process left open, and starts the heartbeat.
    pub async fn new(
        store: Store,
        salt: Option<Vec<u8>>,
        clock: Arc<dyn Clock>,
    ) -> Result<StoreHook, DailyError> {
        let closed = store.abandon_open_runs().await?;
        if closed > 0 {
            tracing::warn!(
                closed,
                "daily runs left open by this node's last stop are recorded as not finished"
            );
        }
        let salt = match salt {
            Some(s) => s,
            None => store.daily_salt().await?,
        };
        let heartbeat = tokio::spawn(heartbeat(store.clone())).abort_handle();
        Ok(StoreHook {
            attempts: Arc::new(Attempts::new(store.clone())),
            makers: Arc::new(leagues::Makers::new(salt.clone())),
            store,
            salt,
            clock,
            per_address: crate::config::Config::default().ranked_per_address,
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

    pub fn clock(&self) -> &Arc<dyn Clock> {
        &self.clock
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

impl DailyHook for StoreHook {
    fn today(&self, game: Game, size: Size, token: String, address: String) -> HookFuture<DailyBoard> {
        let date = self.clock.today();
        let seed = daily_seed(&self.salt, date, game, size);
        let store = self.store.clone();
        let cap = self.cap(&address);
        Box::pin(async move {
            // Whether this try is ranked, said before the start: a practice
            // run names the time of the ranked one, or the address's cap.
            let player = PlayerKey::from_token(&token);
            let ranked = store.ranked_run(player.clone(), date, game, size).await?;
            let capped = match (&ranked, cap) {
                (None, Some(cap)) => store.cap_reached(player, (date, game, size), cap).await?,
                _ => false,
            };
            Ok(DailyBoard {
                date,
                seed,
                ranked: ranked.is_none() && !capped,
                ranked_at: ranked.map(|r| r.started_at),
                capped,
                address,
            })
        })
    }

    fn started(&self, run: DailyRun) -> HookFuture<DailyStart> {
        let cap = self.cap(&run.address);
        let begin = self.attempts.begin(run, cap);
        Box::pin(async move {
            let begun = begin.await?;
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
        let attempts = Arc::clone(&self.attempts);
        let store = self.store.clone();
        Box::pin(async move {
            let (date, game, size, seed, player) =
                (run.date, run.game, run.size, run.seed, PlayerKey::from_token(&run.token));
            let finished = attempts.end(run, outcome).await?;
            // The best score for the share text: the board is rebuilt from its
            // seed (microseconds) rather than carried through the room.
            let best = Board::build(size, seed).ok().and_then(|b| b.best());
            let mut result = finished.to_daily_result(best);
            if result.ranked {
                result.leagues = leagues::places(&store, &player, date, game, size).await;
            }
            Ok(result)
        })
    }

    fn leaderboard(&self, q: BoardQuery, token: Option<String>) -> HookFuture<Leaderboard> {
        let date = q.date.unwrap_or_else(|| self.clock.today());
        let store = self.store.clone();
        Box::pin(async move {
            let you = token.as_deref().map(PlayerKey::from_token);
            Ok(store.leaderboard(date, q.game, q.size, you).await?)
        })
    }

    fn schedule(&self) -> DailySchedule {
        let now = self.clock.now();
        DailySchedule { date: DailyDate::of(now), next_in_ms: ms_until_next_utc_day(now) }
    }

    fn replay(&self, run_id: i64, token: Option<String>) -> HookFuture<Replay> {
        let today = self.clock.today();
        let store = self.store.clone();
        Box::pin(async move { visible::replay(&store, today, run_id, token.as_deref()).await })
    }

    fn rival(&self, query: RivalQuery, token: String) -> HookFuture<RivalRun> {
        let today = self.clock.today();
        let store = self.store.clone();
        Box::pin(async move { visible::rival(&store, today, query, &token).await })
    }

    fn is_active_daily_seed(&self, seed: u64) -> bool {
        secrecy::is_active_daily_seed(&self.salt, self.clock.today(), seed)
    }

    fn commitments(&self) -> Option<Commitments> {
        Some(secrecy::published(&self.salt, self.clock.today()))
    }

    fn reveal(&self, date: DailyDate) -> RevealAnswer {
        secrecy::revealed(&self.salt, self.clock.today(), date)
    }

    fn league(&self, asker: LeagueAsker, op: LeagueOp) -> HookFuture<ServerMsg> {
        let (store, today) = (self.store.clone(), self.clock.today());
        Box::pin(leagues::handle(store, today, Arc::clone(&self.makers), asker, op))
    }

    fn league_key_opens(&self, code: &str, key: &str) -> bool {
        self.makers.key_opens(code, key)
    }

    fn ping(&self) -> HookFuture<()> {
        let store = self.store.clone();
        Box::pin(async move { Ok(store.ping().await?) })
    }

    fn player_day(&self, token: String) -> HookFuture<Option<PlayerDay>> {
        let today = self.clock.today();
        let store = self.store.clone();
        Box::pin(async move { Ok(Some(store.player_day(PlayerKey::from_token(&token), today).await?)) })
    }
}
