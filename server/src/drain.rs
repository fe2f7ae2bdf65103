//! The drain: how a node leaves without ending the races on it. Owns the
//! "draining" flag (set once, never cleared) and the count of rooms that
//! are playing (counting down, racing, or between two rounds of a match),
//! which rooms keep up to date as their phase changes, and the [`Hold`]s:
//! work a room must finish before the node may exit (a room posted for
//! another node whose members are not told yet, `crate::moves`; a daily
//! result being committed whose player is not told yet).
//!
//! While draining, `/healthz` answers 503 "draining", requests that name no
//! room get 503 (a load balancer retries them on another node),
//! `create_room` is refused with `draining`; rooms already here go on.
//! [`crate::server::Server::drain`] ends the node once nothing is playing
//! or held, or when `--drain-secs` is over, whichever comes first.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use mazerace_protocol::messages::Phase;
use tokio::sync::Notify;

/// The node's drain state, shared by the HTTP side, connections and rooms.
#[derive(Default)]
pub struct Drain {
    draining: AtomicBool,
    /// Rooms in a phase [`playing`] counts.
    playing: AtomicUsize,
    /// [`Hold`]s alive.
    held: AtomicUsize,
    /// Woken each time `playing` or `held` drops to zero.
    idle: Notify,
}

/// Whether a room in `phase` has a race going (or a match's next round
/// coming): a drain waits for it.
pub fn playing(phase: Phase) -> bool {
    match phase {
        Phase::Countdown | Phase::Racing | Phase::Intermission => true,
        Phase::Lobby | Phase::Results => false,
    }
}

impl Drain {
    /// Starts draining; `false` if it already was.
    pub fn begin(&self) -> bool {
        !self.draining.swap(true, Ordering::SeqCst)
    }

    pub fn is_draining(&self) -> bool {
        self.draining.load(Ordering::SeqCst)
    }

    /// A room went from `from` to `to` (`None`: no room, made or ended).
    pub fn room_phase(&self, from: Option<Phase>, to: Option<Phase>) {
        let (was, is) = (from.is_some_and(playing), to.is_some_and(playing));
        if is && !was {
            self.playing.fetch_add(1, Ordering::SeqCst);
        } else if was && !is && self.playing.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.idle.notify_waiters();
        }
    }

    /// Rooms playing now.
    pub fn playing_rooms(&self) -> usize {
        self.playing.load(Ordering::SeqCst)
    }

    /// Work the node waits for before it exits, until the value is dropped
    /// (carried in the command that tells the room the work is done, so a
    /// command dropped unread lets go too).
    pub fn hold(self: &Arc<Self>) -> Hold {
        self.held.fetch_add(1, Ordering::SeqCst);
        Hold(Arc::clone(self))
    }

    /// [`Hold`]s alive now.
    pub fn held(&self) -> usize {
        self.held.load(Ordering::SeqCst)
    }

    /// Returns once no room is playing and nothing is held (at once if so
    /// now). A room whose race ends while draining takes its holds before
    /// it leaves the playing count, so the two are never both zero between.
    pub async fn races_over(&self) {
        loop {
            // Registered before the check, so a drop to zero in between wakes it.
            let woken = self.idle.notified();
            tokio::pin!(woken);
            woken.as_mut().enable();
            if self.playing_rooms() == 0 && self.held() == 0 {
                return;
            }
            woken.await;
        }
    }
}

/// See [`Drain::hold`].
pub struct Hold(Arc<Drain>);

impl Drop for Hold {
    fn drop(&mut self) {
        if self.0.held.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.0.idle.notify_waiters();
        }
    }
}

impl std::fmt::Debug for Hold {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Hold")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_drain_waits_for_playing_rooms_only() {
        let d = std::sync::Arc::new(Drain::default());
        assert!(d.begin() && !d.begin(), "begun once");
        d.room_phase(None, Some(Phase::Lobby));
        d.room_phase(Some(Phase::Lobby), Some(Phase::Countdown));
        d.room_phase(None, Some(Phase::Lobby));
        d.room_phase(Some(Phase::Lobby), Some(Phase::Countdown));
        d.room_phase(Some(Phase::Countdown), Some(Phase::Racing));
        assert_eq!(d.playing_rooms(), 2);
        let waiter = std::sync::Arc::clone(&d);
        let waiting = tokio::spawn(async move { waiter.races_over().await });
        // The single-threaded test runtime runs the waiter up to its await.
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished());
        d.room_phase(Some(Phase::Racing), Some(Phase::Intermission));
        d.room_phase(Some(Phase::Countdown), None);
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished(), "a match between rounds is still playing");
        d.room_phase(Some(Phase::Intermission), Some(Phase::Results));
        waiting.await.expect("the waiter returns once nothing plays");
        assert_eq!(d.playing_rooms(), 0);
    }

    #[tokio::test]
    async fn the_drain_waits_for_what_rooms_hold_too() {
        let d = std::sync::Arc::new(Drain::default());
        d.begin();
        d.room_phase(None, Some(Phase::Racing));
        // The race ends while draining: its move (or its daily result) is
        // held before it stops playing.
        let (moving, committing) = (d.hold(), d.hold());
        d.room_phase(Some(Phase::Racing), Some(Phase::Results));
        let waiter = std::sync::Arc::clone(&d);
        let waiting = tokio::spawn(async move { waiter.races_over().await });
        tokio::task::yield_now().await;
        drop(moving);
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished(), "a daily result not yet told holds the node");
        drop(committing);
        waiting.await.expect("the waiter returns once nothing is held");
        assert_eq!(d.held(), 0);
    }
}
