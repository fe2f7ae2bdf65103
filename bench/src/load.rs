//! The load-phase driver: one task per simulated player that sends moves
//! (open loop on a schedule, or closed loop with a window of moves in
//! flight), times every answer from the moment its move was sent, checks it
//! against the local mirror, and times `progress` deliveries to the other
//! members of the room. The same driver, in echo mode, measures the bare
//! echo server with the very same frames.

use mazerace_protocol::messages::PlayerId;
use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::rc::Rc;
use std::time::{Duration, Instant};

use crate::rooms::Player;
use crate::route::Walker;
use crate::stats::Meter;
use crate::ws::{action_frame, parse, In};

/// Moves remembered per player, to time the `progress` that shows them.
const MOVE_LOG_DEPTH: usize = 512;

/// A racer as the whole load knows it: its room ([`Player::room`]) and its
/// player id there. The id alone is not enough behind several nodes, which
/// each number their players from 1: keyed by id, node B's player 5 found
/// node A's player 5's moves, and staleness read seconds (issue 27).
type Mover = (usize, PlayerId);

/// When each player's accepted moves were sent, by the steps they led to.
#[derive(Default)]
pub struct MoveLog(HashMap<Mover, VecDeque<(u32, Instant)>>);

impl MoveLog {
    fn record(&mut self, id: Mover, steps: u32, at: Instant) {
        let q = self.0.entry(id).or_default();
        if q.len() == MOVE_LOG_DEPTH {
            q.pop_front();
        }
        q.push_back((steps, at));
    }

    fn sent_at(&self, id: Mover, steps: u32) -> Option<Instant> {
        self.0.get(&id)?.iter().rev().find(|(s, _)| *s == steps).map(|(_, t)| *t)
    }

    /// When `id`'s moves leading to more than `after` and at most `upto`
    /// steps were sent. Steps only grow (every accepted move adds one), so
    /// these are the newest moves: walked from the back, stopping at the
    /// first one already seen. A filter over the whole log cost 512 steps
    /// per `progress` entry, and at 50,000 frames a second made the load
    /// generator itself late.
    fn sent_between(&self, id: Mover, after: u32, upto: u32) -> impl Iterator<Item = Instant> + '_ {
        let newest_first = self.0.get(&id).into_iter().flat_map(|q| q.iter().rev());
        newest_first.take_while(move |(s, _)| *s > after).filter(move |(s, _)| *s <= upto).map(|(_, t)| *t)
    }
}

/// What one phase shares between its players (one thread, so `RefCell`).
#[derive(Default)]
pub struct Shared {
    pub meter: RefCell<Meter>,
    pub log: RefCell<MoveLog>,
}

/// How a player paces its moves.
#[derive(Clone, Copy, Debug)]
pub enum Pace {
    /// Open loop: one move every `period`, the first at `start + offset`,
    /// whatever the answers do.
    Open { period: Duration, offset: Duration },
    /// Closed loop: keep `window` moves in flight (saturation).
    Closed { window: usize },
}

/// One phase's timing: send from `start` to `stop`, keep reading (answers
/// still in flight, pings) until `linger`.
#[derive(Clone, Copy, Debug)]
pub struct Schedule {
    pub start: Instant,
    pub stop: Instant,
    pub linger: Instant,
}

struct Inflight {
    seq: u32,
    sent: Instant,
    ok: bool,
    steps: u32,
}

/// A player in a load phase.
pub struct Racer {
    pub p: Player,
    pub walker: Walker,
    pub echo: bool,
    seq: u32,
    inflight: VecDeque<Inflight>,
    pub alive: bool,
    /// The steps of each other racer this player last saw in a `progress`.
    seen: HashMap<PlayerId, u32>,
}

impl Racer {
    pub fn new(p: Player, walker: Walker, echo: bool) -> Racer {
        Racer { p, walker, echo, seq: 0, inflight: VecDeque::new(), alive: true, seen: HashMap::new() }
    }

