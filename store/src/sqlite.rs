//! The embedded default [`Backend`]: one SQLite file under the data
//! directory, opened with WAL, `synchronous=FULL` (a commit survives power
//! loss, which is what "acknowledged only after it is committed" needs),
//! foreign keys on and a busy timeout. The schema is created and upgraded by
//! numbered migrations tracked in `PRAGMA user_version`.
//!
//! The one-ranked-run rule lives in the schema: a partial unique index over
//! ranked runs, so no interleaving of requests, processes or restarts can
//! make two ranked runs for one player and board.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{params, Connection, OptionalExtension, Row, TransactionBehavior};

use mazerace_protocol::messages::{Leaderboard, LeaderboardEntry};
use mazerace_protocol::{Action, Game, Seed, Size};

use crate::backend::{check_board, Backend, BeginRun, FinishedRun, NewRun, Outcome, RunState, StoredRun};
use crate::clock::day_number;
use crate::error::StoreError;
use crate::player::PlayerKey;

/// The database file's name inside the data directory.
pub const DB_FILE: &str = "mazerace.sqlite";

/// The schema version this build writes: the number of migrations.
pub const SCHEMA_VERSION: u32 = MIGRATIONS.len() as u32;

/// How long a statement waits for another connection's lock before failing.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// Migration `i` takes the schema from version `i` to `i + 1`. Append only:
/// never edit one that has shipped.
const MIGRATIONS: &[&str] = &[
    // 1: salt, players, runs.
    r#"
    CREATE TABLE meta (
        key   TEXT PRIMARY KEY,
        value BLOB NOT NULL
    ) STRICT;

    -- A player is the SHA-256 (hex) of their reconnect token; never the token.
    CREATE TABLE players (
        key        TEXT PRIMARY KEY CHECK (length(key) = 64),
        name       TEXT NOT NULL,
        first_seen TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    ) STRICT;

    -- One row per daily attempt, ranked or practice. AUTOINCREMENT so a run
    -- id (the replay link) is never reused.
    CREATE TABLE runs (
        id         INTEGER PRIMARY KEY AUTOINCREMENT,
        player     TEXT NOT NULL REFERENCES players (key),
        name       TEXT NOT NULL,
        date       TEXT NOT NULL CHECK (date GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
        game       TEXT NOT NULL CHECK (game IN ('ghost', 'maze')),
        size       TEXT NOT NULL,
        seed       TEXT NOT NULL,
        ranked     INTEGER NOT NULL CHECK (ranked IN (0, 1)),
        state      TEXT NOT NULL DEFAULT 'playing'
                   CHECK (state IN ('playing', 'finished', 'not_finished')),
        steps      INTEGER NOT NULL DEFAULT 0 CHECK (steps >= 0),
        time_ms    INTEGER CHECK (time_ms >= 0),
        actions    TEXT NOT NULL DEFAULT '[]',
        started_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        ended_at   TEXT,
        CHECK ((state = 'finished') = (time_ms IS NOT NULL))
    ) STRICT;

    -- The rule: one ranked run per player per board.
    CREATE UNIQUE INDEX runs_one_ranked ON runs (player, date, game, size) WHERE ranked = 1;
    -- Leaderboards and ranks.
    CREATE INDEX runs_board ON runs (date, game, size, ranked, state, steps, time_ms);
    -- Streaks.
    CREATE INDEX runs_player_days ON runs (player, date) WHERE ranked = 1;
    "#,
];

/// The embedded SQLite backend.
pub struct SqliteBackend {
    conn: Connection,
}

impl SqliteBackend {
    /// Open (creating the file and its directories if needed) and migrate.
    pub fn open(path: impl AsRef<Path>) -> Result<SqliteBackend, StoreError> {
        let path = path.as_ref();
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
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

    /// Open `data_dir/mazerace.sqlite`, creating the directory if needed.
    pub fn open_data_dir(data_dir: impl AsRef<Path>) -> Result<SqliteBackend, StoreError> {
        Self::open(db_path(data_dir))
    }

    /// A private database that lives as long as this value: for tests.
    pub fn open_in_memory() -> Result<SqliteBackend, StoreError> {
        Self::setup(Connection::open_in_memory()?)
    }

    fn setup(mut conn: Connection) -> Result<SqliteBackend, StoreError> {
        conn.busy_timeout(BUSY_TIMEOUT)?;
        conn.pragma_update(None, "synchronous", "FULL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        migrate(&mut conn)?;
        Ok(SqliteBackend { conn })
    }

    /// An immediate transaction takes the write lock up front, so two writers
    /// never both read and then fail to upgrade.
    fn write_tx(&mut self) -> Result<rusqlite::Transaction<'_>, StoreError> {
        Ok(self.conn.transaction_with_behavior(TransactionBehavior::Immediate)?)
    }
}

/// Where the database lives inside a data directory.
pub fn db_path(data_dir: impl AsRef<Path>) -> PathBuf {
    data_dir.as_ref().join(DB_FILE)
}

fn migrate(conn: &mut Connection) -> Result<(), StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let current: u32 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if current > SCHEMA_VERSION {
        return Err(StoreError::Corrupt(format!(
            "the database has schema version {current}, newer than this build's {SCHEMA_VERSION}"
        )));
    }
    for sql in &MIGRATIONS[current as usize..] {
        tx.execute_batch(sql)?;
    }
    tx.pragma_update(None, "user_version", SCHEMA_VERSION)?;
    tx.commit()?;
    Ok(())
}

fn is_unique_violation(e: &rusqlite::Error) -> bool {
    matches!(e, rusqlite::Error::SqliteFailure(f, _)
        if f.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE)
}

fn to_i64(v: u64, what: &str) -> Result<i64, StoreError> {
    i64::try_from(v).map_err(|_| StoreError::Invalid(format!("{what} {v} is too large")))
}

fn to_u32(v: i64, what: &str) -> Result<u32, StoreError> {
    u32::try_from(v).map_err(|_| StoreError::Corrupt(format!("stored {what} {v} is out of range")))
}

fn to_u64(v: i64, what: &str) -> Result<u64, StoreError> {
    u64::try_from(v).map_err(|_| StoreError::Corrupt(format!("stored {what} {v} is out of range")))
}

fn parse<T: std::str::FromStr>(s: &str, what: &str) -> Result<T, StoreError> {
    s.parse().map_err(|_| StoreError::Corrupt(format!("stored {what} {s:?} is not understood")))
}

/// Standard competition rank of (steps, time) among the board's ranked finishes:
/// one more than the number strictly better.
fn rank_in(
    conn: &Connection,
    date: &str,
    game: Game,
    size: Size,
    steps: i64,
    time_ms: i64,
) -> Result<u32, StoreError> {
    let better: i64 = conn.query_row(
        "SELECT COUNT(*) FROM runs
         WHERE date = ?1 AND game = ?2 AND size = ?3 AND ranked = 1 AND state = 'finished'
           AND (steps < ?4 OR (steps = ?4 AND time_ms < ?5))",
        params![date, game.as_str(), size.as_str(), steps, time_ms],
        |r| r.get(0),
    )?;
    Ok(to_u32(better, "count")?.saturating_add(1))
}

/// Ranked runs started on the board, finished or not.
fn entrants_in(conn: &Connection, date: &str, game: Game, size: Size) -> Result<u32, StoreError> {
    let n: i64 = conn.query_row(
        "SELECT COUNT(*) FROM runs WHERE date = ?1 AND game = ?2 AND size = ?3 AND ranked = 1",
        params![date, game.as_str(), size.as_str()],
        |r| r.get(0),
    )?;
    to_u32(n, "count")
}

fn streak_in(conn: &Connection, player: &str, today: &str) -> Result<u32, StoreError> {
    let today_n = day_number(today)
        .ok_or_else(|| StoreError::Invalid(format!("{today:?} is not a YYYY-MM-DD date")))?;
    let mut stmt = conn.prepare_cached(
        "SELECT DISTINCT date FROM runs WHERE player = ?1 AND ranked = 1 AND date <= ?2 ORDER BY date DESC",
    )?;
    let mut rows = stmt.query(params![player, today])?;
    let mut streak = 0u32;
    // The day the next older row must be for the streak to go on. Today may
    // be missing (not played yet): then the streak may end yesterday.
    let mut expect = today_n;
    while let Some(row) = rows.next()? {
        let date: String = row.get(0)?;
        let day = day_number(&date).ok_or_else(|| StoreError::Corrupt(format!("stored date {date:?}")))?;
        if day == expect || (streak == 0 && expect == today_n && day == today_n - 1) {
            streak += 1;
            expect = day - 1;
        } else {
            break;
        }
    }
    Ok(streak)
}

const RUN_COLUMNS: &str = "id, date, game, size, seed, name, ranked, state, steps, time_ms, actions";

fn stored_run(row: &Row<'_>) -> Result<StoredRun, StoreError> {
    let game: String = row.get(2)?;
    let size: String = row.get(3)?;
    let seed: String = row.get(4)?;
    let state: String = row.get(7)?;
    let actions: String = row.get(10)?;
    Ok(StoredRun {
        id: row.get(0)?,
        date: row.get(1)?,
        game: parse(&game, "game")?,
        size: parse(&size, "size")?,
        seed: Seed(parse(&seed, "seed")?),
        name: row.get(5)?,
        ranked: row.get(6)?,
        state: RunState::parse(&state)
            .ok_or_else(|| StoreError::Corrupt(format!("stored state {state:?}")))?,
        steps: to_u32(row.get(8)?, "steps")?,
        time_ms: row.get::<_, Option<i64>>(9)?.map(|t| to_u64(t, "time")).transpose()?,
        actions: serde_json::from_str::<Vec<Action>>(&actions)
            .map_err(|e| StoreError::Corrupt(format!("stored moves: {e}")))?,
    })
}

impl Backend for SqliteBackend {
    fn daily_salt(&mut self) -> Result<Vec<u8>, StoreError> {
        let tx = self.write_tx()?;
        let existing: Option<Vec<u8>> =
            tx.query_row("SELECT value FROM meta WHERE key = 'daily_salt'", [], |r| r.get(0)).optional()?;
        if let Some(salt) = existing {
            return Ok(salt);
        }
        let mut salt = vec![0u8; 32];
        getrandom::fill(&mut salt).map_err(|e| std::io::Error::other(format!("no OS entropy: {e}")))?;
        tx.execute("INSERT INTO meta (key, value) VALUES ('daily_salt', ?1)", [&salt])?;
        tx.commit()?;
        Ok(salt)
    }

    fn begin_run(&mut self, run: &NewRun) -> Result<BeginRun, StoreError> {
        check_board(&run.date, run.game, run.size)?;
        let tx = self.write_tx()?;
        tx.execute(
            "INSERT INTO players (key, name) VALUES (?1, ?2)
             ON CONFLICT (key) DO UPDATE SET name = excluded.name",
            params![run.player.as_str(), run.name],
        )?;
        let insert = |ranked: bool| {
            tx.execute(
                "INSERT INTO runs (player, name, date, game, size, seed, ranked)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![
                    run.player.as_str(),
                    run.name,
                    run.date,
                    run.game.as_str(),
                    run.size.as_str(),
                    run.seed.to_string(),
                    ranked
                ],
            )
        };
        // Ask for a ranked run and let the unique index say no: the database,
        // not a read-then-write here, decides which attempt is the ranked one.
        let ranked = match insert(true) {
            Ok(_) => true,
            Err(e) if is_unique_violation(&e) => {
                insert(false)?;
                false
            }
            Err(e) => return Err(e.into()),
        };
        let run_id = tx.last_insert_rowid();
        tx.commit()?;
        Ok(BeginRun { run_id, ranked })
    }

    fn finish_run(
        &mut self,
        run_id: i64,
        outcome: Outcome,
        actions: &[Action],
    ) -> Result<FinishedRun, StoreError> {
        let (state, steps, time_ms) = match outcome {
            Outcome::Finished { steps, time_ms } => (RunState::Finished, steps, Some(time_ms)),
            Outcome::NotFinished { steps } => (RunState::NotFinished, steps, None),
        };
        let time_db = time_ms.map(|t| to_i64(t, "time")).transpose()?;
        let moves = serde_json::to_string(actions).map_err(|e| StoreError::Invalid(e.to_string()))?;
        let tx = self.write_tx()?;
        let found = tx
            .query_row(
                "SELECT player, date, game, size, ranked, state FROM runs WHERE id = ?1",
                [run_id],
                |r| <(String, String, String, String, bool, String)>::try_from(r),
            )
            .optional()?;
        let (player, date, game, size, ranked, old_state) = found.ok_or(StoreError::UnknownRun(run_id))?;
        if old_state != RunState::Playing.as_str() {
            return Err(StoreError::RunOver(run_id));
        }
        let (game, size): (Game, Size) = (parse(&game, "game")?, parse(&size, "size")?);
        tx.execute(
            "UPDATE runs SET state = ?2, steps = ?3, time_ms = ?4, actions = ?5,
                 ended_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
             WHERE id = ?1",
            params![run_id, state.as_str(), i64::from(steps), time_db, moves],
        )?;
        let rank = match time_db {
            Some(t) if ranked => Some(rank_in(&tx, &date, game, size, i64::from(steps), t)?),
            _ => None,
        };
        let entrants = entrants_in(&tx, &date, game, size)?;
        let streak = streak_in(&tx, &player, &date)?;
        tx.commit()?;
        Ok(FinishedRun {
            run_id,
            date,
            game,
            size,
            ranked,
            finished: state == RunState::Finished,
            steps,
            time_ms,
            rank,
            entrants,
            streak,
        })
    }

    fn abandon_open_runs(&mut self) -> Result<u64, StoreError> {
        let tx = self.write_tx()?;
        let n = tx.execute(
            "UPDATE runs SET state = 'not_finished', steps = 0, actions = '[]',
                 ended_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
             WHERE state = 'playing'",
            [],
        )?;
        tx.commit()?;
        Ok(n as u64)
    }

    fn leaderboard(
        &mut self,
        date: &str,
        game: Game,
        size: Size,
        you: Option<&PlayerKey>,
        limit: u32,
    ) -> Result<Leaderboard, StoreError> {
        check_board(date, game, size)?;
        let tx = self.conn.transaction()?; // one snapshot for the table, `you` and `entrants`
        let entries = {
            let mut stmt = tx.prepare_cached(
                "SELECT RANK() OVER (ORDER BY steps, time_ms), name, steps, time_ms, id FROM runs
                 WHERE date = ?1 AND game = ?2 AND size = ?3 AND ranked = 1 AND state = 'finished'
                 ORDER BY steps, time_ms, id LIMIT ?4",
            )?;
            let rows = stmt.query_map(params![date, game.as_str(), size.as_str(), limit], |r| {
                <(i64, String, i64, i64, i64)>::try_from(r)
            })?;
            let mut entries = Vec::new();
            for row in rows {
                let (rank, name, steps, time_ms, run_id) = row?;
                entries.push(LeaderboardEntry {
                    rank: to_u32(rank, "rank")?,
                    name,
                    steps: to_u32(steps, "steps")?,
                    time_ms: to_u64(time_ms, "time")?,
                    run_id,
                });
            }
            entries
        };
        let you = match you {
            None => None,
            Some(player) => {
                let mine = tx
                    .query_row(
                        "SELECT name, steps, time_ms, id FROM runs
                         WHERE player = ?1 AND date = ?2 AND game = ?3 AND size = ?4
                           AND ranked = 1 AND state = 'finished'",
                        params![player.as_str(), date, game.as_str(), size.as_str()],
                        |r| <(String, i64, i64, i64)>::try_from(r),
                    )
                    .optional()?;
                match mine {
                    None => None,
                    Some((name, steps, time_ms, run_id)) => Some(LeaderboardEntry {
                        rank: rank_in(&tx, date, game, size, steps, time_ms)?,
                        name,
                        steps: to_u32(steps, "steps")?,
                        time_ms: to_u64(time_ms, "time")?,
                        run_id,
                    }),
                }
            }
        };
        let entrants = entrants_in(&tx, date, game, size)?;
        Ok(Leaderboard { date: date.to_owned(), game, size, entrants, entries, you })
    }

    fn rank_of(&mut self, run_id: i64) -> Result<Option<u32>, StoreError> {
        let tx = self.conn.transaction()?;
        let found = tx
            .query_row(
                "SELECT date, game, size, steps, time_ms FROM runs
                 WHERE id = ?1 AND ranked = 1 AND state = 'finished'",
                [run_id],
                |r| <(String, String, String, i64, i64)>::try_from(r),
            )
            .optional()?;
        let Some((date, game, size, steps, time_ms)) = found else { return Ok(None) };
        Ok(Some(rank_in(&tx, &date, parse(&game, "game")?, parse(&size, "size")?, steps, time_ms)?))
    }

    fn streak(&mut self, player: &PlayerKey, today: &str) -> Result<u32, StoreError> {
        streak_in(&self.conn, player.as_str(), today)
    }

    fn run(&mut self, run_id: i64) -> Result<Option<StoredRun>, StoreError> {
        let mut stmt = self.conn.prepare_cached(&format!("SELECT {RUN_COLUMNS} FROM runs WHERE id = ?1"))?;
        let mut rows = stmt.query([run_id])?;
        rows.next()?.map(stored_run).transpose()
    }

    fn owns_run(&mut self, run_id: i64, player: &PlayerKey) -> Result<bool, StoreError> {
        let mut stmt = self.conn.prepare_cached("SELECT 1 FROM runs WHERE id = ?1 AND player = ?2")?;
        Ok(stmt.exists(params![run_id, player.as_str()])?)
    }

    fn runs_after(&mut self, after_id: i64, limit: u32) -> Result<Vec<StoredRun>, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached(&format!("SELECT {RUN_COLUMNS} FROM runs WHERE id > ?1 ORDER BY id LIMIT ?2"))?;
        let mut rows = stmt.query(params![after_id, limit])?;
        let mut out = Vec::new();
        while let Some(row) = rows.next()? {
            out.push(stored_run(row)?);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
