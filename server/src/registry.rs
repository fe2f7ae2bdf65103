//! The room registry: room code to [`RoomHandle`], and the rooms made here
//! to replace rooms of a node that is gone (`create_room` with `replaces`:
//! lost code and key to the new room's code). A std mutex guards each map;
//! it is held only for a lookup or an insert (never across an await), and a
//! room removes its own entries when it ends, so there is at most one
//! replacement per open room. Rooms moved here from a draining node
//! ([`Registry::adopt`]) get a fresh code like any other.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use mazerace_protocol::messages::RoomRef;

use crate::edge::address::Slot;
use crate::ids::Ids;
use crate::room::{self, Adoption, Directory, NewMember, RoomEnv, RoomHandle, RoomSettings};

/// (lost code, its key) to the code and id of the room that replaces it here.
type Replacements = HashMap<(String, String), (Arc<str>, u64)>;

#[derive(Default)]
pub struct Registry {
    rooms: Mutex<HashMap<Arc<str>, RoomHandle>>,
    replacements: Mutex<Replacements>,
    next_id: AtomicU64,
}

impl Registry {
    fn map(&self) -> MutexGuard<'_, HashMap<Arc<str>, RoomHandle>> {
        self.rooms.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Starts a room under a fresh code (beginning with `node`, if any)
    /// with `host` in it.
    #[allow(clippy::too_many_arguments)]
    pub fn create(
        self: &Arc<Self>,
        env: &Arc<RoomEnv>,
        ids: &Ids,
        node: Option<char>,
        settings: RoomSettings,
        host: NewMember,
        slot: Slot,
    ) -> RoomHandle {
        self.start(ids, node, |directory, code, id| {
            room::spawn(env, directory, code, id, settings, host, slot)
        })
    }

    /// Starts a room moved here from a draining node, under a fresh code.
    pub fn adopt(
        self: &Arc<Self>,
        env: &Arc<RoomEnv>,
        ids: &Ids,
        node: Option<char>,
        adoption: Adoption,
    ) -> RoomHandle {
        self.start(ids, node, |directory, code, id| room::spawn_adopted(env, directory, code, id, adoption))
    }

    /// Draws a free code and starts a room under it with `spawn`.
    fn start(
        self: &Arc<Self>,
        ids: &Ids,
        node: Option<char>,
        spawn: impl FnOnce(Arc<dyn Directory>, &str, u64) -> RoomHandle,
    ) -> RoomHandle {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let mut map = self.map();
        // 31^5 = 28.6 million codes (31^4 = 923,521 on a node with an id):
        // a clash is rare, and the loop settles it.
        let code = loop {
            let c = ids.room_code(node);
            if !map.contains_key(c.as_str()) {
                break c;
            }
        };
        let directory: Arc<dyn Directory> = Arc::clone(self) as Arc<dyn Directory>;
        let handle = spawn(directory, &code, id);
        map.insert(Arc::clone(&handle.code), handle.clone());
        handle
    }

    /// Every open room (the drain tells each one).
    pub fn all(&self) -> Vec<RoomHandle> {
        self.map().values().cloned().collect()
    }

    pub fn get(&self, code: &str) -> Option<RoomHandle> {
        self.map().get(code).cloned()
    }

    pub fn len(&self) -> usize {
        self.map().len()
    }

    fn replacements(&self) -> MutexGuard<'_, Replacements> {
        self.replacements.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The open room made to replace `lost`, if any.
    pub fn replacement(&self, lost: &RoomRef) -> Option<RoomHandle> {
        let (code, id) = self.replacements().get(&(lost.code.clone(), lost.key.clone())).cloned()?;
        self.get(&code).filter(|r| r.id == id)
    }

    /// `room` replaces `lost` (the first one made for it stays).
    pub fn replaced(&self, lost: RoomRef, room: &RoomHandle) {
        self.replacements().entry((lost.code, lost.key)).or_insert((Arc::clone(&room.code), room.id));
    }
}

impl Directory for Registry {
    /// Removes room `id`'s entry (not a later room's that reused the code).
    fn remove(&self, code: &str, id: u64) {
        let mut map = self.map();
        if map.get(code).is_some_and(|h| h.id == id) {
            map.remove(code);
        }
        drop(map);
        self.replacements().retain(|_, (_, made)| *made != id);
    }
}
