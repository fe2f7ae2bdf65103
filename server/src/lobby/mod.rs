//! The lobby service of one connection, as a value: a [`Lobby`] takes what
//! the client sent (a text frame, or the news of a binary or control frame)
//! and answers it, awaiting the registry, the rooms and the daily store it
//! reaches through its [`LobbyEnv`]; it returns what the transport is to do
//! next ([`Flow`]: read on, or close for a violation). It never sees a
//! socket, so its unit tests (`tests.rs`, `rooms_tests.rs`,
//! `store_tests.rs`) drive it with messages alone.
//!
//! - `mod.rs`: the session as a state (awaiting `hello`, then ready with
//!   its [`Session`]), the dispatch, and the room commands forwarded to the
//!   player's room (a move or a rewind inline: the hot path).
//! - `flood.rs`: the flood gate (`rate_limited`, then 1008).
//! - `hello.rs`: `hello`, resuming, renaming, and the session's detach
//!   when the socket goes.
//! - `rooms.rs`: making a room (random, chosen, daily seed, or a lost
//!   node's room replaced) and joining one by code.
//! - `store.rs`: what is asked of the daily store: leaderboards, leagues.
//! - `moved.rs`: rooms moved here from a draining node (their seats
//!   claimed by `hello`), and `room_moved` for a moved room's old code.
//! - `env.rs`: [`LobbyEnv`], all the lobby reaches.
//!
//! Answers go into the player's [`Outbox`], the one queue the rooms write
//! to as well: their order is part of the protocol (`welcome` before the
//! resumed room's `snapshot`, an error before what the room says next).
//! Recoverable mistakes (bad JSON, a message out of place) are answered
//! with an `error` and the connection goes on; nothing a client sends can
//! make the lobby panic or disturb another connection.

use std::future::Future;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::Arc;

use mazerace_protocol::messages::{ClientMsg, ErrorCode, ServerMsg};
use mazerace_protocol::Action;
use tokio::time::Instant;

use crate::edge::limits::TokenBucket;
use crate::outbox::Outbox;
use crate::room::{Handed, Input, RoomCmd, RoomHandle};
use crate::sessions::Session;

mod env;
mod flood;
mod hello;
mod moved;
mod rooms;
#[cfg(test)]
mod rooms_tests;
mod store;
#[cfg(test)]
mod store_tests;
#[cfg(test)]
mod tests;

pub use env::{LobbyEnv, LobbyLimits, LobbyParts};
pub use flood::Flow;
use flood::{Flood, Gate};
pub use moved::adopt_loop;

/// League creations and joins a connection may make at once ...
const LEAGUE_BURST: u32 = 5;
/// ... and one more every this long.
const LEAGUE_REFILL: std::time::Duration = std::time::Duration::from_secs(60);

/// Where the connection's session is.
enum State {
    /// Only `hello` (and `ping`) are spoken.
    AwaitingHello,
    /// The player is known.
    Ready(Arc<Session>),
}

/// One connection's lobby: its session, its budgets, and the outbox the
/// player reads.
pub struct Lobby {
    env: Arc<LobbyEnv>,
    ip: IpAddr,
    outbox: Outbox,
    state: State,
    flood: Flood,
    /// Rooms this connection may make (`rooms_per_conn`, refilled).
    rooms: TokenBucket,
    /// League creations and joins this connection may make.
    leagues: TokenBucket,
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

impl Lobby {
    /// The lobby of a connection from `ip` whose player reads `outbox`.
    pub fn new(env: Arc<LobbyEnv>, ip: IpAddr, outbox: Outbox) -> Lobby {
        let cfg = &env.limits;
        let flood = Flood::new(cfg);
        let rooms = TokenBucket::new(cfg.rooms_per_conn, cfg.room_refill);
        Lobby {
            env,
            ip,
            outbox,
            state: State::AwaitingHello,
            flood,
            rooms,
            leagues: TokenBucket::new(LEAGUE_BURST, LEAGUE_REFILL),
        }
    }

    /// Whether the player said `hello` (the hello deadline stops counting).
    pub fn said_hello(&self) -> bool {
        matches!(self.state, State::Ready(_))
    }

    /// The player's outbox.
    pub fn outbox(&self) -> &Outbox {
        &self.outbox
    }

    /// The address the connection comes from.
    pub fn ip(&self) -> IpAddr {
        self.ip
    }

    fn send(&self, msg: &ServerMsg) {
        self.outbox.send_msg(msg);
    }

    fn error(&self, code: ErrorCode, message: impl Into<String>) {
        self.send(&ServerMsg::Error { code, message: message.into() });
    }

    /// The player's session, once they said hello.
    fn session(&self) -> Option<&Arc<Session>> {
        match &self.state {
            State::Ready(s) => Some(s),
            State::AwaitingHello => None,
        }
    }

