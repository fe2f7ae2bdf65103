//! One WebSocket connection: a task that reads frames, enforces the
//! per-connection limits, speaks the session part of the protocol (`hello`,
//! rooms, `ping`) and forwards room commands to the room's actor. Writes go
//! through the connection's [`Outbox`] and its writer task.
//!
//! Recoverable mistakes (bad JSON, a message out of place) are answered with
//! an `error` and the connection goes on; fatal ones close it with a code
//! and a reason (PROTOCOL.md, "Close codes"). Nothing a client sends can
//! make this task panic or disturb another connection.

use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use axum::extract::ws::{Message, WebSocket};
use futures_util::stream::{SplitSink, SplitStream};
use futures_util::StreamExt;
use mazerace_protocol::daily::is_valid_date;
use mazerace_protocol::messages::{ClientMsg, ErrorCode, RankBy, ServerMsg};
use mazerace_protocol::{Action, Board, Game, Seed, Size};
use tokio::time::{sleep, sleep_until, timeout, Instant};
use tokio_util::task::task_tracker::TaskTrackerToken;
use tracing::Instrument;

use crate::config::{Config, MAX_PLAYERS_CAP};
use crate::daily::NOT_CONFIGURED;
use crate::ids::is_code_shaped;
use crate::limits::TokenBucket;
use crate::outbox::{close, run_writer, Outbox};
use crate::room::{JoinError, NewMember, RoomCmd, RoomSettings};
use crate::server::Shared;
use crate::sessions::Session;

/// Runs one upgraded socket to its end. Every byte of the returned future
/// is paid per connected player, hence two choices: the socket comes already
/// split, and this is a plain fn rather than an `async fn` wrapping
/// `run_inner`. An async fn keeps its arguments for its whole life, so
/// either way the future would carry a dead copy of the socket or of its
/// halves.
pub fn run(
    shared: Arc<Shared>,
    (sink, stream): (SplitSink<WebSocket, Message>, SplitStream<WebSocket>),
    peer: SocketAddr,
    alive: TaskTrackerToken,
) -> impl Future<Output = ()> {
    let id = shared.next_conn.fetch_add(1, Ordering::Relaxed);
    let span = tracing::info_span!(
        "conn",
        conn = id,
        peer = %peer,
        player = tracing::field::Empty,
        room = tracing::field::Empty
    );
    run_inner(shared, sink, stream, peer, id, alive).instrument(span)
}

#[derive(PartialEq, Eq)]
enum Flow {
    Go,
    /// The outbox has been asked to close; stop reading.
    Stop,
}

/// What the flood gate says about one incoming message.
#[derive(PartialEq, Eq)]
enum Gate {
    Pass,
    /// Refused with `rate_limited`; the connection goes on.
    Refuse,
    /// Sustained abuse: the outbox is closing with 1008.
    Stop,
}

struct Conn {
    shared: Arc<Shared>,
    id: u64,
    ip: IpAddr,
    outbox: Outbox,
    session: Option<Arc<Session>>,
    msgs: TokenBucket,
    strikes: TokenBucket,
    rooms: TokenBucket,
}

/// The connection's three deadlines (no `hello` yet, silence, next ping),
/// kept by one timer. A frame only records when it came: the timer is
/// re-armed when it fires, not on every message, so a move costs no timer
/// work, and one timer instead of three is less memory per player.
///
/// Pings go only to a quiet peer: one `ping_interval` after its last frame
/// or our last ping, whichever is later. A racer who moves proves it is
/// there, and pinging every player on a clock was measured at ~12% of the
/// server's CPU at 20,000 players moving once a second.
struct Deadlines {
    hello_by: Instant,
    last_frame: Instant,
    last_ping: Instant,
}

/// What a fired timer means.
enum Due {
    Hello,
    Idle,
    Ping,
    Nothing,
}

impl Deadlines {
    fn new(now: Instant, cfg: &Config) -> Self {
        Deadlines { hello_by: now + cfg.hello_timeout, last_frame: now, last_ping: now }
    }

    fn ping_at(&self, cfg: &Config) -> Instant {
        self.last_frame.max(self.last_ping) + cfg.ping_interval
    }

