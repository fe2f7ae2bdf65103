//! The session's life in the lobby: `hello` (a new player, or a resume by
//! token that takes the session over from another connection, counted
//! against the address's takeover budget), `rename`,
//! and the detach when the socket is gone, after which the session waits
//! for a resume until its window runs out.

use std::sync::Arc;

use mazerace_protocol::close;
use mazerace_protocol::messages::{ErrorCode, ServerMsg};
use tokio::time::sleep;
use tracing::Instrument;

use super::{Lobby, State};
use crate::room::RoomCmd;
use crate::sessions::Session;

impl Lobby {
    fn welcome(&self, s: &Session, resumed: bool) -> ServerMsg {
        ServerMsg::Welcome {
            player_id: s.id,
            token: s.token.to_string(),
            resumed,
            name: s.name().to_string(),
            limits: self.env.limits.for_client(),
        }
    }

    pub(super) async fn hello(&mut self, name: String, token: Option<String>) {
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
                    env.took_over(self.ip);
                }
                let s = r.session;
                tracing::Span::current().record("player", s.id);
                tracing::info!("session resumed");
                // A resume with another name renames (unless mid-race).
                if *s.name() != *name {
                    self.apply_rename(&s, Arc::clone(&name)).await;
                }
                self.send(&self.welcome(&s, true));
                // After `welcome`: the room answers with a snapshot. A room
                // that no longer has the player is left for good.
                if let Some(room) = s.room() {
                    if !room.reattach(s.id, self.outbox.clone()).await {
                        s.set_room(None);
                        // It may have moved to another node while we were
                        // away; a member was given its key.
                        self.answer_moved(&room.code, room.key()).await;
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
                self.send(&self.welcome(&s, false));
                s
            }
        };
        self.state = State::Ready(session);
    }

    pub(super) async fn rename(&mut self, s: &Arc<Session>, name: String) {
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

    /// The socket is gone: the session (if any) waits for a resume, and
    /// ends when the window runs out. The lobby is back to awaiting `hello`.
    pub async fn detach(&mut self) {
        let State::Ready(s) = std::mem::replace(&mut self.state, State::AwaitingHello) else { return };
        let env = Arc::clone(&self.env);
        let Some((epoch, room)) = env.sessions.detach(&s, self.outbox.conn()) else { return };
        if let Some(room) = room {
            room.send(RoomCmd::Detach { id: s.id, conn: self.outbox.conn() }).await;
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
