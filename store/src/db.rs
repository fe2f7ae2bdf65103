//! The seam between the store's rules ([`crate::rules`]) and a database:
//! [`Db`], one connection that runs SQL, and [`Dialect`], what differs
//! between SQLite and PostgreSQL inside the statements both run. The rules
//! are written once, against `&mut dyn Db`; each backend implements it on
//! its own driver (rusqlite on the SQLite worker thread, tokio-postgres from
//! the pool) and keeps only the SQL that really differs.
//!
//! A shared statement is an [`Sql`]: written once in PostgreSQL's form, `$n`
//! parameters and `{name}` where a [`Dialect`] fills in a fragment (the
//! truth test SQLite's partial indexes need, the clock, a row lock, the
//! relation ranks are counted in). Each dialect renders it once, on first
//! use, and keeps the text.
//!
//! Values cross the seam as [`Param`]s (borrowed) and come back as
//! [`Row`]s of [`Value`]s, read by typed accessors that refuse what does not
//! fit ([`StoreError::Corrupt`]), never panic.

use std::future::Future;
use std::pin::Pin;
use std::sync::OnceLock;

use mazerace_protocol::daily::DailyDate;
use mazerace_protocol::{Game, Size};

use crate::error::StoreError;
use crate::record::RunState;

/// A boxed future: what the object-safe [`Db`] returns.
pub(crate) type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// One bound value, the same on both databases.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Param<'a> {
    Null,
    Int(i64),
    Text(&'a str),
    Bytes(&'a [u8]),
    Bool(bool),
    /// Bound as its `YYYY-MM-DD` text: dates are stored as text.
    Date(DailyDate),
}

impl From<i64> for Param<'_> {
    fn from(v: i64) -> Self {
        Param::Int(v)
    }
}

impl From<u32> for Param<'_> {
    fn from(v: u32) -> Self {
        Param::Int(i64::from(v))
    }
}

impl From<bool> for Param<'_> {
    fn from(v: bool) -> Self {
        Param::Bool(v)
    }
}

impl<'a> From<&'a str> for Param<'a> {
    fn from(v: &'a str) -> Self {
        Param::Text(v)
    }
}

impl<'a> From<&'a String> for Param<'a> {
    fn from(v: &'a String) -> Self {
        Param::Text(v)
    }
}

impl<'a> From<&'a [u8]> for Param<'a> {
    fn from(v: &'a [u8]) -> Self {
        Param::Bytes(v)
    }
}

impl From<DailyDate> for Param<'_> {
    fn from(v: DailyDate) -> Self {
        Param::Date(v)
    }
}

impl From<Game> for Param<'_> {
    fn from(v: Game) -> Self {
        Param::Text(v.as_str())
    }
}

impl From<Size> for Param<'_> {
    fn from(v: Size) -> Self {
        Param::Text(v.as_str())
    }
}

impl From<RunState> for Param<'_> {
    fn from(v: RunState) -> Self {
        Param::Text(v.as_str())
    }
}

impl<'a, T: Into<Param<'a>>> From<Option<T>> for Param<'a> {
    fn from(v: Option<T>) -> Self {
        v.map_or(Param::Null, Into::into)
    }
}

/// `[Param; N]` from values of different types: `params![run_id, date, game]`.
macro_rules! params {
    ($($v:expr),* $(,)?) => { [$($crate::db::Param::from($v)),*] };
}
pub(crate) use params;

/// One column value as read back.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Value {
    Null,
    Int(i64),
    Text(String),
    Bytes(Vec<u8>),
    Bool(bool),
}

/// One row, its columns in the statement's order.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Row(pub Vec<Value>);

fn corrupt(i: usize, want: &str, got: &Value) -> StoreError {
    StoreError::Corrupt(format!("column {i}: expected {want}, found {got:?}"))
}

impl Row {
    fn at(&self, i: usize) -> Result<&Value, StoreError> {
        self.0.get(i).ok_or_else(|| StoreError::Corrupt(format!("no column {i}")))
    }

    pub fn int(&self, i: usize) -> Result<i64, StoreError> {
        match self.at(i)? {
            Value::Int(v) => Ok(*v),
            other => Err(corrupt(i, "an integer", other)),
        }
    }

    pub fn opt_int(&self, i: usize) -> Result<Option<i64>, StoreError> {
        match self.at(i)? {
            Value::Null => Ok(None),
            _ => self.int(i).map(Some),
        }
    }

    pub fn text(&self, i: usize) -> Result<&str, StoreError> {
        match self.at(i)? {
            Value::Text(v) => Ok(v),
            other => Err(corrupt(i, "text", other)),
        }
    }

    pub fn opt_text(&self, i: usize) -> Result<Option<&str>, StoreError> {
        match self.at(i)? {
            Value::Null => Ok(None),
            _ => self.text(i).map(Some),
        }
    }

    pub fn string(&self, i: usize) -> Result<String, StoreError> {
        self.text(i).map(str::to_owned)
    }

