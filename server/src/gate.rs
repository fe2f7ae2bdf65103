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
//! A [`SockCtl`] is the one handle on a socket that outlives the accept
//! loop: the HTTP handler marks it upgraded, and the outbox asks for its
//! queued data to be dropped when it closes a slow client (SO_LINGER 0).

use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use tokio_util::sync::CancellationToken;

use crate::metrics::{self, Refusal};

/// The address a per-address cap counts: an IPv4 address, or an IPv6 /64
/// (one subscriber's network: a phone or a home gets a whole /64).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AddrKey {
    V4(u32),
    V6(u64),
}

impl AddrKey {
    pub fn of(ip: IpAddr) -> AddrKey {
        match ip {
            IpAddr::V4(v4) => AddrKey::V4(v4.into()),
            // A dual-stack listener sees IPv4 clients as ::ffff:a.b.c.d.
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => AddrKey::V4(v4.into()),
                None => AddrKey::V6((u128::from(v6) >> 64) as u64),
            },
        }
    }
}

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
            let usable = files.saturating_sub(crate::fdlimit::RESERVED_FILES);
            max_sockets = max_sockets.min(usize::try_from(usable).unwrap_or(usize::MAX));
        }
        let max_sockets = max_sockets.max(1);
        let evict_at = max_sockets.saturating_sub(reserve).max(1).min(max_sockets);
        GateLimits { evict_at, max_sockets, per_addr }
    }
}

#[derive(Default)]
struct State {
    open: usize,
    per_addr: HashMap<AddrKey, usize>,
    /// Sockets not upgraded yet, oldest first, with the token that closes each.
    pending: BTreeMap<u64, CancellationToken>,
    next: u64,
}

pub struct Gate {
    limits: GateLimits,
    /// A std mutex: each use is a few map operations, never an await.
    state: Mutex<State>,
}

/// What [`Gate::admit`] says about a new socket.
pub enum Admit {
    /// Serve it; the token is cancelled if the socket is evicted.
    Yes(Arc<SockCtl>, CancellationToken),
    No(Refusal),
}

impl Gate {
    pub fn new(limits: GateLimits) -> Arc<Gate> {
        Arc::new(Gate { limits, state: Mutex::new(State::default()) })
    }

    pub fn limits(&self) -> GateLimits {
        self.limits
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Sockets open now (accepted and not yet closed).
    pub fn open(&self) -> usize {
        self.lock().open
    }

    /// Decides on a socket just accepted from `ip` (see the module header).
    pub fn admit(self: &Arc<Self>, ip: IpAddr) -> Admit {
        let key = AddrKey::of(ip);
        let mut st = self.lock();
        let mine = st.per_addr.get(&key).copied().unwrap_or(0);
        if self.limits.per_addr > 0 && mine >= self.limits.per_addr {
            return Admit::No(Refusal::PerAddress);
        }
        if st.open >= self.limits.max_sockets {
            return Admit::No(Refusal::Full);
        }
        if st.open >= self.limits.evict_at {
            if let Some((_, oldest)) = st.pending.pop_first() {
                oldest.cancel();
                metrics::socket_evicted();
            }
        }
        st.open += 1;
        *st.per_addr.entry(key).or_insert(0) += 1;
        let id = st.next;
        st.next += 1;
        let evict = CancellationToken::new();
        st.pending.insert(id, evict.clone());
        drop(st);
        metrics::socket_accepted();
        let ctl = SockCtl {
            id,
            key,
            gate: Arc::clone(self),
            upgraded: AtomicBool::new(false),
            reset: AtomicBool::new(false),
        };
        Admit::Yes(Arc::new(ctl), evict)
    }

    fn release(&self, ctl: &SockCtl) {
        let mut st = self.lock();
        st.open = st.open.saturating_sub(1);
        if let Some(n) = st.per_addr.get_mut(&ctl.key) {
            *n -= 1;
            if *n == 0 {
                st.per_addr.remove(&ctl.key);
            }
        }
        st.pending.remove(&ctl.id);
    }
}

/// One admitted socket's shared handle (see the module header).
pub struct SockCtl {
    id: u64,
    key: AddrKey,
    gate: Arc<Gate>,
    upgraded: AtomicBool,
    reset: AtomicBool,
}

impl SockCtl {
    /// The socket is a WebSocket now: it is no longer evicted.
    pub fn upgraded(&self) {
        if !self.upgraded.swap(true, Ordering::Relaxed) {
            self.gate.lock().pending.remove(&self.id);
            metrics::socket_upgraded();
        }
    }

