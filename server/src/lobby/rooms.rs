//! Making a room (on a random, chosen or daily seed, or to replace a lost
//! node's room) and joining one by code, with the budgets that hold both
//! back: rooms per connection and per address, failed joins and joins per
//! address.

use std::sync::Arc;

use mazerace_protocol::matches::MatchSettings;
use mazerace_protocol::messages::{ErrorCode, RankBy, RoomRef};
use mazerace_protocol::{Board, Game, Seed, Size};
use tokio::time::timeout;

use super::store::STORE_WAIT;
use super::Lobby;
use crate::config::MAX_PLAYERS_CAP;
use crate::daily::{DailyError, NOT_CONFIGURED};
use crate::ids::is_code_shaped;
use crate::metrics::{self, Budget};
use crate::room::{JoinError, NewMember, RoomHandle, RoomSettings};
use crate::sessions::Session;

/// `draining`'s message (PROTOCOL.md has it).
const DRAINING: &str = "this server is restarting and makes no new rooms; reconnect to make it on another";

/// Longest invite key `replaces` may name (the server's are 16 characters).
const KEY_MAX: usize = 64;

/// `create_room`'s `replaces`, looked up.
enum Replacing {
    /// The named room is open here: nothing to replace.
    NotLost,
    /// Nobody made its replacement yet.
    First(RoomRef),
    /// The room made to replace it.
    Made(RoomHandle),
}

/// How a joiner takes part: races, watches, or shows the room on a screen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Seat {
    Racing,
    Watching,
    Screen,
}

/// A `create_room` as asked.
pub(super) struct NewRoom {
    pub game: Game,
    pub size: Size,
    pub seed: Option<Seed>,
    pub rank_by: Option<RankBy>,
    pub max_players: Option<u32>,
    pub daily: bool,
    pub format: Option<MatchSettings>,
    /// A lost node's room this one replaces (see [`Lobby::replacement`]).
    pub replaces: Option<RoomRef>,
    /// A party room: the sender is its screen (`room/screens.rs`).
    pub party: bool,
}

impl Lobby {
    fn member(&self, s: &Session, screen: bool) -> NewMember {
        let (name, token, outbox) = (s.name(), Arc::clone(&s.token), self.outbox.clone());
        NewMember { id: s.id, name, token, outbox, screen }
    }

