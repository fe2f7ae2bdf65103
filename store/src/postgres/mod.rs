//! The shared-database [`Backend`] for several nodes (issue 14): PostgreSQL
//! through the synchronous `postgres` client, which fits the store's design
//! (each backend lives on its own std thread behind the store's bounded
//! queue, so a blocking client never blocks the async runtime; the store
//! runs a few such workers, one connection each, which is its pool).
//!
//! Connection health: before every request the connection is checked
//! (`is_closed`: the client's I/O task saw the socket end) and re-made when
//! gone; a request that fails because the database is unreachable or timed
//! out returns [`StoreError::Unavailable`] and drops the connection, so the
//! next request connects afresh; it also tells the process's other
//! connections (the shared count in [`Identity`]), which re-make theirs
//! before their next request, so after a database restart one request
//! fails, not one per connection. A write is never retried blindly (its
//! commit may have happened). Every connection gets a statement and a lock
//! timeout, so a stuck database answers "unavailable" instead of hanging.
//!
//! The rules live in the database as in SQLite: a partial unique index for
//! one ranked run per player and board, taken with `INSERT .. ON CONFLICT DO
//! NOTHING` (atomic across nodes), the salt made once the same way, and
//! `SELECT .. FOR UPDATE` so a run ends once.

mod finish;
mod leagues;
mod queries;
pub mod schema;

/// Ranked finishes per board and step count, as one relation to sum: the
/// 16-shard counters of schema version 5, and the single counters that
/// nodes of the previous build keep during an upgrade (`schema.rs`).
macro_rules! step_counts {
    () => {
        "(SELECT date, game, size, steps, n FROM board_steps
          UNION ALL SELECT date, game, size, steps, n FROM board_step_shards)"
    };
}
use step_counts;

use std::sync::atomic::Ordering;
use std::time::Duration;

use postgres::{Client, GenericClient, IsolationLevel, NoTls};

use crate::error::StoreError;
use crate::node::{Identity, NodeOptions};
use crate::sql::RawRun;

pub use schema::SCHEMA_VERSION;

/// How long connecting may take before the database counts as unreachable.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// After a failed connect, requests fail at once for this long instead of
/// each waiting out a connect timeout (a database host that drops packets
/// would otherwise hold the store's worker 5 s per request).
const RECONNECT_AFTER: Duration = Duration::from_secs(1);

/// Set on every connection: a statement or a lock wait longer than this
/// fails as unavailable rather than holding the store's worker; and no
/// NOTICEs (the migration's `CREATE TABLE IF NOT EXISTS` sent one per
/// connection, which the client logs at info: 16 lines a node start).
const SESSION_SETUP: &str =
    "SET statement_timeout = '10s'; SET lock_timeout = '5s'; SET client_min_messages = warning";

/// The PostgreSQL backend: one connection, re-made when it dies.
pub struct PostgresBackend {
    config: postgres::Config,
    client: Option<Live>,
    /// No connect is tried before this, after a failed one.
    retry_at: Option<std::time::Instant>,
    /// `me.lost` when this connection was made: a larger count means another
    /// connection of this process found the database gone since.
    made_at_lost: u64,
    me: Identity,
}

impl std::fmt::Debug for PostgresBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresBackend").field("node", &self.me.node).field("boot", &self.me.boot).finish()
    }
}

/// Whether a database URL names PostgreSQL (`postgres://` or `postgresql://`).
pub fn is_postgres_url(url: &str) -> bool {
    url.starts_with("postgres://") || url.starts_with("postgresql://")
}

impl PostgresBackend {
    /// Connect and migrate, as the single anonymous node on the system clock.
    pub fn connect(url: &str) -> Result<PostgresBackend, StoreError> {
        Self::connect_as(url, NodeOptions::default())
    }

    /// Connect to `url` (a `postgres://` URL), migrate, and take a lease as `node`.
    pub fn connect_as(url: &str, node: NodeOptions) -> Result<PostgresBackend, StoreError> {
        Self::connect_with(url, Identity::new(node)?)
    }

    /// One more connection of a process that is already `me` (one store's
    /// several connections share a node and boot id).
    pub(crate) fn connect_with(url: &str, me: Identity) -> Result<PostgresBackend, StoreError> {
        if !is_postgres_url(url) {
            return Err(StoreError::Invalid("a PostgreSQL URL starts with postgres://".into()));
        }
        // The URL may hold a password: never echo it in the error.
        let mut config: postgres::Config = url.parse().map_err(|e: postgres::Error| {
            StoreError::Invalid(format!("the database URL is not valid: {e}"))
        })?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        config.keepalives(true).keepalives_idle(Duration::from_secs(30));
        if config.get_application_name().is_none() {
            config.application_name("mazerace");
        }
        let mut b = PostgresBackend { config, client: None, retry_at: None, made_at_lost: 0, me };
        b.with(|c, _| schema::migrate(c))?;
        b.with(renew_lease)?;
        Ok(b)
    }

    /// Run `f` on a live connection; drop the connection when `f` says the
    /// database is unavailable, so the next call connects again.
    fn with<T>(
        &mut self,
        f: impl FnOnce(&mut Client, &Identity) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.with_live(|live, me| f(&mut live.client, me))
    }

