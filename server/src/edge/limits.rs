//! Abuse controls: a token bucket (messages per connection, rooms per
//! connection) and the per-address limiter on failed joins (code guessing).
//! Time is tokio's, so paused-time tests can drive them.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::Duration;

use tokio::time::Instant;

/// `capacity` tokens, refilled continuously at one per `every`.
#[derive(Debug, Clone)]
pub struct TokenBucket {
    capacity: f64,
    tokens: f64,
    per_sec: f64,
    at: Instant,
}

impl TokenBucket {
    pub fn new(capacity: u32, every: Duration) -> Self {
        let per_sec = if every.is_zero() { f64::INFINITY } else { 1.0 / every.as_secs_f64() };
        TokenBucket {
            capacity: f64::from(capacity),
            tokens: f64::from(capacity),
            per_sec,
            at: Instant::now(),
        }
    }

    /// `capacity` tokens, refilled at `per_sec` a second.
    pub fn per_second(capacity: u32, per_sec: u32) -> Self {
        Self::new(capacity, Duration::from_secs(1) / per_sec.max(1))
    }

    fn refill(&mut self) {
        let now = Instant::now();
        let earned = now.saturating_duration_since(self.at).as_secs_f64() * self.per_sec;
        self.tokens = (self.tokens + earned).min(self.capacity);
        self.at = now;
    }

    /// Takes one token if there is one.
    pub fn take(&mut self) -> bool {
        self.refill();
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }

    /// Whether a token is there, without taking it.
    pub fn has(&mut self) -> bool {
        self.refill();
        self.tokens >= 1.0
    }

    fn is_full(&mut self) -> bool {
        self.refill();
        self.tokens >= self.capacity
    }
}

/// Failed joins per source address: guessing codes costs a token each, and
/// an empty bucket refuses every join (`too_many_joins`) until it refills.
pub struct JoinLimiter {
    capacity: u32,
    every: Duration,
    /// A std mutex: a map lookup, never held across an await.
    buckets: Mutex<HashMap<IpAddr, TokenBucket>>,
}

impl JoinLimiter {
    pub fn new(capacity: u32, every: Duration) -> Self {
        JoinLimiter { capacity, every, buckets: Mutex::new(HashMap::new()) }
    }

    /// May `ip` try a join now?
    pub fn allowed(&self, ip: IpAddr) -> bool {
        let mut map = self.buckets.lock().unwrap_or_else(|p| p.into_inner());
        map.get_mut(&ip).is_none_or(TokenBucket::has)
    }

    /// `ip` tried a code that does not exist.
    pub fn failed(&self, ip: IpAddr) {
        let mut map = self.buckets.lock().unwrap_or_else(|p| p.into_inner());
        // Forget addresses whose bucket has refilled, so the map stays small.
        if map.len() > 1024 {
            map.retain(|_, b| !b.is_full());
        }
        map.entry(ip).or_insert_with(|| TokenBucket::new(self.capacity, self.every)).take();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn bucket_refills_with_time() {
        let mut b = TokenBucket::per_second(2, 10);
        assert!(b.take());
        assert!(b.take());
        assert!(!b.take());
        tokio::time::advance(Duration::from_millis(100)).await;
        assert!(b.take());
        assert!(!b.take());
    }

    #[tokio::test(start_paused = true)]
    async fn joins_are_limited_per_address() {
        let j = JoinLimiter::new(2, Duration::from_secs(5));
        let a: IpAddr = [10, 0, 0, 1].into();
        let b: IpAddr = [10, 0, 0, 2].into();
        assert!(j.allowed(a));
        j.failed(a);
        assert!(j.allowed(a));
        j.failed(a);
        assert!(!j.allowed(a));
        assert!(j.allowed(b), "another address is not affected");
        tokio::time::advance(Duration::from_secs(5)).await;
        assert!(j.allowed(a));
    }
}
