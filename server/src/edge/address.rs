//! Per-address accounting: how much of the server one network address
//! holds (live sessions, live rooms), so one machine cannot fill the
//! server's memory. An address is an IPv4 address, or an IPv6 /64 (one
//! subscriber's network: a host picks any address in it at will).
//! A [`Slot`] is held while the thing exists and gives its place back when
//! dropped, so a count can never drift from what is alive.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard};

/// One network address as the limits see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AddressKey(u128);

impl AddressKey {
    /// The key as text (32 hex digits), for the daily store's per-address
    /// cap (which stores only a keyed hash of it).
    pub fn label(&self) -> String {
        format!("{:032x}", self.0)
    }

    pub fn of(ip: IpAddr) -> AddressKey {
        match ip {
            IpAddr::V4(v4) => AddressKey(u128::from(u32::from(v4))),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => AddressKey(u128::from(u32::from(v4))),
                // The /64, tagged so it cannot equal an IPv4 key.
                None => AddressKey((u128::from(v6) & !0xffff_ffff_ffff_ffff) | 1),
            },
        }
    }
}

/// At most `limit` live things per address.
pub struct PerAddress {
    limit: u32,
    /// A std mutex: a map update, never held across an await.
    counts: Mutex<HashMap<AddressKey, u32>>,
}

/// One place held by an address; dropping it gives the place back.
pub struct Slot {
    owner: Arc<PerAddress>,
    key: AddressKey,
}

impl PerAddress {
    pub fn new(limit: u32) -> Arc<PerAddress> {
        Arc::new(PerAddress { limit, counts: Mutex::new(HashMap::new()) })
    }

    fn counts(&self) -> MutexGuard<'_, HashMap<AddressKey, u32>> {
        self.counts.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A place for `ip`, or `None` when it holds `limit` already.
    pub fn take(self: &Arc<Self>, ip: IpAddr) -> Option<Slot> {
        let key = AddressKey::of(ip);
        let mut counts = self.counts();
        let n = counts.entry(key).or_insert(0);
        if *n >= self.limit {
            return None;
        }
        *n += 1;
        Some(Slot { owner: Arc::clone(self), key })
    }

    /// Places `ip` holds now.
    #[cfg(test)]
    pub fn held(&self, ip: IpAddr) -> u32 {
        self.counts().get(&AddressKey::of(ip)).copied().unwrap_or(0)
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut counts = self.owner.counts();
        if let Some(n) = counts.get_mut(&self.key) {
            *n -= 1;
            if *n == 0 {
                counts.remove(&self.key);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ipv6_counts_by_64_and_mapped_ipv4_as_ipv4() {
        let a: IpAddr = "2001:db8:1:2::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:ffff::9".parse().unwrap();
        let c: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(AddressKey::of(a), AddressKey::of(b), "one /64");
        assert_ne!(AddressKey::of(a), AddressKey::of(c));
        let v4: IpAddr = "10.0.0.1".parse().unwrap();
        let mapped: IpAddr = "::ffff:10.0.0.1".parse().unwrap();
        assert_eq!(AddressKey::of(v4), AddressKey::of(mapped));
    }

    #[test]
    fn places_are_given_back_when_dropped() {
        let p = PerAddress::new(2);
        let ip: IpAddr = "10.0.0.1".parse().unwrap();
        let one = p.take(ip).unwrap();
        let two = p.take(ip).unwrap();
        assert!(p.take(ip).is_none(), "full");
        assert!(p.take("10.0.0.2".parse().unwrap()).is_some(), "another address");
        drop(one);
        assert_eq!(p.held(ip), 1);
        let _three = p.take(ip).unwrap();
        drop(two);
        assert_eq!(p.held(ip), 1);
    }
}
