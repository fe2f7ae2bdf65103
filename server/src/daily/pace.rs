//! The ranked pace: how fast a ranked daily run may move (the floor, set
//! from a published figure of human input), and whether a finished run was
//! paced at that floor end to end (stored with the run, so a table can show
//! or hide such runs, and ranked tied on time: at the floor only steps count).

use std::time::Duration;

use tokio::time::Instant;

/// The least time between two accepted ranked moves, sustained: 80 ms, the
/// keystroke time of the fastest typists in the Keystroke-Level Model
/// ("best typist, 135 wpm: 0.08 s" for K; Card, Moran and Newell, "The
/// keystroke-level model for user performance time with interactive
/// systems", Communications of the ACM 23(7), 1980, pp. 396-410). A maze
/// move is a keystroke with a decision in it, so no one plays a whole board
/// faster than the best typists type. Before: 25 ms (40 moves a second),
/// and a paced bot finished the easy maze in about 1 s, ranked #1.
pub const HUMAN_FLOOR: Duration = Duration::from_millis(80);

/// Moves let through at once above the floor (a quick double tap, or the
/// moves queued while a key was held).
pub const HUMAN_BURST: u32 = 3;

/// A run counts as paced at the floor when its whole time is within this
/// share (in percent) above the least the floor allows for its moves.
pub const AT_FLOOR_MARGIN_PERCENT: u64 = 10;

/// Human pacing for ranked daily moves: at most one accepted move per
/// `floor` sustained, `burst` at once (a generic cell rate algorithm, so no
/// timer is needed). A refused move is not applied and sets nothing back,
/// so a client that waits a floor is always let through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pace {
    pub floor: Duration,
    pub burst: u32,
}

impl Pace {
    /// Whether a move at `now` is allowed given the racer's `due`; if so,
    /// the new `due`.
    pub(crate) fn admit(&self, due: Option<Instant>, now: Instant) -> Option<Instant> {
        let tat = due.map_or(now, |d| d.max(now));
        let slack = self.floor * self.burst.saturating_sub(1);
        (tat.saturating_duration_since(now) <= slack).then_some(tat + self.floor)
    }

    /// The least time from the first to the last of `moves` accepted moves
    /// under this pace: the first `burst` at once, then one a floor.
    pub fn least_ms(&self, moves: usize) -> u64 {
        let sustained = moves.saturating_sub(self.burst as usize) as u64;
        sustained.saturating_mul(self.floor.as_millis() as u64)
    }

    /// Whether a run of `moves` accepted moves that took `time_ms` (first
    /// move to last) was paced at the floor end to end: no more than
    /// [`AT_FLOOR_MARGIN_PERCENT`] slower than the least the floor allows.
    /// A run no longer than the burst, or an unpaced one (a zero floor),
    /// says nothing and is never flagged.
    pub fn at_floor(&self, moves: usize, time_ms: u64) -> bool {
        let least = self.least_ms(moves);
        least > 0 && time_ms.saturating_mul(100) <= least.saturating_mul(100 + AT_FLOOR_MARGIN_PERCENT)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HUMAN: Pace = Pace { floor: HUMAN_FLOOR, burst: HUMAN_BURST };

    #[test]
    fn the_least_time_is_the_burst_at_once_then_one_move_a_floor() {
        assert_eq!(HUMAN.least_ms(0), 0);
        assert_eq!(HUMAN.least_ms(3), 0);
        // The easy maze's 42 moves: 39 after the burst, 80 ms each.
        assert_eq!(HUMAN.least_ms(42), 39 * 80);
    }

    #[test]
    fn a_run_within_the_margin_of_the_floor_is_flagged_and_a_slower_one_is_not() {
        let least = 39 * 80;
        assert!(HUMAN.at_floor(42, least), "exactly at the floor");
        assert!(HUMAN.at_floor(42, least + least / 10), "10% over: still at the floor");
        assert!(!HUMAN.at_floor(42, least + least / 10 + 1), "past the margin");
        assert!(!HUMAN.at_floor(42, 20_110), "a fast human: 42 moves in 20 s");
        assert!(!HUMAN.at_floor(3, 0), "no longer than the burst: nothing to tell");
        let unpaced = Pace { floor: Duration::ZERO, burst: 3 };
        assert!(!unpaced.at_floor(42, 0), "a zero floor flags nothing");
    }
}