    /// The first deadline still ahead (`hello_by` counts only before `hello`).
    fn next(&self, cfg: &Config, said_hello: bool) -> Instant {
        let mut at = (self.last_frame + cfg.idle_timeout).min(self.ping_at(cfg));
        if !said_hello {
            at = at.min(self.hello_by);
        }
        at
    }

    /// What is due at `now`, in the order they are checked.
    fn due(&mut self, now: Instant, cfg: &Config, said_hello: bool) -> Due {
        if !said_hello && now >= self.hello_by {
            Due::Hello
        } else if now >= self.last_frame + cfg.idle_timeout {
            Due::Idle
        } else if now >= self.ping_at(cfg) {
            self.last_ping = now;
            Due::Ping
        } else {
            Due::Nothing
        }
    }
}

async fn run_inner(
    shared: Arc<Shared>,
    sink: SplitSink<WebSocket, Message>,
    mut stream: SplitStream<WebSocket>,
    peer: SocketAddr,
    id: u64,
    // Held to the end: shutdown waits for every connection's task.
    _alive: TaskTrackerToken,
) {
    // A reference, not a copy: the config would cost every connection its size.
    let cfg = &shared.config;
    let outbox = Outbox::new(cfg.outbox_capacity, id);
    let mut writer = tokio::spawn(run_writer(outbox.clone(), sink, cfg.close_linger).in_current_span());
    let mut writer_done = false;

    let Ok(_slot) = Arc::clone(&shared.conn_slots).try_acquire_owned() else {
        tracing::warn!("connection refused: server full");
        outbox.send_msg(&ServerMsg::Error {
            code: ErrorCode::ServerFull,
            message: "the server is full; try again later".into(),
        });
        outbox.close(close::TRY_LATER, "server full");
        let _ = timeout(cfg.close_linger, &mut writer).await;
        writer.abort();
        return;
    };
    tracing::debug!("connected");

    let mut conn = Conn {
        shared: Arc::clone(&shared),
        id,
        ip: peer.ip(),
        outbox: outbox.clone(),
        session: None,
        msgs: TokenBucket::per_second(cfg.msgs_burst, cfg.msgs_per_sec),
        strikes: TokenBucket::per_second(cfg.flood_strikes, 1),
        rooms: TokenBucket::new(cfg.rooms_per_conn, cfg.room_refill),
    };
    let mut deadlines = Deadlines::new(Instant::now(), cfg);
    let timer = sleep_until(deadlines.next(cfg, false));
    tokio::pin!(timer);
    // A child of the server-wide token, waited on by one future made once:
    // polling `cancelled()` takes the token's lock, and a child's lock is
    // this connection's alone (the server-wide one would be taken by every
    // connection on every message). A fresh future per message would also
    // join and leave the waiter list each time.
    let shutdown_token = shared.shutdown.child_token();
    let shutdown = shutdown_token.cancelled();
    tokio::pin!(shutdown);
    let mut peer_closed = false;

    loop {
        tokio::select! {
            biased;
            () = &mut shutdown => {
                outbox.send_msg(&ServerMsg::ServerShutdown);
                outbox.close(close::GOING_AWAY, "server shutting down");
                break;
            }
            _ = &mut writer => {
                // The socket failed, or the outbox was aborted (too slow, taken over).
                writer_done = true;
                if let Some(code) = outbox.close_code() {
                    tracing::info!(code, "connection closed by the server");
                }
                break;
            }
            frame = stream.next() => {
                deadlines.last_frame = Instant::now();
                match frame {
                    None => { peer_closed = true; break; }
                    Some(Err(e)) => {
                        if is_too_big(&e) {
                            tracing::info!("message over the size limit: closing with 1009");
                            let reason = format!("message too big (limit {} bytes)", cfg.max_message_bytes);
                            outbox.close(close::TOO_BIG, reason);
                        } else {
                            tracing::debug!(error = %e, "read failed");
                            peer_closed = true;
                        }
                        break;
                    }
                    Some(Ok(Message::Text(text))) => {
                        if conn.on_text(text.as_str()).await == Flow::Stop {
                            break;
                        }
                    }
                    Some(Ok(Message::Binary(_))) => match conn.admit() {
                        Gate::Stop => break,
                        Gate::Refuse => {}
                        Gate::Pass => {
                            conn.error(ErrorCode::BinaryFrame, "binary frames are not spoken here: send JSON text");
                        }
                    },
                    Some(Ok(Message::Close(_))) => { peer_closed = true; break; }
                    // Pings are answered by tungstenite; pongs only prove liveness.
                    Some(Ok(Message::Ping(_) | Message::Pong(_))) => {}
                }
            }
            () = &mut timer => {
                let said_hello = conn.session.is_some();
                match deadlines.due(Instant::now(), cfg, said_hello) {
                    Due::Hello => {
                        tracing::info!("no hello in time: closing with 4000");
                        outbox.close(close::HELLO_TIMEOUT, format!("no hello within {:?}", cfg.hello_timeout));
                        break;
                    }
                    Due::Idle => {
                        tracing::info!("silent peer: closing with 4001");
                        outbox.close(close::IDLE_TIMEOUT, format!("no frame from you for {:?}", cfg.idle_timeout));
                        break;
                    }
                    Due::Ping => outbox.ping(),
                    Due::Nothing => {}
                }
                timer.as_mut().reset(deadlines.next(cfg, said_hello));
            }
        }
    }

    conn.detach().await;

    // Close politely: let the writer send what is queued and the close frame,
    // then read until the client's close reply (dropping a socket with
    // unread input would reset it and could lose our close frame).
    if !writer_done {
        if !outbox.is_closing() {
            outbox.close(close::NORMAL, "");
        }
        let _ = timeout(cfg.close_linger, async {
            let _ = (&mut writer).await;
            if !peer_closed {
                while let Some(Ok(m)) = stream.next().await {
                    if matches!(m, Message::Close(_)) {
                        break;
                    }
                }
            }
        })
        .await;
        writer.abort();
    }
    tracing::debug!("disconnected");
}

