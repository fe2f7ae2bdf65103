//! The seam between the race server and the daily challenge: the race
//! server knows *when* a daily attempt starts and ends, a [`DailyHook`]
//! knows what that means (seeds, one ranked attempt a day, storage,
//! leaderboards, leagues). [`super::StoreHook`] is the real one, on
//! `mazerace-store`; tests plug in their own.
//!
//! Wiring: [`crate::Server::new`] takes `Option<Arc<dyn DailyHook>>`, and
//! `cli::serve` builds the real one. With `None` every daily request
//! answers [`DailyError::NotConfigured`].
//!
//! With a hook, the calls and where they come from:
//! 1. [`DailyHook::today`] on `create_room {daily: true}` (connection task):
//!    today's date and seed for the game and size, and whether the player's
//!    try is ranked. The room is a room of one, ranks by steps, has no rematch.
//! 2. [`DailyHook::started`] when the countdown ends and the attempt begins
//!    (room task, spawned: the room never waits on storage). From here the
//!    attempt is final for ranking.
//! 3. [`DailyHook::ended`] once per attempt, when the racer finishes, runs
//!    out of steps, leaves, stays away past the resume window, or the time
//!    limit runs out ([`DailyOutcome::finished`] says which kind). The
//!    returned [`DailyResult`] is sent to the player as `daily_result` only
//!    after the future resolves, i.e. after the store committed it.
//! 4. [`DailyHook::leaderboard`] on a `leaderboard` message and its route;
//!    [`DailyHook::player_day`] for `GET /api/daily`'s `you`.
//! 5. Issue 15: [`DailyHook::is_active_daily_seed`] on `create_room` with a
//!    seed (refused while its day is on), [`DailyHook::commitments`] and
//!    [`DailyHook::reveal`] for the commit-reveal routes, and
//!    [`DailyHook::league`] for every league message and route. A daily
//!    room's boards carry no seed; ranked moves are paced in the room's race.
//!
//! Every call answers a typed [`DailyError`]; dates cross as [`DailyDate`]s,
//! parsed once where they came in. Daily times run from the racer's first
//! accepted move (RULES.md, "Maze Escape: playing").

use std::future::Future;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};

use mazerace_protocol::daily::day::PlayerDay;
use mazerace_protocol::daily::reveal::{Commitments, Reveal};
use mazerace_protocol::daily::{BadDate, DailyDate};
use mazerace_protocol::messages::{DailyResult, Leaderboard, ServerMsg};
use mazerace_protocol::{Action, Game, Size};

use super::error::DailyError;

/// A boxed future, so the trait stays object safe without `async_trait`.
pub type HookFuture<T> = Pin<Box<dyn Future<Output = Result<T, DailyError>> + Send + 'static>>;

/// Today's board for one game and size, for one player.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DailyBoard {
    /// The UTC day.
    pub date: DailyDate,
    pub seed: u64,
    /// Whether the player's next attempt on it is their ranked one.
    pub ranked: bool,
    /// When it is not: when their ranked try started (RFC 3339, UTC).
    pub ranked_at: Option<String>,
    /// Practice because the player's network address has its cap of ranked
    /// runs on this board today (set from the store's answer at the start).
    pub capped: bool,
    /// The player's network address as the limits see it (IPv4, or an IPv6
    /// /64), set by the connection that made the room; the hook stores only
    /// a keyed hash of it.
    pub address: String,
}

/// The store's answer to an attempt's start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DailyStart {
    /// The player's ranked attempt (else practice).
    pub ranked: bool,
    /// Practice because the address reached its cap (`ranked` is false).
    pub capped: bool,
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
    pub date: DailyDate,
    pub game: Game,
    pub size: Size,
    pub seed: u64,
    /// The player's session token: their identity (store only its hash).
    pub token: String,
    pub name: String,
    /// The player's network address ([`DailyBoard::address`]), for the
    /// per-address cap on ranked runs.
    pub address: String,
}

/// How an attempt ended. The server measured all of it.
#[derive(Clone, Debug)]
pub struct DailyOutcome {
    /// Reached the goal (false: out of steps, left, gone, timed out).
    pub finished: bool,
    pub steps: u32,
    /// From the first accepted move to the finish; `None` if not finished.
    pub time_ms: Option<u64>,
    /// A ranked finish paced at the floor end to end ([`super::pace::Pace::at_floor`]).
    pub at_floor: bool,
    /// Every accepted action in order (the replay).
    pub moves: Vec<Action>,
    /// Each accepted action's time in ms since the racer's first accepted
    /// move, one per entry of `moves` (stored for issue 16's rivals);
    /// `None` when not measured (the run is then stored without times).
    pub move_times_ms: Option<Vec<u64>>,
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

/// Who asks a league request: the socket's session or the HTTP caller.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeagueAsker {
    /// The player's token (empty: an anonymous read).
    pub token: String,
    /// The name they are known by (empty when not needed).
    pub name: String,
    /// Their network address as the limits see it (a proxy's client, not the
    /// proxy): where a per-address budget on league lookups would be kept.
    pub address: IpAddr,
}

/// What a player asks of their leagues (socket and HTTP alike).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LeagueOp {
    Create {
        name: String,
    },
    /// `key`: the league's invite key, as its link carries it (each lookup by code may bring one).
    Join {
        code: String,
        key: Option<String>,
    },
    Leave {
        code: String,
    },
    /// The owner removes the member tagged `member` (`league_standings`' `member`).
    Remove {
        code: String,
        member: String,
    },
    /// The owner gives the league a new code (the old code, link and key stop working).
    NewCode {
        code: String,
    },
    Mine,
    Board {
        code: String,
        game: Game,
        size: Size,
        date: Option<DailyDate>,
        key: Option<String>,
    },
    Standings {
        code: String,
        days: u32,
        key: Option<String>,
    },
}

