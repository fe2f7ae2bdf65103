//! The embedded default database: one SQLite file under the data
//! directory, opened with WAL, `synchronous=FULL` (a commit survives power
//! loss, which is what "acknowledged only after it is committed" needs),
//! foreign keys on and a busy timeout. The schema lives in [`schema`]; the
//! connection's one thread, its queue and its group commit in [`worker`].
//!
//! What differs from PostgreSQL inside the shared statements ([`DIALECT`]):
//! a ranked run is `ranked = 1`, the form the partial indexes are written
//! in (SQLite uses a partial index only for a query that names its very
//! expression); times are `strftime` text; no row locks and no advisory
//! locks (an immediate transaction holds the one write lock); finishes are
//! counted in one `board_steps` row per step count (one writer commits at a
//! time, so no counter row is ever waited on).

pub mod schema;
pub(crate) mod worker;

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::Connection;

use crate::db::{BoxFuture, Db, Dialect, Param, Row, Sql, TxKind, Value};
use crate::error::StoreError;

pub use schema::SCHEMA_VERSION;

/// The database file's name inside the data directory.
pub const DB_FILE: &str = "mazerace.sqlite";

/// How long a statement waits for another connection's lock before failing.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// Room for every shared statement in the connection's prepared-statement cache.
const STATEMENT_CACHE: usize = 64;

static COUNT_STEP: Sql = Sql::new(
    "INSERT INTO board_steps (date, game, size, steps, n) VALUES ($1, $2, $3, $4, 1)
     ON CONFLICT (date, game, size, steps) DO UPDATE SET n = board_steps.n + 1",
);

/// SQLite's side of the shared statements.
pub(crate) static DIALECT: Dialect = Dialect {
    index: 0,
    numbered_with: '?',
    fragments: &[
        ("ranked", "ranked = 1"),
        ("r_ranked", "r.ranked = 1"),
        ("now", "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"),
        ("started_at", "strftime('%Y-%m-%dT%H:%M:%SZ', started_at)"),
        ("for_update", ""),
        ("step_counts", "board_steps"),
    ],
    // Immediate: the write lock is taken up front, so two writers never
    // both read and then fail to upgrade, and a count and the insert after
    // it see no other writer in between.
    begin_write: "BEGIN IMMEDIATE",
    begin_snapshot: "BEGIN",
    lock: None,
    count_step: &COUNT_STEP,
    entrant_shards: 1,
};

/// Where the database lives inside a data directory.
pub fn db_path(data_dir: impl AsRef<Path>) -> PathBuf {
    data_dir.as_ref().join(DB_FILE)
}

/// One SQLite connection, as the rules use it. Lives on the store's worker
/// thread; its calls are synchronous, so each future it returns is ready.
pub(crate) struct SqliteDb {
    conn: Connection,
}

impl SqliteDb {
    /// Open (creating the file and its directories if needed) and migrate.
    pub fn open(path: &Path) -> Result<SqliteDb, StoreError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        // SQLite takes an empty file for a new database: it would get a new
        // salt, so new boards and empty leaderboards. Refuse instead.
        match std::fs::metadata(path) {
            Ok(m) if m.is_file() && m.len() == 0 => return Err(StoreError::EmptyDatabaseFile(path.into())),
            _ => {}
        }
        let conn = Connection::open(path)?;
        let mode: String = conn.pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get(0))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(StoreError::Invalid(format!(
                "{} cannot use WAL (journal_mode is {mode})",
                path.display()
            )));
        }
        Self::setup(conn)
    }

    /// A private database that lives as long as this value: for tests.
    pub fn open_in_memory() -> Result<SqliteDb, StoreError> {
        Self::setup(Connection::open_in_memory()?)
    }

    fn setup(mut conn: Connection) -> Result<SqliteDb, StoreError> {
        conn.busy_timeout(BUSY_TIMEOUT)?;
        conn.pragma_update(None, "synchronous", "FULL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
        schema::migrate(&mut conn)?;
        Ok(SqliteDb { conn })
    }

    /// Whether a transaction is open (a request returned inside one).
    pub fn in_transaction(&self) -> bool {
        !self.conn.is_autocommit()
    }

    /// Roll back a transaction a request left open.
    pub fn roll_back_open(&mut self) {
        if self.in_transaction() {
            // The next BEGIN fails loudly if the connection is really stuck.
            if let Err(e) = self.conn.execute_batch("ROLLBACK") {
                tracing::warn!(error = %e, "rolling back an open SQLite transaction failed");
            }
        }
    }

    fn statement<'c>(
        conn: &'c Connection,
        sql: &'static Sql,
        params: &[Param<'_>],
    ) -> Result<rusqlite::CachedStatement<'c>, StoreError> {
        let mut stmt = conn.prepare_cached(sql.text(&DIALECT))?;
        let wanted = stmt.parameter_count();
        if params.len() < wanted {
            return Err(StoreError::Invalid(format!("{} values for {wanted} parameters", params.len())));
        }
        // A dialect's statement may use fewer of the values the rules pass
        // (SQLite's step counter has no shard): those are not bound.
        for (i, p) in params.iter().take(wanted).enumerate() {
            stmt.raw_bind_parameter(i + 1, Bind(p))?;
        }
        Ok(stmt)
    }

    fn run_query(&mut self, sql: &'static Sql, params: &[Param<'_>]) -> Result<Vec<Row>, StoreError> {
        let mut stmt = Self::statement(&self.conn, sql, params)?;
        let columns = stmt.column_count();
        let mut rows = stmt.raw_query();
        let mut out = Vec::new();
        while let Some(r) = rows.next()? {
            let mut row = Vec::with_capacity(columns);
            for i in 0..columns {
                row.push(match r.get_ref(i)? {
                    ValueRef::Null => Value::Null,
                    ValueRef::Integer(v) => Value::Int(v),
                    ValueRef::Text(t) => Value::Text(
                        std::str::from_utf8(t)
                            .map_err(|e| StoreError::Corrupt(format!("stored text: {e}")))?
                            .to_owned(),
                    ),
                    ValueRef::Blob(b) => Value::Bytes(b.to_vec()),
                    ValueRef::Real(v) => return Err(StoreError::Corrupt(format!("column {i}: a real {v}"))),
                });
            }
            out.push(Row(row));
        }
        Ok(out)
    }

    fn run_execute(&mut self, sql: &'static Sql, params: &[Param<'_>]) -> Result<u64, StoreError> {
        Ok(Self::statement(&self.conn, sql, params)?.raw_execute()? as u64)
    }
}

