//! [`Backend`] for [`SqliteBackend`]: every query, in SQLite's dialect.

use rusqlite::{params, Connection, OptionalExtension, Row, TransactionBehavior};

use mazerace_protocol::messages::{Leaderboard, LeaderboardEntry};
use mazerace_protocol::{Action, Game, Size};

use super::SqliteBackend;
use crate::backend::{
    check_board, Backend, BeginRun, FinishedRun, NewRun, Outcome, RankedRow, RunState, StoredRun,
};
use crate::error::StoreError;
use crate::player::PlayerKey;
use crate::sql::{
    competition_ranks, ending, parse, parse_state, streak_of, to_u32, to_u64, RawRun, RUN_COLUMNS,
};

/// A started run's time as RFC 3339 UTC to the second.
const STARTED_AT: &str = "strftime('%Y-%m-%dT%H:%M:%SZ', started_at)";

/// Closing a run that can no longer be played (its process is gone).
const CLOSE_RUNS: &str = "UPDATE runs SET state = 'not_finished', steps = 0, actions = '[]', times = NULL,
         ended_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";

/// Why no new salt is made for a database that already holds runs.
pub(crate) const MISSING_SALT: &str = "runs are stored but the daily salt is missing: a new salt \
    would change every stored board. Pass the salt they were made with (--daily-salt)";

fn is_unique_violation(e: &rusqlite::Error) -> bool {
    matches!(e, rusqlite::Error::SqliteFailure(f, _)
        if f.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE)
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
        // Fewer steps: from the per-step counters; the same steps and less
        // time: one step count's slice of the board index.
        "SELECT (SELECT COALESCE(SUM(n), 0) FROM board_steps
                 WHERE date = ?1 AND game = ?2 AND size = ?3 AND steps < ?4)
              + (SELECT COUNT(*) FROM runs
                 WHERE date = ?1 AND game = ?2 AND size = ?3 AND ranked = 1 AND state = 'finished'
                   AND steps = ?4 AND time_ms < ?5)",
        params![date, game.as_str(), size.as_str(), steps, time_ms],
        |r| r.get(0),
    )?;
    Ok(to_u32(better, "count")?.saturating_add(1))
}

/// Ranked runs started on the board, finished or not.
fn entrants_in(conn: &Connection, date: &str, game: Game, size: Size) -> Result<u32, StoreError> {
    let n: i64 = conn.query_row(
        "SELECT COALESCE(SUM(n), 0) FROM board_entrants WHERE date = ?1 AND game = ?2 AND size = ?3",
        params![date, game.as_str(), size.as_str()],
        |r| r.get(0),
    )?;
    to_u32(n, "count")
}

fn streak_in(conn: &Connection, player: &str, today: &str) -> Result<u32, StoreError> {
    // Validate first: an invalid date is refused, not compared as text.
    crate::clock::day_number(today)
        .ok_or_else(|| StoreError::Invalid(format!("{today:?} is not a YYYY-MM-DD date")))?;
    let mut stmt = conn.prepare_cached(
        "SELECT DISTINCT date FROM runs WHERE player = ?1 AND ranked = 1 AND date <= ?2 ORDER BY date DESC",
    )?;
    let dates = stmt.query_map(params![player, today], |r| r.get::<_, String>(0))?;
    streak_of(today, dates.map(|d| d.map_err(StoreError::from)))
}

fn raw_run(r: &Row<'_>) -> rusqlite::Result<RawRun> {
    Ok(RawRun {
        id: r.get(0)?,
        date: r.get(1)?,
        game: r.get(2)?,
        size: r.get(3)?,
        seed: r.get(4)?,
        name: r.get(5)?,
        ranked: r.get(6)?,
        state: r.get(7)?,
        steps: r.get(8)?,
        time_ms: r.get(9)?,
        actions: r.get(10)?,
        times: r.get(11)?,
    })
}

impl Backend for SqliteBackend {
    fn ping(&mut self) -> Result<(), StoreError> {
        self.conn.query_row("SELECT 1", [], |_| Ok(()))?;
        Ok(())
    }

