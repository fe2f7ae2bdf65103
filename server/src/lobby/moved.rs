//! Rooms moved here from a draining node, and the answers about moved rooms
//! (issue 27):
//! - [`adopt_loop`]: a living node polls the mailbox (`crate::moves`) and
//!   makes each posted room again under a fresh code and key; its members
//!   are seats ([`Claims`]) until each says `hello` with their token;
//! - [`claim`]: such a `hello` makes the seat the player's session (over
//!   any session the token has here: the player's other tab is taken
//!   over), so the resume that follows puts them in the room (`welcome`
//!   resumed, then the room's snapshot);
//! - [`Lobby::answer_moved`]: a join (or a resume) of an old code that
//!   brings the old room's key is answered `room_moved` while the move is
//!   remembered. The answer holds the new room's key, so without the old
//!   key nothing is looked up: an old code alone is a miss like any other
//!   (a failed join), never an oracle that hands out the new room.
//!
//! Bounds: a poll claims at most [`CLAIM_BATCH`] rooms; seats live for the
//! resume window, then leave the room as an expired player would; rows are
//! forgotten after `--move-memory-secs` (SECURITY.md, "Room moves").

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use mazerace_protocol::close;
use mazerace_protocol::messages::{PlayerId, RoomRef, ServerMsg};
use mazerace_store::postgres::moves::{ClaimedMove, RoomMoves};
use mazerace_store::PlayerKey;
use tokio::time::{interval, Instant, MissedTickBehavior};
use tracing::Instrument;

use super::{Lobby, LobbyEnv};
use crate::ids::is_code_shaped;
use crate::metrics;
use crate::room::{Input, RoomCmd, RoomExport, RoomHandle};

/// How often a living node looks for rooms to adopt.
const POLL: Duration = Duration::from_millis(100);
/// Rooms one poll adopts at most (the next poll takes the rest).
const CLAIM_BATCH: i64 = 32;
/// How often the node forgets the moves older than the memory.
const FORGET_EVERY: Duration = Duration::from_secs(60);

/// A moved room's seat waiting for its player.
struct Seat {
    room: RoomHandle,
    id: PlayerId,
    name: Arc<str>,
}

/// The seats of rooms moved here, by the hash of their player's token.
#[derive(Default)]
pub struct Claims {
    seats: Mutex<HashMap<String, Seat>>,
}

impl Claims {
    fn seats(&self) -> MutexGuard<'_, HashMap<String, Seat>> {
        self.seats.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The seats of room `room` nobody claimed: removed, their ids.
    fn expire(&self, room: u64) -> Vec<PlayerId> {
        let mut seats = self.seats();
        let gone: Vec<String> =
            seats.iter().filter(|(_, s)| s.room.id == room).map(|(k, _)| k.clone()).collect();
        gone.iter().filter_map(|k| seats.remove(k)).map(|s| s.id).collect()
    }
}

/// `hello` with `token`: a seat waiting for it becomes the player's
/// session (detached, for the resume right after to pick up). If the token
/// already has a session here (the player's other tab, or one waiting for
/// its resume), the tab that follows its room's move takes the token over,
/// as any resume by another connection does (`hello.rs`): the other tab is
/// closed with `TAKEN_OVER`, and that session leaves the room it was in
/// here, so the player is in the moved room, once.
pub(super) async fn claim(env: &LobbyEnv, token: &str) {
    let key = PlayerKey::from_token(token);
    let Some(seat) = env.claims.seats().remove(key.as_str()) else { return };
    let replaced = env.sessions.adopt(seat.id, token, Arc::clone(&seat.name), seat.room.clone());
    tracing::info!(player = seat.id, room = %seat.room.code, "moved seat claimed");
    if let Some((old, conn)) = replaced {
        tracing::info!(player = seat.id, was = old.id, "moved seat claimed over the token's session here");
        if let Some(conn) = conn {
            conn.close(close::TAKEN_OVER, "this session was resumed on another connection");
        }
        if let Some(room) = old.take_room() {
            room.send(RoomCmd::Leave { id: old.id, expired: false }).await;
        }
    }
    // Before the reattach (same inbox, in order): the room's member gets its token.
    seat.room.send(Input::Claim { id: seat.id, token: token.into() }.into()).await;
}

