//! The store's requests, each a typed call that runs one rule of
//! [`crate::rules`] on one connection through [`Store::request`]: the runs
//! (salt, begin, finish, heartbeats), the reads (leaderboards, ranks,
//! streaks, replays) and the leagues. The handle, its queue and its
//! lifetime are in the parent module.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::oneshot;

use mazerace_protocol::daily::day::PlayerDay;
use mazerace_protocol::daily::DailyDate;
use mazerace_protocol::messages::Leaderboard;
use mazerace_protocol::{Action, Game, Size};

use super::{Engine, Store};
use crate::error::StoreError;
use crate::group::FinishJob;
use crate::league::{LeagueAnswer, LeagueRequest, LeagueView};
use crate::player::PlayerKey;
use crate::record::{
    AddressCap, BeginRun, FinishedRun, NewRun, Outcome, RankedRow, StoredRun, LEADERBOARD_LIMIT,
};
use crate::rules::{self, convert::Ending};
use crate::sqlite::worker::Job;

impl Store {
    /// Whether the database answers right now (for `/healthz`): fails fast
    /// with [`StoreError::Busy`] when the queue is full, and with
    /// [`StoreError::Unavailable`] when the database cannot be reached.
    pub async fn ping(&self) -> Result<(), StoreError> {
        self.request(false, |db| Box::pin(rules::reads::ping(db))).await
    }

    /// The daily salt kept in the database, made and kept on first use (never
    /// over stored runs: [`StoreError::Corrupt`] then).
    pub async fn daily_salt(&self) -> Result<Vec<u8>, StoreError> {
        self.request(true, |db| Box::pin(rules::runs::daily_salt(db))).await
    }

    /// Start a run; ranked if it is the player's first on this board.
    pub async fn begin_run(&self, run: NewRun) -> Result<BeginRun, StoreError> {
        self.begin_run_capped(run, None).await
    }

    /// Start a run under a per-address cap: with a `cap`, the player's first
    /// run is practice too (`capped`) when the address already has
    /// `cap.limit` ranked runs on the board, counted in the same transaction.
    pub async fn begin_run_capped(
        &self,
        run: NewRun,
        cap: Option<AddressCap>,
    ) -> Result<BeginRun, StoreError> {
        let me = Arc::clone(&self.shared.me);
        self.request(true, move |db| {
            Box::pin(async move { rules::runs::begin_run(db, &me, &run, cap.as_ref()).await })
        })
        .await
    }

    /// End a run with its full move list (accepted actions only); returns
    /// only once it is committed. A run ends once: a different ending later
    /// is [`StoreError::RunOver`]; the same ending again returns the stored
    /// result, so retrying a finish whose outcome was unknown
    /// ([`StoreError::Unavailable`]) is safe. `times_ms`: each action's ms
    /// since the run's first move, one per action ([`StoreError::Invalid`]
    /// otherwise), or `None` when not measured. Committed with the other
    /// finishes waiting at the same time (group commit).
    pub async fn finish_run(
        &self,
        run_id: i64,
        outcome: Outcome,
        actions: Vec<Action>,
        times_ms: Option<Vec<u64>>,
    ) -> Result<FinishedRun, StoreError> {
        let end = Ending::new(outcome, &actions, times_ms.as_deref())?;
        let permit = self.permit(true).await?;
        let (reply, answer) = oneshot::channel();
        let job = FinishJob { run_id, end, reply, _permit: permit };
        match &self.shared.engine {
            Engine::Sqlite(worker) => worker.send(Job::Finish(job)).await?,
            Engine::Postgres { finishes, .. } => finishes.send(job).await.map_err(|_| StoreError::Closed)?,
        }
        answer.await.map_err(|_| StoreError::Closed)?
    }

    /// Close this node's runs left open by its previous process (call once
    /// at startup); other nodes' runs are left alone.
    pub async fn abandon_open_runs(&self) -> Result<u64, StoreError> {
        let me = Arc::clone(&self.shared.me);
        self.request(true, move |db| Box::pin(async move { rules::runs::abandon_open_runs(db, &me).await }))
            .await
    }

    /// How often to call [`Store::heartbeat`] (a quarter of the lease).
    pub fn heartbeat_interval(&self) -> Duration {
        self.shared.heartbeat_every
    }

    /// Renew this node's lease and close the runs of nodes whose lease ran
    /// out; returns how many runs were closed (see [`crate::node`]).
    pub async fn heartbeat(&self) -> Result<u64, StoreError> {
        let me = Arc::clone(&self.shared.me);
        self.request(true, move |db| Box::pin(async move { rules::runs::heartbeat(db, &me).await })).await
    }

