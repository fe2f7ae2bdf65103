//! UTC calendar days: which daily board "today" is, how long until the next,
//! and the day arithmetic streaks need. The clock is a trait so tests can fix
//! it; dates are `YYYY-MM-DD` strings as on the wire.
//!
//! The calendar is [`DailyDate`]'s (the protocol crate's, on the `time`
//! crate), the same one the server parses dates with.

use std::sync::Mutex;

use mazerace_protocol::daily::DailyDate;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

const MS_PER_DAY: i64 = 86_400_000;

/// Where "now" comes from. The server uses [`SystemClock`]; tests use [`FixedClock`].
pub trait Clock: Send + Sync {
    fn now(&self) -> SystemTime;

    /// Today's UTC date, `YYYY-MM-DD`.
    fn today(&self) -> String {
        utc_date(self.now())
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

/// Milliseconds since the Unix epoch, negative before it.
fn unix_ms(now: SystemTime) -> i64 {
    match now.duration_since(UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_millis()).unwrap_or(i64::MAX),
        Err(e) => -i64::try_from(e.duration().as_millis()).unwrap_or(i64::MAX),
    }
}

/// The UTC date of `now`, `YYYY-MM-DD`. The day changes at 00:00:00.000 UTC.
pub fn utc_date(now: SystemTime) -> String {
    DailyDate::of(now).to_string()
}

/// Milliseconds from `now` until the next 00:00 UTC (1 ..= 86_400_000).
pub fn ms_until_next_utc_day(now: SystemTime) -> u64 {
    (MS_PER_DAY - unix_ms(now).rem_euclid(MS_PER_DAY)) as u64
}

/// Days since 1970-01-01 of a valid `YYYY-MM-DD`, or `None` when it is not one.
pub fn day_number(date: &str) -> Option<i64> {
    date.parse::<DailyDate>().ok().map(DailyDate::day_number)
}

/// The `YYYY-MM-DD` of a day number (days since 1970-01-01); empty beyond
/// the calendar's ±9999 years, which no stored day is near.
pub fn format_day(day: i64) -> String {
    DailyDate::from_day_number(day).map(|d| d.to_string()).unwrap_or_default()
}

/// The date `days` after (or before, when negative) a valid date.
pub fn add_days(date: &str, days: i64) -> Option<String> {
    Some(date.parse::<DailyDate>().ok()?.add_days(days)?.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2026-11-29T00:00:00Z in Unix milliseconds (checked with `date -u -d 2026-11-29 +%s`).
    const NOV29: u64 = 1_795_910_400_000;

    fn at(ms: u64) -> SystemTime {
        UNIX_EPOCH + Duration::from_millis(ms)
    }

    #[test]
    fn the_day_rolls_over_at_midnight_utc() {
        assert_eq!(utc_date(at(NOV29 - 1)), "2026-11-28"); // 23:59:59.999
        assert_eq!(utc_date(at(NOV29)), "2026-11-29"); // 00:00:00.000
        assert_eq!(ms_until_next_utc_day(at(NOV29 - 1)), 1);
        assert_eq!(ms_until_next_utc_day(at(NOV29)), 86_400_000);
        assert_eq!(ms_until_next_utc_day(at(NOV29 + 42_000)), 86_400_000 - 42_000);
    }

    #[test]
    fn a_fixed_clock_moves_only_when_told() {
        let c = FixedClock::at_unix_ms(NOV29 - 1);
        assert_eq!(c.today(), "2026-11-28");
        assert_eq!(c.today(), "2026-11-28");
        c.advance(Duration::from_millis(1));
        assert_eq!(c.today(), "2026-11-29");
        c.set(at(0));
        assert_eq!(c.today(), "1970-01-01");
    }

    #[test]
    fn calendar_edges() {
        assert_eq!(utc_date(UNIX_EPOCH), "1970-01-01");
        assert_eq!(utc_date(UNIX_EPOCH - Duration::from_millis(1)), "1969-12-31");
        assert_eq!(day_number("1970-01-01"), Some(0));
        assert_eq!(day_number("2026-11-29"), Some((NOV29 / 86_400_000) as i64));
        assert_eq!(add_days("2024-02-28", 1).as_deref(), Some("2024-02-29"));
        assert_eq!(add_days("2026-02-28", 1).as_deref(), Some("2026-03-01"));
        assert_eq!(add_days("2026-12-31", 1).as_deref(), Some("2027-01-01"));
        assert_eq!(add_days("2000-03-01", -1).as_deref(), Some("2000-02-29"));
        assert_eq!(add_days("1900-03-01", -1).as_deref(), Some("1900-02-28"));
        assert_eq!(day_number("2026-02-30"), None);
        // Every day of four centuries round-trips.
        for day in day_number("1900-01-01").unwrap()..day_number("2300-01-01").unwrap() {
            let s = format_day(day);
            assert_eq!(day_number(&s), Some(day), "{s}");
        }
    }
}