    pub fn bytes(&self, i: usize) -> Result<Vec<u8>, StoreError> {
        match self.at(i)? {
            Value::Bytes(v) => Ok(v.clone()),
            other => Err(corrupt(i, "bytes", other)),
        }
    }

    /// A truth value: PostgreSQL's `BOOLEAN`, SQLite's integer 0 or 1.
    pub fn bool(&self, i: usize) -> Result<bool, StoreError> {
        match self.at(i)? {
            Value::Bool(v) => Ok(*v),
            Value::Int(0) => Ok(false),
            Value::Int(1) => Ok(true),
            other => Err(corrupt(i, "a truth value", other)),
        }
    }

    pub fn u32(&self, i: usize, what: &str) -> Result<u32, StoreError> {
        to_u32(self.int(i)?, what)
    }

    pub fn opt_u64(&self, i: usize, what: &str) -> Result<Option<u64>, StoreError> {
        self.opt_int(i)?.map(|v| to_u64(v, what)).transpose()
    }

    pub fn date(&self, i: usize) -> Result<DailyDate, StoreError> {
        parse(self.text(i)?, "date")
    }

    /// A stored game, checked against the games this build knows (the
    /// registry in protocol/): the schema does not limit the column (since
    /// migration 9), so a row of a game a newer build added, on a database
    /// it shares with this one, reads as this error.
    pub fn game(&self, i: usize) -> Result<Game, StoreError> {
        let s = self.text(i)?;
        self.known_game(i)?.ok_or_else(|| {
            StoreError::Corrupt(format!(
                "stored game {s:?} is not one this build knows (a game added by a newer build?)"
            ))
        })
    }

    /// [`Row::game`], with `None` for a game this build does not know: for
    /// the lists that leave such rows out (see `rules::leagues`).
    pub fn known_game(&self, i: usize) -> Result<Option<Game>, StoreError> {
        Ok(self.text(i)?.parse().ok())
    }

    pub fn size(&self, i: usize) -> Result<Size, StoreError> {
        parse(self.text(i)?, "size")
    }

    pub fn state(&self, i: usize) -> Result<RunState, StoreError> {
        let s = self.text(i)?;
        RunState::parse(s).ok_or_else(|| StoreError::Corrupt(format!("stored state {s:?}")))
    }
}

/// A stored count or step number as a `u32`; out of range is corrupt.
pub(crate) fn to_u32(v: i64, what: &str) -> Result<u32, StoreError> {
    u32::try_from(v).map_err(|_| StoreError::Corrupt(format!("stored {what} {v} is out of range")))
}

/// A stored time as a `u64`; negative is corrupt.
pub(crate) fn to_u64(v: i64, what: &str) -> Result<u64, StoreError> {
    u64::try_from(v).map_err(|_| StoreError::Corrupt(format!("stored {what} {v} is out of range")))
}

/// Stored text as what it names (a date, a game, a seed); not understood is corrupt.
pub(crate) fn parse<T: std::str::FromStr>(s: &str, what: &str) -> Result<T, StoreError> {
    s.parse().map_err(|_| StoreError::Corrupt(format!("stored {what} {s:?} is not understood")))
}

/// What a transaction is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TxKind {
    /// Reads and writes that must see and keep the rules together.
    Write,
    /// Several reads that must agree (a table, its `you` and its entrants).
    Snapshot,
}

/// One connection, as the rules use it. Object safe: the rules take
/// `&mut dyn Db`. A request that returns with a transaction still open has
/// it rolled back by the backend before the connection serves another.
pub(crate) trait Db: Send {
    fn dialect(&self) -> &'static Dialect;
    fn begin(&mut self, kind: TxKind) -> BoxFuture<'_, Result<(), StoreError>>;
    fn commit(&mut self) -> BoxFuture<'_, Result<(), StoreError>>;
    /// Every row `sql` returns.
    fn query<'a>(
        &'a mut self,
        sql: &'static Sql,
        params: &'a [Param<'a>],
    ) -> BoxFuture<'a, Result<Vec<Row>, StoreError>>;
    /// Rows changed.
    fn execute<'a>(
        &'a mut self,
        sql: &'static Sql,
        params: &'a [Param<'a>],
    ) -> BoxFuture<'a, Result<u64, StoreError>>;
}

impl dyn Db + '_ {
    /// The first row, if any.
    pub async fn opt(&mut self, sql: &'static Sql, params: &[Param<'_>]) -> Result<Option<Row>, StoreError> {
        Ok(self.query(sql, params).await?.into_iter().next())
    }

    /// The one row a statement always returns (a count, an `EXISTS`).
    pub async fn one(&mut self, sql: &'static Sql, params: &[Param<'_>]) -> Result<Row, StoreError> {
        self.opt(sql, params).await?.ok_or_else(|| StoreError::Corrupt("a query returned no row".into()))
    }
}

/// A statement both backends run, in PostgreSQL's form with `{fragment}`s.
pub(crate) struct Sql {
    template: &'static str,
    /// The text per dialect ([`Dialect::index`]), rendered on first use.
    rendered: [OnceLock<String>; 2],
}

