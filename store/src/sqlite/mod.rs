//! The embedded default [`Backend`]: one SQLite file under the data
//! directory, opened with WAL, `synchronous=FULL` (a commit survives power
//! loss, which is what "acknowledged only after it is committed" needs),
//! foreign keys on and a busy timeout. The schema lives in [`schema`].
//!
//! The one-ranked-run rule lives in the schema: a partial unique index over
//! ranked runs, so no interleaving of requests, processes or restarts can
//! make two ranked runs for one player and board.

mod queries;
pub mod schema;

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{params, Connection, TransactionBehavior};

use crate::error::StoreError;
use crate::node::{Identity, NodeOptions};

pub(crate) use queries::MISSING_SALT;
pub use schema::SCHEMA_VERSION;

/// The database file's name inside the data directory.
pub const DB_FILE: &str = "mazerace.sqlite";

/// How long a statement waits for another connection's lock before failing.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// The embedded SQLite backend.
pub struct SqliteBackend {
    conn: Connection,
    me: Identity,
}

impl SqliteBackend {
    /// Open (creating the file and its directories if needed) and migrate, as
    /// the single anonymous node on the system clock.
    pub fn open(path: impl AsRef<Path>) -> Result<SqliteBackend, StoreError> {
        Self::open_as(path, NodeOptions::default())
    }

    /// [`SqliteBackend::open`] as the node `node` says.
    pub fn open_as(path: impl AsRef<Path>, node: NodeOptions) -> Result<SqliteBackend, StoreError> {
        let path = path.as_ref();
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
        Self::setup(conn, node)
    }

    /// Open `data_dir/mazerace.sqlite`, creating the directory if needed.
    pub fn open_data_dir(data_dir: impl AsRef<Path>) -> Result<SqliteBackend, StoreError> {
        Self::open(db_path(data_dir))
    }

    /// A private database that lives as long as this value: for tests.
    pub fn open_in_memory() -> Result<SqliteBackend, StoreError> {
        Self::setup(Connection::open_in_memory()?, NodeOptions::default())
    }

    fn setup(mut conn: Connection, node: NodeOptions) -> Result<SqliteBackend, StoreError> {
        conn.busy_timeout(BUSY_TIMEOUT)?;
        conn.pragma_update(None, "synchronous", "FULL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        schema::migrate(&mut conn)?;
        let mut b = SqliteBackend { conn, me: Identity::new(node)? };
        b.renew_lease()?;
        Ok(b)
    }

    /// An immediate transaction takes the write lock up front, so two writers
    /// never both read and then fail to upgrade.
    fn write_tx(&mut self) -> Result<rusqlite::Transaction<'_>, StoreError> {
        Ok(self.conn.transaction_with_behavior(TransactionBehavior::Immediate)?)
    }

    fn renew_lease(&mut self) -> Result<(), StoreError> {
        self.conn.execute(
            "INSERT INTO nodes (boot, node, lease_until_ms) VALUES (?1, ?2, ?3)
             ON CONFLICT (boot) DO UPDATE SET lease_until_ms = excluded.lease_until_ms",
            params![self.me.boot, self.me.node, self.me.lease_until_ms()],
        )?;
        Ok(())
    }
}

/// Where the database lives inside a data directory.
pub fn db_path(data_dir: impl AsRef<Path>) -> PathBuf {
    data_dir.as_ref().join(DB_FILE)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::player::PlayerKey;

    #[test]
    fn connections_are_set_up_for_durability() {
        let dir = tempfile::tempdir().unwrap();
        let b = SqliteBackend::open(dir.path().join("x.sqlite")).unwrap();
        let pragma =
            |name: &str| -> i64 { b.conn.query_row(&format!("PRAGMA {name}"), [], |r| r.get(0)).unwrap() };
        assert_eq!(pragma("synchronous"), 2, "FULL");
        assert_eq!(pragma("foreign_keys"), 1);
        assert_eq!(pragma("busy_timeout"), BUSY_TIMEOUT.as_millis() as i64);
        let mode: String = b.conn.query_row("PRAGMA journal_mode", [], |r| r.get(0)).unwrap();
        assert_eq!(mode, "wal");
        // Foreign keys are enforced: a run needs a known player.
        let err = b
            .conn
            .execute(
                "INSERT INTO runs (player, name, date, game, size, seed, ranked)
                 VALUES (?1, 'x', '2026-11-29', 'ghost', 'small', '1', 1)",
                [PlayerKey::from_token("nobody").as_str()],
            )
            .unwrap_err();
        assert!(err.to_string().contains("FOREIGN KEY"), "{err}");
    }
}