    fn daily_salt(&mut self) -> Result<Vec<u8>, StoreError> {
        let tx = self.write_tx()?;
        let existing: Option<Vec<u8>> =
            tx.query_row("SELECT value FROM meta WHERE key = 'daily_salt'", [], |r| r.get(0)).optional()?;
        if let Some(salt) = existing {
            return Ok(salt);
        }
        let runs: bool = tx.query_row("SELECT EXISTS (SELECT 1 FROM runs)", [], |r| r.get(0))?;
        if runs {
            return Err(StoreError::Corrupt(MISSING_SALT.into()));
        }
        let salt = crate::backend::new_salt()?;
        tx.execute(
            "INSERT INTO meta (key, value) VALUES ('daily_salt', ?1) ON CONFLICT DO NOTHING",
            [&salt],
        )?;
        let salt = tx.query_row("SELECT value FROM meta WHERE key = 'daily_salt'", [], |r| r.get(0))?;
        tx.commit()?;
        Ok(salt)
    }

    fn begin_run(&mut self, run: &NewRun) -> Result<BeginRun, StoreError> {
        check_board(&run.date, run.game, run.size)?;
        let (node, boot) = (self.me.node.clone(), self.me.boot.clone());
        let tx = self.conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        tx.execute(
            "INSERT INTO players (key, name) VALUES (?1, ?2)
             ON CONFLICT (key) DO UPDATE SET name = excluded.name",
            params![run.player.as_str(), run.name],
        )?;
        let insert = |ranked: bool| {
            tx.execute(
                "INSERT INTO runs (player, name, date, game, size, seed, ranked, node, boot)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                params![
                    run.player.as_str(),
                    run.name,
                    run.date,
                    run.game.as_str(),
                    run.size.as_str(),
                    run.seed.to_string(),
                    ranked,
                    node,
                    boot,
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
        if ranked {
            tx.execute(
                "INSERT INTO board_entrants (date, game, size, shard, n) VALUES (?1, ?2, ?3, 0, 1)
                 ON CONFLICT (date, game, size, shard) DO UPDATE SET n = n + 1",
                params![run.date, run.game.as_str(), run.size.as_str()],
            )?;
        }
        tx.commit()?;
        Ok(BeginRun { run_id, ranked })
    }

    fn finish_run(
        &mut self,
        run_id: i64,
        outcome: Outcome,
        actions: &[Action],
        times_ms: Option<&[u64]>,
    ) -> Result<FinishedRun, StoreError> {
        let end = ending(outcome, actions, times_ms)?;
        let (state, steps, time_ms, time_db) = (end.state, end.steps, end.time_ms, end.time_db);
        let tx = self.write_tx()?;
        let found = tx
            .query_row(
                "SELECT player, date, game, size, ranked, state, steps, time_ms, actions FROM runs WHERE id = ?1",
                [run_id],
                |r| <(String, String, String, String, bool, String, i64, Option<i64>, String)>::try_from(r),
            )
            .optional()?;
        let (player, date, game, size, ranked, old_state, old_steps, old_time, old_actions) =
            found.ok_or(StoreError::UnknownRun(run_id))?;
        // A repeat of the very finish already stored (a retry after an
        // unknown outcome) answers as the first did; any other is refused.
        let repeat = old_state != RunState::Playing.as_str();
        if repeat
            && (old_state != state.as_str()
                || old_steps != i64::from(steps)
                || old_time != time_db
                || old_actions != end.actions)
        {
            return Err(StoreError::RunOver(run_id));
        }
        let (game, size): (Game, Size) = (parse(&game, "game")?, parse(&size, "size")?);
        if !repeat {
            tx.execute(
                "UPDATE runs SET state = ?2, steps = ?3, time_ms = ?4, actions = ?5, times = ?6,
                     ended_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
                 WHERE id = ?1",
                params![run_id, state.as_str(), i64::from(steps), time_db, end.actions, end.times],
            )?;
        }
        let rank = match time_db {
            Some(t) if ranked => {
                if !repeat {
                    tx.execute(
                        "INSERT INTO board_steps (date, game, size, steps, n) VALUES (?1, ?2, ?3, ?4, 1)
                     ON CONFLICT (date, game, size, steps) DO UPDATE SET n = n + 1",
                        params![date, game.as_str(), size.as_str(), i64::from(steps)],
                    )?;
                }
                Some(rank_in(&tx, &date, game, size, i64::from(steps), t)?)
            }
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
        let tx = self.conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let n =
            tx.execute(&format!("{CLOSE_RUNS} WHERE state = 'playing' AND node = ?1"), [&self.me.node])?;
        // Earlier boots of this node are dead: their leases go with them.
        tx.execute("DELETE FROM nodes WHERE node = ?1 AND boot <> ?2", params![self.me.node, self.me.boot])?;
        tx.commit()?;
        Ok(n as u64)
    }

    fn heartbeat(&mut self) -> Result<u64, StoreError> {
        let now = self.me.now_ms();
        self.renew_lease()?;
        let tx = self.conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let n = tx.execute(
            &format!(
                "{CLOSE_RUNS} WHERE state = 'playing' AND boot IN
                     (SELECT boot FROM nodes WHERE lease_until_ms < ?1 AND boot <> ?2)"
            ),
            params![now, self.me.boot],
        )?;
        tx.execute("DELETE FROM nodes WHERE lease_until_ms < ?1 AND boot <> ?2", params![now, self.me.boot])?;
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
                "SELECT name, steps, time_ms, id FROM runs
                 WHERE date = ?1 AND game = ?2 AND size = ?3 AND ranked = 1 AND state = 'finished'
                 ORDER BY steps, time_ms, id LIMIT ?4",
            )?;
            let rows = stmt.query_map(params![date, game.as_str(), size.as_str(), limit], |r| {
                <(String, i64, i64, i64)>::try_from(r)
            })?;
            let rows = rows.collect::<Result<Vec<_>, _>>()?;
            let keys: Vec<(i64, i64)> = rows.iter().map(|r| (r.1, r.2)).collect();
            let mut entries = Vec::with_capacity(rows.len());
            for ((name, steps, time_ms, run_id), rank) in rows.into_iter().zip(competition_ranks(&keys)) {
                entries.push(LeaderboardEntry {
                    rank,
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

    fn entrants(&mut self, date: &str, game: Game, size: Size) -> Result<u32, StoreError> {
        check_board(date, game, size)?;
        entrants_in(&self.conn, date, game, size)
    }

    fn ranked_run(
        &mut self,
        player: &PlayerKey,
        date: &str,
        game: Game,
        size: Size,
    ) -> Result<Option<RankedRow>, StoreError> {
        check_board(date, game, size)?;
        let found = self
            .conn
            .prepare_cached(&format!(
                "SELECT id, state, steps, time_ms, {STARTED_AT} FROM runs
                 WHERE player = ?1 AND date = ?2 AND game = ?3 AND size = ?4 AND ranked = 1"
            ))?
            .query_row(params![player.as_str(), date, game.as_str(), size.as_str()], |r| {
                <(i64, String, i64, Option<i64>, String)>::try_from(r)
            })
            .optional()?;
        let Some((run_id, state, steps, time_ms, started_at)) = found else { return Ok(None) };
        Ok(Some(RankedRow {
            run_id,
            state: parse_state(&state)?,
            steps: to_u32(steps, "steps")?,
            time_ms: time_ms.map(|t| to_u64(t, "time")).transpose()?,
            started_at,
        }))
    }

    fn streak(&mut self, player: &PlayerKey, today: &str) -> Result<u32, StoreError> {
        streak_in(&self.conn, player.as_str(), today)
    }

    fn run(&mut self, run_id: i64) -> Result<Option<StoredRun>, StoreError> {
        let mut stmt = self.conn.prepare_cached(&format!("SELECT {RUN_COLUMNS} FROM runs WHERE id = ?1"))?;
        let raw = stmt.query_row([run_id], raw_run).optional()?;
        raw.map(RawRun::into_run).transpose()
    }

    fn owns_run(&mut self, run_id: i64, player: &PlayerKey) -> Result<bool, StoreError> {
        let mut stmt = self.conn.prepare_cached("SELECT 1 FROM runs WHERE id = ?1 AND player = ?2")?;
        Ok(stmt.exists(params![run_id, player.as_str()])?)
    }

    fn runs_after(&mut self, after_id: i64, limit: u32) -> Result<Vec<StoredRun>, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached(&format!("SELECT {RUN_COLUMNS} FROM runs WHERE id > ?1 ORDER BY id LIMIT ?2"))?;
        let rows = stmt.query_map(params![after_id, limit], raw_run)?;
        rows.map(|raw| raw?.into_run()).collect()
    }
}
