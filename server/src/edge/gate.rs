//! Socket accounting from accept to close: every accepted socket, upgraded
//! or not, holds one place until its file is closed. The [`Gate`] enforces
//! the per-address cap (IPv6 by /64), the server-wide socket limit, and
//! keeps a reserve so `/healthz` and honest clients are served while the
//! limit is reached:
//!
//! - Up to `evict_at` sockets are simply admitted (`--max-connections`, or
//!   fewer when the open-file limit is lower).
//! - Past it, each new socket is admitted into the reserve
//!   (`--reserve-connections`) and the *oldest socket that has not become a
//!   WebSocket* is closed to make room. Idle and slowloris sockets are the
//!   oldest of those, since an honest request's head arrives in one round
//!   trip; upgraded players are never evicted.
//! - With the reserve full too, the new socket is refused (503).
//!
//! Before any of this, a socket from an address whose upgrades the violation
//! penalty refuses now (`penalty.rs`) is refused (429) when the gate has the
//! penalties: it would only be answered 429 at `/ws` after a parse and a
//! handshake check, and a page load from there is refused with it (the
//! path is not known before the parse). A trusted proxy's sockets are not
//! looked at here: the client it forwards is known only from the request.
//!
//! A [`SockCtl`] is the handle on a socket that outlives the accept loop:
//! the HTTP handler marks it upgraded and hands it to the connection, whose
//! outbox asks for the socket's queued data to be dropped when it closes a
//! slow client or a violator (SO_LINGER 0). It is the
//! gate and the socket's number, no allocation of its own: every socket's
//! state lives in the gate's maps. (A small object allocated per socket at
//! accept and kept for the socket's life measured +1.5 KiB of RSS per idle
//! player: it pins the pages of the HTTP phase's short-lived buffers.)

use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

use tokio::task::AbortHandle;

use super::address::AddressKey;
use super::penalty::Penalties;
use crate::metrics::{self, Refusal};

/// The gate's numbers (see the module header).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GateLimits {
    /// Past this many open sockets, a new one evicts the oldest not upgraded.
    pub evict_at: usize,
    /// Never more than this many open sockets.
    pub max_sockets: usize,
    /// Sockets one address may hold (0: no cap).
    pub per_addr: usize,
}

impl GateLimits {
    /// `max_connections` plus the reserve, both shrunk to fit under the
    /// open-file limit `files` (when known) less what the server needs for
    /// itself, so the limit is reached before accept() fails with EMFILE.
    pub fn new(max_connections: usize, reserve: usize, per_addr: usize, files: Option<u64>) -> GateLimits {
        let mut max_sockets = max_connections.saturating_add(reserve);
        if let Some(files) = files {
            let usable = files.saturating_sub(super::fdlimit::RESERVED_FILES);
            max_sockets = max_sockets.min(usize::try_from(usable).unwrap_or(usize::MAX));
        }
        let max_sockets = max_sockets.max(1);
        let evict_at = max_sockets.saturating_sub(reserve).max(1).min(max_sockets);
        GateLimits { evict_at, max_sockets, per_addr }
    }
}

/// A socket's flags in [`State::open`].
const UPGRADED: u8 = 1;
const RESET: u8 = 2;

#[derive(Default)]
struct State {
    /// Every open socket by number, with its flags.
    open: HashMap<u64, u8>,
    per_addr: HashMap<AddressKey, usize>,
    /// Sockets not upgraded yet, oldest first, with their HTTP task (an
    /// evicted socket's task is aborted, which drops the socket).
    pending: BTreeMap<u64, AbortHandle>,
    next: u64,
}

pub struct Gate {
    limits: GateLimits,
    /// A std mutex: each use is a few map operations, never an await.
    state: Mutex<State>,
    /// The violation penalty, to refuse a penalised address at accept.
    penalties: Option<Arc<Penalties>>,
}

/// What [`Gate::admit`] says about a new socket.
pub enum Admit {
    /// Serve it, and [`Gate::watch`] its task.
    Yes(Slot),
    No(Refusal),
    /// Its address's upgrades are refused for this much longer
    /// ([`Refusal::Penalty`]).
    Penalised(std::time::Duration),
}

impl Gate {
    pub fn new(limits: GateLimits) -> Arc<Gate> {
        Arc::new(Gate { limits, state: Mutex::new(State::default()), penalties: None })
    }

