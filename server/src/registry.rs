//! The room registry: room code to [`RoomHandle`], nothing more. A std
//! mutex guards the map; it is held only for a lookup or an insert (never
//! across an await), and a room removes its own entry when it ends.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use crate::edge::address::Slot;
use crate::ids::Ids;
use crate::room::{self, Directory, NewMember, RoomEnv, RoomHandle, RoomSettings};

#[derive(Default)]
pub struct Registry {
    rooms: Mutex<HashMap<Arc<str>, RoomHandle>>,
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
        let handle = room::spawn(env, directory, &code, id, settings, host, slot);
        map.insert(Arc::clone(&handle.code), handle.clone());
        handle
    }

    pub fn get(&self, code: &str) -> Option<RoomHandle> {
        self.map().get(code).cloned()
    }

    pub fn len(&self) -> usize {
        self.map().len()
    }
}

impl Directory for Registry {
    /// Removes room `id`'s entry (not a later room's that reused the code).
    fn remove(&self, code: &str, id: u64) {
        let mut map = self.map();
        if map.get(code).is_some_and(|h| h.id == id) {
            map.remove(code);
        }
    }
}
