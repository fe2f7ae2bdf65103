//! The per-address budget every league request passes before the daily
//! hook, on the socket and over HTTP alike (both call [`league`]): a code
//! that names no league, on any path (`join_league`, `league_board`,
//! `league_standings`, their routes), costs the address a failed join
//! from the same budget as an unknown room code, and once it is spent
//! every lookup by code from that address is refused with `too_many_joins`
//! until it refills. Before, only joins counted: the reads answered
//! `league_not_found` for ever, 30.8k codes a second.
//!
//! A lookup that brings the league's invite key (its link's `?k=`, see
//! [`keyed`]) neither spends nor is refused by that budget: a guesser on
//! your network cannot lock your friends out of a league they were sent,
//! while a code typed alone stays joinable but held to the budget.

use mazerace_protocol::messages::{ErrorCode, ServerMsg};

use super::error::DailyError;
use super::seam::{DailyHook, LeagueAsker, LeagueOp};
use crate::edge::limits::JoinLimiter;

/// The refusal once an address has spent its failed joins.
pub const TOO_MANY_MISSES: &str = "too many failed joins; wait a minute";

/// Whether `op` looks a league up by a code the asker typed or was given.
fn by_code(op: &LeagueOp) -> bool {
    matches!(op, LeagueOp::Join { .. } | LeagueOp::Board { .. } | LeagueOp::Standings { .. })
}

/// Whether `op` brings the invite key of the league it names.
pub fn keyed(hook: &dyn DailyHook, op: &LeagueOp) -> bool {
    op.invite().is_some_and(|(code, key)| hook.league_key_opens(code, key))
}

/// Runs `op` for `asker` through `hook`, held to the address's failed-join
/// budget `misses` (the one room codes spend) when it names a code without
/// the league's invite key.
pub async fn league(
    hook: &dyn DailyHook,
    misses: &JoinLimiter,
    asker: LeagueAsker,
    op: LeagueOp,
) -> Result<ServerMsg, DailyError> {
    let ip = asker.address;
    let counted = by_code(&op) && !keyed(hook, &op);
    if counted && !misses.allowed(ip) {
        return Err(DailyError::denied(ErrorCode::TooManyJoins, TOO_MANY_MISSES));
    }
    let answer = hook.league(asker, op).await;
    if counted && matches!(&answer, Err(DailyError::Denied(ErrorCode::LeagueNotFound, _))) {
        misses.failed(ip);
    }
    answer
}
