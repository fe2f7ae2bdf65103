//! What the lobby service is given, and all it may reach: [`LobbyEnv`]
//! holds the room registry and the sessions it creates and resumes, the
//! per-address slots (rooms, sessions), the join budgets (failed joins,
//! room joins, league joins), the takeover budget and the violation
//! penalty it feeds, the daily hook, the drain (no new rooms while it lasts),
//! the task tracker and shutdown token its resume timers run under, the
//! room moves and the seats of rooms moved here (`moved.rs`), and
//! [`LobbyLimits`], the handful of settings it reads. Every part is the
//! real thing, so a unit test builds one from a [`Config`] as the server
//! does ([`LobbyEnv::new`]); nothing here knows about sockets.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use mazerace_protocol::messages::Limits;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::config::Config;
use crate::daily::DailyHook;
use crate::drain::Drain;
use crate::edge::address::PerAddress;
use crate::edge::limits::JoinLimiter;
use crate::edge::penalty::Penalties;
use crate::ids::Ids;
use crate::moves::Moves;
use crate::registry::Registry;
use crate::room::RoomEnv;
use crate::sessions::Sessions;

/// The settings the lobby reads, copied out of [`Config`] once (each
/// connection's lobby keeps a reference to its env, never a copy).
#[derive(Debug, Clone, Copy)]
pub struct LobbyLimits {
    pub msgs_per_sec: u32,
    pub msgs_burst: u32,
    pub flood_strikes: u32,
    pub rooms_per_conn: u32,
    pub room_refill: Duration,
    pub resume_window: Duration,
    /// A new room's size when `create_room` names none.
    pub max_players: u32,
    /// This node's letter in room codes, when several nodes share a database.
    pub node_id: Option<char>,
    /// A ranked daily run's pace floor and burst (`daily::pace`), told to the client.
    pub ranked_move_floor: Duration,
    pub ranked_move_burst: u32,
}

impl LobbyLimits {
    pub fn new(cfg: &Config) -> Self {
        LobbyLimits {
            msgs_per_sec: cfg.msgs_per_sec,
            msgs_burst: cfg.msgs_burst,
            flood_strikes: cfg.flood_strikes,
            rooms_per_conn: cfg.rooms_per_conn,
            room_refill: cfg.room_refill,
            resume_window: cfg.resume_window,
            max_players: cfg.max_players,
            node_id: cfg.node_id,
            ranked_move_floor: cfg.ranked_move_floor,
            ranked_move_burst: cfg.ranked_move_burst,
        }
    }

    /// What `welcome` tells the client of the limits it is held to.
    pub fn for_client(&self) -> Limits {
        Limits {
            msgs_per_sec: self.msgs_per_sec,
            msgs_burst: self.msgs_burst,
            max_name_chars: crate::names::MAX_NAME_CHARS as u32,
            resume_window_ms: self.resume_window.as_millis() as u64,
            ranked_move_ms: u32::try_from(self.ranked_move_floor.as_millis()).unwrap_or(u32::MAX),
            ranked_move_burst: self.ranked_move_burst,
        }
    }
}

/// Everything the lobbies of all connections share. Each part guards
/// itself; none holds a lock across an await.
pub struct LobbyEnv {
    pub(super) limits: LobbyLimits,
    pub(super) ids: Ids,
    pub(super) rooms: Arc<Registry>,
    /// What rooms are given: their timings, the daily hook, the task tracker.
    pub(super) room_env: Arc<RoomEnv>,
    pub(super) sessions: Sessions,
    /// Shared with the HTTP league routes: one failed-join budget per address.
    pub(super) joins: Arc<JoinLimiter>,
    /// Room joins per address (a join/leave loop makes every member hear of each).
    pub(super) room_joins: JoinLimiter,
    /// Shared with the HTTP league routes: one league-join budget per address.
    pub(super) league_joins: Arc<JoinLimiter>,
    /// Session takeovers per address; past it each is a violation.
    pub(super) takeovers: JoinLimiter,
    /// Shared with the accept loop and `/ws`: what a takeover past the
    /// budget counts toward.
    pub(super) penalties: Arc<Penalties>,
    /// Live rooms per network address.
    pub(super) room_slots: Arc<PerAddress>,
    /// Live sessions per network address.
    pub(super) session_slots: Arc<PerAddress>,
    pub(super) daily: Option<Arc<dyn DailyHook>>,
    /// Ends the resume timers of detached sessions.
    pub(super) shutdown: CancellationToken,
    /// Runs the resume timers, so that shutdown waits for them.
    pub(super) tracker: TaskTracker,
    /// While draining, no new room is made here.
    pub(super) drain: Arc<Drain>,
    /// Rooms moving between nodes (`crate::moves`).
    pub(super) moves: Arc<Moves>,
    /// Seats of rooms moved here, waiting for their players' tokens.
    pub(super) claims: super::moved::Claims,
}

/// What [`LobbyEnv::new`] is handed by the server (the parts it shares
/// with the HTTP side and the rooms).
pub struct LobbyParts {
    pub daily: Option<Arc<dyn DailyHook>>,
    pub joins: Arc<JoinLimiter>,
    pub league_joins: Arc<JoinLimiter>,
    pub penalties: Arc<Penalties>,
    pub shutdown: CancellationToken,
    pub tracker: TaskTracker,
    pub drain: Arc<Drain>,
    pub moves: Arc<Moves>,
}

impl LobbyEnv {
    pub fn new(cfg: &Config, parts: LobbyParts) -> anyhow::Result<LobbyEnv> {
        let LobbyParts { daily, joins, league_joins, penalties, shutdown, tracker, drain, moves } = parts;
        let room_env = RoomEnv::new(
            cfg,
            daily.clone(),
            tracker.clone(),
            shutdown.clone(),
            Arc::clone(&drain),
            Arc::clone(&moves),
        );
        Ok(LobbyEnv {
            limits: LobbyLimits::new(cfg),
            ids: Ids::from_os()?,
            rooms: Arc::default(),
            room_env: Arc::new(room_env),
            sessions: Sessions::default(),
            joins,
            room_joins: JoinLimiter::new(cfg.room_joins, cfg.room_join_refill),
            league_joins,
            takeovers: JoinLimiter::new(cfg.session_takeovers, cfg.takeover_refill),
            penalties,
            room_slots: PerAddress::new(cfg.max_rooms_per_address),
            session_slots: PerAddress::new(cfg.max_sessions_per_address),
            daily,
            shutdown,
            tracker,
            drain,
            moves,
            claims: super::moved::Claims::default(),
        })
    }

    /// The open room with this code (the HTTP room preview asks).
    pub fn room(&self, code: &str) -> Option<crate::room::RoomHandle> {
        self.rooms.get(code)
    }

    /// A connection from `ip` took a live session over from another. Past
    /// the address's takeover budget each one is a violation, so the
    /// address's next upgrades wait (and are refused) as a flooder's do.
    pub(super) fn took_over(&self, ip: IpAddr) {
        let penalised = !self.takeovers.take(ip);
        if penalised {
            self.penalties.violation(ip);
        }
        crate::metrics::session_takeover(penalised);
    }

    /// Every open room (the drain tells each one).
    pub fn all_rooms(&self) -> Vec<crate::room::RoomHandle> {
        self.rooms.all()
    }

    /// Rooms open now.
    pub fn room_count(&self) -> usize {
        self.rooms.len()
    }

    /// Sessions alive now (connected or waiting for a resume).
    pub fn session_count(&self) -> usize {
        self.sessions.len()
    }
}
