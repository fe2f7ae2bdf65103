//! [`Backend`] for [`PostgresBackend`]: the same queries as SQLite's in
//! PostgreSQL's dialect (`$n` parameters, `BOOLEAN`, `TIMESTAMPTZ`).

use postgres::GenericClient;

use mazerace_protocol::messages::{Leaderboard, LeaderboardEntry};
use mazerace_protocol::{Action, Game, Size};

use super::{col, count, entrant_shard, raw_run, renew_lease, snapshot, step_counts, PostgresBackend};
use crate::backend::{
    check_board, new_salt, AddressCap, Backend, BeginRun, FinishedRun, NewRun, Outcome, RankedRow, StoredRun,
};
use crate::error::StoreError;
use crate::player::PlayerKey;
use crate::sql::{competition_ranks, ending, parse, parse_state, streak_of, to_u32, to_u64, RUN_COLUMNS};

/// A started run's time as RFC 3339 UTC to the second.
const STARTED_AT: &str = "to_char(started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')";

/// Closing a run that can no longer be played (its process is gone).
const CLOSE_RUNS: &str =
    "UPDATE runs SET state = 'not_finished', steps = 0, actions = '[]', times = NULL, ended_at = now()";

pub(super) fn rank_in(
    c: &mut impl GenericClient,
    date: &str,
    game: Game,
    size: Size,
    steps: i64,
    time_ms: i64,
) -> Result<u32, StoreError> {
    let better = count(
        c,
        // Fewer steps: from the per-step counters; the same steps and less
        // time: one step count's slice of the board index.
        concat!(
            "SELECT (SELECT COALESCE(SUM(n), 0) FROM ",
            step_counts!(),
            " c WHERE date = $1 AND game = $2 AND size = $3 AND steps < $4)
              + (SELECT COUNT(*) FROM runs
                 WHERE date = $1 AND game = $2 AND size = $3 AND ranked AND state = 'finished'
                   AND steps = $4 AND time_ms < $5)"
        ),
        &[&date, &game.as_str(), &size.as_str(), &steps, &time_ms],
    )?;
    Ok(better.saturating_add(1))
}

pub(super) fn entrants_in(
    c: &mut impl GenericClient,
    date: &str,
    game: Game,
    size: Size,
) -> Result<u32, StoreError> {
    count(
        c,
        "SELECT COALESCE(SUM(n), 0)::bigint FROM board_entrants WHERE date = $1 AND game = $2 AND size = $3",
        &[&date, &game.as_str(), &size.as_str()],
    )
}

pub(super) fn streak_in(c: &mut impl GenericClient, player: &str, today: &str) -> Result<u32, StoreError> {
    crate::clock::day_number(today)
        .ok_or_else(|| StoreError::Invalid(format!("{today:?} is not a YYYY-MM-DD date")))?;
    let rows = c.query(
        "SELECT DISTINCT date FROM runs WHERE player = $1 AND ranked AND date <= $2 ORDER BY date DESC",
        &[&player, &today],
    )?;
    streak_of(today, rows.iter().map(|r| col::<String>(r, 0)))
}

impl Backend for PostgresBackend {
    fn league(
        &mut self,
        req: crate::league::LeagueRequest,
    ) -> Result<crate::league::LeagueAnswer, StoreError> {
        super::leagues::handle(self, req)
    }

    fn ping(&mut self) -> Result<(), StoreError> {
        self.with(|c, _| Ok(c.simple_query("SELECT 1").map(drop)?))
    }

    fn daily_salt(&mut self) -> Result<Vec<u8>, StoreError> {
        self.with(|c, _| {
            let existing = c.query_opt("SELECT value FROM meta WHERE key = 'daily_salt'", &[])?;
            if let Some(row) = existing {
                return col(&row, 0);
            }
            let runs: bool = col(&c.query_one("SELECT EXISTS (SELECT 1 FROM runs)", &[])?, 0)?;
            if runs {
                return Err(StoreError::Corrupt(crate::sqlite::MISSING_SALT.into()));
            }
            // Whoever inserts first wins; everyone then reads the one salt.
            c.execute(
                "INSERT INTO meta (key, value) VALUES ('daily_salt', $1) ON CONFLICT (key) DO NOTHING",
                &[&new_salt()?],
            )?;
            col(&c.query_one("SELECT value FROM meta WHERE key = 'daily_salt'", &[])?, 0)
        })
    }

