//! The server as a value: [`Server::new`] builds the shared state,
//! [`Server::run`] serves a bound listener until [`Server::shutdown`], then
//! waits for every connection, room and timer task to finish.
//!
//! Shutdown (axum's graceful shutdown does not cover upgraded sockets): one
//! `CancellationToken` tells the accept loop to stop and every connection to
//! send `server_shutdown` and close with 1001; a `TaskTracker` counts every
//! connection, room and timer task, and `run` returns only when it is empty.

use std::net::SocketAddr;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, OnceLock};

use axum::serve::ListenerExt;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::address::PerAddress;
use crate::config::Config;
use crate::daily::DailyHook;
use crate::ids::Ids;
use crate::limits::JoinLimiter;
use crate::net::Urls;
use crate::registry::Registry;
use crate::room::RoomEnv;
use crate::sessions::Sessions;

/// State every task shares. Each part guards itself; none holds a lock
/// across an await.
pub struct Shared {
    pub config: Config,
    pub ids: Ids,
    pub rooms: Arc<Registry>,
    /// What rooms are given: their timings, the daily hook, the task tracker.
    pub room_env: Arc<RoomEnv>,
    pub sessions: Sessions,
    pub joins: JoinLimiter,
    /// Live rooms per network address.
    pub room_slots: Arc<PerAddress>,
    /// Live sessions per network address.
    pub session_slots: Arc<PerAddress>,
    pub daily: Option<Arc<dyn DailyHook>>,
    pub shutdown: CancellationToken,
    pub tracker: TaskTracker,
    /// One permit per open WebSocket (`max_connections`).
    pub conn_slots: Arc<Semaphore>,
    pub next_conn: AtomicU64,
    /// The URLs to show, known once the listener is bound.
    pub urls: OnceLock<Urls>,
}

/// A race server. Cheap to clone; all clones are the same server.
#[derive(Clone)]
pub struct Server {
    shared: Arc<Shared>,
}

impl Server {
    /// `daily` is the daily challenge's store (see [`crate::daily`]); `None`
    /// answers daily requests with "daily challenge is not configured".
    pub fn new(config: Config, daily: Option<Arc<dyn DailyHook>>) -> anyhow::Result<Server> {
        let (tracker, shutdown) = (TaskTracker::new(), CancellationToken::new());
        let room_env = RoomEnv::new(&config, daily.clone(), tracker.clone(), shutdown.clone());
        let shared = Shared {
            ids: Ids::from_os()?,
            rooms: Arc::default(),
            room_env: Arc::new(room_env),
            sessions: Sessions::default(),
            joins: JoinLimiter::new(config.join_attempts, config.join_refill),
            room_slots: PerAddress::new(config.max_rooms_per_address),
            session_slots: PerAddress::new(config.max_sessions_per_address),
            daily,
            shutdown,
            tracker,
            conn_slots: Arc::new(Semaphore::new(config.max_connections.min(Semaphore::MAX_PERMITS))),
            next_conn: AtomicU64::new(1),
            urls: OnceLock::new(),
            config,
        };
        Ok(Server { shared: Arc::new(shared) })
    }

    /// Serves `listener` until [`Server::shutdown`]; returns once every
    /// connection has been told and closed and every task has ended.
    pub async fn run(&self, listener: TcpListener) -> anyhow::Result<()> {
        let addr = listener.local_addr()?;
        let _ = self.shared.urls.set(Urls::for_addr(addr));
        let app = crate::http::router(Arc::clone(&self.shared));
        let listener = listener.tap_io(|tcp| {
            // Moves are tiny messages: send them now, not after Nagle's wait.
            if let Err(e) = tcp.set_nodelay(true) {
                tracing::debug!(error = %e, "could not set TCP_NODELAY");
            }
        });
        let stop = self.shared.shutdown.clone();
        axum::serve(listener, app.into_make_service_with_connect_info::<SocketAddr>())
            .with_graceful_shutdown(async move { stop.cancelled().await })
            .await?;
        // axum is done with plain HTTP; upgraded sockets, rooms and timers
        // are ours to wait for.
        self.shared.shutdown.cancel();
        self.shared.tracker.close();
        self.shared.tracker.wait().await;
        tracing::info!("server stopped");
        Ok(())
    }

    /// Starts the graceful shutdown (idempotent).
    pub fn shutdown(&self) {
        self.shared.shutdown.cancel();
    }

    /// Rooms open now.
    pub fn room_count(&self) -> usize {
        self.shared.rooms.len()
    }

    /// Sessions alive now (connected or waiting for a resume).
    pub fn session_count(&self) -> usize {
        self.shared.sessions.len()
    }

    /// Connection, room and timer tasks still running.
    pub fn task_count(&self) -> usize {
        self.shared.tracker.len()
    }
}