/// Whether a read error is tungstenite's "message/frame over the limit".
fn is_too_big(e: &axum::Error) -> bool {
    use tokio_tungstenite::tungstenite::Error as WsError;
    let mut src: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = src {
        if let Some(WsError::Capacity(_)) = err.downcast_ref::<WsError>() {
            return true;
        }
        src = err.source();
    }
    false
}

/// At most `max` bytes of `s`, cut on a character boundary (serde's
/// messages quote the client's input, which may be any UTF-8).
fn clip(mut s: String, max: usize) -> String {
    if s.len() > max {
        let cut = (0..=max).rev().find(|&i| s.is_char_boundary(i)).unwrap_or(0);
        s.truncate(cut);
    }
    s
}

impl Conn {
    fn send(&self, msg: &ServerMsg) {
        self.outbox.send_msg(msg);
    }

    fn error(&self, code: ErrorCode, message: impl Into<String>) {
        self.send(&ServerMsg::Error { code, message: message.into() });
    }

    /// The flood gate: a token per message; past it, messages are refused
    /// with `rate_limited`, and too many refusals close the connection (1008).
    fn admit(&mut self) -> Gate {
        if self.msgs.take() {
            return Gate::Pass;
        }
        if self.strikes.take() {
            self.error(ErrorCode::RateLimited, "too many messages: slow down");
            return Gate::Refuse;
        }
        tracing::warn!("flooding: closing with 1008");
        self.outbox.close(close::POLICY, "too many messages");
        Gate::Stop
    }

    async fn on_text(&mut self, text: &str) -> Flow {
        match self.admit() {
            Gate::Pass => {}
            Gate::Refuse => return Flow::Go,
            Gate::Stop => return Flow::Stop,
        }
        match ClientMsg::decode(text) {
            Ok(msg) => self.dispatch(msg).await,
            Err(e) => {
                self.error(ErrorCode::for_decode_error(&e), clip(e.to_string(), 200));
            }
        }
        Flow::Go
    }

