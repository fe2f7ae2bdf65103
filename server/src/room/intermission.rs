//! The countdown between two rounds of a match, as the room's stage holds
//! it (`matches.rs` runs it; data only, no [`super::state::Room`]).

use mazerace_protocol::messages::ServerMsg;
use tokio::time::Instant;

/// The countdown between two rounds of a match.
#[derive(Clone, Debug)]
pub(super) struct Intermission {
    /// The round that comes next.
    pub round: u32,
    /// Countdown steps left before it.
    pub left: u32,
    /// When the next step is due (while not held).
    pub next: Instant,
    /// Held by the host until then at the latest.
    pub held_until: Option<Instant>,
    /// This intermission was held already (once each).
    pub was_held: bool,
}

impl Intermission {
    /// When the timer must wake for it.
    pub fn due(&self) -> Instant {
        self.held_until.unwrap_or(self.next)
    }

    pub fn message(&self) -> ServerMsg {
        let held = self.held_until.is_some();
        ServerMsg::Intermission { round: self.round, seconds: (!held).then_some(self.left), held }
    }
}
