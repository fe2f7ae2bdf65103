//! Where "now" comes from, so tests can fix it: the day is a
//! [`DailyDate`] (the protocol crate's calendar, on the `time` crate), the
//! same one the server parses dates with.

use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use mazerace_protocol::daily::DailyDate;

/// Where "now" comes from. The server uses [`SystemClock`]; tests use [`FixedClock`].
pub trait Clock: Send + Sync {
    fn now(&self) -> SystemTime;

    /// Today's UTC date.
    fn today(&self) -> DailyDate {
        DailyDate::of(self.now())
    }
}

/// The machine's wall clock.
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> SystemTime {
        SystemTime::now()
    }
}

/// A clock that stands still until told otherwise.
#[derive(Debug)]
pub struct FixedClock(Mutex<SystemTime>);

impl FixedClock {
    pub fn new(now: SystemTime) -> Self {
        FixedClock(Mutex::new(now))
    }

    /// A clock at `unix_ms` milliseconds after 1970-01-01T00:00:00Z.
    pub fn at_unix_ms(unix_ms: u64) -> Self {
        FixedClock::new(UNIX_EPOCH + Duration::from_millis(unix_ms))
    }

    pub fn set(&self, now: SystemTime) {
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = now;
    }

    pub fn advance(&self, by: Duration) {
        let mut t = self.0.lock().unwrap_or_else(|p| p.into_inner());
        *t += by;
    }
}

impl Clock for FixedClock {
    fn now(&self) -> SystemTime {
        *self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2026-11-29T00:00:00Z in Unix milliseconds.
    const NOV29: u64 = 1_795_910_400_000;

    #[test]
    fn a_fixed_clock_moves_only_when_told() {
        let c = FixedClock::at_unix_ms(NOV29 - 1);
        assert_eq!(c.today().to_string(), "2026-11-28");
        assert_eq!(c.today().to_string(), "2026-11-28");
        c.advance(Duration::from_millis(1));
        assert_eq!(c.today().to_string(), "2026-11-29");
        c.set(UNIX_EPOCH);
        assert_eq!(c.today().to_string(), "1970-01-01");
    }
}
