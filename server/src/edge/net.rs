//! The addresses a friend can open: every non-loopback IPv4 address of this
//! machine with the bound port, and the start-up banner that prints them
//! (with a terminal QR code of the first, for a phone's camera).

use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use serde::Serialize;

/// What `GET /api/urls` answers.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Urls {
    /// The address this machine itself can open.
    pub local: String,
    /// The addresses others on the LAN can open (none when bound to loopback).
    pub lan: Vec<String>,
    /// `--public-url`: the address players reach the site at, when set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub public: Option<String>,
}

impl Urls {
    pub fn for_addr(addr: SocketAddr) -> Urls {
        let port = addr.port();
        let ip = addr.ip();
        let lan: Vec<String> = if ip.is_unspecified() {
            lan_ipv4().into_iter().map(|ip| format!("http://{ip}:{port}")).collect()
        } else if ip.is_loopback() {
            Vec::new()
        } else {
            vec![format!("http://{}", SocketAddr::new(ip, port))]
        };
        let local_ip = if ip.is_unspecified() { IpAddr::V4(Ipv4Addr::LOCALHOST) } else { ip };
        Urls { local: format!("http://{}", SocketAddr::new(local_ip, port)), lan, public: None }
    }

    /// These addresses with the site's public one (`--public-url`).
    pub fn with_public(self, public: Option<String>) -> Urls {
        Urls { public, ..self }
    }
}

/// Every non-loopback IPv4 address on this machine's interfaces.
pub fn lan_ipv4() -> Vec<Ipv4Addr> {
    let mut out: Vec<Ipv4Addr> = match if_addrs::get_if_addrs() {
        Ok(ifs) => ifs
            .into_iter()
            .filter_map(|i| match i.ip() {
                IpAddr::V4(v4) if !v4.is_loopback() && !v4.is_unspecified() => Some(v4),
                _ => None,
            })
            .collect(),
        Err(e) => {
            tracing::warn!(error = %e, "could not list network interfaces");
            Vec::new()
        }
    };
    out.sort();
    out.dedup();
    out
}

/// A QR code of `text` drawn with half-block characters for a terminal.
pub fn terminal_qr(text: &str) -> Option<String> {
    let code = qrcode::QrCode::new(text.as_bytes()).ok()?;
    Some(
        code.render::<qrcode::render::unicode::Dense1x2>()
            .dark_color(qrcode::render::unicode::Dense1x2::Light)
            .light_color(qrcode::render::unicode::Dense1x2::Dark)
            .quiet_zone(true)
            .build(),
    )
}

/// The start-up banner: exactly one `mazerace listening on http://ADDR`
/// line first (scripts and the browser tests read it), then the LAN URLs.
pub fn banner(bound: SocketAddr) -> String {
    let urls = Urls::for_addr(bound);
    let mut out = format!("mazerace listening on http://{bound}\n");
    out.push_str(&format!("  on this machine: {}\n", urls.local));
    if urls.lan.is_empty() {
        out.push_str("  (bound to a loopback address: not reachable from the LAN)\n");
    }
    for u in &urls.lan {
        out.push_str(&format!("  on your network: {u}\n"));
    }
    if let Some(first) = urls.lan.first() {
        if let Some(qr) = terminal_qr(first) {
            out.push_str(&format!("  scan to open {first}:\n{qr}\n"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_has_no_lan_urls() {
        let u = Urls::for_addr("127.0.0.1:7878".parse().unwrap());
        assert_eq!(u.local, "http://127.0.0.1:7878");
        assert!(u.lan.is_empty());
        let b = banner("127.0.0.1:7878".parse().unwrap());
        assert_eq!(b.lines().next(), Some("mazerace listening on http://127.0.0.1:7878"));
    }

    #[test]
    fn unspecified_lists_interfaces_with_the_port() {
        let u = Urls::for_addr("0.0.0.0:9000".parse().unwrap());
        assert_eq!(u.local, "http://127.0.0.1:9000");
        assert!(u.lan.iter().all(|l| l.starts_with("http://") && l.ends_with(":9000")));
        assert!(u.lan.iter().all(|l| !l.contains("127.0.0.1")));
    }

    #[test]
    fn qr_renders() {
        let q = terminal_qr("http://192.168.1.20:7878").unwrap();
        assert!(q.lines().count() > 10);
    }
}