    /// When the socket is closed, drop what the kernel still holds for it
    /// (SO_LINGER 0: a reset) instead of trying to deliver it from
    /// FIN-WAIT-1 to a peer that does not read.
    pub fn reset_on_close(&self) {
        self.reset.store(true, Ordering::Relaxed);
    }

    pub(crate) fn wants_reset(&self) -> bool {
        self.reset.load(Ordering::Relaxed)
    }

    /// The socket's file is closed: its place is free.
    pub(crate) fn closed(&self) {
        self.gate.release(self);
        metrics::socket_closed(self.upgraded.load(Ordering::Relaxed));
    }
}

tokio::task_local! {
    /// The socket of the WebSocket connection this task serves (set by the
    /// `/ws` handler around the connection's future, read by `Outbox::new`),
    /// so the outbox can reach its socket without the connection code
    /// passing it along.
    pub static SOCKET: Arc<SockCtl>;
}

/// The socket of the connection this task serves, if any.
pub fn current_socket() -> Option<Arc<SockCtl>> {
    SOCKET.try_with(Arc::clone).ok()
}

/// The soft open-file limit now, if the platform tells.
pub fn file_limit() -> Option<u64> {
    #[cfg(unix)]
    {
        let mut lim = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        // SAFETY: getrlimit writes into the struct we own.
        if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } == 0
            && lim.rlim_cur != libc::RLIM_INFINITY
        {
            return Some(lim.rlim_cur);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    fn yes(a: Admit) -> (Arc<SockCtl>, CancellationToken) {
        match a {
            Admit::Yes(c, t) => (c, t),
            Admit::No(r) => panic!("refused: {r:?}"),
        }
    }

    #[test]
    fn ipv6_counts_by_64_and_mapped_ipv4_as_ipv4() {
        assert_eq!(AddrKey::of(ip("2001:db8:1:2::1")), AddrKey::of(ip("2001:db8:1:2:ffff::9")));
        assert_ne!(AddrKey::of(ip("2001:db8:1:2::1")), AddrKey::of(ip("2001:db8:1:3::1")));
        assert_eq!(AddrKey::of(ip("::ffff:10.0.0.7")), AddrKey::of(ip("10.0.0.7")));
        assert_ne!(AddrKey::of(ip("10.0.0.7")), AddrKey::of(ip("10.0.0.8")));
    }

    #[test]
    fn limits_fit_under_the_file_limit() {
        let l = GateLimits::new(50_000, 64, 0, Some(1024));
        assert_eq!(l.max_sockets, 1024 - crate::fdlimit::RESERVED_FILES as usize);
        assert_eq!(l.evict_at, l.max_sockets - 64);
        assert_eq!(
            GateLimits::new(10, 4, 0, None),
            GateLimits { evict_at: 10, max_sockets: 14, per_addr: 0 }
        );
    }

    #[test]
    fn per_address_cap_and_release() {
        let g = Gate::new(GateLimits::new(100, 0, 2, None));
        let a = yes(g.admit(ip("2001:db8::1")));
        let _b = yes(g.admit(ip("2001:db8::2")));
        assert!(matches!(g.admit(ip("2001:db8::3")), Admit::No(Refusal::PerAddress)), "the same /64");
        let _c = yes(g.admit(ip("2001:db9::1")));
        a.0.closed();
        let _d = yes(g.admit(ip("2001:db8::3")));
        assert_eq!(g.open(), 3);
    }

    #[test]
    fn the_reserve_evicts_the_oldest_not_upgraded_then_refuses() {
        let g = Gate::new(GateLimits::new(2, 2, 0, None));
        let (up, up_t) = yes(g.admit(ip("10.0.0.1")));
        up.upgraded();
        let (_idle, idle_t) = yes(g.admit(ip("10.0.0.2")));
        // Past the limit: the oldest socket not upgraded makes room.
        let (_c, c_t) = yes(g.admit(ip("10.0.0.3")));
        assert!(idle_t.is_cancelled() && !up_t.is_cancelled(), "the upgraded one stays");
        let (_d, _) = yes(g.admit(ip("10.0.0.4")));
        assert!(c_t.is_cancelled());
        // Evicted sockets hold their place until their file closes.
        assert!(matches!(g.admit(ip("10.0.0.5")), Admit::No(Refusal::Full)));
    }
}
