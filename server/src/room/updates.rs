//! `room` coalescing: the room's public state goes out at most once per
//! window ([`ROOM_WINDOW`]), the way `progress` does: a change after a quiet
//! spell goes out at once, the changes inside the window after it go out
//! together at its end, on the room's own timer. Without it every join,
//! leave, ready flag and rename was one `room` to every member, each one
//! carrying the member list: 30 spectators joining and leaving from one
//! address sent each racer 11,340 of them in 10 s (10.4 MB), and members
//! reading at 20 KB/s were closed as too slow (4002) within 2 s.
//!
//! A `room` is built when it goes out, never when it is asked for, so it
//! always shows the latest state. A message that belongs to a room state
//! (`countdown`, `race_start`, `results`, `intermission`, `match_over`)
//! goes out through [`Room::announce`], which sends a pending `room` first:
//! a client never sees a phase's message before the `room` of that phase.
//! A `snapshot` carries its own `room`, the latest, so it needs none.
//!
//! The joiner of a lobby is told at once (their own `room`, one frame to
//! one socket) even when the others wait for the window's end: they asked,
//! and the join budget per address bounds how often anyone can.
//!
//! Same [`Room`] as `state.rs`; the clock is [`super::progress::Coalescer`].

use std::time::Duration;

use mazerace_protocol::messages::{PlayerId, ServerMsg};
use tokio::time::Instant;

use super::progress::{Coalescer, Window};
use super::state::Room;

/// At most one `room` per room per this (four a second): a lobby filling
/// up, ready flags and renames show within a quarter of a second, and a
/// join/leave loop costs each member at most four frames a second.
pub const ROOM_WINDOW: Duration = Duration::from_millis(250);

/// Where the room's next `room` message stands.
#[derive(Clone, Debug)]
pub(super) struct RoomUpdates {
    clock: Coalescer,
    /// The room changed since its last `room` went out.
    pending: bool,
    /// A `room` went out during the input being handled (the clock learns
    /// it, with the input's time, when the input is settled).
    sent: bool,
    /// A member who joined the lobby in the input being handled.
    joiner: Option<PlayerId>,
}

impl RoomUpdates {
    pub fn new(window: Duration) -> Self {
        RoomUpdates {
            clock: Coalescer::new(Window { floor: window, ceil: window }),
            pending: false,
            sent: false,
            joiner: None,
        }
    }

    /// When the pending `room` is due, if one is pending.
    pub fn due(&self) -> Option<Instant> {
        self.clock.due().filter(|_| self.pending)
    }
}

impl Room {
    /// The room's public state changed: a `room` goes out, now or at the
    /// end of the window ([`Room::settle_room`]).
    pub(super) fn broadcast_room(&mut self) {
        self.updates.pending = true;
    }

    /// `id` joined the lobby: they get the room at once, whatever the window.
    pub(super) fn tell_joiner(&mut self, id: PlayerId) {
        self.broadcast_room();
        self.updates.joiner = Some(id);
    }

    /// Sends the pending `room` now (nothing if none is pending).
    pub(super) fn flush_room(&mut self) {
        if !std::mem::take(&mut self.updates.pending) {
            return;
        }
        self.updates.sent = true;
        self.updates.joiner = None;
        let room = ServerMsg::Room(self.room_info());
        self.fx.all(room);
    }

    /// `msg` to everyone, after the `room` of the state it belongs to.
    pub(super) fn announce(&mut self, msg: ServerMsg) {
        self.flush_room();
        self.fx.all(msg);
    }

    /// After each input at `now`: the clock learns of a `room` sent during
    /// it, and a pending one goes out if its window is over (else it is due
    /// at the window's end, [`Room::next_wake`]).
    pub(super) fn settle_room(&mut self, now: Instant) {
        if std::mem::take(&mut self.updates.sent) {
            self.updates.clock.flushed(now, true);
        }
        if self.updates.pending {
            self.updates.clock.schedule(now, 0);
            if self.updates.clock.is_due(now) {
                self.flush_room();
                self.updates.sent = false;
                self.updates.clock.flushed(now, true);
            }
        }
        if let Some(id) = self.updates.joiner.take() {
            let room = ServerMsg::Room(self.room_info());
            self.fx.to(id, room);
        }
    }
}
