//! Rooms that move to another node while this one drains (issue 27): the
//! node's side of the mailbox (`mazerace_store::postgres::moves`, on the
//! PostgreSQL every node shares) and its memory of the moves it knows of.
//!
//! - A draining node [`Moves::send_away`]s each room in its lobby or its
//!   results (a room mid-race when its race ends): the room's export is
//!   posted, and the node waits (at most `wait`) for another node's answer,
//!   the room's new code and key; a room claimed by a node that never
//!   answers (it died) is offered again, once.
//! - A living node adopts what others posted (`lobby/moved.rs`).
//! - Both remember old code to new for `remember` (`--move-memory-secs`)
//!   in memory, at most [`MAX_REMEMBERED`] moves; after that (or on a node
//!   that restarted since) the database's rows answer, until forgotten.
//!
//! Without a mailbox (SQLite: a single node has nowhere to move a room to)
//! nothing moves, and the drain behaves as before.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use mazerace_protocol::messages::RoomRef;
use mazerace_store::postgres::moves::RoomMoves;
use tokio::time::Instant;

/// Moves remembered in memory at once (each is two short strings and a
/// code); past it the oldest are dropped, the database still answers.
pub const MAX_REMEMBERED: usize = 100_000;

/// How long a posted room waits at most for a node to adopt it.
pub const ADOPTION_WAIT: Duration = Duration::from_secs(10);

/// How often a draining node asks whether its posted room was adopted.
const ANSWER_POLL: Duration = Duration::from_millis(25);

/// How long a claimed room's answer may still take after the wait.
const CLAIMED_GRACE: Duration = Duration::from_secs(1);

/// How many times a room is offered at most: a second time if the node
/// that claimed it never answered.
pub const OFFERS: usize = 2;

struct Remembered {
    old_key: String,
    to: RoomRef,
    at: Instant,
}

/// The node's moves: the mailbox (if any) and what it remembers.
pub struct Moves {
    mailbox: Option<RoomMoves>,
    /// Old code to where it went.
    memory: Mutex<HashMap<String, Remembered>>,
    /// How long a move is remembered (and its row kept).
    pub remember: Duration,
    /// How long a posted room waits for a node to adopt it.
    wait: Duration,
}

impl Moves {
    pub fn new(mailbox: Option<RoomMoves>, remember: Duration, wait: Duration) -> Moves {
        Moves { mailbox, memory: Mutex::new(HashMap::new()), remember, wait }
    }

    pub fn mailbox(&self) -> Option<&RoomMoves> {
        self.mailbox.as_ref()
    }

    fn memory(&self) -> MutexGuard<'_, HashMap<String, Remembered>> {
        self.memory.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Room `old` is now `to`: remembered for `remember`.
    pub fn remember(&self, old: &RoomRef, to: &RoomRef) {
        if self.remember.is_zero() {
            return;
        }
        let now = Instant::now();
        let mut memory = self.memory();
        if memory.len() >= MAX_REMEMBERED {
            let keep = self.remember;
            memory.retain(|_, r| now.duration_since(r.at) < keep);
            if memory.len() >= MAX_REMEMBERED {
                // Still full of live moves: the oldest goes (the database keeps it).
                if let Some(oldest) = memory.iter().min_by_key(|(_, r)| r.at).map(|(c, _)| c.clone()) {
                    memory.remove(&oldest);
                }
            }
        }
        memory.insert(old.code.clone(), Remembered { old_key: old.key.clone(), to: to.clone(), at: now });
    }

    /// Where room `code` went, from memory only. `key` must be the old
    /// room's: the answer holds the new room's key, so it goes only to
    /// someone who was given the old one (a wrong key learns nothing).
    pub fn remembered(&self, code: &str, key: &str) -> Option<RoomRef> {
        let memory = self.memory();
        let r = memory.get(code)?;
        let fresh = r.at.elapsed() < self.remember;
        (fresh && key == r.old_key).then(|| r.to.clone())
    }

    /// Where room `code` went: memory, then the database's rows (a node
    /// that restarted since the move knows it only from there).
    pub async fn moved_to(&self, code: &str, key: &str) -> Option<RoomRef> {
        if let Some(to) = self.remembered(code, key) {
            return Some(to);
        }
        let mailbox = self.mailbox.as_ref().filter(|_| !self.remember.is_zero())?;
        match mailbox.lookup(code).await {
            Ok(Some(m)) if key == m.old_key => Some(RoomRef { code: m.code, key: m.key }),
            Ok(_) => None,
            Err(e) => {
                tracing::warn!(error = %e, "room moves: lookup failed");
                None
            }
        }
    }

