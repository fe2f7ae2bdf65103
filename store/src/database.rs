//! [`Database`]: where the durable data lives, as the server's flags say
//! (SQLite in the data directory by default, or a PostgreSQL URL).

use std::path::PathBuf;

use crate::error::StoreError;
use crate::postgres::is_postgres_url;
use crate::sqlite::db_path;

/// Where the durable data lives.
#[derive(Clone, PartialEq, Eq)]
pub enum Database {
    /// `mazerace.sqlite` in this data directory (the embedded default).
    SqliteDir(PathBuf),
    /// A PostgreSQL URL (`postgres://user:password@host:port/dbname`).
    Postgres(String),
}

/// Never prints a URL: it may carry a password.
impl std::fmt::Debug for Database {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Database::SqliteDir(dir) => f.debug_tuple("SqliteDir").field(dir).finish(),
            Database::Postgres(_) => f.write_str("Postgres(..)"),
        }
    }
}

impl Database {
    /// From the server's flags: a `postgres://` `database_url` selects
    /// PostgreSQL; none means SQLite in `data_dir`; any other URL is refused.
    pub fn from_flags(
        database_url: Option<&str>,
        data_dir: impl Into<PathBuf>,
    ) -> Result<Database, StoreError> {
        match database_url.map(str::trim).filter(|u| !u.is_empty()) {
            None => Ok(Database::SqliteDir(data_dir.into())),
            Some(url) if is_postgres_url(url) => Ok(Database::Postgres(url.to_owned())),
            Some(_) => Err(StoreError::Invalid(
                "the database URL must start with postgres:// (leave it out for SQLite in the data directory)"
                    .into(),
            )),
        }
    }

    /// A short description for logs, without credentials.
    pub fn describe(&self) -> String {
        match self {
            Database::SqliteDir(dir) => format!("SQLite in {}", db_path(dir).display()),
            Database::Postgres(_) => "PostgreSQL".to_owned(),
        }
    }
}