/// A [`Param`] as SQLite binds it (a truth value as 0 or 1, a date as text).
struct Bind<'p, 'a>(&'p Param<'a>);

impl rusqlite::ToSql for Bind<'_, '_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match *self.0 {
            Param::Null => ToSqlOutput::Borrowed(ValueRef::Null),
            Param::Int(v) => ToSqlOutput::Borrowed(ValueRef::Integer(v)),
            Param::Bool(v) => ToSqlOutput::Borrowed(ValueRef::Integer(i64::from(v))),
            Param::Text(s) => ToSqlOutput::Borrowed(ValueRef::Text(s.as_bytes())),
            Param::Bytes(b) => ToSqlOutput::Borrowed(ValueRef::Blob(b)),
            Param::Date(d) => ToSqlOutput::Owned(rusqlite::types::Value::Text(d.to_string())),
        })
    }
}

impl Db for SqliteDb {
    fn dialect(&self) -> &'static Dialect {
        &DIALECT
    }

    fn begin(&mut self, kind: TxKind) -> BoxFuture<'_, Result<(), StoreError>> {
        let sql = match kind {
            TxKind::Write => DIALECT.begin_write,
            TxKind::Snapshot => DIALECT.begin_snapshot,
        };
        Box::pin(std::future::ready(self.conn.execute_batch(sql).map_err(StoreError::from)))
    }

    fn commit(&mut self) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(std::future::ready(self.conn.execute_batch("COMMIT").map_err(StoreError::from)))
    }

    fn query<'a>(
        &'a mut self,
        sql: &'static Sql,
        params: &'a [Param<'a>],
    ) -> BoxFuture<'a, Result<Vec<Row>, StoreError>> {
        Box::pin(std::future::ready(self.run_query(sql, params)))
    }

    fn execute<'a>(
        &'a mut self,
        sql: &'static Sql,
        params: &'a [Param<'a>],
    ) -> BoxFuture<'a, Result<u64, StoreError>> {
        Box::pin(std::future::ready(self.run_execute(sql, params)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connections_are_set_up_for_durability() {
        let dir = tempfile::tempdir().unwrap();
        let db = SqliteDb::open(&dir.path().join("x.sqlite")).unwrap();
        let pragma =
            |name: &str| -> i64 { db.conn.query_row(&format!("PRAGMA {name}"), [], |r| r.get(0)).unwrap() };
        assert_eq!(pragma("synchronous"), 2, "FULL");
        assert_eq!(pragma("foreign_keys"), 1);
        assert_eq!(pragma("busy_timeout"), BUSY_TIMEOUT.as_millis() as i64);
        let mode: String = db.conn.query_row("PRAGMA journal_mode", [], |r| r.get(0)).unwrap();
        assert_eq!(mode, "wal");
        // Foreign keys are enforced: a run needs a known player.
        let err = db
            .conn
            .execute(
                "INSERT INTO runs (player, name, date, game, size, seed, ranked)
                 VALUES (?1, 'x', '2026-11-29', 'ghost', 'small', '1', 1)",
                [crate::player::PlayerKey::from_token("nobody").as_str()],
            )
            .unwrap_err();
        assert!(err.to_string().contains("FOREIGN KEY"), "{err}");
    }

    /// The shared statements use the partial indexes SQLite only matches
    /// on their own expression (`ranked = 1`): the tables stay index reads
    /// on a board of any size.
    #[test]
    fn the_shared_statements_use_the_partial_indexes() {
        let db = SqliteDb::open_in_memory().unwrap();
        let plan = |sql: &'static Sql| -> String {
            let text = format!("EXPLAIN QUERY PLAN {}", sql.text(&DIALECT));
            let mut stmt = db.conn.prepare(&text).unwrap();
            let n = stmt.parameter_count();
            let rows = stmt
                .query_map(rusqlite::params_from_iter(std::iter::repeat_n(rusqlite::types::Null, n)), |r| {
                    r.get::<_, String>(3)
                })
                .unwrap();
            rows.map(Result::unwrap).collect::<Vec<_>>().join("; ")
        };
        assert!(plan(&crate::rules::runs::STREAK_DATES).contains("runs_player_days"), "streaks");
        let rank = plan(&crate::rules::runs::RANK);
        assert!(rank.contains("runs_board") && !rank.contains("SCAN runs"), "{rank}");
    }
}