    async fn dispatch(&mut self, msg: ClientMsg) {
        let session = match (&self.session, &msg) {
            (_, ClientMsg::Hello { .. }) => None,
            (Some(s), _) => Some(Arc::clone(s)),
            (None, ClientMsg::Ping) => None,
            (None, _) => {
                self.error(ErrorCode::HelloFirst, r#"say hello first: {"type":"hello","name":"..."}"#);
                return;
            }
        };
        match msg {
            // The rare requests run boxed: inline, their futures would make
            // every connection's task as large as the largest of them.
            ClientMsg::Hello { name, token } => Box::pin(self.hello(name, token)).await,
            ClientMsg::Ping => self.send(&ServerMsg::Pong),
            ClientMsg::CreateRoom { game, size, seed, rank_by, max_players, daily } => {
                if let Some(s) = session {
                    Box::pin(self.create_room(&s, game, size, seed, rank_by, max_players, daily)).await;
                }
            }
            ClientMsg::JoinRoom { code, spectate } => {
                if let Some(s) = session {
                    Box::pin(self.join_room(&s, &code, spectate)).await;
                }
            }
            ClientMsg::LeaveRoom => {
                if let Some(s) = session {
                    match s.take_room() {
                        Some(room) => {
                            room.send(RoomCmd::Leave { id: s.id, expired: false }).await;
                        }
                        None => self.error(ErrorCode::NotInRoom, "you are not in a room"),
                    }
                }
            }
            ClientMsg::Ready { ready } => self.forward(session, |id| RoomCmd::Ready { id, ready }).await,
            ClientMsg::Start => self.forward(session, |id| RoomCmd::Start { id }).await,
            ClientMsg::Move { dir, seq } => {
                self.forward(session, |id| RoomCmd::Act { id, seq, action: Action::Move(dir) }).await
            }
            ClientMsg::Rewind { seq } => {
                self.forward(session, |id| RoomCmd::Act { id, seq, action: Action::Rewind }).await
            }
            ClientMsg::Rematch => self.forward(session, |id| RoomCmd::Rematch { id }).await,
            ClientMsg::Leaderboard { game, size, date } => {
                if let Some(s) = session {
                    Box::pin(self.leaderboard(&s, game, size, date)).await;
                }
            }
        }
    }

    async fn hello(&mut self, name: String, token: Option<String>) {
        if self.session.is_some() {
            self.error(ErrorCode::HelloFirst, "you already said hello");
            return;
        }
        let name = match crate::names::validate(&name) {
            Ok(n) => n,
            Err(why) => return self.error(ErrorCode::BadName, why),
        };
        let shared = Arc::clone(&self.shared);
        let resumed = token.as_deref().and_then(|t| shared.sessions.resume(t, self.outbox.clone()));
        let session = match resumed {
            Some(r) => {
                if let Some(prev) = r.previous {
                    prev.close(close::TAKEN_OVER, "this session was resumed on another connection");
                }
                tracing::Span::current().record("player", r.session.id);
                tracing::info!("session resumed");
                self.send(&ServerMsg::Welcome {
                    player_id: r.session.id,
                    token: r.session.token.to_string(),
                    resumed: true,
                });
                // After `welcome`: the room answers with a snapshot.
                if let Some(room) = r.room {
                    let cmd = RoomCmd::Reattach { id: r.session.id, outbox: self.outbox.clone() };
                    if !room.send(cmd).await {
                        r.session.set_room(None);
                    }
                }
                r.session
            }
            None => {
                let s = shared.sessions.create(&shared.ids, name, self.outbox.clone(), token.as_deref());
                tracing::Span::current().record("player", s.id);
                tracing::info!(name = %s.name, "hello");
                self.send(&ServerMsg::Welcome {
                    player_id: s.id,
                    token: s.token.to_string(),
                    resumed: false,
                });
                s
            }
        };
        self.session = Some(session);
    }

    #[allow(clippy::too_many_arguments)]
    async fn create_room(
        &mut self,
        s: &Arc<Session>,
        game: Game,
        size: Size,
        seed: Option<Seed>,
        rank_by: Option<RankBy>,
        max_players: Option<u32>,
        daily: bool,
    ) {
        if s.room().is_some() {
            return self.error(ErrorCode::AlreadyInRoom, "leave your room first");
        }
        if size.game() != game {
            return self.error(ErrorCode::BadSize, format!("{size} is not a size of {game}"));
        }
        let mut daily_board = None;
        let seed = if daily {
            if seed.is_some() {
                return self.error(ErrorCode::BadSize, "a daily room takes no seed");
            }
            let Some(hook) = self.shared.daily.clone() else {
                return self.error(ErrorCode::Internal, NOT_CONFIGURED);
            };
            match timeout(std::time::Duration::from_secs(5), hook.today(game, size)).await {
                Ok(Ok(b)) => {
                    let seed = b.seed;
                    daily_board = Some(b);
                    seed
                }
                Ok(Err(e)) => {
                    tracing::error!(error = %e, "daily seed unavailable");
                    return self.error(ErrorCode::Internal, "the daily challenge is unavailable right now");
                }
                Err(_) => {
                    return self.error(ErrorCode::Internal, "the daily challenge did not answer in time")
                }
            }
        } else {
            seed.map_or_else(|| self.shared.ids.seed(), |s| s.0)
        };
        if !self.rooms.take() {
            return self
                .error(ErrorCode::TooManyRooms, "too many rooms made from this connection; wait a little");
        }
        let board = match Board::build(size, seed) {
            Ok(b) => b,
            Err(e) => {
                tracing::error!(error = %e, seed, %size, "board failed");
                return self.error(ErrorCode::Internal, "could not build that board; try another seed");
            }
        };
        let is_daily = daily_board.is_some();
        let settings = RoomSettings {
            game,
            size,
            rank_by: if is_daily { RankBy::Steps } else { rank_by.unwrap_or_default() },
            max_players: if is_daily {
                1
            } else {
                max_players.unwrap_or(self.shared.config.max_players).clamp(1, MAX_PLAYERS_CAP)
            },
            board,
            daily: daily_board,
        };
        let host = NewMember {
            id: s.id,
            name: Arc::clone(&s.name),
            token: Arc::clone(&s.token),
            outbox: self.outbox.clone(),
        };
        let shared = Arc::clone(&self.shared);
        let room = shared.rooms.create(&shared, settings, host);
        tracing::Span::current().record("room", &*room.code);
        tracing::info!("room made");
        s.set_room(Some(room));
    }

    async fn join_room(&mut self, s: &Arc<Session>, code: &str, spectate: bool) {
        if s.room().is_some() {
            return self.error(ErrorCode::AlreadyInRoom, "leave your room first");
        }
        if !self.shared.joins.allowed(self.ip) {
            tracing::warn!("join refused: too many failed joins from this address");
            return self.error(ErrorCode::TooManyJoins, "too many failed joins; wait a minute");
        }
        let code = code.trim().to_ascii_uppercase();
        let found = if is_code_shaped(&code) { self.shared.rooms.get(&code) } else { None };
        let Some(room) = found else {
            self.shared.joins.failed(self.ip);
            let shown: String = code.chars().take(8).collect();
            return self.error(ErrorCode::RoomNotFound, format!("no room with code {shown:?}"));
        };
        let member = NewMember {
            id: s.id,
            name: Arc::clone(&s.name),
            token: Arc::clone(&s.token),
            outbox: self.outbox.clone(),
        };
        match room.join(member, spectate).await {
            Ok(()) => {
                tracing::Span::current().record("room", &*room.code);
                tracing::info!(spectate, "joined");
                s.set_room(Some(room));
            }
            Err(JoinError::Full) => self.error(ErrorCode::RoomFull, "that room is full"),
            Err(JoinError::Gone) => self.error(ErrorCode::RoomNotFound, "that room has just closed"),
        }
    }

    async fn forward(&mut self, session: Option<Arc<Session>>, cmd: impl FnOnce(u32) -> RoomCmd) {
        let Some(s) = session else { return };
        let Some(room) = s.room() else {
            return self.error(ErrorCode::NotInRoom, "you are not in a room");
        };
        if !room.send(cmd(s.id)).await {
            s.set_room(None);
            self.error(ErrorCode::NotInRoom, "your room has closed");
        }
    }

    async fn leaderboard(&mut self, s: &Arc<Session>, game: Game, size: Size, date: Option<String>) {
        let Some(hook) = self.shared.daily.clone() else {
            return self.error(ErrorCode::Internal, NOT_CONFIGURED);
        };
        if size.game() != game {
            return self.error(ErrorCode::BadSize, format!("{size} is not a size of {game}"));
        }
        if date.as_deref().is_some_and(|d| !is_valid_date(d)) {
            return self.error(ErrorCode::BadDate, "dates are YYYY-MM-DD");
        }
        let fut = hook.leaderboard(game, size, date, Some(s.token.to_string()));
        match timeout(std::time::Duration::from_secs(5), fut).await {
            Ok(Ok(board)) => self.send(&ServerMsg::Leaderboard(board)),
            Ok(Err(e)) => {
                tracing::error!(error = %e, "leaderboard failed");
                self.error(ErrorCode::Internal, "the leaderboard is unavailable right now");
            }
            Err(_) => self.error(ErrorCode::Internal, "the leaderboard did not answer in time"),
        }
    }

    /// The socket is gone: the session (if any) waits for a resume, and
    /// ends when the window runs out.
    async fn detach(&mut self) {
        let Some(s) = self.session.take() else { return };
        let shared = Arc::clone(&self.shared);
        let Some((epoch, room)) = shared.sessions.detach(&s, self.id) else { return };
        if let Some(room) = room {
            room.send(RoomCmd::Detach { id: s.id, conn: self.id }).await;
        }
        let window = shared.config.resume_window;
        let sh = Arc::clone(&shared);
        shared.tracker.spawn(
            async move {
                tokio::select! {
                    () = sleep(window) => {
                        if let Some(room) = sh.sessions.expire(&s, epoch) {
                            tracing::info!("resume window over: session ended");
                            if let Some(room) = room {
                                room.send(RoomCmd::Leave { id: s.id, expired: true }).await;
                            }
                        }
                    }
                    () = sh.shutdown.cancelled() => {}
                }
            }
            .in_current_span(),
        );
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn cfg() -> Config {
        Config {
            hello_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(30),
            ping_interval: Duration::from_secs(10),
            ..Config::default()
        }
    }

    #[test]
    fn the_timer_aims_at_the_first_deadline_still_ahead() {
        let (c, t0) = (cfg(), Instant::now());
        let mut d = Deadlines::new(t0, &c);
        assert_eq!(d.next(&c, false), t0 + c.hello_timeout.min(c.ping_interval));
        // A frame late in the window moves both the ping and the silence
        // deadline, and only the timer's next arming sees it.
        d.last_frame = t0 + Duration::from_secs(25);
        assert_eq!(d.next(&c, true), t0 + Duration::from_secs(35), "a ping 10 s after the last frame");
        assert_eq!(d.next(&c, false), t0 + c.hello_timeout, "hello counts only before hello");
    }

    #[test]
    fn what_is_due_comes_in_order_hello_idle_ping() {
        let (c, t0) = (cfg(), Instant::now());
        let mut d = Deadlines::new(t0, &c);
        assert!(matches!(d.due(t0 + Duration::from_secs(5), &c, false), Due::Nothing));
        assert!(matches!(d.due(t0 + Duration::from_secs(10), &c, false), Due::Hello));
        assert!(matches!(d.due(t0 + Duration::from_secs(10), &c, true), Due::Ping));
        assert_eq!(d.ping_at(&c), t0 + Duration::from_secs(20), "a quiet peer: one interval on");
        assert!(matches!(d.due(t0 + Duration::from_secs(15), &c, true), Due::Nothing));
        // A timer armed for the old silence deadline finds a later frame.
        d.last_frame = t0 + Duration::from_secs(20);
        assert!(matches!(d.due(t0 + Duration::from_secs(30), &c, true), Due::Ping));
        assert!(matches!(d.due(t0 + Duration::from_secs(35), &c, true), Due::Nothing));
        assert!(matches!(d.due(t0 + Duration::from_secs(50), &c, true), Due::Idle));
    }

    #[test]
    fn a_peer_that_keeps_talking_is_never_pinged() {
        let (c, t0) = (cfg(), Instant::now());
        let mut d = Deadlines::new(t0, &c);
        for s in 1..=60 {
            let now = t0 + Duration::from_secs(s);
            d.last_frame = now;
            assert!(matches!(d.due(now, &c, true), Due::Nothing), "pinged at {s} s");
        }
    }
}