    fn begin_run_capped(&mut self, run: &NewRun, cap: Option<&AddressCap>) -> Result<BeginRun, StoreError> {
        check_board(&run.date, run.game, run.size)?;
        self.with(|c, me| {
            let mut tx = c.transaction()?;
            tx.execute(
                "INSERT INTO players (key, name) VALUES ($1, $2)
                 ON CONFLICT (key) DO UPDATE SET name = excluded.name",
                &[&run.player.as_str(), &run.name],
            )?;
            let seed = run.seed.to_string();
            let (player, game, size) = (run.player.as_str(), run.game.as_str(), run.size.as_str());
            let address = cap.map(|c| c.key.as_str());
            let capped = match cap {
                None => false,
                Some(cap) => {
                    // One start at a time per (board, address), across nodes:
                    // the lock is held to the commit, and under READ COMMITTED
                    // the count after it sees every start committed before.
                    let lock = format!("{}|{game}|{size}|{}", run.date, cap.key);
                    tx.execute("SELECT pg_advisory_xact_lock(hashtextextended($1, 15))", &[&lock])?;
                    let row = tx.query_one(
                        "SELECT EXISTS (SELECT 1 FROM runs WHERE player = $4 AND date = $1 AND game = $2
                                          AND size = $3 AND ranked),
                                (SELECT COUNT(*) FROM runs WHERE date = $1 AND game = $2 AND size = $3
                                          AND ranked AND address = $5)",
                        &[&run.date, &game, &size, &player, &cap.key],
                    )?;
                    let (own, from_address): (bool, i64) = (col(&row, 0)?, col(&row, 1)?);
                    !own && from_address >= i64::from(cap.limit)
                }
            };
            // Ask for the ranked run and let the unique index say no: the
            // database decides, atomically across nodes (a second insert
            // waits for the first to commit, then does nothing).
            let ranked = if capped {
                None
            } else {
                tx.query_opt(
                    "INSERT INTO runs (player, name, date, game, size, seed, ranked, node, boot, address)
                     VALUES ($1, $2, $3, $4, $5, $6, TRUE, $7, $8, $9)
                     ON CONFLICT (player, date, game, size) WHERE ranked DO NOTHING
                     RETURNING id",
                    &[&player, &run.name, &run.date, &game, &size, &seed, &me.node, &me.boot, &address],
                )?
            };
            let begun = match ranked {
                Some(row) => {
                    tx.execute(
                        "INSERT INTO board_entrants (date, game, size, shard, n) VALUES ($1, $2, $3, $4, 1)
                         ON CONFLICT (date, game, size, shard) DO UPDATE SET n = board_entrants.n + 1",
                        &[&run.date, &game, &size, &entrant_shard()?],
                    )?;
                    BeginRun { run_id: col(&row, 0)?, ranked: true, capped: false }
                }
                None => {
                    let row = tx.query_one(
                        "INSERT INTO runs (player, name, date, game, size, seed, ranked, node, boot, address)
                         VALUES ($1, $2, $3, $4, $5, $6, FALSE, $7, $8, $9) RETURNING id",
                        &[&player, &run.name, &run.date, &game, &size, &seed, &me.node, &me.boot, &address],
                    )?;
                    BeginRun { run_id: col(&row, 0)?, ranked: false, capped }
                }
            };
            tx.commit()?;
            Ok(begun)
        })
    }

    fn finish_run(
        &mut self,
        run_id: i64,
        outcome: Outcome,
        actions: &[Action],
        times_ms: Option<&[u64]>,
    ) -> Result<FinishedRun, StoreError> {
        let end = ending(outcome, actions, times_ms)?;
        self.finish(run_id, &end)
    }

    fn abandon_open_runs(&mut self) -> Result<u64, StoreError> {
        self.with(|c, me| {
            let mut tx = c.transaction()?;
            let n =
                tx.execute(&format!("{CLOSE_RUNS} WHERE state = 'playing' AND node = $1"), &[&me.node])?;
            // Earlier boots of this node are dead: their leases go with them.
            tx.execute("DELETE FROM nodes WHERE node = $1 AND boot <> $2", &[&me.node, &me.boot])?;
            tx.commit()?;
            Ok(n)
        })
    }

    fn heartbeat(&mut self) -> Result<u64, StoreError> {
        self.with(|c, me| {
            let now = me.now_ms();
            renew_lease(c, me)?;
            let mut tx = c.transaction()?;
            // Two nodes reaping at once: the second waits on the row locks,
            // then finds the runs no longer playing and closes nothing.
            let n = tx.execute(
                &format!(
                    "{CLOSE_RUNS} WHERE state = 'playing' AND boot IN
                         (SELECT boot FROM nodes WHERE lease_until_ms < $1 AND boot <> $2)"
                ),
                &[&now, &me.boot],
            )?;
            tx.execute("DELETE FROM nodes WHERE lease_until_ms < $1 AND boot <> $2", &[&now, &me.boot])?;
            tx.commit()?;
            Ok(n)
        })
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
        self.with(|c, _| {
            let mut tx = snapshot(c)?;
            let (g, s) = (game.as_str(), size.as_str());
            let rows = tx.query(
                "SELECT name, steps, time_ms, id FROM runs
                 WHERE date = $1 AND game = $2 AND size = $3 AND ranked AND state = 'finished'
                 ORDER BY steps, time_ms, id LIMIT $4",
                &[&date, &g, &s, &i64::from(limit)],
            )?;
            let mut keys = Vec::with_capacity(rows.len());
            for r in &rows {
                keys.push((col::<i64>(r, 1)?, col::<i64>(r, 2)?));
            }
            let mut entries = Vec::with_capacity(rows.len());
            for ((r, &(steps, time_ms)), rank) in rows.iter().zip(&keys).zip(competition_ranks(&keys)) {
                entries.push(LeaderboardEntry {
                    rank,
                    name: col(r, 0)?,
                    steps: to_u32(steps, "steps")?,
                    time_ms: to_u64(time_ms, "time")?,
                    run_id: col(r, 3)?,
                });
            }
            let you = match you {
                None => None,
                Some(player) => {
                    let mine = tx.query_opt(
                        "SELECT name, steps, time_ms, id FROM runs
                         WHERE player = $1 AND date = $2 AND game = $3 AND size = $4
                           AND ranked AND state = 'finished'",
                        &[&player.as_str(), &date, &g, &s],
                    )?;
                    match mine {
                        None => None,
                        Some(r) => {
                            let (steps, time_ms): (i64, i64) = (col(&r, 1)?, col(&r, 2)?);
                            Some(LeaderboardEntry {
                                rank: rank_in(&mut tx, date, game, size, steps, time_ms)?,
                                name: col(&r, 0)?,
                                steps: to_u32(steps, "steps")?,
                                time_ms: to_u64(time_ms, "time")?,
                                run_id: col(&r, 3)?,
                            })
                        }
                    }
                }
            };
            let entrants = entrants_in(&mut tx, date, game, size)?;
            tx.commit()?;
            Ok(Leaderboard { date: date.to_owned(), game, size, entrants, entries, you })
        })
    }

    fn rank_of(&mut self, run_id: i64) -> Result<Option<u32>, StoreError> {
        self.with(|c, _| {
            let mut tx = snapshot(c)?;
            let found = tx.query_opt(
                "SELECT date, game, size, steps, time_ms FROM runs
                 WHERE id = $1 AND ranked AND state = 'finished'",
                &[&run_id],
            )?;
            let Some(r) = found else { return Ok(None) };
            let game = parse(&col::<String>(&r, 1)?, "game")?;
            let size = parse(&col::<String>(&r, 2)?, "size")?;
            let rank = rank_in(&mut tx, &col::<String>(&r, 0)?, game, size, col(&r, 3)?, col(&r, 4)?)?;
            tx.commit()?;
            Ok(Some(rank))
        })
    }

    fn entrants(&mut self, date: &str, game: Game, size: Size) -> Result<u32, StoreError> {
        check_board(date, game, size)?;
        self.with(|c, _| entrants_in(c, date, game, size))
    }

    fn ranked_run(
        &mut self,
        player: &PlayerKey,
        date: &str,
        game: Game,
        size: Size,
    ) -> Result<Option<RankedRow>, StoreError> {
        check_board(date, game, size)?;
        self.with(|c, _| {
            let found = c.query_opt(
                &format!(
                    "SELECT id, state, steps, time_ms, {STARTED_AT} FROM runs
                     WHERE player = $1 AND date = $2 AND game = $3 AND size = $4 AND ranked"
                ),
                &[&player.as_str(), &date, &game.as_str(), &size.as_str()],
            )?;
            let Some(r) = found else { return Ok(None) };
            Ok(Some(RankedRow {
                run_id: col(&r, 0)?,
                state: parse_state(&col::<String>(&r, 1)?)?,
                steps: to_u32(col(&r, 2)?, "steps")?,
                time_ms: col::<Option<i64>>(&r, 3)?.map(|t| to_u64(t, "time")).transpose()?,
                started_at: col(&r, 4)?,
            }))
        })
    }

    fn streak(&mut self, player: &PlayerKey, today: &str) -> Result<u32, StoreError> {
        self.with(|c, _| streak_in(c, player.as_str(), today))
    }

    fn run(&mut self, run_id: i64) -> Result<Option<StoredRun>, StoreError> {
        self.with(|c, _| {
            let row = c.query_opt(&format!("SELECT {RUN_COLUMNS} FROM runs WHERE id = $1"), &[&run_id])?;
            row.map(|r| raw_run(&r)?.into_run()).transpose()
        })
    }

    fn owns_run(&mut self, run_id: i64, player: &PlayerKey) -> Result<bool, StoreError> {
        self.with(|c, _| {
            let row = c.query_opt(
                "SELECT 1 FROM runs WHERE id = $1 AND player = $2",
                &[&run_id, &player.as_str()],
            )?;
            Ok(row.is_some())
        })
    }

    fn runs_after(&mut self, after_id: i64, limit: u32) -> Result<Vec<StoredRun>, StoreError> {
        self.with(|c, _| {
            let rows = c.query(
                &format!("SELECT {RUN_COLUMNS} FROM runs WHERE id > $1 ORDER BY id LIMIT $2"),
                &[&after_id, &i64::from(limit)],
            )?;
            rows.iter().map(|r| raw_run(r)?.into_run()).collect()
        })
    }
}
