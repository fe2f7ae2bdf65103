//! `finish_run` on PostgreSQL: the store's hottest write (every ranked
//! finish of every node), so it costs one prepared statement inside its
//! transaction, not a statement per step.
//!
//! Where the time went (issue 14's store benchmark, 824 finishes/s): each
//! finish was six statements, each parsed afresh (a Parse and a Bind round
//! trip apiece), fourteen round trips with BEGIN and COMMIT, on two cores
//! shared with the database; and the commit waits for a WAL flush. Now the
//! common case is BEGIN, one prepared statement (update the run, count the
//! step, and read rank, entrants and streak dates, all in one data-modifying
//! CTE) and COMMIT: three round trips. The flush is kept (the commit is
//! acknowledged only once it is on disk); concurrent commits share flushes
//! through PostgreSQL's own group commit, which is why a node holds several
//! connections.
//!
//! The CTE's reads see the snapshot from before its own writes, which is what
//! the ranks need: a run's rank counts the finished runs strictly better than
//! it, never itself. A run that is not `playing` (a retried finish, a second
//! ending, an unknown id) updates nothing and takes the old, careful path in
//! the same transaction ([`finish_checked`]), which answers a repeat as the
//! first finish did and refuses anything else.

use postgres::{Client, Statement, Transaction};

use mazerace_protocol::{Game, Size};

use super::queries::{entrants_in, rank_in, streak_in};
use super::{col, step_counts, PostgresBackend};
use crate::backend::{FinishedRun, RunState};
use crate::error::StoreError;
use crate::sql::{parse, streak_of, to_u32, Ending};

/// The common case in one statement: `$1` run id, `$2` state, `$3` steps,
/// `$4` time (NULL unless finished), `$5` actions, `$6` times.
const FINISH: &str = concat!(
    "
WITH done AS (
    UPDATE runs SET state = $2, steps = $3, time_ms = $4, actions = $5, times = $6, ended_at = now()
    WHERE id = $1 AND state = 'playing'
    RETURNING player, date, game, size, ranked
), counted AS (
    INSERT INTO board_step_shards (date, game, size, steps, shard, n)
    SELECT date, game, size, $3, ($1 % 16)::integer, 1 FROM done WHERE ranked AND $4::bigint IS NOT NULL
    ON CONFLICT (date, game, size, steps, shard) DO UPDATE SET n = board_step_shards.n + 1
)
SELECT d.player, d.date, d.game, d.size, d.ranked,
    CASE WHEN d.ranked AND $4::bigint IS NOT NULL THEN
        (SELECT COALESCE(SUM(b.n), 0) FROM ",
    step_counts!(),
    " b
         WHERE b.date = d.date AND b.game = d.game AND b.size = d.size AND b.steps < $3)
      + (SELECT COUNT(*) FROM runs r
         WHERE r.date = d.date AND r.game = d.game AND r.size = d.size AND r.ranked
           AND r.state = 'finished' AND r.steps = $3 AND r.time_ms < $4)
    END,
    (SELECT COALESCE(SUM(e.n), 0)::bigint FROM board_entrants e
     WHERE e.date = d.date AND e.game = d.game AND e.size = d.size),
    ARRAY(SELECT DISTINCT r.date FROM runs r
          WHERE r.player = d.player AND r.ranked AND r.date <= d.date ORDER BY r.date DESC)
FROM done d"
);

impl PostgresBackend {
    /// See [`crate::Backend::finish_run`]: `end` is already checked and encoded.
    pub(super) fn finish(&mut self, run_id: i64, end: &Ending) -> Result<FinishedRun, StoreError> {
        self.with_prepared(|c, stmt| {
            let mut tx = c.transaction()?;
            let steps = i64::from(end.steps);
            let fast = tx.query_opt(
                stmt,
                &[&run_id, &end.state.as_str(), &steps, &end.time_db, &end.actions, &end.times],
            )?;
            let done = match fast {
                Some(row) => {
                    let game: Game = parse(&col::<String>(&row, 2)?, "game")?;
                    let size: Size = parse(&col::<String>(&row, 3)?, "size")?;
                    let date: String = col(&row, 1)?;
                    let dates: Vec<String> = col(&row, 7)?;
                    let rank = col::<Option<i64>>(&row, 5)?
                        .map(|better| to_u32(better, "rank").map(|b| b.saturating_add(1)))
                        .transpose()?;
                    FinishedRun {
                        run_id,
                        game,
                        size,
                        ranked: col(&row, 4)?,
                        finished: end.state == RunState::Finished,
                        steps: end.steps,
                        time_ms: end.time_ms,
                        rank,
                        entrants: to_u32(col(&row, 6)?, "count")?,
                        streak: streak_of(&date, dates.into_iter().map(Ok))?,
                        date,
                    }
                }
                None => finish_checked(&mut tx, run_id, end)?,
            };
            tx.commit()?;
            Ok(done)
        })
    }

