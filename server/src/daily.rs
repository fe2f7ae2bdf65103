//! The seam for the daily challenge: the race server knows *when* a daily
//! attempt starts and ends, a [`DailyHook`] knows what that means (seeds,
//! one ranked attempt a day, storage, leaderboards). The store crate
//! implements the hook; this crate never touches a database.
//!
//! Wiring: [`crate::Server::new`] takes `Option<Arc<dyn DailyHook>>`, and
//! `cli::serve` is where the real one is built (it passes `None` until the
//! store is wired). With `None`:
//! - `create_room {daily: true}` answers `error {code: "internal",
//!   message: "daily challenge is not configured"}`;
//! - `leaderboard` answers the same.
//!
//! With a hook, the calls and where they come from:
//! 1. [`DailyHook::today`] on `create_room {daily: true}` (connection task):
//!    today's date and seed for the game and size. The room is a room of
//!    one (no one can join), ranks by steps, has no rematch.
//! 2. [`DailyHook::started`] when the countdown ends and the attempt begins
//!    (room task, spawned: the room never waits on storage). From here the
//!    attempt is final for ranking.
//! 3. [`DailyHook::ended`] once per attempt, when the racer finishes, runs
//!    out of steps, leaves, stays away past the resume window, or the time
//!    limit runs out ([`DailyOutcome::finished`] says which kind). The
//!    returned [`DailyResult`] is sent to the player as `daily_result` only
//!    after the future resolves, i.e. after the store committed it.
//! 4. [`DailyHook::leaderboard`] on a `leaderboard` message.
//!
//! Daily times run from the racer's first accepted move (RULES.md, "Maze
//! Escape: playing"), not from the start signal as in room races.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};

use mazerace_protocol::messages::{DailyResult, Leaderboard};
use mazerace_protocol::{Action, Game, Size};

/// A boxed future, so the trait stays object safe without `async_trait`.
pub type HookFuture<T> = Pin<Box<dyn Future<Output = anyhow::Result<T>> + Send + 'static>>;

/// Today's board for one game and size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DailyBoard {
    /// UTC date, `YYYY-MM-DD`.
    pub date: String,
    pub seed: u64,
    /// Whether the player's next attempt on it is their ranked one.
    pub ranked: bool,
    /// When it is not: when their ranked try started (RFC 3339, UTC).
    pub ranked_at: Option<String>,
}

/// A fresh id for one daily attempt, unique in this process: the hook pairs
/// `started` and `ended` by it (one player may hold two attempts at once).
pub fn next_attempt() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// Who attempts which daily board.
#[derive(Clone, Debug)]
pub struct DailyRun {
    /// From [`next_attempt`]; the same in `started` and `ended`.
    pub attempt: u64,
    pub date: String,
    pub game: Game,
    pub size: Size,
    pub seed: u64,
    /// The player's session token: their identity (store only its hash).
    pub token: String,
    pub name: String,
}

/// How an attempt ended. The server measured all of it.
#[derive(Clone, Debug)]
pub struct DailyOutcome {
    /// Reached the goal (false: out of steps, left, gone, timed out).
    pub finished: bool,
    pub steps: u32,
    /// From the first accepted move to the finish; `None` if not finished.
    pub time_ms: Option<u64>,
    /// Every accepted action in order (the replay).
    pub moves: Vec<Action>,
    /// Each action's time in ms since the first accepted one (`moves[i]`
    /// at `times_ms[i]`), so a stored run can be raced as a rival.
    pub times_ms: Vec<u64>,
}

/// What the daily store offers the race server.
pub trait DailyHook: Send + Sync + 'static {
    /// Today's (UTC) date and seed for `game`/`size`.
    fn today(&self, game: Game, size: Size) -> HookFuture<DailyBoard>;
    /// The attempt is about to start (the host pressed start): resolves once
    /// it is saved, with whether it is the player's ranked attempt. The
    /// countdown waits for it, and an error refuses the start.
    fn started(&self, run: DailyRun) -> HookFuture<bool>;
    /// The attempt is over; resolves once the result is committed.
    fn ended(&self, run: DailyRun, outcome: DailyOutcome) -> HookFuture<DailyResult>;
    /// A daily board's table; `date` `None` means today. `token` finds `you`.
    fn leaderboard(
        &self,
        game: Game,
        size: Size,
        date: Option<String>,
        token: Option<String>,
    ) -> HookFuture<Leaderboard>;
    /// Today's date and how long until the next day's boards (`GET /api/daily`).
    fn schedule(&self) -> DailySchedule;
    /// A stored run for the replay view (`GET /api/daily/runs/{id}`);
    /// `token` (if any) lets a player see their own run on today's board.
    fn replay(&self, run_id: i64, token: Option<String>) -> HookFuture<Replay>;
}

/// Which daily day it is.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct DailySchedule {
    /// Today, UTC, `YYYY-MM-DD`.
    pub date: String,
    /// Milliseconds until 00:00 UTC, when the next boards start.
    pub next_in_ms: u64,
}

/// What the replay view may show.
#[derive(Clone, Debug)]
pub enum Replay {
    NotFound,
    /// A run on today's board: its route would spoil the board for everyone.
    Hidden,
    /// The stored run as JSON (board address, seed, name, steps, time,
    /// actions) with the public `board` to replay it on.
    Run(serde_json::Value),
}

/// The message when no hook is configured.
pub const NOT_CONFIGURED: &str = "daily challenge is not configured";
