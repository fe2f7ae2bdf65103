//! The daily seed (RULES.md "Daily seed"): a stable, documented hash of the
//! UTC date, the game, the size and a secret salt, so every server with the
//! same salt agrees and nobody without it can compute tomorrow's board.
//!
//! `seed = first 8 bytes, big-endian, of HMAC-SHA-256(key = salt,
//! message = "mazerace daily v1|YYYY-MM-DD|game|size")`.

use std::fmt;
use std::str::FromStr;
use std::time::{SystemTime, UNIX_EPOCH};

use hmac::{Hmac, Mac};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use sha2::Sha256;
use time::{Date, Duration, Month};

use crate::grid::{Game, Size};

/// A daily board's day: a UTC calendar date, `YYYY-MM-DD` on the wire. It is
/// parsed once where a date comes in (a message, a URL, the database), so
/// everything past that edge holds a real date; one calendar (the `time`
/// crate's) serves the server and the store.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DailyDate(Date);

/// Why a text is not a [`DailyDate`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("dates are YYYY-MM-DD, and {0:?} is not a real one")]
pub struct BadDate(pub String);

const MS_PER_DAY: i64 = 86_400_000;

impl DailyDate {
    /// The UTC day of `now` (the day changes at 00:00:00.000 UTC).
    pub fn of(now: SystemTime) -> DailyDate {
        let ms = match now.duration_since(UNIX_EPOCH) {
            Ok(d) => i64::try_from(d.as_millis()).unwrap_or(i64::MAX),
            Err(e) => -i64::try_from(e.duration().as_millis()).unwrap_or(i64::MAX),
        };
        DailyDate::from_day_number(ms.div_euclid(MS_PER_DAY)).unwrap_or(DailyDate(Date::MAX))
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

    /// `days` later (earlier when negative).
    pub fn add_days(self, days: i64) -> Option<DailyDate> {
        self.0.checked_add(Duration::days(days)).map(DailyDate)
    }
}

/// 1970-01-01, day 0 of [`DailyDate::day_number`].
const UNIX_DAY0: Date = match Date::from_calendar_date(1970, Month::January, 1) {
    Ok(d) => d,
    Err(_) => panic!("1970-01-01 is a date"),
};

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

/// The daily seed for one board.
pub fn daily_seed(salt: &[u8], date: &str, game: Game, size: Size) -> u64 {
    // HMAC accepts keys of any length, so this cannot fail.
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(salt).unwrap_or_else(|_| unreachable!());
    mac.update(format!("mazerace daily v1|{date}|{game}|{size}").as_bytes());
    let digest = mac.finalize().into_bytes();
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    u64::from_be_bytes(first)
}

/// Whether `date` is a real calendar date written `YYYY-MM-DD`.
pub fn is_valid_date(date: &str) -> bool {
    date.parse::<DailyDate>().is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_checked() {
        assert!(is_valid_date("2026-12-01"));
        assert!(is_valid_date("2024-02-29"));
        assert!(!is_valid_date("2026-02-29"));
        assert!(!is_valid_date("2026-13-01"));
        assert!(!is_valid_date("2026-1-01"));
        assert!(!is_valid_date("../etc/pw"));
        assert!(!is_valid_date("+026-12-01"));
        assert!(!is_valid_date("2026-00-10"));
    }

    #[test]
    fn dates_count_days_and_print_as_they_parse() {
        let d: DailyDate = "2026-11-29".parse().unwrap();
        assert_eq!(d.to_string(), "2026-11-29");
        assert_eq!(d.day_number(), 1_795_910_400_000 / 86_400_000);
        assert_eq!(DailyDate::from_day_number(0).unwrap().to_string(), "1970-01-01");
        assert_eq!("2024-02-28".parse::<DailyDate>().unwrap().add_days(1).unwrap().to_string(), "2024-02-29");
        assert_eq!(
            "2000-03-01".parse::<DailyDate>().unwrap().add_days(-1).unwrap().to_string(),
            "2000-02-29"
        );
        let t = UNIX_EPOCH + std::time::Duration::from_millis(1_795_910_400_000);
        assert_eq!(DailyDate::of(t), d);
        assert_eq!(DailyDate::of(t - std::time::Duration::from_millis(1)).to_string(), "2026-11-28");
        assert_eq!(serde_json::to_string(&d).unwrap(), "\"2026-11-29\"");
        assert!(serde_json::from_str::<DailyDate>("\"2026-02-30\"").is_err());
    }

    #[test]
    fn seeds_differ_by_every_input() {
        let a = daily_seed(b"salt", "2026-12-01", Game::Ghost, Size::Small);
        assert_ne!(a, daily_seed(b"salt", "2026-12-02", Game::Ghost, Size::Small));
        assert_ne!(a, daily_seed(b"salt", "2026-12-01", Game::Ghost, Size::Medium));
        assert_ne!(a, daily_seed(b"pepper", "2026-12-01", Game::Ghost, Size::Small));
        assert_eq!(a, daily_seed(b"salt", "2026-12-01", Game::Ghost, Size::Small));
    }
}
