//! Who is serving: the node id and boot id every run records, the lease a
//! node keeps alive in the `nodes` table by heartbeats, and the clock those
//! leases are measured on (injectable, so tests can expire a lease).
//!
//! The rules (both backends):
//! - a run records the node id and the boot id (one random id per process
//!   start) of the process serving it;
//! - at start a node closes the still-`playing` runs of its own node id only
//!   (they belong to its earlier, dead, boots): never another node's;
//! - every process heartbeats: its `nodes` row's lease is pushed forward.
//!   Whoever notices a boot whose lease has run out (on its own heartbeat)
//!   closes that boot's open runs and removes its row: a node that died and
//!   never came back does not leave runs open for ever.
//!
//! A node id must be unique among live processes: two processes started with
//! the same id would close each other's runs at start. Lease times are each
//! noticing node's clock: clocks may differ by less than a lease minus a
//! heartbeat interval.

use std::sync::Arc;
use std::time::{Duration, UNIX_EPOCH};

use crate::clock::{Clock, SystemClock};
use crate::error::StoreError;

/// The node id of a node configured without one (a single node).
pub const ANONYMOUS_NODE: &str = "-";

/// How long a heartbeat keeps a node's lease, unless configured.
pub const DEFAULT_LEASE: Duration = Duration::from_secs(60);

/// The identity a backend writes into runs and the `nodes` table.
#[derive(Clone)]
pub struct NodeOptions {
    /// One character (the room-code prefix), or `None` for a single node.
    pub node_id: Option<char>,
    /// How long after its last heartbeat a node counts as dead.
    pub lease: Duration,
    /// Where "now" comes from for leases.
    pub clock: Arc<dyn Clock>,
}

impl Default for NodeOptions {
    fn default() -> Self {
        NodeOptions { node_id: None, lease: DEFAULT_LEASE, clock: Arc::new(SystemClock) }
    }
}

impl std::fmt::Debug for NodeOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NodeOptions").field("node_id", &self.node_id).field("lease", &self.lease).finish()
    }
}

/// A node options value with its boot id drawn: one per opened store (all
/// its connections are one node and boot).
#[derive(Clone, Debug)]
pub(crate) struct Identity {
    pub node: String,
    pub boot: String,
    pub options: NodeOptions,
}

impl Identity {
    pub fn new(options: NodeOptions) -> Result<Identity, StoreError> {
        let node = match options.node_id {
            None => ANONYMOUS_NODE.to_owned(),
            Some(c) if c.is_ascii_alphanumeric() => c.to_string(),
            Some(c) => return Err(StoreError::Invalid(format!("node id {c:?} is not a letter or digit"))),
        };
        let mut bytes = [0u8; 8];
        getrandom::fill(&mut bytes).map_err(|e| std::io::Error::other(format!("no OS entropy: {e}")))?;
        Ok(Identity { node, boot: hex::encode(bytes), options })
    }

    /// Now, in Unix milliseconds, by the configured clock.
    pub fn now_ms(&self) -> i64 {
        let now = self.options.clock.now();
        now.duration_since(UNIX_EPOCH).map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX)).unwrap_or(0)
    }

    /// When a lease taken now runs out, in Unix milliseconds.
    pub fn lease_until_ms(&self) -> i64 {
        self.now_ms().saturating_add(i64::try_from(self.options.lease.as_millis()).unwrap_or(i64::MAX))
    }
}