    pub(super) async fn create_room(&mut self, s: &Arc<Session>, req: NewRoom) {
        let NewRoom { game, size, seed, rank_by, max_players, daily, format, replaces, party } = req;
        if s.room().is_some() {
            return self.error(ErrorCode::AlreadyInRoom, "leave your room first");
        }
        if party && daily {
            return self.error(ErrorCode::Screen, "a daily room is a room of one: no screen shows it");
        }
        let replaces = match replaces.map(|r| self.replacement(r)).transpose() {
            Ok(r) => r.filter(|_| !daily),
            Err(why) => return self.error(ErrorCode::BadMessage, why),
        };
        if let Some(Replacing::Made(room)) = replaces {
            // Another player of the lost room made its replacement first (or
            // its screen did): a screen asking again shows it, a player races.
            let seat = if party { Seat::Screen } else { Seat::Racing };
            return Box::pin(self.enter(s, room, seat)).await;
        }
        if self.env.drain.is_draining() {
            // The client reconnects without a room in the URL: the load
            // balancer no longer sends those here.
            return self.error(ErrorCode::Draining, DRAINING);
        }
        if size.game() != game {
            return self.error(ErrorCode::BadSize, format!("{size} is not a size of {game}"));
        }
        if daily && format.is_some() {
            return self.error(ErrorCode::DailyMatch, "a daily room plays single races, not matches");
        }
        let mut daily_board = None;
        let seed = if daily {
            if seed.is_some() {
                return self.error(ErrorCode::BadSize, "a daily room takes no seed");
            }
            let Some(hook) = self.env.daily.clone() else {
                return self.error(ErrorCode::Internal, NOT_CONFIGURED);
            };
            let address = crate::edge::address::AddressKey::of(self.ip).label();
            let today = hook.today(game, size, s.token.to_string(), address.clone());
            match timeout(STORE_WAIT, today).await.unwrap_or_else(|_| Err(DailyError::late())) {
                Ok(mut b) => {
                    let seed = b.seed;
                    b.address = address;
                    daily_board = Some(b);
                    seed
                }
                Err(e) => return self.daily_failed(&e, "the daily challenge"),
            }
        } else {
            // A daily seed is secret until its day is over: a private room
            // on it would be a practice run before the ranked one.
            if let (Some(s), Some(hook)) = (seed, self.env.daily.as_ref()) {
                if hook.is_active_daily_seed(s.0) {
                    let why = "that seed is a daily board's: it can be played in a room once its day is over";
                    return self.error(ErrorCode::DailySeed, why);
                }
            }
            seed.map_or_else(|| self.env.ids.seed(), |s| s.0)
        };
        if !self.rooms.take() {
            return self
                .error(ErrorCode::TooManyRooms, "too many rooms made from this connection; wait a little");
        }
        let Some(slot) = self.env.room_slots.take(self.ip) else {
            tracing::warn!("room refused: too many open rooms from this address");
            return self.error(ErrorCode::TooManyRooms, "too many open rooms from your network address");
        };
        // A match's first round is raced on the room's seed, with `harder`
        // maybe at another size than the room's.
        let first = format.map_or(size, |f| f.size_of(size, 1));
        let board = match Board::build(first, seed) {
            Ok(b) => b,
            Err(e) => {
                tracing::error!(error = %e, seed, %size, "board failed");
                return self.error(ErrorCode::Internal, "could not build that board; try another seed");
            }
        };
        let is_daily = daily_board.is_some();
        let settings = RoomSettings {
            game: first.game(),
            size: first,
            base: size,
            format,
            // Rounds 2 on: a seed nobody in the room knows.
            match_seed: self.env.ids.seed(),
            rank_by: if is_daily { RankBy::Steps } else { rank_by.unwrap_or_default() },
            max_players: if is_daily {
                1
            } else {
                max_players.unwrap_or(self.env.limits.max_players).clamp(1, MAX_PLAYERS_CAP)
            },
            board,
            daily: daily_board,
            key: self.env.ids.room_key().into(),
            party,
        };
        let host = self.member(s, party);
        let env = Arc::clone(&self.env);
        let node = env.limits.node_id;
        let room = env.rooms.create(&env.room_env, &env.ids, node, settings, host, slot);
        tracing::info!(room = %room.code, party, "room made");
        if let Some(Replacing::First(lost)) = replaces {
            tracing::info!(room = %room.code, lost = %lost.code, "room made for a lost node's room");
            env.rooms.replaced(lost, &room);
        }
        s.set_room(Some(room));
    }

