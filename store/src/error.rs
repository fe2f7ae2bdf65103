//! The one error type of this crate: what a caller of [`crate::Store`] can
//! get back, typed so the server can decide (answer
//! "try again", refuse the request, or report an internal fault) with
//! [`StoreError::kind`], never by reading an error's English text.

use std::error::Error as StdError;
use std::path::PathBuf;

/// Anything that can go wrong storing or reading daily runs.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The store's request queue is full: the database is behind. Reads fail
    /// fast with this; writes wait for room instead (see [`crate::Store`]).
    #[error("the store is busy, try again shortly")]
    Busy,
    /// The database cannot be reached right now, or it timed out (a lost
    /// connection, a server restarting, a lock held too long). Nothing was
    /// committed by the failed request, or it cannot be known: a caller may
    /// retry a read, and should re-check state before retrying a write.
    #[error("the database is unavailable: {0}")]
    Unavailable(#[source] Box<dyn StdError + Send + Sync>),
    /// The store has stopped (closed, or it could not open the database).
    #[error("the store is closed")]
    Closed,
    /// The database failed. Boxed so each backend can report its own errors.
    #[error("database error: {0}")]
    Db(#[source] Box<dyn StdError + Send + Sync>),
    /// Creating the data directory failed.
    #[error("cannot create the data directory: {0}")]
    Io(#[from] std::io::Error),
    /// The caller asked for something malformed (a bad date, a size of the other game ...).
    #[error("invalid request: {0}")]
    Invalid(String),
    /// No stored run has this id.
    #[error("no run with id {0}")]
    UnknownRun(i64),
    /// The run was already finished (or recorded as not finished); a result is final.
    #[error("run {0} is already over")]
    RunOver(i64),
    /// Stored data that does not parse (an unknown game name, bad JSON moves).
    #[error("stored data is not understood: {0}")]
    Corrupt(String),
    /// The database was written by a newer build: this one refuses to start
    /// rather than misread it.
    #[error(
        "the database has schema version {found}, newer than this build knows ({known}): \
         run a newer mazerace against it"
    )]
    SchemaTooNew { found: u32, known: u32 },
    /// The SQLite file exists but is empty (0 bytes: a truncated copy, a
    /// failed restore). Opening it would make a fresh database with a new
    /// daily salt, changing today's boards and emptying every leaderboard.
    #[error(
        "{} is empty (0 bytes): refusing to start, since a new database would get a new daily \
         salt. Restore the file from a backup, or delete it to start over with new boards",
        .0.display()
    )]
    EmptyDatabaseFile(PathBuf),
}

/// What a caller should do about a [`StoreError`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// Try again shortly: the queue is full, or the database is unreachable
    /// or timed out. Not the request's fault.
    Busy,
    /// The request itself is refused (malformed, no such run, already over).
    Refused,
    /// Anything else: a fault to log, `internal` to the client.
    Internal,
}

impl StoreError {
    /// How the caller should treat this error.
    pub fn kind(&self) -> ErrorKind {
        match self {
            StoreError::Busy | StoreError::Unavailable(_) => ErrorKind::Busy,
            StoreError::Invalid(_) | StoreError::UnknownRun(_) | StoreError::RunOver(_) => ErrorKind::Refused,
            StoreError::Closed
            | StoreError::Db(_)
            | StoreError::Io(_)
            | StoreError::Corrupt(_)
            | StoreError::SchemaTooNew { .. }
            | StoreError::EmptyDatabaseFile(_) => ErrorKind::Internal,
        }
    }
}

impl StoreError {
    /// This error once more, for each caller of one failed batch commit:
    /// the same variant, so the same kind, the source kept as text.
    pub(crate) fn for_each_caller(&self) -> StoreError {
        use StoreError::*;
        match self {
            Busy => Busy,
            Closed => Closed,
            Unavailable(e) => Unavailable(e.to_string().into()),
            Db(e) => Db(e.to_string().into()),
            Io(e) => Io(std::io::Error::new(e.kind(), e.to_string())),
            Invalid(s) => Invalid(s.clone()),
            UnknownRun(id) => UnknownRun(*id),
            RunOver(id) => RunOver(*id),
            Corrupt(s) => Corrupt(s.clone()),
            SchemaTooNew { found, known } => SchemaTooNew { found: *found, known: *known },
            EmptyDatabaseFile(p) => EmptyDatabaseFile(p.clone()),
        }
    }
}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> Self {
        use rusqlite::ffi::ErrorCode;
        match &e {
            // The busy timeout ran out: another connection holds the lock.
            rusqlite::Error::SqliteFailure(f, _)
                if matches!(f.code, ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) =>
            {
                StoreError::Unavailable(Box::new(e))
            }
            _ => StoreError::Db(Box::new(e)),
        }
    }
}

impl From<tokio_postgres::Error> for StoreError {
    fn from(e: tokio_postgres::Error) -> Self {
        if is_unavailable(&e) {
            StoreError::Unavailable(Box::new(e))
        } else {
            StoreError::Db(Box::new(e))
        }
    }
}

impl From<deadpool_postgres::PoolError> for StoreError {
    fn from(e: deadpool_postgres::PoolError) -> Self {
        use deadpool_postgres::PoolError;
        match e {
            PoolError::Backend(e) => e.into(),
            // No connection in time: the database is slow, away or at its limit.
            PoolError::Timeout(_) => StoreError::Unavailable(Box::new(e)),
            PoolError::Closed => StoreError::Closed,
            other => StoreError::Db(Box::new(other)),
        }
    }
}

/// A PostgreSQL error that says "the database is not there or too slow right
/// now" rather than "this request is wrong": connection loss and failure,
/// timeouts, serialization conflicts, a server shutting down or full.
pub(crate) fn is_unavailable(e: &tokio_postgres::Error) -> bool {
    if e.is_closed() {
        return true;
    }
    match e.code() {
        // No SQLSTATE: the failure is below SQL (socket, TLS, protocol), so
        // the connection itself is in doubt.
        None => true,
        Some(code) => {
            let c = code.code();
            // 08: connection exception; 53: insufficient resources;
            // 57: operator intervention (57014 statement timeout, 57P01 admin
            // shutdown); 40001/40P01: serialization failure, deadlock;
            // 55P03: lock not available (lock_timeout).
            c.starts_with("08")
                || c.starts_with("53")
                || c.starts_with("57")
                || c.starts_with("40")
                || c == "55P03"
        }
    }
}
