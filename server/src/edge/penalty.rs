//! The violation penalty: an address whose connections are closed for
//! breaking the rules (a flood, a frame RFC 6455 forbids, bad UTF-8, a
//! message over the limit) waits before each of its next upgrades, so a
//! flooder that reconnects at once gets one upgrade per wait, not one per
//! round trip.
//!
//! Each violation is a strike; with `k` strikes the address's upgrades are
//! spaced `base * 2^(k-1)` apart (at most [`MAX_SPACING`]), the first one
//! that long after the violation. A strike is forgiven every [`FORGIVE`]
//! without a new one. An upgrade whose turn is more than [`MAX_WAIT`] away
//! is refused (429) instead of waiting, so one address holds at most a few
//! waiting requests. While its turns are that far off, the accept loop
//! refuses every socket from the address before reading any HTTP
//! ([`Penalties::refusing`], asked by the gate): a flooder reconnecting in a
//! loop costs an accept and a fixed answer, not a parse and a handshake.
//! At most [`MAX_TRACKED`] addresses are remembered; the one whose last
//! violation is oldest makes room.
//!
//! Violations are the connection's closes for breaking the rules, and
//! session takeovers past the address's budget (`lobby/hello.rs`): two tabs
//! fighting over one token are slowed like a flooder.
//!
//! Time is tokio's, so paused-time tests drive it.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::Duration;

use tokio::time::Instant;

use super::address::AddressKey;

/// A strike is forgiven after this long without another.
pub const FORGIVE: Duration = Duration::from_secs(60);
/// The widest spacing between two upgrades of one address.
pub const MAX_SPACING: Duration = Duration::from_secs(30);
/// An upgrade waits at most this long for its turn; later turns are refused.
pub const MAX_WAIT: Duration = Duration::from_secs(60);
/// Addresses remembered at once.
pub const MAX_TRACKED: usize = 4096;

struct Record {
    strikes: u32,
    /// The last violation (strikes are forgiven from here).
    last: Instant,
    /// The address's next upgrade may go at this time, not before.
    next_turn: Instant,
}

impl Record {
    /// Forgives the strikes whose time is up.
    fn forgive(&mut self, now: Instant) {
        let periods = now.saturating_duration_since(self.last).as_secs() / FORGIVE.as_secs();
        if periods == 0 {
            return;
        }
        let periods = u32::try_from(periods).unwrap_or(u32::MAX);
        self.strikes = self.strikes.saturating_sub(periods);
        // The next strike is forgiven a whole period after this one was.
        self.last = match self.strikes {
            0 => now,
            _ => self.last.checked_add(FORGIVE.saturating_mul(periods)).unwrap_or(now),
        };
    }
}

/// What an upgrade from an address must do.
#[derive(Debug, PartialEq, Eq)]
pub enum Turn {
    /// Go now.
    Now,
    /// Wait this long first (the turn is booked).
    Wait(Duration),
    /// Too many upgrades waiting already: refuse, try again after this.
    Refuse(Duration),
}

/// Strikes per address (see the module header).
pub struct Penalties {
    base: Duration,
    /// A std mutex: a map update, never held across an await.
    records: Mutex<HashMap<AddressKey, Record>>,
}

impl Penalties {
    /// `base`: the spacing after one strike; zero turns the penalty off.
    pub fn new(base: Duration) -> Penalties {
        Penalties { base, records: Mutex::new(HashMap::new()) }
    }

    fn spacing(&self, strikes: u32) -> Duration {
        let doublings = strikes.saturating_sub(1).min(16);
        self.base.saturating_mul(1 << doublings).min(MAX_SPACING.max(self.base))
    }

    /// A connection from `ip` was closed for a violation.
    pub fn violation(&self, ip: IpAddr) {
        if self.base.is_zero() {
            return;
        }
        let now = Instant::now();
        let key = AddressKey::of(ip);
        let mut records = self.records.lock().unwrap_or_else(|p| p.into_inner());
        if records.len() >= MAX_TRACKED && !records.contains_key(&key) {
            records.retain(|_, r| {
                r.forgive(now);
                r.strikes > 0
            });
            if records.len() >= MAX_TRACKED {
                if let Some(oldest) = records.iter().min_by_key(|(_, r)| r.last).map(|(k, _)| *k) {
                    records.remove(&oldest);
                }
            }
        }
        let r = records.entry(key).or_insert(Record { strikes: 0, last: now, next_turn: now });
        r.forgive(now);
        r.strikes = r.strikes.saturating_add(1);
        r.last = now;
        let spacing = self.spacing(r.strikes);
        r.next_turn = r.next_turn.max(now + spacing);
    }

