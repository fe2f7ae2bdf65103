//! What stays secret while a daily day is on, and when it stops being: the
//! day's seeds (their commitments are published instead, and the seeds
//! revealed once the day is over), a daily seed as a private room's board,
//! and other players' runs on the day's boards ([`super::visible`] applies
//! [`day_is_on`] to replays and rivals). The one rule is "until 00:00 UTC
//! after the board's day"; a new secret (a ranked run's solution in the
//! room's results, say) asks [`day_is_on`] too.

use mazerace_protocol::daily::reveal::{commitments, reveal, Commitments};
use mazerace_protocol::daily::{daily_seed, DailyDate};
use mazerace_protocol::Size;

use super::seam::{RevealAnswer, COMMIT_DAYS};

/// Whether `date`'s boards are still being played on `today` (or are yet
/// to come): their secrets are kept.
pub fn day_is_on(date: DailyDate, today: DailyDate) -> bool {
    date >= today
}

/// Whether `seed` is a daily board's seed whose day is not over (today's or
/// one of the next [`COMMIT_DAYS`] days', any game or size).
pub fn is_active_daily_seed(salt: &[u8], today: DailyDate, seed: u64) -> bool {
    (0..=COMMIT_DAYS)
        .filter_map(|d| today.add_days(d))
        .any(|date| Size::ALL.iter().any(|&size| daily_seed(salt, date, size.game(), size) == seed))
}

/// The commitments of today's boards and the next [`COMMIT_DAYS`] days'.
pub fn published(salt: &[u8], today: DailyDate) -> Commitments {
    commitments(salt, today, COMMIT_DAYS)
}

/// A day's seeds once it is over; `NotYet` before.
pub fn revealed(salt: &[u8], today: DailyDate, date: DailyDate) -> RevealAnswer {
    if day_is_on(date, today) {
        return RevealAnswer::NotYet;
    }
    RevealAnswer::Revealed(reveal(salt, date))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(s: &str) -> DailyDate {
        s.parse().unwrap()
    }

    #[test]
    fn a_day_is_secret_until_it_is_over() {
        let today = day("2026-12-01");
        assert!(day_is_on(today, today) && day_is_on(day("2026-12-02"), today));
        assert!(!day_is_on(day("2026-11-30"), today));
        assert_eq!(revealed(b"salt", today, today), RevealAnswer::NotYet);
        assert!(
            matches!(revealed(b"salt", today, day("2026-11-30")), RevealAnswer::Revealed(r) if r.boards.len() == 6)
        );
        let seed = daily_seed(b"salt", day("2026-12-08"), Size::Small.game(), Size::Small);
        assert!(is_active_daily_seed(b"salt", today, seed), "a week ahead is still secret");
        assert!(!is_active_daily_seed(b"salt", day("2026-12-09"), seed), "its day is over");
    }
}
