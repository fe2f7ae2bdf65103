//! The per-address budget on `/api/*` (issue 34): every API request spends
//! a token of its address's bucket (the request's [`ClientAddr`]: an IPv4
//! address, or an IPv6 /64), `--api-burst` of them refilled at
//! `--api-per-sec`; with the bucket empty the request is answered 429 with
//! `Retry-After` before its route runs. The routes behind it read the
//! daily store (replays, tables, standings), a replay about 9 KB: one
//! address on four keep-alive sockets pulled 7,781 replays a
//! second (70.5 MB/s, more than a core). The bucket is the failed-join
//! limiter's ([`JoinLimiter`]), spent on every request instead of on a
//! miss. The client's files, `/`, `/healthz` and `/ws` are not counted:
//! they read no store (files are compressed once and served with ETags;
//! `/ws` has the socket limits and the penalty).

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::Response;

use super::{api_error, HttpEnv};
use crate::edge::limits::JoinLimiter;
use crate::edge::ClientAddr;

/// The `/api/*` budget of every address; `None` when turned off
/// (`--api-burst 0`, for a proxy that hides its clients' addresses).
pub struct ApiBudget {
    limiter: Option<JoinLimiter>,
    /// Seconds until the next token: the refill, rounded up.
    retry_after: HeaderValue,
}

impl ApiBudget {
    /// `burst` requests at once, one more each `1 / per_sec` second.
    pub fn new(burst: u32, per_sec: u32) -> ApiBudget {
        let every = Duration::from_secs(1) / per_sec.max(1);
        let limiter = (burst > 0).then(|| JoinLimiter::new(burst, every));
        let secs = every.as_secs() + u64::from(every.subsec_nanos() > 0);
        ApiBudget { limiter, retry_after: HeaderValue::from(secs.max(1)) }
    }

    /// Spends one of `ip`'s requests; `false` when none is left.
    fn take(&self, ip: IpAddr) -> bool {
        self.limiter.as_ref().is_none_or(|l| l.take(ip))
    }
}

/// The middleware: an `/api/*` request over its address's budget gets 429.
pub async fn limit(State(env): State<Arc<HttpEnv>>, req: Request, next: Next) -> Response {
    if req.uri().path().starts_with("/api/") {
        // Set on every request by the accept loop; without it (a router
        // served some other way) there is no address to count.
        if let Some(ClientAddr(client)) = req.extensions().get::<ClientAddr>().copied() {
            if !env.api.take(client.ip()) {
                crate::metrics::api_refused();
                let mut r = api_error(
                    StatusCode::TOO_MANY_REQUESTS,
                    "too many requests from your network address; wait a moment",
                );
                r.headers_mut().insert(header::RETRY_AFTER, env.api.retry_after.clone());
                return r;
            }
        }
    }
    next.run(req).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_burst_then_the_refill_per_address_and_zero_is_off() {
        let b = ApiBudget::new(3, 2);
        let (a, other): (IpAddr, IpAddr) = ([10, 0, 0, 1].into(), [10, 0, 0, 2].into());
        assert!((0..3).all(|_| b.take(a)), "the burst");
        assert!(!b.take(a), "then nothing");
        assert!(b.take(other), "another address has its own");
        tokio::time::advance(Duration::from_millis(500)).await;
        assert!(b.take(a) && !b.take(a), "one more each half second");
        assert_eq!(b.retry_after, "1", "rounded up to a whole second");
        assert_eq!(ApiBudget::new(1, 0).retry_after, "1", "at least one a second");
        let off = ApiBudget::new(0, 20);
        assert!((0..1000).all(|_| off.take(a)));
    }
}
