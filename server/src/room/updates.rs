//! `room` coalescing: the room's public state goes out at most once per
//! window (`Config::room_interval`, 250 ms), the way `progress` does: a change after a quiet
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
//! A joiner is told at once (their own `room`, one frame to one socket,
//! before their `snapshot` in a race) even when the others wait for the
//! window's end: they asked, and the join budget per address bounds how
//! often anyone can. A resuming member's `snapshot` is their room. Either
//! way, should the others' `room` go out in the same input, it skips them.
//!
//! Same [`Room`] as `state.rs`; the clock is [`super::progress::RoomUpdates`].

use mazerace_protocol::messages::{PlayerId, ServerMsg};
use tokio::time::Instant;

use super::effects::Effect;
use super::state::Room;

impl Room {
    /// The room's public state changed: a `room` goes out, now or at the
    /// end of the window ([`Room::settle_room`]).
    pub(super) fn broadcast_room(&mut self) {
        self.updates.pending = true;
    }

    /// `id` joined: they get the room at once, whatever the window.
    pub(super) fn tell_joiner(&mut self, id: PlayerId) {
        let room = ServerMsg::Room(self.room_info());
        self.fx.to(id, room);
        self.room_told(id);
    }

    /// The room changed, and `id` has been sent it as it stands now.
    pub(super) fn room_told(&mut self, id: PlayerId) {
        self.broadcast_room();
        self.updates.told = Some(id);
    }

    /// Sends the pending `room` now (nothing if none is pending): the state
    /// a phase ends in, before what the next phase says.
    pub(super) fn flush_room(&mut self) {
        self.flush_room_but(None);
    }

    /// [`Room::flush_room`] to every member but `skip`.
    fn flush_room_but(&mut self, skip: Option<PlayerId>) {
        self.updates.told = None;
        if !std::mem::take(&mut self.updates.pending) {
            return;
        }
        self.updates.sent = true;
        let room = ServerMsg::Room(self.room_info());
        match skip {
            Some(id) => self.fx.push(Effect::AllBut(id, room)),
            None => self.fx.all(room),
        }
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
        let told = self.updates.told.take();
        if self.updates.pending {
            self.updates.clock.schedule(now, 0);
            if self.updates.clock.is_due(now) {
                self.flush_room_but(told);
                self.updates.sent = false;
                self.updates.clock.flushed(now, true);
            }
        }
    }
}
