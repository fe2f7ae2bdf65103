//! Who the client really is behind a load balancer: the `--trusted-proxy`
//! list (addresses or CIDRs) and [`TrustedProxies::client_ip`], which
//! believes `X-Forwarded-For` / `X-Real-IP` only when the TCP peer is one of
//! those proxies. The accept loop asks it once per request and hands every
//! route the answer as a [`ClientAddr`]; everything per address (the
//! failed-join and league budgets, rooms and sessions per address, the
//! violation penalty, the logs) uses that one address, on every route.
//! (Only the socket cap at accept counts TCP peers: it is about sockets.)
//!
//! `X-Forwarded-For` is read from the right: each proxy appends the address
//! it saw, so the rightmost entry that is not itself a trusted proxy is the
//! client (entries to its left were written by the client and prove
//! nothing). Without the header, `X-Real-IP`; without either, the peer.

use std::net::{IpAddr, SocketAddr};
use std::str::FromStr;

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode};

/// The address a request is from, as decided by [`TrustedProxies::client_addr`]
/// in the accept loop (an extension of every request). Routes take this,
/// never the TCP peer, so they cannot disagree about who asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClientAddr(pub SocketAddr);

impl<S: Send + Sync> FromRequestParts<S> for ClientAddr {
    type Rejection = StatusCode;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, StatusCode> {
        // Always there for requests from the accept loop; a router served
        // some other way has no client address to give.
        parts.extensions.get::<ClientAddr>().copied().ok_or(StatusCode::INTERNAL_SERVER_ERROR)
    }
}

/// One address out of a forwarding header's entry: `1.2.3.4`, `2001:db8::1`,
/// or either with a port (`1.2.3.4:5555`, `[2001:db8::1]:5555`), which some
/// proxies append; `[2001:db8::1]` without one too.
fn parse_hop(hop: &str) -> Option<IpAddr> {
    let hop = hop.trim();
    if let Ok(ip) = hop.parse::<IpAddr>() {
        return Some(ip);
    }
    if let Ok(addr) = hop.parse::<SocketAddr>() {
        return Some(addr.ip());
    }
    hop.strip_prefix('[')?.strip_suffix(']')?.parse().ok()
}

/// One trusted network: an address and a prefix length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cidr {
    net: IpAddr,
    bits: u8,
}

impl Cidr {
    pub fn contains(&self, ip: IpAddr) -> bool {
        match (self.net, canonical(ip)) {
            (IpAddr::V4(n), IpAddr::V4(a)) => {
                let mask = u32::MAX.checked_shl(32 - u32::from(self.bits)).unwrap_or(0);
                u32::from(n) & mask == u32::from(a) & mask
            }
            (IpAddr::V6(n), IpAddr::V6(a)) => {
                let mask = u128::MAX.checked_shl(128 - u32::from(self.bits)).unwrap_or(0);
                u128::from(n) & mask == u128::from(a) & mask
            }
            _ => false,
        }
    }
}

/// An IPv4-mapped IPv6 address (a dual-stack socket's peer) as IPv4.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

impl FromStr for Cidr {
    type Err = String;

    fn from_str(s: &str) -> Result<Cidr, String> {
        let s = s.trim();
        let (addr, bits) = match s.split_once('/') {
            Some((a, b)) => (a, Some(b)),
            None => (s, None),
        };
        let net = canonical(addr.parse::<IpAddr>().map_err(|_| format!("{s:?} is not an address or CIDR"))?);
        let max = if net.is_ipv4() { 32 } else { 128 };
        let bits = match bits {
            None => max,
            Some(b) => b
                .parse::<u8>()
                .ok()
                .filter(|b| *b <= max)
                .ok_or_else(|| format!("{s:?}: the prefix length must be 0 to {max}"))?,
        };
        Ok(Cidr { net, bits })
    }
}

/// The proxies whose forwarding headers are believed; empty: none are.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TrustedProxies(Vec<Cidr>);

impl FromStr for TrustedProxies {
    type Err = String;

    /// A comma-separated list: `127.0.0.1,10.0.0.0/8,::1`.
    fn from_str(s: &str) -> Result<TrustedProxies, String> {
        let list = s.split(',').filter(|p| !p.trim().is_empty()).map(Cidr::from_str);
        Ok(TrustedProxies(list.collect::<Result<_, _>>()?))
    }
}

impl TrustedProxies {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether `ip` is one of the trusted proxies.
    pub fn trusts(&self, ip: IpAddr) -> bool {
        self.0.iter().any(|c| c.contains(ip))
    }

    /// The real client's address for a connection from `peer` with `headers`.
    pub fn client_ip(&self, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
        if !self.trusts(peer) {
            return peer;
        }
        let mut hops = headers
            .get_all("x-forwarded-for")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .peekable();
        if hops.peek().is_some() {
            // From the right: the first hop that is not a proxy of ours is
            // the client; an unreadable hop ends the walk (what lies left
            // of it cannot be trusted), and so does the list running out.
            let mut last_proxy = None;
            for hop in hops {
                match parse_hop(hop) {
                    Some(ip) if !self.trusts(ip) => return canonical(ip),
                    Some(ip) => last_proxy = Some(canonical(ip)),
                    None => break,
                }
            }
            return last_proxy.unwrap_or(peer);
        }
        let real = headers.get("x-real-ip").and_then(|v| v.to_str().ok());
        real.and_then(parse_hop).map_or(peer, canonical)
    }

