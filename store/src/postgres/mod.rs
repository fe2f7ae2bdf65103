//! The shared database of several nodes (issue 14), on the async stack:
//! `tokio-postgres` connections in a `deadpool-postgres` pool of
//! [`POSTGRES_CONNECTIONS`], run on the server's own runtime. The schema
//! lives in [`schema`]; the group commit of finishes, one statement for a
//! whole batch, in [`finish`].
//!
//! What differs from SQLite inside the shared statements ([`DIALECT`]): a
//! ranked run is the boolean `ranked`; times are `TIMESTAMPTZ`; `FOR
//! UPDATE` locks a run before a finish is checked and a league before its
//! members are counted; a per-address start and a player's league count
//! take an advisory lock (several nodes write at once); finishes are counted
//! in 16 shards per step count (`board_step_shards`, schema version 5), so
//! players finishing with the same steps do not queue on one row, and
//! ranks sum them with `board_steps`, which nodes of the previous build
//! kept counting in during the upgrade.
//!
//! Connection health: the pool hands out a connection only if its socket
//! is still open (`RecyclingMethod::Fast`). A request that fails because
//! the database is unreachable or timed out returns
//! [`StoreError::Unavailable`]; its connection is dropped, and so is every
//! idle one (after a database restart they are all dead), so the next
//! requests connect afresh and one request fails, not one per connection.
//! Connecting is bounded by the connect timeout, waiting for a free
//! connection by the pool's wait timeout, and every statement and lock wait
//! by the session's own timeouts, so a stuck database answers "unavailable"
//! instead of hanging. A write is never retried blindly (its commit may have
//! happened); the server retries a finish, which a repeat makes safe.

pub(crate) mod finish;
pub mod moves;
pub mod schema;

use std::time::Duration;

use bytes::BytesMut;
use deadpool_postgres::{Manager, ManagerConfig, Object, Pool, RecyclingMethod, Runtime};
use tokio_postgres::types::{IsNull, ToSql, Type};
use tokio_postgres::NoTls;

use crate::db::{BoxFuture, Db, Dialect, Param, Row, Sql, TxKind, Value};
use crate::error::StoreError;

pub use finish::COMMITTERS;
pub use schema::SCHEMA_VERSION;

/// Connections a node's store holds to PostgreSQL: reads, starts and the
/// group commits share them.
pub const POSTGRES_CONNECTIONS: usize = 16;

/// How long connecting may take before the database counts as unreachable.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// How long a request waits for a free connection before it is unavailable.
const WAIT_TIMEOUT: Duration = Duration::from_secs(10);

/// Set on every connection at its start (no extra round trip): a statement
/// or a lock wait longer than this fails as unavailable rather than holding
/// the connection; and no NOTICEs (the migration's `CREATE TABLE IF NOT
/// EXISTS` sends one per connection, which the client would log).
const SESSION_OPTIONS: &str = "-c statement_timeout=10s -c lock_timeout=5s -c client_min_messages=warning";

/// Ranked finishes per board and step count, as one relation to sum: the
/// 16-shard counters of schema version 5, and the single counters nodes of
/// the previous build kept during an upgrade (`schema.rs`).
macro_rules! step_counts {
    () => {
        "(SELECT date, game, size, steps, n FROM board_steps
          UNION ALL SELECT date, game, size, steps, n FROM board_step_shards)"
    };
}
pub(crate) use step_counts;

static LOCK: Sql = Sql::new("SELECT pg_advisory_xact_lock(hashtextextended($1, $2))");
static COUNT_STEP: Sql = Sql::new(
    "INSERT INTO board_step_shards (date, game, size, steps, shard, n)
     VALUES ($1, $2, $3, $4, ($5::bigint % 16)::integer, 1)
     ON CONFLICT (date, game, size, steps, shard) DO UPDATE SET n = board_step_shards.n + 1",
);

/// PostgreSQL's side of the shared statements.
pub(crate) static DIALECT: Dialect = Dialect {
    index: 1,
    numbered_with: '$',
    fragments: &[
        ("ranked", "ranked"),
        ("r_ranked", "r.ranked"),
        ("now", "now()"),
        ("started_at", "to_char(started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"),
        ("for_update", "FOR UPDATE"),
        ("step_counts", step_counts!()),
    ],
    begin_write: "BEGIN",
    begin_snapshot: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
    lock: Some(&LOCK),
    count_step: &COUNT_STEP,
    entrant_shards: 16,
};

