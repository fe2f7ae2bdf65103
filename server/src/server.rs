//! The server as a value: [`Server::new`] builds each part and what it is given,
//! [`Server::run`] serves a bound listener until [`Server::shutdown`], then
//! waits for every connection, room and timer task to finish.
//!
//! Shutdown: one `CancellationToken` tells the accept loop to stop, every
//! HTTP connection to finish its response and every WebSocket to send
//! `server_shutdown` and close with 1001; a `TaskTracker` counts every
//! connection, room and timer task, and `run` returns when it is empty or
//! when `shutdown_grace` is over, whichever comes first: no client can hold
//! the server up (a half-sent request, a peer that never answers a close).
//!
//! Drain ([`Server::drain`], SIGTERM): the node stops taking new rooms and
//! players, moves its rooms in their lobby or results to another node
//! (`moves.rs`, on PostgreSQL; a room mid-race moves once its race is
//! over) and shuts down as above once nothing plays or moves, or at the
//! drain limit (`drain.rs`). Meanwhile it adopts nothing; a living node
//! adopts the rooms other nodes post (`lobby/moved.rs`).
//!
//! The sockets are accepted by [`crate::edge::accept`] (limits, timeouts, socket
//! settings); `GET /metrics` has a listener of its own (`metrics_bind`).

use std::net::SocketAddr;
use std::sync::{Arc, OnceLock};

use axum::routing::get;
use axum::Router;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::config::Config;
use crate::conn::{ConnEnv, ConnParts};
use crate::daily::DailyHook;
use crate::drain::Drain;
use crate::edge::accept::{self, ServeOpts};
use crate::edge::gate::{Gate, GateLimits};
use crate::edge::limits::JoinLimiter;
use crate::edge::net::Urls;
use crate::edge::penalty::Penalties;
use crate::edge::proxy::TrustedProxies;
use crate::http::HttpEnv;

/// What the server holds for itself; each part it serves gets its own
/// environment ([`ConnEnv`] for connections, [`HttpEnv`] for the HTTP
/// routes) and reaches nothing else.
struct Inner {
    /// Read by [`Server::run`]: where and how to listen.
    config: Config,
    conn: Arc<ConnEnv>,
    http: Arc<HttpEnv>,
    shutdown: CancellationToken,
    tracker: TaskTracker,
    /// The URLs to show, known once the listener is bound (the HTTP side reads them).
    urls: Arc<OnceLock<Urls>>,
    /// Every accepted socket, from accept to close (see `gate`).
    gate: Arc<Gate>,
    /// Where `/metrics` listens, once bound.
    metrics_addr: OnceLock<SocketAddr>,
    drain: Arc<Drain>,
}

/// A race server. Cheap to clone; all clones are the same server.
#[derive(Clone)]
pub struct Server {
    inner: Arc<Inner>,
}

impl Server {
    /// `daily` is the daily challenge's store (see [`crate::daily`]); `None`
    /// answers daily requests with "daily challenge is not configured".
    pub fn new(config: Config, daily: Option<Arc<dyn DailyHook>>) -> anyhow::Result<Server> {
        Self::with_moves(config, daily, None)
    }