    /// [`Self::client_ip`] with the peer's port kept (for the logs).
    pub fn client_addr(&self, peer: SocketAddr, headers: &HeaderMap) -> SocketAddr {
        SocketAddr::new(self.client_ip(peer.ip(), headers), peer.port())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(*k, v.parse().unwrap());
        }
        h
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn lists_parse_and_bad_entries_are_refused() {
        let t: TrustedProxies = "127.0.0.1, 10.0.0.0/8,::1,fd00::/8".parse().unwrap();
        assert!(t.trusts(ip("127.0.0.1")) && t.trusts(ip("10.200.3.4")) && t.trusts(ip("::1")));
        assert!(t.trusts(ip("fd12::5")) && t.trusts(ip("::ffff:10.1.1.1")), "v4-mapped counts as v4");
        assert!(!t.trusts(ip("127.0.0.2")) && !t.trusts(ip("11.0.0.1")) && !t.trusts(ip("fe80::1")));
        assert!("0.0.0.0/0".parse::<TrustedProxies>().unwrap().trusts(ip("8.8.8.8")));
        assert!("".parse::<TrustedProxies>().unwrap().is_empty());
        for bad in ["10.0.0.0/33", "nginx", "10.0.0/8", "::1/129", "1.2.3.4/-1"] {
            assert!(bad.parse::<TrustedProxies>().is_err(), "{bad}");
        }
    }

    #[test]
    fn headers_are_believed_only_from_a_trusted_peer() {
        let t: TrustedProxies = "127.0.0.1".parse().unwrap();
        let h = headers(&[("x-forwarded-for", "203.0.113.7")]);
        assert_eq!(t.client_ip(ip("127.0.0.1"), &h), ip("203.0.113.7"));
        assert_eq!(t.client_ip(ip("198.51.100.1"), &h), ip("198.51.100.1"), "an untrusted peer");
        let none = TrustedProxies::default();
        assert_eq!(none.client_ip(ip("127.0.0.1"), &h), ip("127.0.0.1"), "no --trusted-proxy");
        assert_eq!(t.client_ip(ip("127.0.0.1"), &HeaderMap::new()), ip("127.0.0.1"), "no header");
    }

    #[test]
    fn the_rightmost_untrusted_hop_is_the_client() {
        let t: TrustedProxies = "127.0.0.1,10.0.0.0/8".parse().unwrap();
        // The client wrote a fake first entry; our two proxies appended theirs.
        let h = headers(&[("x-forwarded-for", "1.1.1.1, 203.0.113.7, 10.0.0.5")]);
        assert_eq!(t.client_ip(ip("127.0.0.1"), &h), ip("203.0.113.7"));
        // Split over two header lines: the same list.
        let h = headers(&[("x-forwarded-for", "1.1.1.1"), ("x-forwarded-for", "203.0.113.7,10.0.0.5")]);
        assert_eq!(t.client_ip(ip("127.0.0.1"), &h), ip("203.0.113.7"));
        // Garbage to the right of a proxy hop stops the walk at the proxy.
        let h = headers(&[("x-forwarded-for", "203.0.113.7, 10.0.0.5, nonsense")]);
        assert_eq!(t.client_ip(ip("127.0.0.1"), &h), ip("127.0.0.1"));
        // Every hop a proxy: the leftmost one.
        let h = headers(&[("x-forwarded-for", "10.0.0.9, 10.0.0.5")]);
        assert_eq!(t.client_ip(ip("127.0.0.1"), &h), ip("10.0.0.9"));
    }

    /// Some proxies append the client's port (`1.2.3.4:5555`); the address
    /// is read, not the proxy's put in its place.
    #[test]
    fn hops_with_a_port_give_their_address() {
        let t: TrustedProxies = "127.0.0.1".parse().unwrap();
        for (hop, want) in [
            ("1.2.3.4:5555", "1.2.3.4"),
            ("[2001:db8::7]:443", "2001:db8::7"),
            ("[2001:db8::7]", "2001:db8::7"),
            (" 198.51.100.2:80 ", "198.51.100.2"),
        ] {
            let h = headers(&[("x-forwarded-for", hop)]);
            assert_eq!(t.client_ip(ip("127.0.0.1"), &h), ip(want), "{hop}");
        }
        let h = headers(&[("x-real-ip", "192.0.2.9:1234")]);
        assert_eq!(t.client_ip(ip("127.0.0.1"), &h), ip("192.0.2.9"));
        for junk in ["1.2.3.4:", "1.2.3.4:99999", "[1.2.3.4]x", "::1]:80"] {
            let h = headers(&[("x-forwarded-for", junk)]);
            assert_eq!(t.client_ip(ip("127.0.0.1"), &h), ip("127.0.0.1"), "{junk}");
        }
    }

    #[test]
    fn x_real_ip_is_the_fallback() {
        let t: TrustedProxies = "::1".parse().unwrap();
        let h = headers(&[("x-real-ip", "2001:db8::7")]);
        assert_eq!(t.client_ip(ip("::1"), &h), ip("2001:db8::7"));
        let h = headers(&[("x-real-ip", "not an address")]);
        assert_eq!(t.client_ip(ip("::1"), &h), ip("::1"));
        let addr = t.client_addr("[::1]:4000".parse().unwrap(), &headers(&[("x-real-ip", "192.0.2.1")]));
        assert_eq!(addr, "192.0.2.1:4000".parse().unwrap());
    }
}