/// Whether a database URL names PostgreSQL (`postgres://` or `postgresql://`).
pub fn is_postgres_url(url: &str) -> bool {
    url.starts_with("postgres://") || url.starts_with("postgresql://")
}

/// The pool for `url` (a `postgres://` URL), its schema migrated. The URL
/// may hold a password: no error here echoes it.
pub(crate) async fn connect(url: &str) -> Result<Pool, StoreError> {
    if !is_postgres_url(url) {
        return Err(StoreError::Invalid("a PostgreSQL URL starts with postgres://".into()));
    }
    let mut config: tokio_postgres::Config = url.parse().map_err(|e: tokio_postgres::Error| {
        StoreError::Invalid(format!("the database URL is not valid: {e}"))
    })?;
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(CONNECT_TIMEOUT);
    }
    config.keepalives(true).keepalives_idle(Duration::from_secs(30));
    if config.get_application_name().is_none() {
        config.application_name("mazerace");
    }
    let options = format!("{} {SESSION_OPTIONS}", config.get_options().unwrap_or_default());
    config.options(options.trim());
    let manager =
        Manager::from_config(config, NoTls, ManagerConfig { recycling_method: RecyclingMethod::Fast });
    let pool = Pool::builder(manager)
        .max_size(POSTGRES_CONNECTIONS)
        .runtime(Runtime::Tokio1)
        .create_timeout(Some(CONNECT_TIMEOUT))
        .wait_timeout(Some(WAIT_TIMEOUT))
        .build()
        .map_err(|e| StoreError::Invalid(format!("the connection pool: {e}")))?;
    let mut client = pool.get().await?;
    schema::migrate(&mut client).await?;
    Ok(pool)
}

/// The PostgreSQL pool, held by everything that may still use it (the
/// handle, each request in flight, the committer): when the last lets go,
/// the pool is closed, then the store counts as gone.
pub(crate) struct PoolGuard {
    pub pool: Pool,
    _gone: tokio::sync::watch::Sender<()>,
}

impl PoolGuard {
    /// `pool`, and `gone` to drop once it is closed.
    pub fn new(pool: Pool, gone: tokio::sync::watch::Sender<()>) -> PoolGuard {
        PoolGuard { pool, _gone: gone }
    }
}

impl Drop for PoolGuard {
    fn drop(&mut self) {
        self.pool.close();
    }
}

/// One pooled connection, as the rules use it.
pub(crate) struct PgDb {
    client: Object,
    /// A transaction was begun and not yet committed.
    in_tx: bool,
}

impl PgDb {
    pub fn new(client: Object) -> PgDb {
        PgDb { client, in_tx: false }
    }

    /// Give the connection back after a request: a transaction left open
    /// is rolled back; when the request found the database unavailable
    /// (`lost`), the connection is dropped, with every idle one of `pool`.
    pub async fn release(mut self, pool: &Pool, lost: bool) {
        if lost || !self.settle().await {
            self.discard(pool, lost);
        }
        // Else it goes back to the pool as it drops.
    }

    /// Roll back a transaction a request left open; false when the
    /// connection is no longer fit to serve (the rollback failed).
    pub async fn settle(&mut self) -> bool {
        if !self.in_tx {
            return true;
        }
        self.in_tx = false;
        self.client.batch_execute("ROLLBACK").await.is_ok()
    }

    /// Drop this connection for good (not back into the pool) and, when the
    /// database was found unavailable (`lost`), every idle one of `pool`:
    /// after a database restart they are all dead.
    pub fn discard(self, pool: &Pool, lost: bool) {
        drop(Object::take(self.client));
        if lost {
            pool.retain(|_, _| false);
        }
    }

    /// A transaction is being begun by a statement sent outside [`Db::begin`]
    /// (pipelined with the next): rolled back like any other if left open.
    pub fn began(&mut self) {
        self.in_tx = true;
    }

    /// The connection, for the statements only PostgreSQL runs.
    pub fn client(&self) -> &Object {
        &self.client
    }

    async fn statement(&self, sql: &'static Sql) -> Result<tokio_postgres::Statement, StoreError> {
        Ok(self.client.prepare_cached(sql.text(&DIALECT)).await?)
    }
}

/// A [`Param`] as PostgreSQL binds it: an integer as the width the
/// statement's parameter has, a date as its text.
#[derive(Debug)]
struct Bind<'p, 'a>(&'p Param<'a>);

