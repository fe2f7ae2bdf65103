//! [`ServerMsg`] to JSON text. serde's derive writes `move_result` and
//! `rewind_result` through `flatten` (the view's fields sit in the message
//! itself), which goes through serde's map machinery field by field: on the
//! most frequent frame of all that was ~7% of the server's user time at
//! saturation (bench/RESULTS.md). Those two are written through a flat
//! mirror struct instead; every other message goes through the derive. A
//! test holds both ways to the same bytes.

use serde::Serialize;

use super::ServerMsg;
use crate::grid::Pos;
use crate::play::{GameView, Reject, Status};

/// `move_result` / `rewind_result` as one flat struct, fields in the order
/// the derive writes them.
#[derive(Serialize)]
struct Answer<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    seq: u32,
    ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: &'a Option<Reject>,
    pos: Pos,
    steps: u32,
    status: Status,
    #[serde(skip_serializing_if = "Option::is_none")]
    run: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    steps_left: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ghost: Option<Pos>,
    #[serde(skip_serializing_if = "Option::is_none")]
    gate_open: Option<bool>,
}

impl<'a> Answer<'a> {
    fn new(kind: &'static str, seq: u32, ok: bool, reason: &'a Option<Reject>, view: &GameView) -> Self {
        let g = view.ghost.as_ref();
        Answer {
            kind,
            seq,
            ok,
            reason,
            pos: view.pos,
            steps: view.steps,
            status: view.status,
            run: g.map(|g| g.run),
            steps_left: g.map(|g| g.steps_left),
            ghost: g.and_then(|g| g.ghost),
            gate_open: g.map(|g| g.gate_open),
        }
    }
}

impl ServerMsg {
    /// This message as a JSON text frame (what `serde_json::to_string`
    /// gives, faster for the answers to moves).
    pub fn to_json(&self) -> serde_json::Result<String> {
        match self {
            ServerMsg::MoveResult { seq, ok, reason, view } => {
                serde_json::to_string(&Answer::new("move_result", *seq, *ok, reason, view))
            }
            ServerMsg::RewindResult { seq, ok, reason, view } => {
                serde_json::to_string(&Answer::new("rewind_result", *seq, *ok, reason, view))
            }
            other => serde_json::to_string(other),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::play::GhostView;

    #[test]
    fn the_answers_are_written_as_the_derive_writes_them() {
        let at = |row, col| Pos { row, col };
        let ghost = |run, ghost| GhostView { run, steps_left: 9, ghost, gate_open: run == 2 };
        let views = [
            GameView { pos: at(1, 0), steps: 1, status: Status::Playing, ghost: None },
            GameView { pos: at(3, 4), steps: 7, status: Status::Won, ghost: Some(ghost(1, None)) },
            GameView {
                pos: at(0, 2),
                steps: 12,
                status: Status::OutOfSteps,
                ghost: Some(ghost(2, Some(at(2, 2)))),
            },
        ];
        for view in views {
            for (ok, reason) in [(true, None), (false, Some(Reject::Wall)), (false, Some(Reject::NoRewind))] {
                for msg in [
                    ServerMsg::MoveResult { seq: 41, ok, reason, view: view.clone() },
                    ServerMsg::RewindResult { seq: 7, ok, reason, view: view.clone() },
                ] {
                    let derived = serde_json::to_string(&msg).unwrap();
                    assert_eq!(msg.to_json().unwrap(), derived);
                    assert_eq!(
                        serde_json::from_str::<ServerMsg>(&derived).unwrap(),
                        msg,
                        "and it reads back"
                    );
                }
            }
        }
    }

    #[test]
    fn other_messages_go_through_the_derive() {
        let msg = ServerMsg::ServerShutdown;
        assert_eq!(msg.to_json().unwrap(), serde_json::to_string(&msg).unwrap());
    }
}