impl LeagueOp {
    /// The code a lookup names and the invite key it brings, if it brings one.
    pub fn invite(&self) -> Option<(&str, &str)> {
        match self {
            LeagueOp::Join { code, key: Some(key) }
            | LeagueOp::Board { code, key: Some(key), .. }
            | LeagueOp::Standings { code, key: Some(key), .. } => Some((code, key)),
            _ => None,
        }
    }
}

/// Which stored run `add_rival` asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RivalQuery {
    /// A run by its id.
    Run(i64),
    /// The #1 of a daily board's table.
    Best { date: DailyDate, game: Game, size: Size },
    /// The asking player's ranked finish on a daily board.
    Mine { date: DailyDate, game: Game, size: Size },
}

/// A finished stored run, as a rival needs it (the room checks its board
/// and replays it before racing it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RivalRun {
    pub run_id: i64,
    pub date: DailyDate,
    pub game: Game,
    pub size: Size,
    pub seed: u64,
    pub name: String,
    pub steps: u32,
    pub time_ms: u64,
    pub actions: Vec<Action>,
    /// Each action's ms since the run's first move; `None` for older runs.
    pub times_ms: Option<Vec<u64>>,
}

/// The answer to a reveal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RevealAnswer {
    Revealed(Reveal),
    /// The day is not over: its seeds are still secret.
    NotYet,
    /// This hook does not reveal seeds.
    Unavailable,
}

/// Which daily day it is.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct DailySchedule {
    /// Today, UTC.
    pub date: DailyDate,
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
    /// actions) with the public `board` to replay it on; `settled`: its day
    /// is over and it has ended (not `playing`), so this answer never
    /// changes again and may be cached (`GET /api/daily/runs/{id}`'s ETag).
    Run {
        body: serde_json::Value,
        settled: bool,
    },
}

/// Days after today whose commitments are published (and whose seeds
/// `create_room` refuses): today and the next seven.
pub const COMMIT_DAYS: i64 = 7;

fn not_configured<T: Send + 'static>() -> HookFuture<T> {
    Box::pin(async { Err(DailyError::NotConfigured) })
}

/// What the daily store offers the race server.
pub trait DailyHook: Send + Sync + 'static {
    /// Today's (UTC) date and seed for `game`/`size`, and whether the
    /// player with `token` from `address` (the limits' label: IPv4, or an
    /// IPv6 /64) would play it ranked: else when their ranked try began, or
    /// that the address has its cap of ranked runs (`capped`), said in the
    /// lobby before the start.
    fn today(&self, game: Game, size: Size, token: String, address: String) -> HookFuture<DailyBoard>;
    /// The attempt is about to start (the host pressed start): resolves once
    /// it is saved, with whether it is the player's ranked attempt. The
    /// countdown waits for it, and an error refuses the start.
    fn started(&self, run: DailyRun) -> HookFuture<DailyStart>;
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
    /// Whether `seed` is a daily board's seed whose day is not over yet
    /// (today's or one of the next [`COMMIT_DAYS`] days', any game or
    /// size): `create_room` refuses it (`daily_seed`). The default knows none.
    fn is_active_daily_seed(&self, seed: u64) -> bool {
        let _ = seed;
        false
    }
    /// The commitments of today's boards and the next [`COMMIT_DAYS`] days'
    /// (`GET /api/daily/commitments`); `None`: not offered (no salt).
    fn commitments(&self) -> Option<Commitments> {
        None
    }
    /// A past day's seeds with their nonces and commitments (`GET
    /// /api/daily/{date}/reveal`): [`RevealAnswer::NotYet`] for today and
    /// later days. The default offers none.
    fn reveal(&self, date: DailyDate) -> RevealAnswer {
        let _ = date;
        RevealAnswer::Unavailable
    }
    /// A league request from `asker`: answers with the `ServerMsg` to send,
    /// or a [`DailyError::Denied`] with its code. The default keeps no leagues.
    fn league(&self, asker: LeagueAsker, op: LeagueOp) -> HookFuture<ServerMsg> {
        let _ = (asker, op);
        not_configured()
    }
    /// Whether `key` is league `code`'s invite key (a link's `?k=`). The
    /// default knows no league, so no key.
    fn league_key_opens(&self, code: &str, key: &str) -> bool {
        let _ = (code, key);
        false
    }
    /// Whether the daily storage answers right now (`/healthz`): an
    /// [`DailyError::Unavailable`] when it does not. The default always does.
    fn ping(&self) -> HookFuture<()> {
        Box::pin(async { Ok(()) })
    }
    /// A stored run to race as a rival (`add_rival`), by the replay view's
    /// visibility rule: others' runs on today's boards are refused
    /// (`rival_hidden`) until the day is over, `token`'s own at once.
    /// Refusals are [`DailyError::Denied`] with a `rival_*` code. The
    /// default keeps no runs.
    fn rival(&self, query: RivalQuery, token: String) -> HookFuture<RivalRun> {
        let _ = (query, token);
        not_configured()
    }
    /// Today's boards with the player's ranked results, and their streak
    /// (`GET /api/daily`'s `you`). The default has nothing to say.
    fn player_day(&self, token: String) -> HookFuture<Option<PlayerDay>> {
        let _ = token;
        Box::pin(async { Ok(None) })
    }
}
