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
//!
//! Every join (`join_league`, `POST /api/leagues/{code}/join`) also spends
//! one of the address's league joins (`--league-joins`), key or not: a
//! fresh player token costs nothing, so without it one address filled a
//! league with 49 puppets in 0.11 s (issue 34). One budget serves both
//! paths because both pass here with the same limiter.

use mazerace_protocol::messages::{ErrorCode, ServerMsg};

use super::error::DailyError;
use super::seam::{DailyHook, LeagueAsker, LeagueOp};
use crate::edge::limits::JoinLimiter;
use crate::metrics::{self, Budget};

/// The refusal once an address has spent its failed joins.
pub const TOO_MANY_MISSES: &str = "too many failed joins; wait a minute";

/// The refusal once an address has spent its league joins.
pub const TOO_MANY_JOINS: &str = "too many league joins from your network address; wait a minute";

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
/// the league's invite key, and a join to its league-join budget `joins`.
pub async fn league(
    hook: &dyn DailyHook,
    misses: &JoinLimiter,
    joins: &JoinLimiter,
    asker: LeagueAsker,
    op: LeagueOp,
) -> Result<ServerMsg, DailyError> {
    let ip = asker.address;
    let counted = by_code(&op) && !keyed(hook, &op);
    if counted && !misses.allowed(ip) {
        return Err(DailyError::denied(ErrorCode::TooManyJoins, TOO_MANY_MISSES));
    }
    // Spent before the store is asked (whatever it answers), so requests
    // in flight together cannot pass the budget.
    if matches!(op, LeagueOp::Join { .. }) && !joins.take(ip) {
        metrics::budget_refused(Budget::LeagueJoins);
        return Err(DailyError::denied(ErrorCode::JoinsTooFast, TOO_MANY_JOINS));
    }
    let answer = hook.league(asker, op).await;
    if counted && matches!(&answer, Err(DailyError::Denied(ErrorCode::LeagueNotFound, _))) {
        misses.failed(ip);
    }
    answer
}