    async fn send_next(&mut self, sh: &Shared, scheduled: Option<Instant>) {
        let Some(plan) = self.walker.next() else { return };
        self.seq = self.seq.wrapping_add(1);
        let seq = self.seq;
        let text = action_frame(plan.action, seq);
        // Timed from just before the write: client-side costs can only make
        // the figure worse, never better.
        let t0 = Instant::now();
        if let Err(e) = self.p.conn.send_text(text).await {
            self.alive = false;
            sh.meter.borrow_mut().error(format!("send: {e:#}"));
            return;
        }
        {
            let mut m = sh.meter.borrow_mut();
            if m.in_window(t0) {
                m.sent += 1;
                if let Some(s) = scheduled {
                    m.lag.record(t0.saturating_duration_since(s));
                }
            }
        }
        self.inflight.push_back(Inflight { seq, sent: t0, ok: plan.ok, steps: plan.steps });
        if plan.ok && !self.echo {
            sh.log.borrow_mut().record((self.p.room, self.p.id), plan.steps, t0);
        }
    }

    fn on_ack(&mut self, sh: &Shared, seq: Option<(u32, bool, u32)>, now: Instant) {
        let mut m = sh.meter.borrow_mut();
        // Answers come in order; anything skipped was lost.
        if let Some((seq, _, _)) = seq {
            while self.inflight.front().is_some_and(|f| f.seq != seq) {
                self.inflight.pop_front();
                m.mismatches += 1;
            }
        }
        let Some(f) = self.inflight.pop_front() else {
            m.mismatches += 1;
            return;
        };
        if m.in_window(f.sent) {
            m.acked += 1;
            m.ack.record(now - f.sent);
        }
        if let Some((_, ok, steps)) = seq {
            if ok != f.ok || steps != f.steps {
                m.mismatches += 1;
            }
        }
    }

    fn on_frame(&mut self, sh: &Shared, text: &str, now: Instant) {
        if self.echo {
            self.on_ack(sh, None, now);
            return;
        }
        match parse(text) {
            Ok(In::Ack { seq, ok, steps, .. }) => self.on_ack(sh, Some((seq, ok, steps)), now),
            Ok(In::Progress(entries)) => {
                let mut m = sh.meter.borrow_mut();
                if m.in_window(now) {
                    m.progress_msgs += 1;
                    m.progress_entries += entries.len() as u64;
                }
                let log = sh.log.borrow();
                for (id, steps) in entries {
                    if id == self.p.id {
                        continue;
                    }
                    let mover = (self.p.room, id);
                    if let Some(sent) = log.sent_at(mover, steps) {
                        if m.in_window(sent) {
                            m.progress_lat.record(now - sent);
                        }
                    }
                    // Staleness: every move this frame is the first to show,
                    // not only the latest (a coalesced frame shows several).
                    let last = self.seen.entry(id).or_insert(0);
                    for sent in log.sent_between(mover, *last, steps) {
                        if m.in_window(sent) {
                            m.stale.record(now - sent);
                        }
                    }
                    *last = (*last).max(steps);
                }
            }
            Ok(In::Other(msg)) => {
                if let mazerace_protocol::messages::ServerMsg::Error { code, message } = *msg {
                    sh.meter.borrow_mut().error(format!("server error {code:?}: {message}"));
                }
            }
            Err(e) => sh.meter.borrow_mut().error(format!("{e:#}")),
        }
    }