/// Adopts other nodes' posted rooms until the shutdown; a draining node
/// adopts nothing. Without a mailbox, returns at once.
pub async fn adopt_loop(env: Arc<LobbyEnv>) {
    let Some(mailbox) = env.moves.mailbox().cloned() else { return };
    let mut tick = interval(POLL);
    tick.set_missed_tick_behavior(MissedTickBehavior::Delay);
    let mut forgot = Instant::now();
    let mut failing = false;
    loop {
        tokio::select! {
            _ = tick.tick() => {}
            () = env.shutdown.cancelled() => return,
        }
        if env.drain.is_draining() {
            continue;
        }
        match mailbox.claim(CLAIM_BATCH).await {
            Ok(claimed) => {
                failing = false;
                for c in claimed {
                    adopt(&env, &mailbox, c).await;
                }
            }
            Err(e) if !failing => {
                // Logged once per outage, not ten times a second.
                failing = true;
                tracing::warn!(error = %e, "room moves: cannot read the mailbox");
            }
            Err(_) => {}
        }
        if forgot.elapsed() >= FORGET_EVERY && !env.moves.remember.is_zero() {
            forgot = Instant::now();
            match mailbox.forget(env.moves.remember.as_secs_f64()).await {
                Ok(n) if n > 0 => tracing::info!(moves = n, "room moves forgotten"),
                Ok(_) => {}
                Err(e) => tracing::warn!(error = %e, "room moves: forgetting failed"),
            }
        }
    }
}

/// Makes claimed move `c` a room here and answers its old node.
async fn adopt(env: &Arc<LobbyEnv>, mailbox: &RoomMoves, c: ClaimedMove) {
    let made = serde_json::from_str::<RoomExport>(&c.payload)
        .map_err(|e| e.to_string())
        .and_then(|export| adopt_room(env, export));
    let room = match made {
        Ok(room) => room,
        // The old node's wait runs out and its room stays.
        Err(why) => return tracing::error!(old = %c.old_code, why, "room move not adopted"),
    };
    let to = RoomRef { code: room.code.to_string(), key: room.key().to_owned() };
    tracing::info!(old = %c.old_code, room = %to.code, "room adopted from a draining node");
    env.moves.remember(&RoomRef { code: c.old_code, key: c.old_key }, &to);
    if let Err(e) = mailbox.answer(c.id, &to.code, &to.key).await {
        tracing::error!(error = %e, room = %to.code, "room adopted, but its old node was not answered");
    }
}

/// The room an export describes, started here with its members as seats.
fn adopt_room(env: &Arc<LobbyEnv>, x: RoomExport) -> Result<RoomHandle, String> {
    let key = env.ids.room_key().into();
    let (adoption, waiting) = x.adoption(|| env.sessions.reserve_id(), key)?;
    let room = env.rooms.adopt(&env.room_env, &env.ids, env.limits.node_id, adoption);
    {
        let mut claims = env.claims.seats();
        for w in waiting {
            claims.insert(w.key, Seat { room: room.clone(), id: w.id, name: w.name });
        }
    }
    // Seats nobody claims within the resume window leave, as a player who
    // never came back would.
    let (sh, waiting_room) = (Arc::clone(env), room.clone());
    let window = env.limits.resume_window;
    env.tracker.spawn(
        async move {
            tokio::select! {
                () = tokio::time::sleep(window) => {
                    for id in sh.claims.expire(waiting_room.id) {
                        waiting_room.send(RoomCmd::Leave { id, expired: true }).await;
                    }
                }
                () = sh.shutdown.cancelled() => {}
            }
        }
        .in_current_span(),
    );
    Ok(room)
}

impl LobbyEnv {
    /// Where room `code` went, if it moved away, the move is remembered and
    /// `key` is the old room's (the answer is the new room's key: only who
    /// was given the old one may have it). A code of this node (or of no
    /// node) may be looked up in the database too while `ip`'s failed-join
    /// budget allows; another node's only in memory. The socket's keyed
    /// joins and resumes and the HTTP invite preview all ask here; a miss is
    /// the caller's to count as a failed join.
    pub async fn where_moved(&self, code: &str, key: &str, ip: IpAddr) -> Option<RoomRef> {
        if !is_code_shaped(code) || self.rooms.get(code).is_some() {
            return None;
        }
        let ours = self.limits.node_id.is_none_or(|me| code.starts_with(me));
        if ours && self.joins.allowed(ip) {
            self.moves.moved_to(code, key).await
        } else {
            self.moves.remembered(code, key)
        }
    }
}

impl Lobby {
    /// A join (or a resume) of room `code` that moved away, with the old
    /// room's `key`: answered with `room_moved` (`true`) while the move is
    /// remembered ([`LobbyEnv::where_moved`]).
    pub(super) async fn answer_moved(&self, code: &str, key: &str) -> bool {
        let Some(to) = self.env.where_moved(code, key, self.ip).await else { return false };
        tracing::info!(old = %code, room = %to.code, "told where a moved room is");
        metrics::moved_answered();
        self.send(&ServerMsg::RoomMoved { code: to.code, key: to.key });
        true
    }
}