    /// What `replaces` asks for: the room already made for the lost room
    /// (`Made`), or nothing yet (`First`: this player makes it). A code
    /// that is one of this node's open rooms was not lost: no replacement.
    fn replacement(&self, lost: RoomRef) -> Result<Replacing, &'static str> {
        let code = lost.code.trim().to_ascii_uppercase();
        if !is_code_shaped(&code) || lost.key.is_empty() || lost.key.len() > KEY_MAX {
            return Err("replaces: a room code and its key");
        }
        let lost = RoomRef { code, key: lost.key };
        if self.env.rooms.get(&lost.code).is_some() {
            return Ok(Replacing::NotLost);
        }
        Ok(match self.env.rooms.replacement(&lost) {
            Some(room) => Replacing::Made(room),
            None => Replacing::First(lost),
        })
    }

    /// Joins by code. A typed code is short, so guessing is held back by
    /// the failed-join limit per address; an invite link's `key` proves the
    /// joiner was given the room, so it is let in whatever others on the
    /// same address (a LAN party, a NAT) have guessed. A wrong key counts as
    /// a failed join, so keys cannot be guessed either. Every join that
    /// reaches a room spends from the address's join budget, link or not
    /// ([`Lobby::enter`]).
    ///
    /// A code that is no room here is a failed join whatever it is: a guess,
    /// a typo, another node's code (the load balancer sent it here), or the
    /// old code of a room that moved (answered `room_moved`, with the new
    /// room's key, only to who brings the old room's key).
    ///
    /// A screen joins only with the key: "show on a big screen" is a link
    /// given by someone in the room.
    pub(super) async fn join_room(&mut self, s: &Arc<Session>, code: &str, seat: Seat, key: Option<&str>) {
        if s.room().is_some() {
            return self.error(ErrorCode::AlreadyInRoom, "leave your room first");
        }
        if seat == Seat::Screen && key.is_none() {
            return self.error(ErrorCode::Screen, "a screen joins with the room's link (its key)");
        }
        let code = code.trim().to_ascii_uppercase();
        let found = if is_code_shaped(&code) { self.env.rooms.get(&code) } else { None };
        if found.is_none() {
            if let Some(k) = key {
                if self.answer_moved(&code, k).await {
                    return;
                }
            }
        }
        let invited = matches!((&found, key), (Some(room), Some(k)) if room.key_is(k));
        if !invited && !self.env.joins.allowed(self.ip) {
            tracing::warn!("join refused: too many failed joins from this address");
            return self.error(ErrorCode::TooManyJoins, "too many failed joins; wait a minute");
        }
        let Some(room) = found.filter(|_| invited || key.is_none()) else {
            self.env.joins.failed(self.ip);
            metrics::join_failed();
            if let Some(owner) = self.other_nodes(&code) {
                // Likely the load balancer sent the join to the wrong place;
                // still a failed join, so that another node's codes (and old
                // codes of rooms moved here) are no free guesses.
                tracing::info!(%owner, "join for another node's room");
                let message = format!("room {code} is on node {owner}; connect with /ws?room={code}");
                return self.error(ErrorCode::WrongNode, message);
            }
            let shown: String = code.chars().take(8).collect();
            return self.error(ErrorCode::RoomNotFound, format!("no room with code {shown:?}"));
        };
        self.enter(s, room, seat).await
    }

    /// Puts the player in `room` (a join that found it: by code, by invite
    /// link, or by `create_room`'s `replaces`). Every way in spends from the
    /// address's join budget here, in one place: each is a `room` update to
    /// everyone in the room (before, a join through `replaces` spent none).
    async fn enter(&mut self, s: &Arc<Session>, room: RoomHandle, seat: Seat) {
        if !self.env.room_joins.take(self.ip) {
            tracing::warn!("join refused: too many joins from this address");
            metrics::budget_refused(Budget::RoomJoins);
            return self.error(ErrorCode::JoinsTooFast, "you are joining rooms too fast; wait a few seconds");
        }
        let screen = seat == Seat::Screen;
        match room.join(self.member(s, screen), seat == Seat::Watching).await {
            Ok(()) => {
                tracing::info!(room = %room.code, ?seat, "joined");
                s.set_room(Some(room));
            }
            Err(JoinError::Full) if screen => {
                self.error(ErrorCode::RoomFull, "that room has all the screens it takes (or is a daily room)")
            }
            Err(JoinError::Full) => self.error(ErrorCode::RoomFull, "that room is full"),
            Err(JoinError::Gone) => self.error(ErrorCode::RoomNotFound, "that room has just closed"),
        }
    }

    /// The node owning `code` when it is a room code of another node's (this
    /// node has an id and the code begins with a different one).
    fn other_nodes(&self, code: &str) -> Option<char> {
        let me = self.env.limits.node_id?;
        let first = code.chars().next().filter(|_| is_code_shaped(code))?;
        (first != me).then_some(first)
    }
}