    /// [`PostgresBackend::with`], with this connection's prepared [`FINISH`]
    /// (prepared once per connection, again after a reconnect).
    fn with_prepared<T>(
        &mut self,
        f: impl FnOnce(&mut Client, &Statement) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.with_live(|live, _| {
            let stmt = match &live.finish {
                Some(s) => s.clone(),
                None => live.finish.insert(live.client.prepare(FINISH)?).clone(),
            };
            f(&mut live.client, &stmt)
        })
    }
}

/// The careful path (the whole finish, as before the fast statement), for a
/// run that was not `playing` when the fast statement ran: lock the row,
/// answer a repeat of the stored finish as the first did, refuse a different
/// ending or an unknown run.
fn finish_checked(tx: &mut Transaction<'_>, run_id: i64, end: &Ending) -> Result<FinishedRun, StoreError> {
    let found = tx.query_opt(
        "SELECT player, date, game, size, ranked, state, steps, time_ms, actions FROM runs
         WHERE id = $1 FOR UPDATE",
        &[&run_id],
    )?;
    let row = found.ok_or(StoreError::UnknownRun(run_id))?;
    let (player, date): (String, String) = (col(&row, 0)?, col(&row, 1)?);
    let game: Game = parse(&col::<String>(&row, 2)?, "game")?;
    let size: Size = parse(&col::<String>(&row, 3)?, "size")?;
    let ranked: bool = col(&row, 4)?;
    let steps = i64::from(end.steps);
    // A repeat of the very finish already stored (a retry after an unknown
    // outcome) answers as the first did; any other ending is refused.
    let state: String = col(&row, 5)?;
    let repeat = state != RunState::Playing.as_str();
    if repeat
        && (state != end.state.as_str()
            || col::<i64>(&row, 6)? != steps
            || col::<Option<i64>>(&row, 7)? != end.time_db
            || col::<String>(&row, 8)? != end.actions)
    {
        return Err(StoreError::RunOver(run_id));
    }
    if !repeat {
        // Not reached under READ COMMITTED (the fast statement would have
        // updated a playing run), kept so this path stands on its own.
        tx.execute(
            "UPDATE runs SET state = $2, steps = $3, time_ms = $4, actions = $5, times = $6, ended_at = now()
             WHERE id = $1",
            &[&run_id, &end.state.as_str(), &steps, &end.time_db, &end.actions, &end.times],
        )?;
        if ranked && end.time_db.is_some() {
            tx.execute(
                "INSERT INTO board_step_shards (date, game, size, steps, shard, n)
                 VALUES ($1, $2, $3, $4, ($5 % 16)::integer, 1)
                 ON CONFLICT (date, game, size, steps, shard) DO UPDATE SET n = board_step_shards.n + 1",
                &[&date, &game.as_str(), &size.as_str(), &steps, &run_id],
            )?;
        }
    }
    let rank = match end.time_db {
        Some(t) if ranked => Some(rank_in(tx, &date, game, size, steps, t)?),
        _ => None,
    };
    let entrants = entrants_in(tx, &date, game, size)?;
    let streak = streak_in(tx, &player, &date)?;
    Ok(FinishedRun {
        run_id,
        date,
        game,
        size,
        ranked,
        finished: end.state == RunState::Finished,
        steps: end.steps,
        time_ms: end.time_ms,
        rank,
        entrants,
        streak,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::{Backend, NewRun, Outcome};
    use crate::player::PlayerKey;

    /// A schema of its own in `MAZERACE_TEST_DATABASE_URL` (as the store's
    /// test suite; None when unset): an admin client and a URL whose
    /// connections use the schema. The caller drops it at the end.
    fn scratch(name: &str) -> Option<(postgres::Client, String)> {
        let Ok(admin) = std::env::var("MAZERACE_TEST_DATABASE_URL") else {
            eprintln!("skipped: MAZERACE_TEST_DATABASE_URL is not set");
            return None;
        };
        let schema = format!("{name}_{}", std::process::id());
        let mut c = postgres::Client::connect(&admin, postgres::NoTls).unwrap();
        c.batch_execute(&format!("DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema}")).unwrap();
        let sep = if admin.contains('?') { '&' } else { '?' };
        Some((c, format!("{admin}{sep}options=-c%20search_path%3D{schema}")))
    }

    fn run(n: u32) -> NewRun {
        NewRun {
            player: PlayerKey::from_token(&format!("p{n}")),
            name: format!("p{n}"),
            date: "2026-12-01".into(),
            game: Game::Maze,
            size: Size::Easy,
            seed: 7,
        }
    }

    #[test]
    fn the_fast_statement_answers_as_rank_of_and_repeats_as_the_careful_path() {
        let Some((mut c, url)) = scratch("finish") else { return };
        let schema = format!("finish_{}", std::process::id());
        let mut b = PostgresBackend::connect(&url).unwrap();
        // Finished in this order: each rank counts only those strictly better.
        let plays = [(30, 900), (20, 500), (20, 500), (20, 400), (40, 100)];
        let mut done = Vec::new();
        for (i, &(steps, time_ms)) in plays.iter().enumerate() {
            let id = b.begin_run(&run(i as u32)).unwrap().run_id;
            let r = b.finish_run(id, Outcome::Finished { steps, time_ms }, &[], None).unwrap();
            assert_eq!((r.ranked, r.finished, r.entrants, r.streak), (true, true, i as u32 + 1, 1));
            done.push((id, r));
        }
        let ranks: Vec<Option<u32>> = done.iter().map(|(_, r)| r.rank).collect();
        assert_eq!(ranks, [Some(1), Some(1), Some(1), Some(1), Some(5)], "as each finish saw the board");
        let now: Vec<Option<u32>> = done.iter().map(|(id, _)| b.rank_of(*id).unwrap()).collect();
        assert_eq!(now, [Some(4), Some(2), Some(2), Some(1), Some(5)]);
        // A repeat answers from the stored finish (through the careful path).
        let (id, _) = done[1];
        let again = b.finish_run(id, Outcome::Finished { steps: 20, time_ms: 500 }, &[], None).unwrap();
        assert_eq!((again.rank, again.entrants, again.steps), (Some(2), 5, 20));
        let other = b.finish_run(id, Outcome::Finished { steps: 21, time_ms: 500 }, &[], None);
        assert!(matches!(other, Err(StoreError::RunOver(_))), "{other:?}");
        assert!(matches!(
            b.finish_run(999_999, Outcome::NotFinished { steps: 1 }, &[], None),
            Err(StoreError::UnknownRun(_))
        ));
        // A practice finish and a not-finished one: no rank.
        let practice = b.begin_run(&run(0)).unwrap();
        assert!(!practice.ranked);
        let p = b.finish_run(practice.run_id, Outcome::Finished { steps: 1, time_ms: 1 }, &[], None).unwrap();
        assert_eq!((p.ranked, p.rank), (false, None));
        drop(b);
        c.batch_execute(&format!("DROP SCHEMA {schema} CASCADE")).unwrap();
    }

    /// Version 5 counts ranked finishes in 16 shards per step count. A
    /// board counted before it keeps its counts, a node of the previous
    /// build still counting the old way after it is not refused, and ranks
    /// sum both; finishes with one step count land in different rows.
    #[test]
    fn version_5_shards_new_counts_and_keeps_counting_the_old_ones() {
        let Some((mut c, url)) = scratch("shards") else { return };
        let schema = format!("shards_{}", std::process::id());
        // The schema as version 4 left it, with one ranked finish counted.
        let mut old = postgres::Client::connect(&url, postgres::NoTls).unwrap();
        for m in &crate::postgres::schema::MIGRATIONS[..4] {
            old.batch_execute(m).unwrap();
        }
        let finished_the_old_way = |old: &mut postgres::Client, n: u32, time_ms: i64| {
            let key = PlayerKey::from_token(&format!("p{n}"));
            let key = key.as_str();
            old.batch_execute(&format!(
                "INSERT INTO players (key, name) VALUES ('{key}', 'p{n}');
                 INSERT INTO runs (player, name, date, game, size, seed, ranked, state, steps, time_ms)
                     VALUES ('{key}', 'p{n}', '2026-12-01', 'maze', 'easy', '7', TRUE, 'finished', 20, {time_ms});
                 INSERT INTO board_entrants (date, game, size, shard, n) VALUES ('2026-12-01', 'maze', 'easy', 0, 1)
                     ON CONFLICT (date, game, size, shard) DO UPDATE SET n = board_entrants.n + 1;
                 INSERT INTO board_steps (date, game, size, steps, n) VALUES ('2026-12-01', 'maze', 'easy', 20, 1)
                     ON CONFLICT (date, game, size, steps) DO UPDATE SET n = board_steps.n + 1;"
            ))
            .unwrap();
        };
        old.batch_execute(
            "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now());
             INSERT INTO schema_migrations (version) VALUES (1), (2), (3), (4);",
        )
        .unwrap();
        finished_the_old_way(&mut old, 8, 500);
        let mut b = PostgresBackend::connect(&url).unwrap();
        // A node of the previous build, still up during the upgrade, counts one more.
        finished_the_old_way(&mut old, 9, 450);
        let mut ranks = Vec::new();
        for (n, steps, time_ms) in [(1, 20, 400), (2, 20, 600), (3, 25, 100)] {
            let id = b.begin_run(&run(n)).unwrap().run_id;
            ranks.push(b.finish_run(id, Outcome::Finished { steps, time_ms }, &[], None).unwrap().rank);
        }
        assert_eq!(ranks, [Some(1), Some(4), Some(5)], "ranked against the old counts and the new");
        let old_count: i64 = c
            .query_one(&format!("SELECT SUM(n)::bigint FROM {schema}.board_steps WHERE steps = 20"), &[])
            .unwrap()
            .get(0);
        assert_eq!(old_count, 2, "the old counter keeps what it counted, and counts on");
        let shards: Vec<i32> = c
            .query(&format!("SELECT n FROM {schema}.board_step_shards WHERE steps = 20"), &[])
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect();
        assert_eq!(shards, [1, 1], "two finishes on one step count, in two rows");
        drop((b, old));
        c.batch_execute(&format!("DROP SCHEMA {schema} CASCADE")).unwrap();
    }
}
