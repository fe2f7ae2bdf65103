//! The one error type of this crate: what a caller of [`crate::Store`] or a
//! [`crate::Backend`] can get back, typed so the server can decide (answer
//! `internal`, retry later, refuse the request).

use std::error::Error as StdError;

/// Anything that can go wrong storing or reading daily runs.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The store's request queue is full: the database is behind. Reads fail
    /// fast with this; writes wait for room instead (see [`crate::Store`]).
    #[error("the store is busy, try again shortly")]
    Busy,
    /// The store's worker thread has stopped (closed, or it could not open the database).
    #[error("the store is closed")]
    Closed,
    /// The database failed. Boxed so another backend can report its own errors.
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
    /// Stored data that does not parse (an unknown game name, bad JSON moves),
    /// or a database written by a newer build.
    #[error("stored data is not understood: {0}")]
    Corrupt(String),
}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> Self {
        StoreError::Db(Box::new(e))
    }
}
