//! [`Input`]: everything the room's state machine takes, one variant per
//! thing that can happen to a room; `Room::apply` (`state.rs`) dispatches
//! each to its handler. A new room command is most often a new variant
//! here plus its arm in `apply` (the whole note on adding a command, and
//! when it is a `RoomCmd` instead, is in `mod.rs`).

use std::sync::Arc;

use mazerace_protocol::matches::MatchSettings;
use mazerace_protocol::messages::{ErrorCode, PlayerId, RivalPick};
use mazerace_protocol::Action;
use tokio::time::Instant;

use crate::daily::RivalRun;

/// One thing that happened to the room: what the state machine takes, and
/// (as [`super::RoomCmd::Input`]) what most senders send it, unchanged on
/// the way (the note on adding a command is in `mod.rs`).
#[derive(Debug)]
pub enum Input {
    /// A player joins (the actor has checked [`super::state::Room::check_join`]), or a
    /// screen (`screen`: checked by [`super::state::Room::check_screen`]).
    Join {
        id: PlayerId,
        name: Arc<str>,
        token: Arc<str>,
        spectate: bool,
        screen: bool,
    },
    /// A member's connection is back.
    Connected {
        id: PlayerId,
    },
    /// A member's connection dropped; they may resume.
    Disconnected {
        id: PlayerId,
    },
    /// A member left (or `expired`: stayed away past the resume window).
    Leave {
        id: PlayerId,
        expired: bool,
    },
    Ready {
        id: PlayerId,
        ready: bool,
    },
    Start {
        id: PlayerId,
    },
    Act {
        id: PlayerId,
        seq: u32,
        action: Action,
        /// When the connection read the frame: the actor times the answer
        /// from it (the ack latency metric); the rules go by `now`.
        at: Instant,
    },
    /// The connection's flood gate dropped this action unread: answered by
    /// its `seq`, refused as `rate_limited`, the game unchanged.
    Dropped {
        id: PlayerId,
        seq: u32,
        action: Action,
    },
    GiveUp {
        id: PlayerId,
    },
    /// `seed` is the new board's, drawn by the caller (the state machine has
    /// no randomness of its own); unused for `same_board`.
    Rematch {
        id: PlayerId,
        same_board: bool,
        seed: u64,
        match_seed: u64,
    },
    Rename {
        id: PlayerId,
        name: Arc<str>,
    },
    /// The daily store saved racer `id`'s attempt (`Some(ranked)`) or could
    /// not (`None`).
    DailySaved {
        id: PlayerId,
        ranked: Option<crate::daily::DailyStart>,
    },
    /// `add_rival` (host, lobby): a stored run by id, or a pick.
    AddRival {
        id: PlayerId,
        run_id: Option<i64>,
        pick: Option<RivalPick>,
    },
    /// The store's answer to an `add_rival` of `id`.
    RivalLoaded {
        id: PlayerId,
        run: Result<Box<RivalRun>, (ErrorCode, String)>,
    },
    RemoveRival {
        id: PlayerId,
        rival: PlayerId,
    },
    /// `set_match` (host, lobby): a match of several rounds, or single
    /// races; `seed` is a new match seed, drawn by the caller.
    SetMatch {
        id: PlayerId,
        format: Option<MatchSettings>,
        seed: u64,
    },
    /// `hold` (host, a match's intermission).
    Hold {
        id: PlayerId,
    },
    /// `next_round` (host, a match's intermission).
    NextRound {
        id: PlayerId,
    },
    /// A moved room's placeholder `id` was claimed by its `token` (before
    /// the player's reattach, in the same inbox).
    Claim {
        id: PlayerId,
        token: Arc<str>,
    },
    /// The timer fired: whatever is due at `now` happens.
    Tick,
}