    /// Run one phase; returns the player for the next phase (or to close).
    pub async fn drive(mut self, pace: Pace, sched: Schedule, sh: Rc<Shared>) -> Racer {
        let mut next_open = match pace {
            Pace::Open { offset, .. } => sched.start + offset,
            Pace::Closed { .. } => sched.start,
        };
        let sleep = tokio::time::sleep_until(sched.start.into());
        tokio::pin!(sleep);
        let mut armed = None;
        while self.alive {
            let now = Instant::now();
            if now >= sched.linger {
                break;
            }
            let sending = now >= sched.start && now < sched.stop && !self.walker.done();
            let wake = match pace {
                Pace::Closed { window } if sending => {
                    while self.alive && self.inflight.len() < window && !self.walker.done() {
                        self.send_next(&sh, None).await;
                    }
                    sched.stop
                }
                Pace::Open { .. } if sending || now < sched.start => next_open.min(sched.stop),
                _ if now < sched.start => sched.start,
                _ => sched.linger,
            };
            // Re-armed only when the deadline moves: a reset per received
            // frame would be timer-wheel work on this shared machine's cores.
            if armed != Some(wake) || sleep.is_elapsed() {
                sleep.as_mut().reset(wake.into());
                armed = Some(wake);
            }
            tokio::select! {
                biased;
                frame = self.p.conn.recv_text() => match frame {
                    Ok(Some(text)) => self.on_frame(&sh, text.as_str(), Instant::now()),
                    Ok(None) => {
                        self.alive = false;
                        sh.meter.borrow_mut().error("the server closed a connection");
                    }
                    Err(e) => {
                        self.alive = false;
                        sh.meter.borrow_mut().error(format!("{e:#}"));
                    }
                },
                _ = &mut sleep => {
                    if let Pace::Open { period, .. } = pace {
                        let now = Instant::now();
                        if now >= next_open && now >= sched.start && now < sched.stop && !self.walker.done() {
                            self.send_next(&sh, Some(next_open)).await;
                            next_open += period;
                        }
                    }
                }
            }
        }
        // Whatever is still unanswered at the end of the phase is lost.
        let mut m = sh.meter.borrow_mut();
        let lost = self.inflight.iter().filter(|f| m.in_window(f.sent)).count() as u64;
        m.unanswered += lost;
        drop(m);
        self.inflight.clear();
        self
    }
}

impl Racer {
    /// Run several phases in turn (each phase's `linger` should be the next
    /// one's `start`): between its own phases a player keeps reading, so it
    /// answers pings and stays connected while others are measured.
    pub async fn drive_phases(mut self, pace: Pace, phases: Vec<(Schedule, Rc<Shared>)>) -> Racer {
        for (sched, sh) in phases {
            self = self.drive(pace, sched, sh).await;
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Behind two nodes both rooms have a player 1: each room's moves are
    /// its own (keyed by id alone, room 20's lookup found room 10's move).
    #[test]
    fn the_same_player_id_in_two_rooms_is_two_movers() {
        let t0 = Instant::now();
        let mut log = MoveLog::default();
        log.record((10, 1), 1, t0);
        assert_eq!(log.sent_at((10, 1), 1), Some(t0));
        assert_eq!(log.sent_at((20, 1), 1), None);
        assert_eq!(log.sent_between((20, 1), 0, 5).count(), 0);
        log.record((20, 1), 1, t0 + Duration::from_millis(3));
        assert_eq!(log.sent_at((20, 1), 1), Some(t0 + Duration::from_millis(3)));
        assert_eq!(log.sent_at((10, 1), 1), Some(t0));
    }

    /// A coalesced `progress` is the first to show every move after the
    /// steps seen last, up to its own: those and no others.
    #[test]
    fn the_moves_a_progress_shows_first_are_those_after_the_last_seen() {
        let t0 = Instant::now();
        let at = |i: u32| t0 + Duration::from_millis(u64::from(i));
        let mut log = MoveLog::default();
        for steps in 1..=10 {
            log.record((1, 1), steps, at(steps));
        }
        let mut shown: Vec<Instant> = log.sent_between((1, 1), 4, 7).collect();
        shown.sort();
        assert_eq!(shown, vec![at(5), at(6), at(7)]);
        assert_eq!(log.sent_between((1, 1), 10, 12).count(), 0);
        assert_eq!(log.sent_between((1, 1), 0, 10).count(), 10);
    }
}
