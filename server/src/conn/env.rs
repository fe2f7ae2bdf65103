//! What a connection is given, and all it may reach: [`ConnEnv`] holds the
//! room registry and the sessions it joins and creates in, the per-address
//! slots, the join budgets (failed joins, and joins) and the violation
//! penalty it is counted against, the daily hook, the server's shutdown
//! token and task tracker, the live connections, the drain (no new rooms
//! while it lasts), and [`ConnLimits`], the
//! handful of settings a connection reads. Built once by
//! [`crate::server::Server::new`]; the HTTP side shares it to hand each
//! upgraded socket to [`super::run`].

use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::config::{Config, WRITE_BUFFER_BYTES};
use crate::daily::DailyHook;
use crate::drain::Drain;
use crate::edge::address::PerAddress;
use crate::edge::limits::JoinLimiter;
use crate::edge::penalty::Penalties;
use crate::ids::Ids;
use crate::registry::Registry;
use crate::room::RoomEnv;
use crate::sessions::Sessions;

use super::live::Live;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;

/// The settings a connection reads, copied out of [`Config`] once (a
/// connection keeps a reference to its env, never a copy per player).
#[derive(Debug, Clone, Copy)]
pub struct ConnLimits {
    pub outbox_capacity: usize,
    pub read_buffer_bytes: usize,
    pub write_buffer_max: usize,
    pub close_linger: Duration,
    pub max_message_bytes: usize,
    pub hello_timeout: Duration,
    pub idle_timeout: Duration,
    pub ping_interval: Duration,
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
}

impl ConnLimits {
    pub fn new(cfg: &Config) -> Self {
        ConnLimits {
            outbox_capacity: cfg.outbox_capacity,
            read_buffer_bytes: cfg.read_buffer_bytes,
            write_buffer_max: cfg.write_buffer_max,
            close_linger: cfg.close_linger,
            max_message_bytes: cfg.max_message_bytes,
            hello_timeout: cfg.hello_timeout,
            idle_timeout: cfg.idle_timeout,
            ping_interval: cfg.ping_interval,
            msgs_per_sec: cfg.msgs_per_sec,
            msgs_burst: cfg.msgs_burst,
            flood_strikes: cfg.flood_strikes,
            rooms_per_conn: cfg.rooms_per_conn,
            room_refill: cfg.room_refill,
            resume_window: cfg.resume_window,
            max_players: cfg.max_players,
            node_id: cfg.node_id,
        }
    }
}

impl ConnLimits {
    /// The WebSocket's buffers and limits (see the config fields).
    pub fn websocket(&self) -> WebSocketConfig {
        WebSocketConfig::default()
            // Small: it is paid per connected player.
            .read_buffer_size(self.read_buffer_bytes)
            // Frames gathered before a write (see the constant) ...
            .write_buffer_size(WRITE_BUFFER_BYTES)
            // ... and a client that stops reading cannot grow it past this.
            .max_write_buffer_size(self.write_buffer_max)
            .max_message_size(Some(self.max_message_bytes))
            .max_frame_size(Some(self.max_message_bytes))
    }
}

/// Everything connections share. Each part guards itself; none holds a
/// lock across an await.
pub struct ConnEnv {
    pub(super) limits: ConnLimits,
    pub(super) ids: Ids,
    pub(super) rooms: Arc<Registry>,
    /// What rooms are given: their timings, the daily hook, the task tracker.
    pub(super) room_env: Arc<RoomEnv>,
    pub(super) sessions: Sessions,
    /// Shared with the HTTP league routes: one failed-join budget per address.
    pub(super) joins: Arc<JoinLimiter>,
    /// Room joins per address (a join/leave loop makes every member hear of each).
    pub(super) room_joins: JoinLimiter,
    /// Live rooms per network address.
    pub(super) room_slots: Arc<PerAddress>,
    /// Live sessions per network address.
    pub(super) session_slots: Arc<PerAddress>,
    /// Shared with the `/ws` route: addresses closed for violations wait
    /// before their next upgrade.
    pub(super) penalties: Arc<Penalties>,
    pub(super) daily: Option<Arc<dyn DailyHook>>,
    pub(super) shutdown: CancellationToken,
    pub(super) tracker: TaskTracker,
    /// One permit per open WebSocket (see [`crate::server::Server::new`]).
    pub(super) conn_slots: Arc<Semaphore>,
    /// Every live connection, for the shutdown (`live.rs`).
    pub(super) live: Arc<Live>,
    pub(super) next_conn: AtomicU64,
    /// While draining, no new room is made here.
    pub(crate) drain: Arc<Drain>,
    /// Rooms moving between nodes (`crate::moves`).
    pub(super) moves: Arc<crate::moves::Moves>,
    /// Seats of rooms moved here, waiting for their players' tokens.
    pub(super) claims: super::moved::Claims,
}

/// What [`ConnEnv::new`] is handed by the server.
pub struct ConnParts {
    pub daily: Option<Arc<dyn DailyHook>>,
    pub joins: Arc<JoinLimiter>,
    pub penalties: Arc<Penalties>,
    pub shutdown: CancellationToken,
    pub tracker: TaskTracker,
    /// WebSockets open at once.
    pub websockets: usize,
    pub drain: Arc<Drain>,
    pub moves: Arc<crate::moves::Moves>,
}

impl ConnEnv {
    pub fn new(cfg: &Config, parts: ConnParts) -> anyhow::Result<ConnEnv> {
        let ConnParts { daily, joins, penalties, shutdown, tracker, websockets, drain, moves } = parts;
        let room_env = RoomEnv::new(
            cfg,
            daily.clone(),
            tracker.clone(),
            shutdown.clone(),
            Arc::clone(&drain),
            Arc::clone(&moves),
        );
        Ok(ConnEnv {
            limits: ConnLimits::new(cfg),
            ids: Ids::from_os()?,
            rooms: Arc::default(),
            room_env: Arc::new(room_env),
            sessions: Sessions::default(),
            joins,
            room_joins: JoinLimiter::new(cfg.room_joins, cfg.room_join_refill),
            room_slots: PerAddress::new(cfg.max_rooms_per_address),
            session_slots: PerAddress::new(cfg.max_sessions_per_address),
            penalties,
            daily,
            shutdown,
            tracker,
            conn_slots: Arc::new(Semaphore::new(websockets)),
            live: Arc::default(),
            next_conn: AtomicU64::new(1),
            drain,
            moves,
            claims: super::moved::Claims::default(),
        })
    }

    /// The open room with this code (the HTTP room preview asks).
    pub fn room(&self, code: &str) -> Option<crate::room::RoomHandle> {
        self.rooms.get(code)
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

    /// Shutdown: every connection, and every one that comes after, is sent
    /// `server_shutdown` and closed with 1001.
    pub fn shut_down(&self) {
        self.live.shut_down();
    }
}
