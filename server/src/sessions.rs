//! Player sessions: who a token belongs to, which room they are in, and
//! which connection (if any) carries them right now. A session outlives a
//! dropped socket for the resume window; `hello {token}` within it picks the
//! same player up again, in the same room.
//!
//! Consistency: each session's mutable part sits behind its own std mutex,
//! never held across an await. A connection carries a session only while
//! `conn` names its outbox; the `epoch` counts detaches so that an expiry
//! timer from an earlier disconnect cannot end a session that resumed and
//! dropped again since.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use mazerace_protocol::messages::PlayerId;

use crate::edge::address::Slot;
use crate::ids::Ids;
use crate::outbox::Outbox;
use crate::room::RoomHandle;

pub struct Session {
    pub id: PlayerId,
    pub token: Arc<str>,
    state: Mutex<SessionState>,
    /// The session's place among its address's (`max_sessions_per_address`);
    /// `None` for a seat in a room moved here, claimed by its token.
    _slot: Option<Slot>,
}

struct SessionState {
    name: Arc<str>,
    room: Option<RoomHandle>,
    conn: Option<Outbox>,
    epoch: u64,
}

impl Session {
    fn lock(&self) -> MutexGuard<'_, SessionState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn name(&self) -> Arc<str> {
        Arc::clone(&self.lock().name)
    }

    pub fn set_name(&self, name: Arc<str>) {
        self.lock().name = name;
    }

    pub fn room(&self) -> Option<RoomHandle> {
        self.lock().room.clone()
    }

    pub fn set_room(&self, room: Option<RoomHandle>) {
        self.lock().room = room;
    }

    pub fn take_room(&self) -> Option<RoomHandle> {
        self.lock().room.take()
    }

    /// The session no longer holds its token (a moved seat took it over):
    /// no connection carries it (so no detach starts another expiry), and
    /// the epoch moves on, so a pending expiry (from a detach before) finds
    /// it resumed and leaves the token's new session alone. Returns the
    /// connection that carried it.
    fn retire(&self) -> Option<Outbox> {
        let mut st = self.lock();
        st.epoch += 1;
        st.conn.take()
    }
}

/// What a resume found.
pub struct Resumed {
    pub session: Arc<Session>,
    /// The connection that carried the session until now, to be closed.
    pub previous: Option<Outbox>,
}

pub struct Sessions {
    /// Token to session. A std mutex: lookups only, never across an await.
    map: Mutex<HashMap<Arc<str>, Arc<Session>>>,
    next_id: AtomicU32,
}

impl Default for Sessions {
    fn default() -> Self {
        Sessions { map: Mutex::new(HashMap::new()), next_id: AtomicU32::new(1) }
    }
}

impl Sessions {
    fn map(&self) -> MutexGuard<'_, HashMap<Arc<str>, Arc<Session>>> {
        self.map.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A new player carried by `outbox`. `keep` is the token the client
    /// offered that no live session holds (its session expired, or the
    /// server restarted): a well-formed one is kept, because the token is the
    /// player's daily identity (one ranked attempt a day, streaks), which must
    /// outlive the resume window. Anything else gets a fresh random token.
    pub fn create(
        &self,
        ids: &Ids,
        name: Arc<str>,
        outbox: Outbox,
        keep: Option<&str>,
        slot: Slot,
    ) -> Arc<Session> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let mut map = self.map();
        let kept = keep.filter(|t| crate::ids::is_token_shaped(t) && !map.contains_key(*t));
        // 128 random bits do not collide in practice; the loop makes sure.
        let token: Arc<str> = match kept {
            Some(t) => t.into(),
            None => loop {
                let t: Arc<str> = ids.token().into();
                if !map.contains_key(&t) {
                    break t;
                }
            },
        };
        let session = Arc::new(Session {
            id,
            token: Arc::clone(&token),
            state: Mutex::new(SessionState { name, room: None, conn: Some(outbox), epoch: 0 }),
            _slot: Some(slot),
        });
        map.insert(token, Arc::clone(&session));
        session
    }

    /// A player id no session has (a moved room's placeholders get theirs
    /// before anyone claims them).
    pub fn reserve_id(&self) -> PlayerId {
        self.next_id.fetch_add(1, Ordering::Relaxed)
    }

    /// The session of a moved room's seat `id`, claimed by `token`: made
    /// detached, in `room`, for the resume that follows at once to pick up.
    /// Returns the session that held the token until now (the player's
    /// other tab here, or one waiting for a resume), retired (no connection
    /// carries it, its expiry is void: the token is the new session's), and
    /// the connection that carried it, to be closed.
    pub fn adopt(
        &self,
        id: PlayerId,
        token: &str,
        name: Arc<str>,
        room: RoomHandle,
    ) -> Option<(Arc<Session>, Option<Outbox>)> {
        let token: Arc<str> = token.into();
        let session = Arc::new(Session {
            id,
            token: Arc::clone(&token),
            state: Mutex::new(SessionState { name, room: Some(room), conn: None, epoch: 0 }),
            _slot: None,
        });
        let old = self.map().insert(token, session)?;
        let conn = old.retire();
        Some((old, conn))
    }

    /// Moves the session with `token` onto `outbox`, if it still exists.
    pub fn resume(&self, token: &str, outbox: Outbox) -> Option<Resumed> {
        let session = self.map().get(token).cloned()?;
        let mut st = session.lock();
        let previous = st.conn.replace(outbox);
        drop(st);
        Some(Resumed { session, previous })
    }

    /// The connection `conn` ended. If it still carried the session, the
    /// session is now detached: returns the epoch for the expiry timer and
    /// the room to tell.
    pub fn detach(&self, session: &Session, conn: u64) -> Option<(u64, Option<RoomHandle>)> {
        let mut st = session.lock();
        if st.conn.as_ref().map(Outbox::conn) != Some(conn) {
            return None;
        }
        st.conn = None;
        st.epoch += 1;
        Some((st.epoch, st.room.clone()))
    }

    /// The resume window after detach number `epoch` ran out: if nothing
    /// resumed the session since, it ends. Returns the room it was in.
    pub fn expire(&self, session: &Session, epoch: u64) -> Option<Option<RoomHandle>> {
        let mut map = self.map();
        let mut st = session.lock();
        if st.conn.is_some() || st.epoch != epoch {
            return None;
        }
        map.remove(&session.token);
        Some(st.room.take())
    }

    pub fn len(&self) -> usize {
        self.map().len()
    }
}