    /// The player's ranked run on a board, if they have started one.
    pub async fn ranked_run(
        &self,
        player: PlayerKey,
        date: DailyDate,
        game: Game,
        size: Size,
    ) -> Result<Option<RankedRow>, StoreError> {
        self.request(false, move |db| {
            Box::pin(async move { rules::reads::ranked_run(db, &player, date, game, size).await })
        })
        .await
    }

    /// Whether `player`'s first run on the board would be practice because
    /// the address under `cap` has its ranked runs there already: what the
    /// lobby says before the start (the start counts again, under a lock).
    pub async fn cap_reached(
        &self,
        player: PlayerKey,
        (date, game, size): (DailyDate, Game, Size),
        cap: AddressCap,
    ) -> Result<bool, StoreError> {
        self.request(false, move |db| {
            Box::pin(async move {
                rules::check_board(game, size)?;
                rules::runs::cap_reached(db, (date, game, size), player.as_str(), &cap).await
            })
        })
        .await
    }

    /// Every board of `date` with the player's ranked result, and their streak.
    pub async fn player_day(&self, player: PlayerKey, date: DailyDate) -> Result<PlayerDay, StoreError> {
        self.request(false, move |db| {
            Box::pin(async move { rules::reads::player_day(db, &player, date).await })
        })
        .await
    }

    /// A board's top 100, entrants, and `you`'s own line.
    pub async fn leaderboard(
        &self,
        date: DailyDate,
        game: Game,
        size: Size,
        you: Option<PlayerKey>,
    ) -> Result<Leaderboard, StoreError> {
        self.request(false, move |db| {
            Box::pin(async move {
                rules::reads::leaderboard(db, date, game, size, you.as_ref(), LEADERBOARD_LIMIT).await
            })
        })
        .await
    }

    /// The rank of a run on its board; `None` unless it is a ranked finish.
    pub async fn rank_of(&self, run_id: i64) -> Result<Option<u32>, StoreError> {
        self.request(false, move |db| Box::pin(rules::reads::rank_of(db, run_id))).await
    }

    /// Ranked runs started on a board, finished or not.
    pub async fn entrants(&self, date: DailyDate, game: Game, size: Size) -> Result<u32, StoreError> {
        self.request(false, move |db| Box::pin(rules::reads::entrants(db, date, game, size))).await
    }

    /// Consecutive UTC days, ending `today`, on which the player started a
    /// ranked daily run (any game or size). A day not yet played does not
    /// break the streak: with no run today, the streak ending yesterday counts.
    pub async fn streak(&self, player: PlayerKey, today: DailyDate) -> Result<u32, StoreError> {
        self.request(false, move |db| Box::pin(async move { rules::reads::streak(db, &player, today).await }))
            .await
    }

    /// One run for the replay view.
    pub async fn run(&self, run_id: i64) -> Result<Option<StoredRun>, StoreError> {
        self.request(false, move |db| Box::pin(rules::reads::run(db, run_id))).await
    }

    /// Whether `player` made run `run_id`.
    pub async fn owns_run(&self, run_id: i64, player: PlayerKey) -> Result<bool, StoreError> {
        self.request(false, move |db| {
            Box::pin(async move { rules::reads::owns_run(db, run_id, &player).await })
        })
        .await
    }

    /// Up to `limit` runs with id greater than `after_id`, in id order: page
    /// through everything with `after_id` = the last id seen (start at 0).
    /// An admin's read (the verifier's): it waits for room in the queue.
    pub async fn runs_after(&self, after_id: i64, limit: u32) -> Result<Vec<StoredRun>, StoreError> {
        self.request(true, move |db| Box::pin(rules::reads::runs_after(db, after_id, limit))).await
    }

    /// A league request (see [`crate::league`]); writes wait for room in the queue.
    pub async fn league(&self, req: LeagueRequest) -> Result<LeagueAnswer, StoreError> {
        self.request(true, move |db| Box::pin(rules::leagues::league(db, req))).await
    }

    /// A league's members, their ranked runs from `from` to `to` and each
    /// member's streak as of `to`, in one request: `None` for an unknown code.
    pub async fn league_view(
        &self,
        code: String,
        from: DailyDate,
        to: DailyDate,
    ) -> Result<Option<LeagueView>, StoreError> {
        self.request(false, move |db| {
            Box::pin(async move { rules::leagues::league_view(db, &code, from, to).await })
        })
        .await
    }
}
