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
//! 5. [`DailyHook::ranked_start`] and [`DailyHook::player_day`] for the web
//!    client (PROTOCOL-NEXT items 8 and 9): the player's ranked try on a
//!    board, and their day across every board with their streak.
//!
//! Errors: a hook's `anyhow::Error` may carry a [`DailyError`] saying what
//! kind of failure it is; [`daily_error_kind`] reads it (anything else is
//! internal), so no caller chooses an error code from an error's text.
//!
//! Daily times run from the racer's first accepted move (RULES.md, "Maze
//! Escape: playing"), not from the start signal as in room races.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};

use mazerace_protocol::daily::{BadDate, DailyDate};
use mazerace_protocol::messages::{DailyResult, Leaderboard};
use mazerace_protocol::{Action, Game, Size};

pub use mazerace_store::{DayBoard, PlayedBoard, PlayerDay, RankedStart};

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
    /// Each accepted action's time in ms since the racer's first accepted
    /// move, one per entry of `moves` (stored for issue 16's rivals);
    /// `None` when not measured (the run is then stored without times).
    pub move_times_ms: Option<Vec<u64>>,
}

/// A typed hook failure, carried inside the hook's `anyhow::Error`.
#[derive(Debug, thiserror::Error)]
pub enum DailyError {
    /// Storage is busy, unreachable or timed out: try again shortly (a
    /// `daily_unavailable`-style code on the socket, 503 on HTTP).
    #[error("the daily challenge is unavailable right now, try again shortly")]
    Unavailable(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// The request itself is refused (a malformed date, a run already over);
    /// the text is safe to show the player.
    #[error("{0}")]
    Refused(String),
}

/// What kind of failure a hook error is (see [`DailyError`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DailyErrorKind {
    Unavailable,
    Refused,
    Internal,
}

/// The kind of a hook's error: its [`DailyError`], or internal when it has none.
pub fn daily_error_kind(e: &anyhow::Error) -> DailyErrorKind {
    match e.downcast_ref::<DailyError>() {
        Some(DailyError::Unavailable(_)) => DailyErrorKind::Unavailable,
        Some(DailyError::Refused(_)) => DailyErrorKind::Refused,
        None => DailyErrorKind::Internal,
    }
}

/// A request for one daily board's table, checked once, the same way for
/// the socket and for HTTP: the size belongs to the game, the date is real.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoardQuery {
    pub game: Game,
    pub size: Size,
    /// `None`: today.
    pub date: Option<DailyDate>,
}

/// Why a [`BoardQuery`] is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    #[error("no such game or size")]
    UnknownBoard,
    #[error("{size} is not a size of {game}")]
    WrongGame { size: Size, game: Game },
    #[error(transparent)]
    BadDate(#[from] BadDate),
}

impl BoardQuery {
    pub fn new(game: Game, size: Size, date: Option<DailyDate>) -> Result<BoardQuery, QueryError> {
        if size.game() != game {
            return Err(QueryError::WrongGame { size, game });
        }
        Ok(BoardQuery { game, size, date })
    }

    /// From the three parts of `/api/daily/{date}/{game}/{size}`.
    pub fn parse(date: &str, game: &str, size: &str) -> Result<BoardQuery, QueryError> {
        let (Ok(game), Ok(size)) = (game.parse::<Game>(), size.parse::<Size>()) else {
            return Err(QueryError::UnknownBoard);
        };
        BoardQuery::new(game, size, Some(date.parse()?))
    }
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
    /// A daily board's table (the query's date `None` means today). `token`
    /// finds `you`.
    fn leaderboard(&self, query: BoardQuery, token: Option<String>) -> HookFuture<Leaderboard>;
    /// Today's date and how long until the next day's boards (`GET /api/daily`).
    fn schedule(&self) -> DailySchedule;
    /// A stored run for the replay view (`GET /api/daily/runs/{id}`);
    /// `token` (if any) lets a player see their own run on today's board.
    fn replay(&self, run_id: i64, token: Option<String>) -> HookFuture<Replay>;
    /// The player's ranked try on the board (`date`, `game`, `size`), if
    /// they have one, and when it began (a daily `room`'s `ranked_at`).
    /// The default (a hook without storage) knows of none.
    fn ranked_start(
        &self,
        token: String,
        date: String,
        game: Game,
        size: Size,
    ) -> HookFuture<Option<RankedStart>> {
        let _ = (token, date, game, size);
        Box::pin(async { Ok(None) })
    }
    /// Whether the daily storage answers right now (`/healthz`): an
    /// [`DailyError::Unavailable`] when it does not. The default always does.
    fn ping(&self) -> HookFuture<()> {
        Box::pin(async { Ok(()) })
    }
    /// Today's boards with the player's ranked results, and their streak
    /// (`GET /api/daily`'s `you`). The default has nothing to say.
    fn player_day(&self, token: String) -> HookFuture<Option<PlayerDay>> {
        let _ = token;
        Box::pin(async { Ok(None) })
    }
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
