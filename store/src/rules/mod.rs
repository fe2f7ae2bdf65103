//! The one layer that holds the store's rules, written once for both
//! databases against [`Db`]: the salt made once, one ranked run per player
//! and board (decided by the database), the per-address cap, a run ending
//! once, ranks and entrants from the per-board counters, streaks, leases,
//! and the league limits. A backend supplies a connection and its
//! [`crate::db::Dialect`]; the SQL here is shared, with the few fragments
//! that differ filled in per dialect.
//!
//! - [`runs`]: the writes of a run's life (salt, begin, finish, leases);
//! - [`reads`]: tables, ranks, streaks, replays, a player's day;
//! - [`leagues`]: leagues and their members, with their limits;
//! - [`convert`]: columns into the crate's types, the finish's encoding.
//!
//! Every function here runs on one connection inside the request the
//! store gave it; a write opens its transaction itself (`Db::begin`) and
//! commits it, and an early return leaves the rollback to the backend.

pub(crate) mod convert;
pub(crate) mod leagues;
pub(crate) mod reads;
pub(crate) mod runs;

use mazerace_protocol::{Game, Size};

use crate::db::Db;
use crate::error::StoreError;

/// Refuse a board address whose size is not one of its game's.
pub(crate) fn check_board(game: Game, size: Size) -> Result<(), StoreError> {
    if size.game() != game {
        return Err(StoreError::Invalid(format!("{size} is not a {game} size")));
    }
    Ok(())
}

/// Take the dialect's cross-node lock on `key` (class `class`) until the
/// commit; nothing where the write transaction already serialises writers.
pub(crate) async fn lock(db: &mut dyn Db, key: &str, class: i64) -> Result<(), StoreError> {
    if let Some(sql) = db.dialect().lock {
        db.execute(sql, &crate::db::params![key, class]).await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    /// Every shared statement renders without a stray `$` or `{`: what
    /// [`crate::db::Dialect`]'s rendering relies on.
    #[test]
    fn shared_statements_use_only_parameters_and_known_fragments() {
        for dialect in [&crate::sqlite::DIALECT, &crate::postgres::DIALECT] {
            let own = [Some(dialect.count_step), dialect.lock];
            for sql in super::runs::STATEMENTS
                .iter()
                .chain(super::reads::STATEMENTS)
                .chain(super::leagues::STATEMENTS)
                .copied()
                .chain(own.into_iter().flatten())
            {
                let text = sql.text(dialect);
                assert!(!text.contains('{') && !text.contains('}'), "unfilled fragment: {text}");
                let stray = if dialect.numbered_with == '?' { '$' } else { '?' };
                assert!(!text.contains(stray), "{stray} in {text}");
            }
        }
    }
}
