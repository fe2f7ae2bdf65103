//! The actor's part in a move off a draining node (issue 27): the room is
//! exported and posted (`crate::moves`, spawned: a room never waits on
//! storage), changes are refused while it waits, and the answer either
//! sends every member to the new room and ends this one, or leaves it here.

use std::sync::Arc;

use mazerace_protocol::messages::{ErrorCode, RoomRef, ServerMsg};
use tracing::Instrument;

use super::Actor;
use crate::room::state::error;
use crate::room::{Input, RoomCmd};

/// What members hear if they ask for a change while their room moves.
const MOVING: &str = "this room is moving to another server; one moment";

/// Where a room is in its move off a draining node.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Move {
    /// Not begun (the node is not draining, or the room may not move yet).
    Stay,
    /// Posted, waiting for another node to adopt it.
    Moving,
    /// Adopted elsewhere: the room ends.
    Gone,
    /// Nobody adopted it: it stays until the node exits, as before.
    Failed,
}

impl Actor {
    /// While the room moves, what would change what the export holds is
    /// refused (`true`: answered here).
    pub(super) fn refused_while_moving(&self, input: &Input) -> bool {
        if self.moving != Move::Moving {
            return false;
        }
        let changes = match input {
            Input::Start { id }
            | Input::Rematch { id, .. }
            | Input::SetMatch { id, .. }
            | Input::AddRival { id, .. }
            | Input::Hold { id }
            | Input::NextRound { id } => Some(*id),
            _ => None,
        };
        let Some(id) = changes else { return false };
        self.send_to(id, &error(ErrorCode::WrongPhase, MOVING));
        true
    }

    /// While the node drains, a room that may move (`export.rs`) is posted
    /// for another node to adopt; [`RoomCmd::Moved`] brings the answer.
    pub(super) fn move_if_draining(&mut self) {
        if self.moving != Move::Stay || !self.env.drain.is_draining() || self.env.moves.mailbox().is_none() {
            return;
        }
        let Some(export) = self.room.export() else { return };
        let payload = match serde_json::to_string(&export) {
            Ok(p) => p,
            Err(e) => return tracing::error!(error = %e, "room export failed: the room stays"),
        };
        self.moving = Move::Moving;
        let hold = self.env.drain.hold();
        let old = RoomRef { code: self.code.to_string(), key: self.room.settings.key.to_string() };
        let (moves, me) = (Arc::clone(&self.env.moves), self.me.clone());
        tracing::info!(members = export.members.len(), "room moving off this draining node");
        self.env.tracker.spawn(
            async move {
                let to = moves.send_away(&old, &payload).await;
                if let Some(tx) = me.upgrade() {
                    let _ = tx.send(RoomCmd::Moved { to, hold }).await;
                }
            }
            .in_current_span(),
        );
    }

    /// The move is settled: members hear where their room is now, and this
    /// one ends (the node remembers where it went); or it stays.
    pub(super) fn moved(&mut self, to: Option<RoomRef>) {
        if self.moving != Move::Moving {
            return;
        }
        match to {
            Some(to) => {
                tracing::info!(to = %to.code, "room moved");
                let old = RoomRef { code: self.code.to_string(), key: self.room.settings.key.to_string() };
                self.env.moves.remember(&old, &to);
                let msg = ServerMsg::RoomMoved { code: to.code, key: to.key };
                for (_, o) in &self.outboxes {
                    o.send_msg(&msg);
                }
                self.moving = Move::Gone;
            }
            None => self.moving = Move::Failed,
        }
    }
}
