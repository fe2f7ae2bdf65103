//! The connection's three deadlines (no `hello` yet, silence, next ping)
//! behind one timer.

use tokio::time::Instant;

use super::ConnLimits;

/// The connection's three deadlines (no `hello` yet, silence, next ping),
/// kept by one timer. A frame only records when it came: the timer is
/// re-armed when it fires, not on every message, so a move costs no timer
/// work, and one timer instead of three is less memory per player.
///
/// Pings go only to a quiet peer: one `ping_interval` after its last frame
/// or our last ping, whichever is later. A racer who moves proves it is
/// there, and pinging every player on a clock was measured at ~12% of the
/// server's CPU at 20,000 players moving once a second.
pub struct Deadlines {
    hello_by: Instant,
    pub last_frame: Instant,
    last_ping: Instant,
}

/// What a fired timer means.
pub enum Due {
    Hello,
    Idle,
    Ping,
    Nothing,
}

impl Deadlines {
    pub fn new(now: Instant, cfg: &ConnLimits) -> Self {
        Deadlines { hello_by: now + cfg.hello_timeout, last_frame: now, last_ping: now }
    }

    pub fn ping_at(&self, cfg: &ConnLimits) -> Instant {
        self.last_frame.max(self.last_ping) + cfg.ping_interval
    }

    /// The first deadline still ahead (`hello_by` counts only before `hello`).
    pub fn next(&self, cfg: &ConnLimits, said_hello: bool) -> Instant {
        let mut at = (self.last_frame + cfg.idle_timeout).min(self.ping_at(cfg));
        if !said_hello {
            at = at.min(self.hello_by);
        }
        at
    }

    /// What is due at `now`, in the order they are checked.
    pub fn due(&mut self, now: Instant, cfg: &ConnLimits, said_hello: bool) -> Due {
        if !said_hello && now >= self.hello_by {
            Due::Hello
        } else if now >= self.last_frame + cfg.idle_timeout {
            Due::Idle
        } else if now >= self.ping_at(cfg) {
            self.last_ping = now;
            Due::Ping
        } else {
            Due::Nothing
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::config::Config;

    fn cfg() -> ConnLimits {
        ConnLimits::new(&Config {
            hello_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(30),
            ping_interval: Duration::from_secs(10),
            ..Config::default()
        })
    }

    #[test]
    fn the_timer_aims_at_the_first_deadline_still_ahead() {
        let (c, t0) = (cfg(), Instant::now());
        let mut d = Deadlines::new(t0, &c);
        assert_eq!(d.next(&c, false), t0 + c.hello_timeout.min(c.ping_interval));
        // A frame late in the window moves both the ping and the silence
        // deadline, and only the timer's next arming sees it.
        d.last_frame = t0 + Duration::from_secs(25);
        assert_eq!(d.next(&c, true), t0 + Duration::from_secs(35), "a ping 10 s after the last frame");
        assert_eq!(d.next(&c, false), t0 + c.hello_timeout, "hello counts only before hello");
    }

    #[test]
    fn what_is_due_comes_in_order_hello_idle_ping() {
        let (c, t0) = (cfg(), Instant::now());
        let mut d = Deadlines::new(t0, &c);
        assert!(matches!(d.due(t0 + Duration::from_secs(5), &c, false), Due::Nothing));
        assert!(matches!(d.due(t0 + Duration::from_secs(10), &c, false), Due::Hello));
        assert!(matches!(d.due(t0 + Duration::from_secs(10), &c, true), Due::Ping));
        assert_eq!(d.ping_at(&c), t0 + Duration::from_secs(20), "a quiet peer: one interval on");
        assert!(matches!(d.due(t0 + Duration::from_secs(15), &c, true), Due::Nothing));
        // A timer armed for the old silence deadline finds a later frame.
        d.last_frame = t0 + Duration::from_secs(20);
        assert!(matches!(d.due(t0 + Duration::from_secs(30), &c, true), Due::Ping));
        assert!(matches!(d.due(t0 + Duration::from_secs(35), &c, true), Due::Nothing));
        assert!(matches!(d.due(t0 + Duration::from_secs(50), &c, true), Due::Idle));
    }

    #[test]
    fn a_peer_that_keeps_talking_is_never_pinged() {
        let (c, t0) = (cfg(), Instant::now());
        let mut d = Deadlines::new(t0, &c);
        for s in 1..=60 {
            let now = t0 + Duration::from_secs(s);
            d.last_frame = now;
            assert!(matches!(d.due(now, &c, true), Due::Nothing), "pinged at {s} s");
        }
    }
}
