//! `progress` coalescing: when the next one may go out. A room sends at most
//! one `progress` per `interval`; a change inside the window waits for its
//! end, a change after a quiet spell goes out at once. What changed is kept
//! on each racer ([`Change`]); this is only the clock.

use std::time::Duration;

use tokio::time::Instant;

/// What the next `progress` has to say about a racer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    None,
    /// Only this racer's own accepted moves or rewinds, each already told
    /// to them in its `move_result` / `rewind_result`.
    OwnActions,
    /// Something the racer may not know yet (they left, gave up, the time
    /// ran out).
    Other,
}

impl Change {
    /// The change after an accepted action of the racer's own.
    pub fn with_own_action(self) -> Change {
        match self {
            Change::None => Change::OwnActions,
            other => other,
        }
    }
}

/// The progress window.
#[derive(Clone, Debug)]
pub struct Coalescer {
    interval: Duration,
    /// When the pending `progress` goes out, if one is pending.
    due: Option<Instant>,
    last: Option<Instant>,
}

impl Coalescer {
    pub fn new(interval: Duration) -> Self {
        Coalescer { interval, due: None, last: None }
    }

    /// Something changed at `now`: a `progress` is due at the end of the
    /// current window (or now, if the window is already over).
    pub fn schedule(&mut self, now: Instant) {
        if self.due.is_none() {
            let earliest = self.last.map_or(now, |t| t + self.interval);
            self.due = Some(earliest.max(now));
        }
    }

    pub fn due(&self) -> Option<Instant> {
        self.due
    }

    pub fn is_due(&self, now: Instant) -> bool {
        self.due.is_some_and(|t| t <= now)
    }

    /// A `progress` went out (or was found empty) at `now`.
    pub fn flushed(&mut self, now: Instant, sent: bool) {
        self.due = None;
        if sent {
            self.last = Some(now);
        }
    }

    /// Nothing more to send (the race is over).
    pub fn cancel(&mut self) {
        self.due = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_after_a_quiet_spell_goes_at_once_and_the_next_waits_a_window() {
        let t0 = Instant::now();
        let ms = Duration::from_millis;
        let mut c = Coalescer::new(ms(50));
        c.schedule(t0);
        assert_eq!(c.due(), Some(t0));
        c.flushed(t0, true);
        c.schedule(t0 + ms(10));
        assert_eq!(c.due(), Some(t0 + ms(50)), "inside the window: wait for its end");
        c.schedule(t0 + ms(20));
        assert_eq!(c.due(), Some(t0 + ms(50)), "one pending progress, not two");
        assert!(!c.is_due(t0 + ms(49)) && c.is_due(t0 + ms(50)));
        c.flushed(t0 + ms(50), true);
        c.schedule(t0 + ms(200));
        assert_eq!(c.due(), Some(t0 + ms(200)));
    }
}
