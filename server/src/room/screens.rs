//! Screens: a TV or projector showing the room for everyone in it (the
//! party screen). A screen is a member of its own kind: it watches (it
//! gets what a spectator gets: never a seed or a board before its time),
//! never races, never hosts while a player is in, is never listed in
//! `room.players` (`room.screens` counts them), and sits outside
//! `max_players` and the spectators' cap, at most `--max-screens` a room.
//!
//! A party room is made by its screen (`create_room` with `party`): the
//! first player who joins is its host, and the host is handed on among the
//! players as ever. A room holding only screens (nobody joined yet, or
//! everyone left) closes after `--screen-alone-secs`: a TV left on in an
//! empty house does not hold a room for ever. Same [`Room`] as `state.rs`.

use mazerace_protocol::messages::{ErrorCode, PlayerId, ServerMsg};
use tokio::time::Instant;

use super::input::Input;
use super::state::{error, Room};

impl Input {
    /// The sender of a command a screen may not give (to host, to be
    /// ready, to give up): every input but joining, leaving, connections,
    /// renames, the store's and the timer's. A move (`Act`, `Dropped`) is
    /// not looked at here, on the move path: a screen never races, so its
    /// move is refused where any watcher's is ([`Room::not_racing`]).
    pub(super) fn screens_refuse(&self) -> Option<PlayerId> {
        match self {
            Input::Ready { id, .. }
            | Input::Start { id }
            | Input::GiveUp { id }
            | Input::Rematch { id, .. }
            | Input::AddRival { id, .. }
            | Input::RemoveRival { id, .. }
            | Input::SetMatch { id, .. }
            | Input::Hold { id }
            | Input::NextRound { id } => Some(*id),
            Input::Act { .. }
            | Input::Dropped { .. }
            | Input::Join { .. }
            | Input::Connected { .. }
            | Input::Disconnected { .. }
            | Input::Leave { .. }
            | Input::Rename { .. }
            | Input::DailySaved { .. }
            | Input::RivalLoaded { .. }
            | Input::Claim { .. }
            | Input::Tick => None,
        }
    }
}

/// What a screen is told when it asks to race or host.
pub(super) const SCREEN_REFUSED: &str = "a screen shows the room: it does not race or host";

impl Room {
    /// The refusal of a move by `id`, who is not racing (`why`): a screen
    /// is told it is a screen, anyone else `not_racing`.
    pub(super) fn not_racing(&self, id: PlayerId, why: &str) -> ServerMsg {
        match self.is_screen(id) {
            true => error(ErrorCode::Screen, SCREEN_REFUSED),
            false => error(ErrorCode::NotRacing, why),
        }
    }

    /// Screens showing the room.
    pub(super) fn screen_count(&self) -> u32 {
        self.members.iter().filter(|m| m.screen).count() as u32
    }

    /// Keeps the clock of a room that holds only screens: started when the
    /// last player goes (or at once, for a party room nobody joined), let go
    /// when a player comes; when it runs out, every screen is told and
    /// leaves, and the room (empty) closes.
    pub(super) fn watch_screens_alone(&mut self, now: Instant) {
        let alone = !self.members.is_empty() && self.members.iter().all(|m| m.screen);
        match (alone, self.screens_alone_until) {
            (false, _) => self.screens_alone_until = None,
            (true, None) => self.screens_alone_until = Some(now + self.timings.screens_alone),
            (true, Some(until)) if until <= now => self.close_to_screens(),
            (true, Some(_)) => {}
        }
    }

    fn close_to_screens(&mut self) {
        let secs = self.timings.screens_alone.as_secs();
        let why = format!("this room closed: nobody played in it for {} minutes", secs.div_ceil(60));
        tracing::info!(secs, "room closed: only screens were left in it");
        for m in std::mem::take(&mut self.members) {
            self.fx.to(m.id, error(ErrorCode::Screen, &why));
        }
        self.screens_alone_until = None;
    }
}
