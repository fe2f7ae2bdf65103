//! The store suite's test databases: every test runs once on SQLite (a file
//! in a temp dir) and once on PostgreSQL when `MAZERACE_TEST_DATABASE_URL`
//! is set (`./test.sh` starts a throwaway server and sets it), each in a
//! schema of its own so tests never see each other's rows. With
//! `MAZERACE_REQUIRE_PG=1` (as `./test.sh` sets it) a missing URL fails the
//! PostgreSQL half instead of skipping it.
//!
//! [`both!`] writes a test twice: `name::sqlite` and `name::postgres`.
#![allow(dead_code)] // each test file uses its own part of this

use std::path::PathBuf;

use mazerace_protocol::daily::DailyDate;
use mazerace_store::sqlite::db_path;
use mazerace_store::{Database, NodeOptions, Store};

/// A date written in a test.
pub fn day(s: &str) -> DailyDate {
    s.parse().expect("a test date")
}

/// The variable naming an administrative PostgreSQL URL for the tests.
pub const ENV: &str = "MAZERACE_TEST_DATABASE_URL";
/// Set to `1` (as `./test.sh` does), a missing [`ENV`] fails the PostgreSQL tests.
pub const REQUIRE: &str = "MAZERACE_REQUIRE_PG";

/// A fresh, empty database of one kind; dropped with the test.
pub struct TestDb {
    /// Keeps the SQLite temp dir alive.
    dir: Option<tempfile::TempDir>,
    pg: Option<Pg>,
}

struct Pg {
    admin: String,
    schema: String,
    url: String,
}

impl TestDb {
    pub fn sqlite() -> TestDb {
        TestDb { dir: Some(tempfile::tempdir().expect("temp dir")), pg: None }
    }

    /// `None` (the test then passes without running) when no server is
    /// configured; with [`REQUIRE`] set (`./test.sh` sets it) a missing
    /// server fails the test instead, so it cannot pass unrun.
    pub fn postgres() -> Option<TestDb> {
        let Some(admin) = std::env::var(ENV).ok().filter(|u| !u.is_empty()) else {
            assert!(
                std::env::var(REQUIRE).as_deref() != Ok("1"),
                "{REQUIRE}=1 but {ENV} is unset: the PostgreSQL half of this test cannot run (./test.sh sets both)"
            );
            eprintln!("skipped: {ENV} is not set");
            return None;
        };
        let mut id = [0u8; 6];
        getrandom::fill(&mut id).expect("entropy");
        let schema = format!("test_{}", hex::encode(id));
        let mut c = postgres::Client::connect(&admin, postgres::NoTls).expect("connect to the test server");
        c.batch_execute(&format!("CREATE SCHEMA {schema}")).expect("create the test schema");
        let sep = if admin.contains('?') { '&' } else { '?' };
        let url = format!("{admin}{sep}options=-c%20search_path%3D{schema}&application_name={schema}");
        Some(TestDb { dir: None, pg: Some(Pg { admin, schema, url }) })
    }

    /// The PostgreSQL URL of this test's schema.
    pub fn url(&self) -> String {
        self.pg.as_ref().expect("a PostgreSQL test database").url.clone()
    }

    /// The PostgreSQL schema (and application name) of this test.
    pub fn schema(&self) -> &str {
        &self.pg.as_ref().expect("a PostgreSQL test database").schema
    }

    pub fn is_postgres(&self) -> bool {
        self.pg.is_some()
    }

    /// The SQLite data directory (SQLite only).
    pub fn data_dir(&self) -> PathBuf {
        self.dir.as_ref().expect("a SQLite test database").path().join("data")
    }

    pub fn database(&self) -> Database {
        match &self.pg {
            Some(pg) => Database::Postgres(pg.url.clone()),
            None => Database::SqliteDir(self.data_dir()),
        }
    }

    /// A store on this database (as a new process would open it), as the
    /// one anonymous node.
    pub async fn store(&self) -> Store {
        self.store_as(NodeOptions::default()).await
    }