    /// [`Server::new`] with the room-move mailbox of the database the
    /// nodes share (`None`: rooms never move; see `moves.rs`).
    pub fn with_moves(
        config: Config,
        daily: Option<Arc<dyn DailyHook>>,
        mailbox: Option<mazerace_store::postgres::moves::RoomMoves>,
    ) -> anyhow::Result<Server> {
        let (tracker, shutdown) = (TaskTracker::new(), CancellationToken::new());
        // A living node adopts a posted room within its poll (100 ms): one
        // not adopted in 10 s (no other node, or all draining) stays, and a
        // lone node's drain is not held up by it for the whole drain limit.
        let wait = config.drain.min(crate::moves::ADOPTION_WAIT);
        let moves = Arc::new(crate::moves::Moves::new(mailbox, config.move_memory, wait));
        let penalties = Arc::new(Penalties::new(config.violation_penalty));
        let limits = GateLimits::new(
            config.max_connections,
            config.reserve_connections,
            config.max_conns_per_addr,
            crate::edge::fdlimit::file_limit(),
        );
        // The players' listener refuses a penalised address at accept.
        let gate = Gate::with_penalties(limits, Arc::clone(&penalties));
        // One permit per open WebSocket: `max_connections`, or fewer so that
        // WebSockets alone never fill the gate's limit and its reserve stays
        // free for `/healthz` and new clients (see `gate`).
        let websockets = gate.limits().evict_at.min(config.max_connections).min(Semaphore::MAX_PERMITS);
        let joins = Arc::new(JoinLimiter::new(config.join_attempts, config.join_refill));
        // One league-join budget per address for the socket and HTTP alike.
        let league_joins = Arc::new(JoinLimiter::new(config.league_joins, config.league_join_refill));
        let drain = Arc::new(Drain::default());
        let conn = Arc::new(ConnEnv::new(
            &config,
            ConnParts {
                daily: daily.clone(),
                joins: Arc::clone(&joins),
                league_joins: Arc::clone(&league_joins),
                penalties: Arc::clone(&penalties),
                shutdown: shutdown.clone(),
                tracker: tracker.clone(),
                websockets,
                drain: Arc::clone(&drain),
                moves,
            },
        )?);
        let urls = Arc::new(OnceLock::new());
        let http = Arc::new(HttpEnv {
            conn: Arc::clone(&conn),
            daily,
            joins,
            league_joins,
            api: crate::http::ApiBudget::new(config.api_burst, config.api_per_sec),
            penalties,
            urls: Arc::clone(&urls),
            tracker: tracker.clone(),
            drain: Arc::clone(&drain),
        });
        let metrics_addr = OnceLock::new();
        let inner = Inner { config, conn, http, shutdown, tracker, urls, gate, metrics_addr, drain };
        Ok(Server { inner: Arc::new(inner) })
    }

    /// Serves `listener` until [`Server::shutdown`]; returns once every
    /// connection has been told and closed and every task has ended, or
    /// when `shutdown_grace` is over (what is left is logged and dropped
    /// with the runtime).
    pub async fn run(&self, listener: TcpListener) -> anyhow::Result<()> {
        let sh = &self.inner;
        let cfg = &sh.config;
        let addr = listener.local_addr()?;
        let _ = sh.urls.set(Urls::for_addr(addr).with_public(cfg.public_url.clone()));
        if let Err(e) = accept::set_backlog(&listener, cfg.listen_backlog) {
            tracing::warn!(error = %e, backlog = cfg.listen_backlog, "could not set the listen backlog");
        }
        let opts = ServeOpts {
            head_timeout: cfg.head_timeout,
            grace: cfg.shutdown_grace,
            send_buffer: cfg.send_buffer_bytes,
        };
        if let Some(bind) = cfg.metrics_bind {
            // Not fatal: a busy port (another server on this machine) must
            // not keep the game from starting.
            match TcpListener::bind(bind).await {
                Ok(l) => {
                    if let Ok(a) = l.local_addr() {
                        let _ = sh.metrics_addr.set(a);
                        tracing::info!(addr = %a, "serving /metrics");
                    }
                    // An operator's scraper, not the public: a few sockets, no reserve.
                    // Past the limit each new socket evicts the oldest (none
                    // is ever upgraded), so idle sockets cannot lock it out.
                    let gate = Gate::new(GateLimits::new(METRICS_SOCKETS, METRICS_RESERVE, 0, None));
                    let app = Router::new().route("/metrics", get(metrics));
                    let none = Arc::new(TrustedProxies::default());
                    let task =
                        accept::serve(l, app, gate, opts, none, sh.shutdown.clone(), sh.tracker.clone());
                    sh.tracker.spawn(task);
                }
                Err(e) => {
                    tracing::error!(%bind, error = %e, "cannot listen for /metrics: serving without it")
                }
            }
        }
        // Rooms other nodes post while they drain (none without a mailbox).
        sh.tracker.spawn(crate::lobby::adopt_loop(Arc::clone(sh.conn.lobby())));
        let app = crate::http::router(Arc::clone(&sh.http));
        let trusted = Arc::new(cfg.trusted_proxies.clone());
        accept::serve(
            listener,
            app,
            Arc::clone(&sh.gate),
            opts,
            trusted,
            sh.shutdown.clone(),
            sh.tracker.clone(),
        )
        .await;
        // The listener is closed (dropped): upgraded sockets, HTTP
        // connections, rooms and timers are ours to wait for, up to the grace.
        sh.shutdown.cancel();
        sh.conn.shut_down();
        sh.tracker.close();
        if tokio::time::timeout(cfg.shutdown_grace, sh.tracker.wait()).await.is_err() {
            tracing::warn!(
                tasks = sh.tracker.len(),
                grace = ?cfg.shutdown_grace,
                "shutdown grace over: stopping with tasks still running"
            );
        }
        tracing::info!("server stopped");
        Ok(())
    }