    /// An upgrade from `ip` asks for its turn.
    pub fn turn(&self, ip: IpAddr) -> Turn {
        if self.base.is_zero() {
            return Turn::Now;
        }
        let now = Instant::now();
        let key = AddressKey::of(ip);
        let mut records = self.records.lock().unwrap_or_else(|p| p.into_inner());
        let Some(r) = records.get_mut(&key) else { return Turn::Now };
        r.forgive(now);
        if r.strikes == 0 {
            records.remove(&key);
            return Turn::Now;
        }
        let turn = r.next_turn.max(now);
        let wait = turn - now;
        if let Some(after) = past_max_wait(wait) {
            return Turn::Refuse(after);
        }
        r.next_turn = turn + self.spacing(r.strikes);
        if wait.is_zero() {
            Turn::Now
        } else {
            Turn::Wait(wait)
        }
    }

    /// Whether `ip`'s upgrades are refused now ([`Turn::Refuse`]) and for
    /// how much longer, without booking a turn: the gate asks this of every
    /// socket from an address that is not a trusted proxy, at accept.
    pub fn refusing(&self, ip: IpAddr) -> Option<Duration> {
        if self.base.is_zero() {
            return None;
        }
        let now = Instant::now();
        let mut records = self.records.lock().unwrap_or_else(|p| p.into_inner());
        let r = records.get_mut(&AddressKey::of(ip))?;
        r.forgive(now);
        if r.strikes == 0 {
            return None;
        }
        past_max_wait(r.next_turn.saturating_duration_since(now))
    }
}

/// A wait longer than [`MAX_WAIT`] is refused: for how much longer.
fn past_max_wait(wait: Duration) -> Option<Duration> {
    wait.checked_sub(MAX_WAIT).filter(|after| !after.is_zero())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    const S: Duration = Duration::from_secs(1);

    #[tokio::test(start_paused = true)]
    async fn a_violation_spaces_the_next_upgrades_and_is_forgiven() {
        let p = Penalties::new(S);
        let (bad, good) = (ip("10.0.0.1"), ip("10.0.0.2"));
        assert_eq!(p.turn(bad), Turn::Now, "no strike yet");
        p.violation(bad);
        assert_eq!(p.turn(bad), Turn::Wait(S), "the first upgrade waits a spacing after the violation");
        assert_eq!(p.turn(bad), Turn::Wait(2 * S), "the next one a spacing after that");
        assert_eq!(p.turn(good), Turn::Now, "another address is not slowed");
        tokio::time::advance(3 * S).await;
        assert_eq!(p.turn(bad), Turn::Now, "its turn has come");
        assert_eq!(p.turn(bad), Turn::Wait(S));
        tokio::time::advance(FORGIVE).await;
        assert_eq!(p.turn(bad), Turn::Now, "forgiven");
        assert_eq!(p.turn(bad), Turn::Now, "and forgotten");
    }

    #[tokio::test(start_paused = true)]
    async fn strikes_double_the_spacing_and_waits_are_bounded() {
        let p = Penalties::new(S);
        let bad = ip("2001:db8::1");
        for _ in 0..3 {
            p.violation(bad);
        }
        assert_eq!(p.turn(ip("2001:db8::2")), Turn::Wait(4 * S), "the same /64, three strikes: 4 s");
        let mut refused = false;
        for _ in 0..40 {
            if let Turn::Refuse(_) = p.turn(bad) {
                refused = true;
                break;
            }
        }
        assert!(refused, "turns more than {MAX_WAIT:?} away are refused");
        for _ in 0..20 {
            p.violation(bad);
        }
        assert!(p.spacing(23) <= MAX_SPACING);
    }

    #[tokio::test(start_paused = true)]
    async fn refusing_says_what_turn_would_refuse_and_books_nothing() {
        let p = Penalties::new(S);
        let (bad, good) = (ip("10.0.0.1"), ip("10.0.0.2"));
        for _ in 0..6 {
            p.violation(bad);
        }
        assert_eq!(p.refusing(bad), None, "its turn is 30 s off: it waits, it is not refused");
        assert_eq!(p.turn(bad), Turn::Wait(30 * S));
        assert_eq!(p.turn(bad), Turn::Wait(60 * S));
        assert_eq!(p.refusing(bad), Some(30 * S), "the next turn is 90 s off");
        assert_eq!(p.refusing(bad), Some(30 * S), "asking books no turn");
        assert_eq!(p.turn(bad), Turn::Refuse(30 * S), "the same answer as the upgrade's");
        assert_eq!(p.refusing(good), None, "another address");
        tokio::time::advance(30 * S).await;
        assert_eq!(p.refusing(bad), None, "the turn is within the wait again");
        assert_eq!(Penalties::new(Duration::ZERO).refusing(bad), None, "off");
    }

    #[tokio::test(start_paused = true)]
    async fn the_map_is_bounded_and_zero_is_off() {
        let p = Penalties::new(S);
        for i in 0..(MAX_TRACKED as u32 + 10) {
            p.violation(IpAddr::from(i.to_be_bytes()));
            if i % 1000 == 0 {
                tokio::time::advance(Duration::from_millis(1)).await;
            }
        }
        assert!(p.records.lock().unwrap().len() <= MAX_TRACKED);
        let off = Penalties::new(Duration::ZERO);
        off.violation(ip("10.0.0.1"));
        assert_eq!(off.turn(ip("10.0.0.1")), Turn::Now);
    }
}