    /// A text frame: through the flood gate, decoded, answered.
    pub async fn on_text(&mut self, text: &str) -> Flow {
        match self.flood.admit() {
            Gate::Pass => {}
            Gate::Refuse => {
                // Boxed: only a flood comes here, and inline its future
                // would size every connection's task.
                Box::pin(self.refuse(text)).await;
                return Flow::Go;
            }
            Gate::Stop => return Flood::stop(),
        }
        let msg = match ClientMsg::decode(text) {
            Ok(msg) => msg,
            Err(e) => {
                self.error(e.code, clip(e.message, 200));
                return Flow::Go;
            }
        };
        // The hot path inline: a player's move or rewind straight to the room.
        let act = match (&msg, self.session()) {
            (ClientMsg::Move { dir, seq }, Some(s)) => Some((Arc::clone(s), *seq, Action::Move(*dir))),
            (ClientMsg::Rewind { seq }, Some(s)) => Some((Arc::clone(s), *seq, Action::Rewind)),
            _ => None,
        };
        match act {
            // Handed over without an await unless the room's inbox is
            // full: the connection's task carries no send future.
            Some((s, seq, action)) => {
                drop(msg);
                if let Some(wait) = self.act_now(&s, seq, action) {
                    wait.await;
                }
            }
            // Everything else is rare next to moves, so it runs boxed: its
            // future would otherwise size every connection's task.
            None => Box::pin(self.dispatch(msg)).await,
        }
        Flow::Go
    }

    /// A binary frame: counted, and refused (the protocol is JSON text).
    pub fn on_binary(&mut self) -> Flow {
        match self.flood.admit() {
            Gate::Stop => Flood::stop(),
            Gate::Refuse => Flow::Go,
            Gate::Pass => {
                self.error(ErrorCode::BinaryFrame, "binary frames are not spoken here: send JSON text");
                Flow::Go
            }
        }
    }

    /// A ping or a pong: counted against the message rate like any frame
    /// (a flood of pings is a flood: each one costs a pong).
    pub fn on_control(&mut self) -> Flow {
        self.flood.count()
    }

    /// A message over the rate: dropped. A racer's `move` or `rewind` is
    /// answered by its `seq` as any is (the room says `rate_limited` with
    /// the game as it stands, so the client's prediction is corrected),
    /// anything else by the `rate_limited` error. Bounded by the strikes:
    /// at most one room message per refusal, and those run out.
    async fn refuse(&mut self, text: &str) {
        let dropped = match (ClientMsg::decode(text), self.session()) {
            (Ok(ClientMsg::Move { dir, seq }), Some(s)) => Some((Arc::clone(s), seq, Action::Move(dir))),
            (Ok(ClientMsg::Rewind { seq }), Some(s)) => Some((Arc::clone(s), seq, Action::Rewind)),
            _ => None,
        };
        match dropped {
            Some((s, seq, action)) => self.forward(&s, Input::Dropped { id: s.id, seq, action }).await,
            None => self.error(ErrorCode::RateLimited, "too many messages: slow down"),
        }
    }