    /// Starts the graceful shutdown (idempotent).
    pub fn shutdown(&self) {
        self.inner.shutdown.cancel();
    }

    /// Starts the drain (see `drain.rs`): no new rooms, no new players;
    /// the shutdown follows once no room is playing, or `drain` after now,
    /// whichever is first. With a zero `drain`, the shutdown at once.
    /// Idempotent: a second call changes nothing (call [`Server::shutdown`]
    /// to end a drain early).
    pub fn drain(&self) {
        let limit = self.inner.config.drain;
        if limit.is_zero() {
            return self.shutdown();
        }
        if !self.inner.drain.begin() {
            return;
        }
        let playing = self.inner.drain.playing_rooms();
        tracing::info!(rooms_playing = playing, limit = ?limit, "draining: no new rooms; waiting for the races here to end");
        let server = self.clone();
        // Not on the tracker: the shutdown waits for the tracker, and this
        // task ends with it.
        tokio::spawn(async move {
            let sh = &server.inner;
            // Every room hears of the drain, and the movable ones begin to
            // move before the wait below looks at what is left.
            let rooms = sh.conn.all_rooms();
            let told = futures_util::future::join_all(rooms.iter().map(|r| r.drain()));
            tokio::select! {
                _ = told => {}
                () = sh.shutdown.cancelled() => return,
            }
            tokio::select! {
                () = sh.drain.races_over() => tracing::info!("drained: no race left on this node"),
                () = tokio::time::sleep(limit) => tracing::warn!(
                    rooms_playing = sh.drain.playing_rooms(),
                    "drain limit over: shutting down with races still running"
                ),
                () = sh.shutdown.cancelled() => return,
            }
            server.shutdown();
        });
    }

    /// Whether [`Server::drain`] has begun.
    pub fn is_draining(&self) -> bool {
        self.inner.drain.is_draining()
    }

    /// Rooms open now.
    pub fn room_count(&self) -> usize {
        self.inner.conn.room_count()
    }

    /// Sessions alive now (connected or waiting for a resume).
    pub fn session_count(&self) -> usize {
        self.inner.conn.session_count()
    }

    /// Sockets open now, upgraded or not (every one counts against the limits).
    pub fn socket_count(&self) -> usize {
        self.inner.gate.open()
    }

    /// Where `GET /metrics` listens, once `run` has bound it (`metrics_bind`).
    pub fn metrics_addr(&self) -> Option<SocketAddr> {
        self.inner.metrics_addr.get().copied()
    }

    /// Connection, room and timer tasks still running.
    pub fn task_count(&self) -> usize {
        self.inner.tracker.len()
    }
}

/// Sockets the `/metrics` listener holds at once ...
const METRICS_SOCKETS: usize = 16;
/// ... and past them, each new one closing the oldest.
const METRICS_RESERVE: usize = 16;

async fn metrics() -> axum::response::Response {
    use axum::response::IntoResponse;
    ([(axum::http::header::CONTENT_TYPE, crate::metrics::CONTENT_TYPE)], crate::metrics::render())
        .into_response()
}
