//! The lobby service of one connection: the session as a state (awaiting
//! `hello`, then ready with its [`Session`]), `hello` and resuming,
//! renaming, and the room commands forwarded to the player's room. Creating
//! and joining rooms and leaderboards are in `requests.rs`.

use std::sync::Arc;

use mazerace_protocol::messages::{ClientMsg, ErrorCode, Limits, ServerMsg};
use mazerace_protocol::Action;
use tokio::time::{sleep, Instant};
use tracing::Instrument;

use super::Conn;
use crate::room::RoomCmd;
use crate::sessions::Session;
use mazerace_protocol::close;

/// Where the connection's session is.
pub(super) enum Lobby {
    /// Only `hello` (and `ping`) are spoken.
    AwaitingHello,
    /// The player is known.
    Ready(Arc<Session>),
}

impl Lobby {
    pub(super) fn said_hello(&self) -> bool {
        matches!(self, Lobby::Ready(_))
    }
}

impl Conn {
    pub(super) async fn dispatch(&mut self, msg: ClientMsg) {
        let session = match (&self.lobby, msg) {
            (_, ClientMsg::Ping {}) => return self.send(&ServerMsg::Pong),
            // The rare requests run boxed: inline, their futures would make
            // every connection's task as large as the largest of them.
            (Lobby::AwaitingHello, ClientMsg::Hello { name, token }) => {
                return Box::pin(self.hello(name, token)).await
            }
            (Lobby::AwaitingHello, _) => {
                return self.error(ErrorCode::HelloFirst, r#"say hello first: {"type":"hello","name":"..."}"#)
            }
            (Lobby::Ready(_), ClientMsg::Hello { .. }) => {
                return self.error(ErrorCode::HelloFirst, "you already said hello")
            }
            (Lobby::Ready(s), msg) => (Arc::clone(s), msg),
        };
        self.request(session.0, session.1).await;
    }

    /// A message from a player who said hello.
    async fn request(&mut self, s: Arc<Session>, msg: ClientMsg) {
        let id = s.id;
        match msg {
            ClientMsg::Hello { .. } | ClientMsg::Ping {} => {}
            ClientMsg::CreateRoom { game, size, seed, rank_by, max_players, daily, format, replaces } => {
                let req = super::requests::NewRoom {
                    game,
                    size,
                    seed,
                    rank_by,
                    max_players,
                    daily,
                    format,
                    replaces,
                };
                Box::pin(self.create_room(&s, req)).await;
            }
            ClientMsg::JoinRoom { code, spectate, key } => {
                Box::pin(self.join_room(&s, &code, spectate, key.as_deref())).await
            }
            ClientMsg::LeaveRoom {} => match s.take_room() {
                Some(room) => {
                    room.send(RoomCmd::Leave { id, expired: false }).await;
                }
                None => self.error(ErrorCode::NotInRoom, "you are not in a room"),
            },
            ClientMsg::Ready { ready } => self.forward(&s, RoomCmd::Ready { id, ready }).await,
            ClientMsg::Start {} => self.forward(&s, RoomCmd::Start { id }).await,
            ClientMsg::Move { dir, seq } => self.act(&s, seq, Action::Move(dir)).await,
            ClientMsg::Rewind { seq } => self.act(&s, seq, Action::Rewind).await,
            ClientMsg::GiveUp {} => self.forward(&s, RoomCmd::GiveUp { id }).await,
            ClientMsg::Rematch { same_board } => {
                let (seed, match_seed) = (self.env.ids.seed(), self.env.ids.seed());
                self.forward(&s, RoomCmd::Rematch { id, same_board, seed, match_seed }).await
            }
            ClientMsg::AddRival { run_id, pick } => {
                self.forward(&s, RoomCmd::AddRival { id, run_id, pick }).await
            }
            ClientMsg::RemoveRival { id: rival } => {
                self.forward(&s, RoomCmd::RemoveRival { id, rival }).await
            }
            ClientMsg::SetMatch { format } => {
                let seed = self.env.ids.seed();
                self.forward(&s, RoomCmd::SetMatch { id, format, seed }).await
            }
            ClientMsg::Hold {} => self.forward(&s, RoomCmd::Hold { id }).await,
            ClientMsg::NextRound {} => self.forward(&s, RoomCmd::NextRound { id }).await,
            ClientMsg::Rename { name } => Box::pin(self.rename(&s, name)).await,
            ClientMsg::Leaderboard { game, size, date } => {
                Box::pin(self.leaderboard(&s, game, size, date)).await
            }
            msg @ (ClientMsg::CreateLeague { .. }
            | ClientMsg::JoinLeague { .. }
            | ClientMsg::LeaveLeague { .. }
            | ClientMsg::RemoveMember { .. }
            | ClientMsg::MyLeagues {}
            | ClientMsg::LeagueBoard { .. }
            | ClientMsg::LeagueStandings { .. }) => {
                if let Some(op) = super::leagues::op_of(&msg) {
                    Box::pin(self.league(&s, op)).await;
                }
            }
        }
    }

    fn limits(&self) -> Limits {
        let cfg = &self.env.limits;
        Limits {
            msgs_per_sec: cfg.msgs_per_sec,
            msgs_burst: cfg.msgs_burst,
            max_name_chars: crate::names::MAX_NAME_CHARS as u32,
            resume_window_ms: cfg.resume_window.as_millis() as u64,
        }
    }

    async fn hello(&mut self, name: String, token: Option<String>) {
        let name: Arc<str> = match crate::names::validate(&name) {
            Ok(n) => n.into(),
            Err(why) => return self.error(ErrorCode::BadName, why),
        };
        let env = Arc::clone(&self.env);
        if let Some(t) = token.as_deref() {
            // A seat in a room moved here becomes this token's session (`moved.rs`).
            super::moved::claim(&env, t).await;
        }
        let resumed = token.as_deref().and_then(|t| env.sessions.resume(t, self.outbox.clone()));
        let session = match resumed {
            Some(r) => {
                if let Some(prev) = r.previous {
                    prev.close(close::TAKEN_OVER, "this session was resumed on another connection");
                }
                let s = r.session;
                tracing::Span::current().record("player", s.id);
                tracing::info!("session resumed");
                // A resume with another name renames (unless mid-race).
                if *s.name() != *name {
                    self.apply_rename(&s, Arc::clone(&name)).await;
                }
                let welcome = ServerMsg::Welcome {
                    player_id: s.id,
                    token: s.token.to_string(),
                    resumed: true,
                    name: s.name().to_string(),
                    limits: self.limits(),
                };
                self.send(&welcome);
                // After `welcome`: the room answers with a snapshot. A room
                // that no longer has the player is left for good.
                if let Some(room) = s.room() {
                    if !room.reattach(s.id, self.outbox.clone()).await {
                        s.set_room(None);
                        // It may have moved to another node while we were away.
                        self.answer_moved(&room.code, None).await;
                    }
                }
                s
            }
            None => {
                let Some(slot) = env.session_slots.take(self.ip) else {
                    tracing::warn!("hello refused: too many sessions from this address");
                    let why = "too many players from your network address; try again later";
                    return self.error(ErrorCode::TooManySessions, why);
                };
                let s = env.sessions.create(&env.ids, name, self.outbox.clone(), token.as_deref(), slot);
                tracing::Span::current().record("player", s.id);
                tracing::info!(name = %s.name(), "hello");
                let welcome = ServerMsg::Welcome {
                    player_id: s.id,
                    token: s.token.to_string(),
                    resumed: false,
                    name: s.name().to_string(),
                    limits: self.limits(),
                };
                self.send(&welcome);
                s
            }
        };
        self.lobby = Lobby::Ready(session);
    }

    async fn rename(&mut self, s: &Arc<Session>, name: String) {
        let name: Arc<str> = match crate::names::validate(&name) {
            Ok(n) => n.into(),
            Err(why) => return self.error(ErrorCode::BadName, why),
        };
        if self.apply_rename(s, name).await {
            self.send(&ServerMsg::Renamed { name: s.name().to_string() });
        } else {
            self.error(ErrorCode::WrongPhase, "you can change your name after the race");
        }
    }

    /// Renames the player, in their room too; `false` while they race.
    async fn apply_rename(&mut self, s: &Arc<Session>, name: Arc<str>) -> bool {
        if let Some(room) = s.room() {
            match room.rename(s.id, Arc::clone(&name)).await {
                Some(true) => {}
                Some(false) => return false,
                None => s.set_room(None),
            }
        }
        tracing::info!(name = %name, "renamed");
        s.set_name(name);
        true
    }

    /// A move or rewind, timed from now, to the player's room. The hot path:
    /// the transport calls it directly, without [`Conn::dispatch`].
    pub(super) async fn act(&mut self, s: &Session, seq: u32, action: Action) {
        self.forward(s, RoomCmd::Act { id: s.id, seq, action, at: Instant::now() }).await
    }

    /// The flood gate dropped this action: the room answers it refused.
    pub(super) async fn dropped(&mut self, s: &Session, seq: u32, action: Action) {
        self.forward(s, RoomCmd::Dropped { id: s.id, seq, action }).await
    }

    /// The player's session, once they said hello.
    pub(super) fn session(&self) -> Option<&Arc<Session>> {
        match &self.lobby {
            Lobby::Ready(s) => Some(s),
            Lobby::AwaitingHello => None,
        }
    }

    async fn forward(&mut self, s: &Session, cmd: RoomCmd) {
        let Some(room) = s.room() else {
            return self.error(ErrorCode::NotInRoom, "you are not in a room");
        };
        if !room.send(cmd).await {
            s.set_room(None);
            self.error(ErrorCode::NotInRoom, "your room has closed");
        }
    }

    /// The socket is gone: the session (if any) waits for a resume, and
    /// ends when the window runs out.
    pub(super) async fn detach(&mut self) {
        let Lobby::Ready(s) = std::mem::replace(&mut self.lobby, Lobby::AwaitingHello) else { return };
        let env = Arc::clone(&self.env);
        let Some((epoch, room)) = env.sessions.detach(&s, self.id) else { return };
        if let Some(room) = room {
            room.send(RoomCmd::Detach { id: s.id, conn: self.id }).await;
        }
        let window = env.limits.resume_window;
        let sh = Arc::clone(&env);
        env.tracker.spawn(
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
