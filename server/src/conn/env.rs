//! What a connection is given, and all it may reach: [`ConnEnv`] holds the
//! lobby service's environment ([`LobbyEnv`]: rooms, sessions, budgets, the
//! daily hook), the violation penalty its address is counted against, the
//! live connections (for the shutdown), the connection slots, and
//! [`ConnLimits`], the handful of transport settings a connection reads.
//! Built once by [`crate::server::Server::new`]; the HTTP side shares it to
//! hand each upgraded socket to [`super::run`].

use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::config::{max_frame_bytes, Config, WRITE_BUFFER_BYTES};
use crate::daily::DailyHook;
use crate::drain::Drain;
use crate::edge::limits::JoinLimiter;
use crate::edge::penalty::Penalties;
use crate::lobby::{LobbyEnv, LobbyParts};

use super::live::Live;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;

/// The transport settings a connection reads, copied out of [`Config`] once
/// (a connection keeps a reference to its env, never a copy per player).
/// The lobby's own are [`crate::lobby::LobbyLimits`].
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
        }
    }

    /// The largest message a socket can take (see [`max_frame_bytes`]).
    pub fn max_frame_bytes(&self) -> usize {
        max_frame_bytes(self.write_buffer_max)
    }

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
    /// What each connection's lobby reaches.
    pub(super) lobby: Arc<LobbyEnv>,
    /// Shared with the `/ws` route: addresses closed for violations wait
    /// before their next upgrade.
    pub(super) penalties: Arc<Penalties>,
    /// One permit per open WebSocket (see [`crate::server::Server::new`]).
    pub(super) conn_slots: Arc<Semaphore>,
    /// Every live connection, for the shutdown (`live.rs`).
    pub(super) live: Arc<Live>,
    pub(super) next_conn: AtomicU64,
}

/// What [`ConnEnv::new`] is handed by the server.
pub struct ConnParts {
    pub daily: Option<Arc<dyn DailyHook>>,
    pub joins: Arc<JoinLimiter>,
    /// League joins per address, shared with the HTTP league routes.
    pub league_joins: Arc<JoinLimiter>,
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
        let ConnParts { daily, joins, league_joins, penalties, shutdown, tracker, websockets, drain, moves } =
            parts;
        let lobby_parts = LobbyParts {
            daily,
            joins,
            league_joins,
            penalties: Arc::clone(&penalties),
            shutdown,
            tracker,
            drain,
            moves,
        };
        let lobby = LobbyEnv::new(cfg, lobby_parts)?;
        Ok(ConnEnv {
            limits: ConnLimits::new(cfg),
            lobby: Arc::new(lobby),
            penalties,
            conn_slots: Arc::new(Semaphore::new(websockets)),
            live: Arc::default(),
            next_conn: AtomicU64::new(1),
        })
    }

    /// The open room with this code (the HTTP room preview asks).
    pub fn room(&self, code: &str) -> Option<crate::room::RoomHandle> {
        self.lobby.room(code)
    }

    /// What every connection's lobby reaches (the adoption of moved rooms runs on it).
    pub fn lobby(&self) -> &Arc<LobbyEnv> {
        &self.lobby
    }

    /// Every open room (the drain tells each one).
    pub fn all_rooms(&self) -> Vec<crate::room::RoomHandle> {
        self.lobby.all_rooms()
    }

    /// Rooms open now.
    pub fn room_count(&self) -> usize {
        self.lobby.room_count()
    }

    /// Sessions alive now (connected or waiting for a resume).
    pub fn session_count(&self) -> usize {
        self.lobby.session_count()
    }

    /// Shutdown: every connection, and every one that comes after, is sent
    /// `server_shutdown` and closed with 1001.
    pub fn shut_down(&self) {
        self.live.shut_down();
    }
}