    /// [`PostgresBackend::with`], with the connection's prepared statements.
    fn with_live<T>(
        &mut self,
        f: impl FnOnce(&mut Live, &Identity) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let lost = self.me.lost.load(Ordering::Relaxed);
        if self.client.as_ref().is_some_and(|c| c.client.is_closed() || self.made_at_lost != lost) {
            self.client = None;
        }
        let client = match &mut self.client {
            Some(c) => c,
            slot => {
                if self.retry_at.is_some_and(|at| std::time::Instant::now() < at) {
                    return Err(StoreError::Unavailable(
                        "the database could not be reached a moment ago; trying again shortly".into(),
                    ));
                }
                let connected =
                    self.config.connect(NoTls).and_then(|mut c| c.batch_execute(SESSION_SETUP).map(|()| c));
                match connected {
                    Ok(c) => {
                        self.retry_at = None;
                        self.made_at_lost = lost;
                        slot.insert(Live { client: c, finish: None })
                    }
                    Err(e) => {
                        self.retry_at = Some(std::time::Instant::now() + RECONNECT_AFTER);
                        return Err(StoreError::Unavailable(Box::new(e)));
                    }
                }
            }
        };
        let out = f(client, &self.me);
        if matches!(out, Err(StoreError::Unavailable(_))) {
            self.client = None;
            self.me.lost.fetch_add(1, Ordering::Relaxed);
        }
        out
    }
}

/// One connection and what is prepared on it (gone with it).
struct Live {
    client: Client,
    /// `finish_run`'s statement, prepared on first use (see [`finish`]).
    finish: Option<postgres::Statement>,
}

fn renew_lease(c: &mut Client, me: &Identity) -> Result<(), StoreError> {
    c.execute(
        "INSERT INTO nodes (boot, node, lease_until_ms) VALUES ($1, $2, $3)
         ON CONFLICT (boot) DO UPDATE SET lease_until_ms = excluded.lease_until_ms",
        &[&me.boot, &me.node, &me.lease_until_ms()],
    )?;
    Ok(())
}

/// One column of a row, typed; a mismatch is an error, never a panic.
fn col<'a, T: postgres::types::FromSql<'a>>(row: &'a postgres::Row, i: usize) -> Result<T, StoreError> {
    row.try_get(i).map_err(StoreError::from)
}

/// A count (`COUNT(*)`, a rank) from a one-row query.
fn count(
    c: &mut impl GenericClient,
    sql: &str,
    params: &[&(dyn postgres::types::ToSql + Sync)],
) -> Result<u32, StoreError> {
    let row = c.query_one(sql, params)?;
    crate::sql::to_u32(col::<i64>(&row, 0)?, "count")
}

/// One `runs` row read in [`crate::sql::RUN_COLUMNS`] order.
pub(super) fn raw_run(r: &postgres::Row) -> Result<RawRun, StoreError> {
    Ok(RawRun {
        id: col(r, 0)?,
        date: col(r, 1)?,
        game: col(r, 2)?,
        size: col(r, 3)?,
        seed: col(r, 4)?,
        name: col(r, 5)?,
        ranked: col(r, 6)?,
        state: col(r, 7)?,
        steps: col(r, 8)?,
        time_ms: col(r, 9)?,
        actions: col(r, 10)?,
        times: col(r, 11)?,
    })
}

/// Which of a board's 16 entrant counters a start adds to: any, at random.
pub(super) fn entrant_shard() -> Result<i32, StoreError> {
    let mut b = [0u8; 1];
    getrandom::fill(&mut b).map_err(|e| std::io::Error::other(format!("no OS entropy: {e}")))?;
    Ok(i32::from(b[0] & 15))
}

/// A read-only snapshot, so a table, `you` and `entrants` agree.
pub(super) fn snapshot(c: &mut Client) -> Result<postgres::Transaction<'_>, StoreError> {
    Ok(c.build_transaction().isolation_level(IsolationLevel::RepeatableRead).read_only(true).start()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::Backend;

    /// Needs `MAZERACE_TEST_DATABASE_URL` (as the store's test suite).
    #[test]
    fn an_unreachable_database_fails_fast_until_the_retry_time() {
        let Ok(url) = std::env::var("MAZERACE_TEST_DATABASE_URL") else {
            eprintln!("skipped: MAZERACE_TEST_DATABASE_URL is not set");
            return;
        };
        let mut b = PostgresBackend::connect(&url).unwrap();
        b.ping().unwrap();
        // The server "goes away": the connection is gone and nothing listens.
        b.client = None;
        b.config = "postgres://nobody@127.0.0.1:1/none".parse().unwrap();
        let first = b.ping().unwrap_err();
        assert!(
            matches!(first, StoreError::Unavailable(_)) && !first.to_string().contains("a moment ago"),
            "{first}"
        );
        let second = b.ping().unwrap_err();
        assert!(second.to_string().contains("a moment ago"), "no second connect so soon: {second}");
        // Once the retry time has passed, connecting is tried again.
        b.retry_at = Some(std::time::Instant::now());
        assert!(!b.ping().unwrap_err().to_string().contains("a moment ago"));
    }
}