    /// Posts room `old` (its export, `payload`) and waits for a node to
    /// adopt it: the new room, or `None` (no mailbox, the database away, or
    /// nobody adopted it within `wait`; then the post is withdrawn and the
    /// room stays, to end when the node exits). A node that claimed it but
    /// never answered (killed between the two) does not keep it: the room
    /// is offered again, up to [`OFFERS`] times in all, to any living node.
    pub async fn send_away(&self, old: &RoomRef, payload: &str) -> Option<RoomRef> {
        let mailbox = self.mailbox.as_ref()?;
        for offer in 1..=OFFERS {
            match self.offer(mailbox, old, payload).await {
                Offer::Adopted(to) => return Some(to),
                Offer::Stays => return None,
                Offer::Unanswered if offer < OFFERS => {
                    tracing::warn!(offer, "the node that claimed the room never answered: offered again");
                }
                Offer::Unanswered => {}
            }
        }
        tracing::warn!("the room was claimed but never adopted: it stays");
        None
    }

    /// One offer of room `old`: posted, then waited for (at most `wait`).
    async fn offer(&self, mailbox: &RoomMoves, old: &RoomRef, payload: &str) -> Offer {
        let id = match mailbox.post(&old.code, &old.key, payload).await {
            Ok(id) => id,
            Err(e) => {
                tracing::error!(error = %e, "room move not posted: the room stays");
                return Offer::Stays;
            }
        };
        let deadline = Instant::now() + self.wait;
        loop {
            match mailbox.answer_of(id).await {
                Ok(Some((code, key))) => return Offer::Adopted(RoomRef { code, key }),
                Ok(None) => {}
                Err(e) => tracing::warn!(error = %e, "room moves: no answer yet"),
            }
            if Instant::now() >= deadline {
                break;
            }
            tokio::time::sleep(ANSWER_POLL).await;
        }
        match mailbox.withdraw(id).await {
            Ok(true) => {
                tracing::warn!("no node adopted the room in time: it stays");
                Offer::Stays
            }
            // Claimed: its answer is moments away, unless its adopter died.
            // (One that only answers later made a room nobody is sent to:
            // its seats leave after the resume window, and the old code's
            // lookup takes the latest answered offer, the one members got.)
            _ => {
                tokio::time::sleep(CLAIMED_GRACE).await;
                match mailbox.answer_of(id).await.ok().flatten() {
                    Some((code, key)) => Offer::Adopted(RoomRef { code, key }),
                    None => Offer::Unanswered,
                }
            }
        }
    }
}

/// How one offer of a room ended.
enum Offer {
    Adopted(RoomRef),
    /// Not posted, or nobody claimed it: the room stays.
    Stays,
    /// Claimed, never answered.
    Unanswered,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(code: &str, key: &str) -> RoomRef {
        RoomRef { code: code.into(), key: key.into() }
    }

    #[tokio::test(start_paused = true)]
    async fn a_move_is_remembered_for_its_time_and_only_with_the_right_key() {
        let moves = Moves::new(None, Duration::from_secs(60), Duration::ZERO);
        moves.remember(&r("AAAAA", "k1"), &r("BBBBB", "k2"));
        assert_eq!(moves.remembered("AAAAA", "k1"), Some(r("BBBBB", "k2")));
        assert_eq!(moves.remembered("AAAAA", "guess"), None, "a wrong key learns nothing");
        assert_eq!(moves.remembered("AAAAA", ""), None, "nor does no key");
        assert_eq!(moves.remembered("CCCCC", "k1"), None);
        tokio::time::advance(Duration::from_secs(61)).await;
        assert_eq!(moves.remembered("AAAAA", "k1"), None, "forgotten after --move-memory-secs");
        assert_eq!(moves.moved_to("AAAAA", "k1").await, None);
    }

    #[tokio::test(start_paused = true)]
    async fn the_memory_is_bounded() {
        let moves = Moves::new(None, Duration::from_secs(3600), Duration::ZERO);
        for i in 0..MAX_REMEMBERED + 10 {
            moves.remember(&r(&format!("A{i}"), "k"), &r("BBBBB", "k2"));
            tokio::time::advance(Duration::from_micros(1)).await;
        }
        assert_eq!(moves.memory().len(), MAX_REMEMBERED);
        assert_eq!(moves.remembered("A0", "k"), None, "the oldest went first");
        assert!(moves.remembered(&format!("A{}", MAX_REMEMBERED + 9), "k").is_some());
    }
}
