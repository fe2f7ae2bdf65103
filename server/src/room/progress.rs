//! `progress` coalescing: when the next one may go out. A room sends at most
//! one `progress` per window; a change inside the window waits for its
//! end, a change after a quiet spell goes out at once. What changed is kept
//! on each racer ([`Change`]); this is only the clock. [`RoomUpdates`] is
//! the same clock for the `room` message (`updates.rs` sends it).
//!
//! The window is adaptive ([`Window`]): its floor (`--progress-ms`) when the
//! server is quiet, widening up to its ceiling (`--progress-max-ms`) as the
//! runtime gets busy ([`crate::load`]). In a room of 8 at a move a second
//! per racer a move lands every ~125 ms, so a 50 ms window sends one
//! `progress` to seven or eight sockets per move; a wider one lets a frame
//! carry two or three racers' moves when the machine needs the saving.

use std::time::Duration;

use mazerace_protocol::messages::PlayerId;
use tokio::time::Instant;

use crate::load::Permille;

/// Below this load the window is its floor. Measured (bench/RESULTS.md):
/// rooms of 8 at 10,000 players kept the workers ~40% busy and their tail
/// collapsed past ~50%, so the window is wide before that.
const QUIET: Permille = 200;
/// At and above this load the window is its ceiling.
const BUSY: Permille = 500;

/// The range of the progress window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub floor: Duration,
    pub ceil: Duration,
}

impl Window {
    /// The window at load `level`: the floor up to [`QUIET`], the ceiling
    /// from [`BUSY`], linear between (whole milliseconds).
    pub fn at(&self, level: Permille) -> Duration {
        let ceil = self.ceil.max(self.floor);
        if level <= QUIET {
            return self.floor;
        }
        if level >= BUSY {
            return ceil;
        }
        let span = (ceil - self.floor).as_millis() as u64;
        let part = span * u64::from(level - QUIET) / u64::from(BUSY - QUIET);
        self.floor + Duration::from_millis(part)
    }
}

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

/// The progress clock.
#[derive(Clone, Debug)]
pub struct Coalescer {
    window: Window,
    /// When the pending `progress` goes out, if one is pending.
    due: Option<Instant>,
    last: Option<Instant>,
}

impl Coalescer {
    pub fn new(window: Window) -> Self {
        Coalescer { window, due: None, last: None }
    }

    /// Something changed at `now`, with the server at load `level`: a
    /// `progress` is due at the end of the current window (or now, if the
    /// window is already over).
    pub fn schedule(&mut self, now: Instant, level: Permille) {
        if self.due.is_none() {
            let earliest = self.last.map_or(now, |t| t + self.window.at(level));
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

/// Where the room's next `room` message stands.
#[derive(Clone, Debug)]
pub struct RoomUpdates {
    pub(super) clock: Coalescer,
    /// The room changed since its last `room` went out.
    pub(super) pending: bool,
    /// A `room` went out during the input being handled (the clock learns
    /// it, with the input's time, when the input is settled).
    pub(super) sent: bool,
    /// A member who was sent the room as it stands during the input being
    /// handled (a joiner, or a resumer in their snapshot).
    pub(super) told: Option<PlayerId>,
}

impl RoomUpdates {
    pub fn new(window: Duration) -> Self {
        RoomUpdates {
            clock: Coalescer::new(Window { floor: window, ceil: window }),
            pending: false,
            sent: false,
            told: None,
        }
    }

    /// When the pending `room` is due, if one is pending.
    pub fn due(&self) -> Option<Instant> {
        self.clock.due().filter(|_| self.pending)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_after_a_quiet_spell_goes_at_once_and_the_next_waits_a_window() {
        let t0 = Instant::now();
        let ms = Duration::from_millis;
        let mut c = Coalescer::new(Window { floor: ms(50), ceil: ms(50) });
        c.schedule(t0, 0);
        assert_eq!(c.due(), Some(t0));
        c.flushed(t0, true);
        c.schedule(t0 + ms(10), 0);
        assert_eq!(c.due(), Some(t0 + ms(50)), "inside the window: wait for its end");
        c.schedule(t0 + ms(20), 0);
        assert_eq!(c.due(), Some(t0 + ms(50)), "one pending progress, not two");
        assert!(!c.is_due(t0 + ms(49)) && c.is_due(t0 + ms(50)));
        c.flushed(t0 + ms(50), true);
        c.schedule(t0 + ms(200), 0);
        assert_eq!(c.due(), Some(t0 + ms(200)));
    }

    #[test]
    fn the_window_widens_with_the_load_between_its_floor_and_ceiling() {
        let ms = Duration::from_millis;
        let w = Window { floor: ms(50), ceil: ms(200) };
        assert_eq!(w.at(0), ms(50));
        assert_eq!(w.at(QUIET), ms(50), "quiet: the floor");
        assert_eq!(w.at((QUIET + BUSY) / 2), ms(125), "half way: half way");
        assert_eq!(w.at(BUSY), ms(200));
        assert_eq!(w.at(1000), ms(200), "never past the ceiling");
        let fixed = Window { floor: ms(50), ceil: ms(10) };
        assert_eq!(fixed.at(1000), ms(50), "a ceiling under the floor means a fixed window");
    }

    #[test]
    fn a_busy_server_holds_the_next_progress_for_the_wider_window() {
        let t0 = Instant::now();
        let ms = Duration::from_millis;
        let mut c = Coalescer::new(Window { floor: ms(50), ceil: ms(200) });
        c.schedule(t0, 1000);
        assert_eq!(c.due(), Some(t0), "after a quiet spell it goes at once, busy or not");
        c.flushed(t0, true);
        c.schedule(t0 + ms(10), 1000);
        assert_eq!(c.due(), Some(t0 + ms(200)));
    }
}