    pub async fn store_as(&self, node: NodeOptions) -> Store {
        Store::connect(self.database(), node).await.expect("open the test database")
    }

    /// Run raw SQL behind the store's back (tampering, inspecting);
    /// the error text on failure.
    pub fn try_exec(&self, sql: &str) -> Result<(), String> {
        match &self.pg {
            Some(pg) => off_runtime(|| {
                postgres::Client::connect(&pg.url, postgres::NoTls)
                    .and_then(|mut c| c.batch_execute(sql))
                    .map_err(|e| format!("{e:?}"))
            }),
            None => rusqlite::Connection::open(db_path(self.data_dir()))
                .and_then(|c| c.execute_batch(sql))
                .map_err(|e| e.to_string()),
        }
    }

    pub fn exec(&self, sql: &str) {
        if let Err(e) = self.try_exec(sql) {
            panic!("{sql}: {e}");
        }
    }

    /// The first column of every row, as text.
    pub fn strings(&self, sql: &str) -> Vec<String> {
        match &self.pg {
            Some(pg) => off_runtime(|| {
                let mut c = postgres::Client::connect(&pg.url, postgres::NoTls).expect("connect");
                c.query(sql, &[]).expect("query").iter().map(|r| r.get::<_, String>(0)).collect()
            }),
            None => {
                let c = rusqlite::Connection::open(db_path(self.data_dir())).expect("open");
                let mut stmt = c.prepare(sql).expect("prepare");
                let rows = stmt.query_map([], |r| r.get::<_, String>(0)).expect("query");
                rows.collect::<Result<_, _>>().expect("rows")
            }
        }
    }

    /// The user tables, sorted.
    pub fn tables(&self) -> Vec<String> {
        self.strings(if self.is_postgres() {
            "SELECT tablename::text FROM pg_tables WHERE schemaname = current_schema() ORDER BY 1"
        } else {
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
        })
    }

    /// The schema version recorded in the database.
    pub fn schema_version(&self) -> u32 {
        let sql = if self.is_postgres() {
            "SELECT MAX(version)::text FROM schema_migrations"
        } else {
            "SELECT CAST(user_version AS TEXT) FROM pragma_user_version"
        };
        self.strings(sql)[0].parse().expect("a version")
    }

    /// Pretend a newer build migrated the database.
    pub fn set_schema_version(&self, version: u32) {
        self.exec(&if self.is_postgres() {
            format!("INSERT INTO schema_migrations (version) VALUES ({version})")
        } else {
            format!("PRAGMA user_version = {version}")
        });
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        if let Some(pg) = &self.pg {
            // Best effort: the throwaway server goes away anyway.
            if let Ok(mut c) = postgres::Client::connect(&pg.admin, postgres::NoTls) {
                let _ = c.batch_execute(&format!("DROP SCHEMA {} CASCADE", pg.schema));
            }
        }
    }
}

/// Run a blocking `postgres` call on a thread of its own: the sync client
/// starts a runtime, which cannot happen on a thread driving async tests.
pub fn off_runtime<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|s| s.spawn(f).join().expect("the database call panicked"))
}

/// A test written once, run on both backends: `both!(async fn name(db) { .. })`
/// gives `name::sqlite` and `name::postgres` with `db: &TestDb`, the body on
/// a two-thread runtime.
#[macro_export]
macro_rules! both {
    (async fn $name:ident($db:ident) $body:block) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;
            async fn body($db: &$crate::common::TestDb) $body
            fn run_on(db: $crate::common::TestDb) {
                let rt = tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(2)
                    .enable_all()
                    .build()
                    .expect("runtime");
                rt.block_on(body(&db));
            }
            #[test]
            fn sqlite() {
                run_on($crate::common::TestDb::sqlite());
            }
            #[test]
            fn postgres() {
                if let Some(db) = $crate::common::TestDb::postgres() {
                    run_on(db);
                }
            }
        }
    };
}