    /// A gate that also refuses the sockets of addresses the violation
    /// penalty refuses now (the players' listener; see the module header).
    pub fn with_penalties(limits: GateLimits, penalties: Arc<Penalties>) -> Arc<Gate> {
        Arc::new(Gate { limits, state: Mutex::new(State::default()), penalties: Some(penalties) })
    }

    pub fn limits(&self) -> GateLimits {
        self.limits
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Sockets open now (accepted and not yet closed).
    pub fn open(&self) -> usize {
        self.lock().open.len()
    }

    /// Decides on a socket just accepted from `ip` (see the module header).
    /// A trusted proxy (`--trusted-proxy`) carries many clients on its one
    /// address, so `capped: false` lets it past the per-address cap.
    pub fn admit(self: &Arc<Self>, ip: IpAddr, capped: bool) -> Admit {
        if capped {
            // Its own lock, taken and let go before the gate's.
            if let Some(after) = self.penalties.as_ref().and_then(|p| p.refusing(ip)) {
                return Admit::Penalised(after);
            }
        }
        let key = AddressKey::of(ip);
        let mut st = self.lock();
        let mine = st.per_addr.get(&key).copied().unwrap_or(0);
        if capped && self.limits.per_addr > 0 && mine >= self.limits.per_addr {
            return Admit::No(Refusal::PerAddress);
        }
        if st.open.len() >= self.limits.max_sockets {
            return Admit::No(Refusal::Full);
        }
        if st.open.len() >= self.limits.evict_at {
            if let Some((_, task)) = st.pending.pop_first() {
                task.abort();
                metrics::socket_evicted();
            }
        }
        *st.per_addr.entry(key).or_insert(0) += 1;
        let id = st.next;
        st.next += 1;
        st.open.insert(id, 0);
        drop(st);
        metrics::socket_accepted();
        Admit::Yes(Slot { ctl: SockCtl { gate: Arc::clone(self), id }, key })
    }

    /// `task` serves socket `id` until it is upgraded: the one to abort if
    /// the socket is evicted. (A socket already closed is not watched.)
    pub fn watch(&self, id: u64, task: AbortHandle) {
        let mut st = self.lock();
        if st.open.get(&id).is_some_and(|f| f & UPGRADED == 0) {
            st.pending.insert(id, task);
        }
    }

    /// Frees `id`'s place; whether it is to be reset.
    fn release(&self, id: u64, key: AddressKey) -> bool {
        let mut st = self.lock();
        let flags = st.open.remove(&id).unwrap_or(0);
        if let Some(n) = st.per_addr.get_mut(&key) {
            *n -= 1;
            if *n == 0 {
                st.per_addr.remove(&key);
            }
        }
        st.pending.remove(&id);
        drop(st);
        metrics::socket_closed(flags & UPGRADED != 0);
        flags & RESET != 0
    }
}

/// An admitted socket's place, owned by the socket (see `accept::Sock`):
/// dropping it with [`Slot::close`] frees the place.
pub struct Slot {
    ctl: SockCtl,
    key: AddressKey,
}

impl Slot {
    pub fn ctl(&self) -> &SockCtl {
        &self.ctl
    }

    pub fn id(&self) -> u64 {
        self.ctl.id
    }

    /// The socket's file is being closed: its place is free. True when it
    /// is to be reset (see [`SockCtl::reset_on_close`]).
    pub(crate) fn close(&self) -> bool {
        self.ctl.gate.release(self.ctl.id, self.key)
    }
}

/// A handle on an admitted socket (see the module header).
#[derive(Clone)]
pub struct SockCtl {
    gate: Arc<Gate>,
    id: u64,
}

impl SockCtl {
    /// The socket is a WebSocket now: it is no longer evicted.
    pub fn upgraded(&self) {
        let mut st = self.gate.lock();
        st.pending.remove(&self.id);
        let Some(flags) = st.open.get_mut(&self.id) else { return };
        let first = *flags & UPGRADED == 0;
        *flags |= UPGRADED;
        drop(st);
        if first {
            metrics::socket_upgraded();
        }
    }

