//! Every live connection's outbox, by connection id, so that shutdown can
//! tell each one: `server_shutdown`, then a close with 1001. A map entry a
//! connection (about 20 bytes) instead of a child cancellation token per
//! connection (126 bytes) and a wait on it in every connection's task (72
//! bytes, and its lock taken on every wake of the task).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use mazerace_protocol::close;
use mazerace_protocol::messages::ServerMsg;

use crate::outbox::Outbox;

#[derive(Default)]
pub struct Live {
    /// A std mutex: an insert or a remove per connection, never held
    /// across an await (shutdown's walk only queues frames).
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// Set by [`Live::shut_down`]: a connection that joins later is told at once.
    closing: bool,
    outboxes: HashMap<u64, Outbox>,
}

/// A connection's entry, removed when dropped.
pub struct Member {
    live: Arc<Live>,
    id: u64,
}

impl Live {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Adds the connection of `outbox`; during shutdown it is told at once.
    pub fn join(self: &Arc<Self>, outbox: &Outbox) -> Member {
        let id = outbox.conn();
        let mut st = self.lock();
        if st.closing {
            tell(outbox);
        } else {
            st.outboxes.insert(id, outbox.clone());
        }
        Member { live: Arc::clone(self), id }
    }

    /// Tells every connection, now and later, that the server is going.
    pub fn shut_down(&self) {
        let mut st = self.lock();
        st.closing = true;
        for outbox in std::mem::take(&mut st.outboxes).values() {
            tell(outbox);
        }
    }

    /// Connections in the map now.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.lock().outboxes.len()
    }
}

impl Drop for Member {
    fn drop(&mut self) {
        self.live.lock().outboxes.remove(&self.id);
    }
}

fn tell(outbox: &Outbox) {
    outbox.send_msg(&ServerMsg::ServerShutdown);
    outbox.close(close::GOING_AWAY, "server shutting down");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shutdown_tells_members_and_latecomers() {
        let live = Arc::new(Live::default());
        let (a, b) = (Outbox::new(8, usize::MAX, 1, None), Outbox::new(8, usize::MAX, 2, None));
        let _a = live.join(&a);
        let gone = live.join(&b);
        drop(gone);
        assert_eq!(live.len(), 1, "a member leaves with its guard");
        live.shut_down();
        assert_eq!(a.close_code(), Some(close::GOING_AWAY));
        assert_eq!(b.close_code(), None, "gone before the shutdown");
        let late = Outbox::new(8, usize::MAX, 3, None);
        let _late = live.join(&late);
        assert_eq!(late.close_code(), Some(close::GOING_AWAY), "told at once");
        assert_eq!(live.len(), 0);
    }
}
