//! What the room's state machine asks the world to do. The state machine
//! ([`super::state::Room`]) never touches a socket, a task or the store: it
//! appends [`Effect`]s to a buffer, and the actor ([`super::actor`]) carries
//! them out in order. Unit tests read the same buffer.
//!
//! The buffer is reused from one command to the next, so the move path
//! allocates nothing for it once warm.

use mazerace_protocol::messages::{PlayerId, ServerMsg};

use crate::daily::{DailyOutcome, DailyRun, RivalQuery};

/// One thing to do, in the order the state machine decided it.
#[derive(Debug)]
pub enum Effect {
    /// A message to one member (dropped if they are disconnected).
    To(PlayerId, ServerMsg),
    /// A message to every connected member.
    All(ServerMsg),
    /// A message to every connected member except one.
    AllBut(PlayerId, ServerMsg),
    /// A `progress` with the racers that changed (`players` of the message);
    /// a member whose previous `progress` is still unsent gets the full list
    /// instead ([`super::state::Room::full_progress`]). `skip` gets nothing:
    /// their own moves were the only change, and their results said so.
    Progress { delta: ServerMsg, skip: Option<PlayerId> },
    /// A daily attempt is about to start: the store saves it first, and
    /// answers with [`super::input::Input::DailySaved`].
    DailyStarted { player: PlayerId, run: DailyRun },
    /// A daily attempt ended: store it, then tell the player.
    DailyEnded { player: PlayerId, run: DailyRun, outcome: DailyOutcome },
    /// `add_rival`: find the stored run (as `token`'s player may see it);
    /// answered with [`super::input::Input::RivalLoaded`].
    LoadRival { player: PlayerId, query: RivalQuery, token: String },
}

/// The buffer [`Effect`]s are written to.
#[derive(Debug, Default)]
pub struct Effects {
    list: Vec<Effect>,
}

impl Effects {
    pub fn push(&mut self, e: Effect) {
        self.list.push(e);
    }

    pub fn to(&mut self, id: PlayerId, msg: ServerMsg) {
        self.push(Effect::To(id, msg));
    }

    pub fn all(&mut self, msg: ServerMsg) {
        self.push(Effect::All(msg));
    }

    /// The buffer itself, for the actor to swap with its own.
    pub fn list(&mut self) -> &mut Vec<Effect> {
        &mut self.list
    }

    #[cfg(test)]
    pub fn take(&mut self) -> Vec<Effect> {
        std::mem::take(&mut self.list)
    }
}