    /// When the socket is closed, drop what the kernel still holds for it
    /// (SO_LINGER 0: a reset) instead of trying to deliver it from
    /// FIN-WAIT-1 to a peer that does not read. Nothing if it is closed already.
    pub fn reset_on_close(&self) {
        if let Some(flags) = self.gate.lock().open.get_mut(&self.id) {
            *flags |= RESET;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    fn yes(a: Admit) -> Slot {
        match a {
            Admit::Yes(slot) => slot,
            Admit::No(r) => panic!("refused: {r:?}"),
            Admit::Penalised(after) => panic!("penalised for {after:?}"),
        }
    }

    /// An admitted socket with a task that waits forever, watched.
    fn served(g: &Arc<Gate>, from: &str) -> (Slot, tokio::task::JoinHandle<()>) {
        let slot = yes(g.admit(ip(from), true));
        let task = tokio::spawn(std::future::pending::<()>());
        g.watch(slot.id(), task.abort_handle());
        (slot, task)
    }

    #[test]
    fn ipv6_counts_by_64_and_mapped_ipv4_as_ipv4() {
        assert_eq!(AddressKey::of(ip("2001:db8:1:2::1")), AddressKey::of(ip("2001:db8:1:2:ffff::9")));
        assert_ne!(AddressKey::of(ip("2001:db8:1:2::1")), AddressKey::of(ip("2001:db8:1:3::1")));
        assert_eq!(AddressKey::of(ip("::ffff:10.0.0.7")), AddressKey::of(ip("10.0.0.7")));
        assert_ne!(AddressKey::of(ip("10.0.0.7")), AddressKey::of(ip("10.0.0.8")));
    }

    #[test]
    fn limits_fit_under_the_file_limit() {
        let l = GateLimits::new(50_000, 64, 0, Some(1024));
        assert_eq!(l.max_sockets, 1024 - crate::edge::fdlimit::RESERVED_FILES as usize);
        assert_eq!(l.evict_at, l.max_sockets - 64);
        assert_eq!(
            GateLimits::new(10, 4, 0, None),
            GateLimits { evict_at: 10, max_sockets: 14, per_addr: 0 }
        );
    }

    #[test]
    fn per_address_cap_and_release() {
        let g = Gate::new(GateLimits::new(100, 0, 2, None));
        let a = yes(g.admit(ip("2001:db8::1"), true));
        let _b = yes(g.admit(ip("2001:db8::2"), true));
        assert!(matches!(g.admit(ip("2001:db8::3"), true), Admit::No(Refusal::PerAddress)), "the same /64");
        let _c = yes(g.admit(ip("2001:db9::1"), true));
        assert!(!a.close());
        let _d = yes(g.admit(ip("2001:db8::3"), true));
        assert_eq!(g.open(), 3);
    }

    #[tokio::test(start_paused = true)]
    async fn an_address_the_penalty_refuses_is_refused_at_accept_unless_a_proxy() {
        // One violation with a 2-minute spacing: its next turn is past the
        // longest wait, so its upgrades are refused.
        let penalties = Arc::new(Penalties::new(std::time::Duration::from_secs(120)));
        let g = Gate::with_penalties(GateLimits::new(100, 0, 0, None), Arc::clone(&penalties));
        let _before = yes(g.admit(ip("10.0.0.1"), true));
        penalties.violation(ip("10.0.0.1"));
        assert!(matches!(g.admit(ip("10.0.0.1"), true), Admit::Penalised(_)));
        assert_eq!(g.open(), 1, "a refused socket takes no place");
        let _other = yes(g.admit(ip("10.0.0.2"), true));
        let _proxy = yes(g.admit(ip("10.0.0.1"), false));
        let plain = Gate::new(GateLimits::new(100, 0, 0, None));
        let _metrics = yes(plain.admit(ip("10.0.0.1"), true));
    }

    #[tokio::test]
    async fn the_reserve_evicts_the_oldest_not_upgraded_then_refuses() {
        let g = Gate::new(GateLimits::new(2, 2, 0, None));
        let (up, up_task) = served(&g, "10.0.0.1");
        up.ctl().upgraded();
        let (_idle, idle_task) = served(&g, "10.0.0.2");
        // Past the limit: the oldest socket not upgraded makes room.
        let (_c, c_task) = served(&g, "10.0.0.3");
        assert!(idle_task.await.unwrap_err().is_cancelled(), "the idle one is evicted");
        assert!(!up_task.is_finished(), "the upgraded one stays");
        let _d = served(&g, "10.0.0.4");
        assert!(c_task.await.unwrap_err().is_cancelled());
        // Evicted sockets hold their place until their file closes.
        assert!(matches!(g.admit(ip("10.0.0.5"), true), Admit::No(Refusal::Full)));
        up.ctl().reset_on_close();
        assert!(up.close(), "a socket asked to be reset is reset");
    }
}
