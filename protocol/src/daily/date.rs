//! [`DailyDate`]: a daily board's day, parsed once where a date comes in (a
//! message, a URL, a command line, the database) so that everything past
//! that edge holds a real UTC calendar date and never a string.

use std::fmt;
use std::str::FromStr;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use time::{Date, Duration, Month};

/// A daily board's day: a UTC calendar date, `YYYY-MM-DD` on the wire and in
/// storage. One calendar (the `time` crate's) serves the server and the store.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DailyDate(Date);

/// Why a text is not a [`DailyDate`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("dates are YYYY-MM-DD, and {0:?} is not a real one")]
pub struct BadDate(pub String);

const MS_PER_DAY: i64 = 86_400_000;

/// 1970-01-01, day 0 of [`DailyDate::day_number`].
const UNIX_DAY0: Date = match Date::from_calendar_date(1970, Month::January, 1) {
    Ok(d) => d,
    Err(_) => panic!("1970-01-01 is a date"),
};

/// The first daily's day (2026-11-29): puzzle number 1, the share line's `#N`.
pub const FIRST_DAILY: DailyDate = match Date::from_calendar_date(2026, Month::November, 29) {
    Ok(d) => DailyDate(d),
    Err(_) => panic!("2026-11-29 is a date"),
};

impl DailyDate {
    /// The UTC day of `now` (the day changes at 00:00:00.000 UTC).
    pub fn of(now: SystemTime) -> DailyDate {
        DailyDate::from_day_number(unix_ms(now).div_euclid(MS_PER_DAY)).unwrap_or(DailyDate(Date::MAX))
    }

    /// Days since 1970-01-01 (negative before it).
    pub fn day_number(self) -> i64 {
        i64::from(self.0.to_julian_day()) - i64::from(UNIX_DAY0.to_julian_day())
    }

    /// The date `n` days after 1970-01-01, if the calendar reaches it.
    pub fn from_day_number(n: i64) -> Option<DailyDate> {
        let julian = i32::try_from(i64::from(UNIX_DAY0.to_julian_day()).checked_add(n)?).ok()?;
        Date::from_julian_day(julian).ok().map(DailyDate)
    }

    /// `days` later (earlier when negative); `None` past the calendar's ±9999 years.
    pub fn add_days(self, days: i64) -> Option<DailyDate> {
        self.0.checked_add(Duration::days(days)).map(DailyDate)
    }

    /// The day before (the calendar's first day is its own).
    pub fn previous(self) -> DailyDate {
        self.add_days(-1).unwrap_or(self)
    }

    /// The puzzle number: days since [`FIRST_DAILY`], which is 1 (0 before it).
    pub fn puzzle_number(self) -> u32 {
        u32::try_from(self.day_number() - FIRST_DAILY.day_number() + 1).unwrap_or(0)
    }
}

/// Milliseconds since the Unix epoch, negative before it.
fn unix_ms(now: SystemTime) -> i64 {
    match now.duration_since(UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_millis()).unwrap_or(i64::MAX),
        Err(e) => -i64::try_from(e.duration().as_millis()).unwrap_or(i64::MAX),
    }
}

/// Milliseconds from `now` until the next 00:00 UTC (1 ..= 86_400_000).
pub fn ms_until_next_utc_day(now: SystemTime) -> u64 {
    (MS_PER_DAY - unix_ms(now).rem_euclid(MS_PER_DAY)) as u64
}

impl FromStr for DailyDate {
    type Err = BadDate;
    fn from_str(s: &str) -> Result<Self, BadDate> {
        let bad = || BadDate(s.chars().take(16).collect());
        let b = s.as_bytes();
        if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
            return Err(bad());
        }
        let num = |r: std::ops::Range<usize>| {
            s.get(r).filter(|x| x.bytes().all(|c| c.is_ascii_digit()))?.parse::<u16>().ok()
        };
        let (Some(y), Some(m), Some(d)) = (num(0..4), num(5..7), num(8..10)) else { return Err(bad()) };
        let month = Month::try_from(u8::try_from(m).map_err(|_| bad())?).map_err(|_| bad())?;
        let day = u8::try_from(d).map_err(|_| bad())?;
        Date::from_calendar_date(i32::from(y), month, day).map(DailyDate).map_err(|_| bad())
    }
}

impl fmt::Display for DailyDate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.0.year(), u8::from(self.0.month()), self.0.day())
    }
}

impl Serialize for DailyDate {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for DailyDate {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration as StdDuration;

    fn date(s: &str) -> DailyDate {
        s.parse().unwrap()
    }

    /// 2026-11-29T00:00:00Z in Unix milliseconds (checked with `date -u -d 2026-11-29 +%s`).
    const NOV29: u64 = 1_795_910_400_000;

    #[test]
    fn dates_are_checked() {
        for ok in ["2026-12-01", "2024-02-29"] {
            assert_eq!(date(ok).to_string(), ok);
        }
        for bad in ["2026-02-29", "2026-13-01", "2026-1-01", "../etc/pw", "+026-12-01", "2026-00-10", ""] {
            assert!(bad.parse::<DailyDate>().is_err(), "{bad:?}");
        }
    }

    #[test]
    fn dates_count_days_and_print_as_they_parse() {
        let d = date("2026-11-29");
        assert_eq!(d, FIRST_DAILY);
        assert_eq!(d.day_number(), (NOV29 / 86_400_000) as i64);
        assert_eq!(DailyDate::from_day_number(0).unwrap().to_string(), "1970-01-01");
        assert_eq!(date("2024-02-28").add_days(1), Some(date("2024-02-29")));
        assert_eq!(date("2026-02-28").add_days(1), Some(date("2026-03-01")));
        assert_eq!(date("2026-12-31").add_days(1), Some(date("2027-01-01")));
        assert_eq!(date("2000-03-01").previous(), date("2000-02-29"));
        assert_eq!(date("1900-03-01").previous(), date("1900-02-28"));
        assert_eq!(serde_json::to_string(&d).unwrap(), "\"2026-11-29\"");
        assert!(serde_json::from_str::<DailyDate>("\"2026-02-30\"").is_err());
        // Every day of four centuries round-trips.
        for day in date("1900-01-01").day_number()..date("2300-01-01").day_number() {
            let s = DailyDate::from_day_number(day).unwrap().to_string();
            assert_eq!(date(&s).day_number(), day, "{s}");
        }
    }

    #[test]
    fn the_day_rolls_over_at_midnight_utc() {
        let at = |ms: u64| UNIX_EPOCH + StdDuration::from_millis(ms);
        assert_eq!(DailyDate::of(at(NOV29 - 1)), date("2026-11-28")); // 23:59:59.999
        assert_eq!(DailyDate::of(at(NOV29)), date("2026-11-29"));
        assert_eq!(DailyDate::of(UNIX_EPOCH - StdDuration::from_millis(1)), date("1969-12-31"));
        assert_eq!(ms_until_next_utc_day(at(NOV29 - 1)), 1);
        assert_eq!(ms_until_next_utc_day(at(NOV29)), 86_400_000);
        assert_eq!(ms_until_next_utc_day(at(NOV29 + 42_000)), 86_400_000 - 42_000);
    }

    #[test]
    fn puzzle_numbers_count_from_the_first_daily() {
        assert_eq!(FIRST_DAILY.puzzle_number(), 1);
        assert_eq!(date("2026-12-01").puzzle_number(), 3);
        assert_eq!(date("2026-11-28").puzzle_number(), 0);
    }
}