impl Sql {
    pub const fn new(template: &'static str) -> Sql {
        Sql { template, rendered: [OnceLock::new(), OnceLock::new()] }
    }

    /// This statement's text for `dialect`.
    pub fn text(&self, dialect: &Dialect) -> &str {
        self.rendered[dialect.index].get_or_init(|| dialect.render(self.template))
    }
}

/// What differs between the two databases inside the shared statements,
/// and the few behaviours that differ around them.
pub(crate) struct Dialect {
    /// Which slot of [`Sql::rendered`] is this dialect's.
    pub index: usize,
    /// Parameters are `$n` in the template; SQLite numbers them `?n`.
    pub numbered_with: char,
    /// `{name}` and its text, for every fragment a template may use.
    pub fragments: &'static [(&'static str, &'static str)],
    pub begin_write: &'static str,
    pub begin_snapshot: &'static str,
    /// A lock on a key held to the commit (`$1` key, `$2` class), across
    /// nodes; `None` where the write transaction already serialises
    /// writers (SQLite's one writer).
    pub lock: Option<&'static Sql>,
    /// Counts a ranked finish per step count: `$1` date, `$2` game, `$3`
    /// size, `$4` steps, `$5` run id (a backend's statement may not need
    /// every value).
    pub count_step: &'static Sql,
    /// How many rows a board's entrants are spread over.
    pub entrant_shards: u8,
}

impl Dialect {
    /// `template` in this dialect: fragments filled in, parameters numbered.
    /// A template never holds a `$` or a `{` but for these (no string
    /// literal in a shared statement has either; a test checks them all).
    fn render(&self, template: &str) -> String {
        let mut out = String::with_capacity(template.len() + 32);
        let mut rest = template;
        while let Some(i) = rest.find(['$', '{']) {
            out.push_str(&rest[..i]);
            let tail = &rest[i..];
            if let Some(after) = tail.strip_prefix('$') {
                out.push(self.numbered_with);
                rest = after;
                continue;
            }
            let Some(end) = tail.find('}') else {
                out.push_str(tail);
                return out;
            };
            match self.fragments.iter().find(|(name, _)| *name == &tail[1..end]) {
                Some((_, text)) => out.push_str(text),
                // A typo in a template stays visible, so the statement fails loudly.
                None => out.push_str(&tail[..=end]),
            }
            rest = &tail[end + 1..];
        }
        out.push_str(rest);
        out
    }

    /// A shard for a new entrant: any of [`Dialect::entrant_shards`].
    pub fn entrant_shard(&self) -> Result<i64, StoreError> {
        if self.entrant_shards <= 1 {
            return Ok(0);
        }
        let mut b = [0u8; 1];
        getrandom::fill(&mut b).map_err(|e| std::io::Error::other(format!("no OS entropy: {e}")))?;
        Ok(i64::from(b[0] % self.entrant_shards))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static NOTHING: Sql = Sql::new("");
    static TEST: Dialect = Dialect {
        index: 0,
        numbered_with: '?',
        fragments: &[("ranked", "ranked = 1"), ("now", "now()")],
        begin_write: "BEGIN",
        begin_snapshot: "BEGIN",
        lock: None,
        count_step: &NOTHING,
        entrant_shards: 1,
    };

    #[test]
    fn templates_render_fragments_and_numbered_parameters() {
        assert_eq!(
            TEST.render("SELECT $1 WHERE {ranked} AND t < {now} AND id = $12"),
            "SELECT ?1 WHERE ranked = 1 AND t < now() AND id = ?12"
        );
        assert_eq!(TEST.render("{nope} x"), "{nope} x", "an unknown fragment stays visible");
        let sql = Sql::new("SELECT $1");
        assert_eq!(sql.text(&TEST), "SELECT ?1");
        assert_eq!(sql.text(&TEST), "SELECT ?1", "rendered once and kept");
    }

    #[test]
    fn rows_are_read_by_type_and_refuse_what_does_not_fit() {
        let row = Row(vec![Value::Int(1), Value::Text("2026-12-01".into()), Value::Null, Value::Int(7)]);
        assert!(row.bool(0).unwrap());
        assert_eq!(row.date(1).unwrap().to_string(), "2026-12-01");
        assert_eq!(row.opt_int(2).unwrap(), None);
        assert!(matches!(row.text(0), Err(StoreError::Corrupt(_))));
        assert!(matches!(row.bool(3), Err(StoreError::Corrupt(_))));
        assert!(matches!(row.int(9), Err(StoreError::Corrupt(_))));
        assert!(matches!(Row(vec![Value::Text("x".into())]).date(0), Err(StoreError::Corrupt(_))));
        // A game this build does not know: an error read alone, `None` for a list to leave out.
        let other = Row(vec![Value::Text("chess".into()), Value::Text("maze".into())]);
        assert!(matches!(other.game(0), Err(StoreError::Corrupt(e)) if e.contains("\"chess\"")));
        assert_eq!((other.known_game(0).unwrap(), other.known_game(1).unwrap()), (None, Some(Game::Maze)));
    }
}