    async fn dispatch(&mut self, msg: ClientMsg) {
        let session = match (&self.state, msg) {
            (_, ClientMsg::Ping {}) => return self.send(&ServerMsg::Pong),
            // The rare requests run boxed: inline, their futures would make
            // every connection's task as large as the largest of them.
            (State::AwaitingHello, ClientMsg::Hello { name, token }) => {
                return Box::pin(self.hello(name, token)).await
            }
            (State::AwaitingHello, _) => {
                return self.error(ErrorCode::HelloFirst, r#"say hello first: {"type":"hello","name":"..."}"#)
            }
            (State::Ready(_), ClientMsg::Hello { .. }) => {
                return self.error(ErrorCode::HelloFirst, "you already said hello")
            }
            (State::Ready(s), msg) => (Arc::clone(s), msg),
        };
        self.request(session.0, session.1).await;
    }

    /// A message from a player who said hello.
    async fn request(&mut self, s: Arc<Session>, msg: ClientMsg) {
        let id = s.id;
        match msg {
            ClientMsg::Hello { .. } | ClientMsg::Ping {} => {}
            ClientMsg::CreateRoom {
                game,
                size,
                seed,
                rank_by,
                max_players,
                daily,
                format,
                replaces,
                party,
            } => {
                let req =
                    rooms::NewRoom { game, size, seed, rank_by, max_players, daily, format, replaces, party };
                Box::pin(self.create_room(&s, req)).await;
            }
            ClientMsg::JoinRoom { code, spectate, key, screen } => {
                let seat = match (screen, spectate) {
                    (true, _) => rooms::Seat::Screen,
                    (false, true) => rooms::Seat::Watching,
                    (false, false) => rooms::Seat::Racing,
                };
                Box::pin(self.join_room(&s, &code, seat, key.as_deref())).await
            }
            ClientMsg::LeaveRoom {} => match s.take_room() {
                Some(room) => {
                    room.send(RoomCmd::Leave { id, expired: false }).await;
                }
                None => self.error(ErrorCode::NotInRoom, "you are not in a room"),
            },
            ClientMsg::Ready { ready } => self.forward(&s, Input::Ready { id, ready }).await,
            ClientMsg::Start {} => self.forward(&s, Input::Start { id }).await,
            ClientMsg::Move { dir, seq } => self.act(&s, seq, Action::Move(dir)).await,
            ClientMsg::Rewind { seq } => self.act(&s, seq, Action::Rewind).await,
            ClientMsg::GiveUp {} => self.forward(&s, Input::GiveUp { id }).await,
            ClientMsg::Rematch { same_board } => {
                let (seed, match_seed) = (self.env.ids.seed(), self.env.ids.seed());
                self.forward(&s, Input::Rematch { id, same_board, seed, match_seed }).await
            }
            ClientMsg::AddRival { run_id, pick } => {
                self.forward(&s, Input::AddRival { id, run_id, pick }).await
            }
            ClientMsg::RemoveRival { id: rival } => self.forward(&s, Input::RemoveRival { id, rival }).await,
            ClientMsg::SetMatch { format } => {
                let seed = self.env.ids.seed();
                self.forward(&s, Input::SetMatch { id, format, seed }).await
            }
            ClientMsg::Hold {} => self.forward(&s, Input::Hold { id }).await,
            ClientMsg::NextRound {} => self.forward(&s, Input::NextRound { id }).await,
            ClientMsg::Rename { name } => Box::pin(self.rename(&s, name)).await,
            ClientMsg::Leaderboard { game, size, date } => {
                Box::pin(self.leaderboard(&s, game, size, date)).await
            }
            msg @ (ClientMsg::CreateLeague { .. }
            | ClientMsg::JoinLeague { .. }
            | ClientMsg::LeaveLeague { .. }
            | ClientMsg::RemoveMember { .. }
            | ClientMsg::NewLeagueCode { .. }
            | ClientMsg::MyLeagues {}
            | ClientMsg::LeagueBoard { .. }
            | ClientMsg::LeagueStandings { .. }) => {
                if let Some(op) = store::op_of(msg) {
                    Box::pin(self.league(&s, op)).await;
                }
            }
        }
    }

    /// A move or rewind, timed from now, to the player's room.
    async fn act(&mut self, s: &Session, seq: u32, action: Action) {
        self.forward(s, act_input(s, seq, action)).await
    }

    async fn forward(&mut self, s: &Session, input: Input) {
        if let Some((room, cmd)) = self.hand(s, input.into()) {
            self.wait_for_room(s, room, cmd).await;
        }
    }

    /// Hands `cmd` to the player's room without waiting, answering a
    /// player with no room (or a closed one); the room and the command
    /// back when its inbox is full, for [`Lobby::wait_for_room`].
    fn hand(&mut self, s: &Session, cmd: RoomCmd) -> Option<(RoomHandle, RoomCmd)> {
        let Some(room) = s.room() else {
            self.error(ErrorCode::NotInRoom, "you are not in a room");
            return None;
        };
        match room.hand(cmd) {
            Handed::Done => None,
            Handed::Full(cmd) => Some((room, cmd)),
            Handed::Closed => {
                self.room_closed(s);
                None
            }
        }
    }

    /// A move or a rewind handed to the room now; what is left to await
    /// (boxed, and only when the room's inbox is full) if not.
    fn act_now<'a>(
        &'a mut self,
        s: &'a Session,
        seq: u32,
        action: Action,
    ) -> Option<Pin<Box<impl Future<Output = ()> + 'a>>> {
        let (room, cmd) = self.hand(s, act_input(s, seq, action).into())?;
        Some(Box::pin(self.wait_for_room(s, room, cmd)))
    }

    async fn wait_for_room(&mut self, s: &Session, room: RoomHandle, cmd: RoomCmd) {
        if !room.wait_send(cmd).await {
            self.room_closed(s);
        }
    }

    fn room_closed(&mut self, s: &Session) {
        s.set_room(None);
        self.error(ErrorCode::NotInRoom, "your room has closed");
    }
}

/// A racer's move or rewind as the room takes it, timed on arrival.
fn act_input(s: &Session, seq: u32, action: Action) -> Input {
    Input::Act { id: s.id, seq, action, at: Instant::now() }
}