impl ToSql for Bind<'_, '_> {
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut BytesMut,
    ) -> Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        match *self.0 {
            Param::Null => Ok(IsNull::Yes),
            Param::Int(v) => match *ty {
                Type::INT2 => i16::try_from(v)?.to_sql_checked(ty, out),
                Type::INT4 => i32::try_from(v)?.to_sql_checked(ty, out),
                _ => v.to_sql_checked(ty, out),
            },
            Param::Text(s) => s.to_sql_checked(ty, out),
            Param::Bytes(b) => b.to_sql_checked(ty, out),
            Param::Bool(b) => b.to_sql_checked(ty, out),
            Param::Date(d) => d.to_string().to_sql_checked(ty, out),
        }
    }

    fn accepts(_: &Type) -> bool {
        // Each value checks its own type above (`to_sql_checked`).
        true
    }

    tokio_postgres::types::to_sql_checked!();
}

fn binds<'p, 'a>(params: &'p [Param<'a>]) -> Vec<Bind<'p, 'a>> {
    params.iter().map(Bind).collect()
}

fn refs<'b>(binds: &'b [Bind<'_, '_>]) -> Vec<&'b (dyn ToSql + Sync)> {
    binds.iter().map(|b| b as &(dyn ToSql + Sync)).collect()
}

/// One row, each column by its type; a type the store never reads is refused.
fn row_of(r: &tokio_postgres::Row) -> Result<Row, StoreError> {
    columns(r, r.len())
}

/// The first `n` columns of a row, as [`row_of`] reads them.
pub(crate) fn columns(r: &tokio_postgres::Row, n: usize) -> Result<Row, StoreError> {
    let bad = |i: usize, e: tokio_postgres::Error| StoreError::Corrupt(format!("column {i}: {e}"));
    let mut out = Vec::with_capacity(n);
    for (i, c) in r.columns().iter().enumerate().take(n) {
        let v = match *c.type_() {
            Type::INT2 => {
                r.try_get::<_, Option<i16>>(i).map_err(|e| bad(i, e))?.map(|v| Value::Int(v.into()))
            }
            Type::INT4 => {
                r.try_get::<_, Option<i32>>(i).map_err(|e| bad(i, e))?.map(|v| Value::Int(v.into()))
            }
            Type::INT8 => r.try_get::<_, Option<i64>>(i).map_err(|e| bad(i, e))?.map(Value::Int),
            Type::TEXT | Type::VARCHAR | Type::NAME | Type::BPCHAR => {
                r.try_get::<_, Option<String>>(i).map_err(|e| bad(i, e))?.map(Value::Text)
            }
            Type::BOOL => r.try_get::<_, Option<bool>>(i).map_err(|e| bad(i, e))?.map(Value::Bool),
            Type::BYTEA => r.try_get::<_, Option<Vec<u8>>>(i).map_err(|e| bad(i, e))?.map(Value::Bytes),
            ref other => return Err(StoreError::Corrupt(format!("column {i} has type {other}"))),
        };
        out.push(v.unwrap_or(Value::Null));
    }
    Ok(Row(out))
}

impl Db for PgDb {
    fn dialect(&self) -> &'static Dialect {
        &DIALECT
    }

    fn begin(&mut self, kind: TxKind) -> BoxFuture<'_, Result<(), StoreError>> {
        let sql = match kind {
            TxKind::Write => DIALECT.begin_write,
            TxKind::Snapshot => DIALECT.begin_snapshot,
        };
        Box::pin(async move {
            self.client.batch_execute(sql).await?;
            self.in_tx = true;
            Ok(())
        })
    }

    fn commit(&mut self) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(async move {
            self.client.batch_execute("COMMIT").await?;
            self.in_tx = false;
            Ok(())
        })
    }

    fn query<'a>(
        &'a mut self,
        sql: &'static Sql,
        params: &'a [Param<'a>],
    ) -> BoxFuture<'a, Result<Vec<Row>, StoreError>> {
        Box::pin(async move {
            let stmt = self.statement(sql).await?;
            let binds = binds(params);
            let rows = self.client.query(&stmt, &refs(&binds)).await?;
            rows.iter().map(row_of).collect()
        })
    }

    fn execute<'a>(
        &'a mut self,
        sql: &'static Sql,
        params: &'a [Param<'a>],
    ) -> BoxFuture<'a, Result<u64, StoreError>> {
        Box::pin(async move {
            let stmt = self.statement(sql).await?;
            let binds = binds(params);
            Ok(self.client.execute(&stmt, &refs(&binds)).await?)
        })
    }
}
