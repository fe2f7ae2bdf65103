//! Group commit on PostgreSQL: the finishes waiting together are committed
//! in one transaction, so one WAL flush acknowledges them all, and the
//! common case costs one statement for the whole batch ([`FINISH_BATCH`]):
//! it updates every `playing` run of the batch, counts the ranked finishes
//! in their step counters and answers each run's rank, entrants and streak
//! dates. With BEGIN and COMMIT, three round trips a batch, however large.
//!
//! Ranks are as of the commit: each counts the ranked finishes strictly
//! better committed before the statement and those in the batch itself,
//! never itself (the statement's reads see the snapshot from before its
//! writes, so the batch's own are counted apart: `ranked.better`). The
//! finishes with fewer steps come from one running sum over the board's
//! step counts and the batch's finishes sorted together (`below`), once a
//! batch: not a scan of the counts per finish, which grew with the batch
//! times the board's step counts. The counts are grouped by a number per
//! board (`boards.k`): grouping by the board's text columns sorted
//! thousands of rows by collation.
//!
//! The runs are found by their ids, and the `playing` test is written
//! `(state = 'playing') IS TRUE` so that the planner does not take the
//! partial index of open runs (`runs_open`) instead: on a stale estimate
//! (one open run, after thousands began since the last analyze) it scanned
//! that whole index for every batch.
//!
//! A run the statement did not update (it is not `playing`: a retried
//! finish, a second ending, an unknown id) takes the rules' careful path in
//! the same transaction (`rules::runs::finish_one`), which answers a repeat
//! as the first finish did and refuses anything else; those refusals are
//! that finish's alone.
//!
//! An error in one finish fails only that one: by retrying the rest. A
//! statement that fails aborts a PostgreSQL transaction, so the batch is
//! rolled back and each of its finishes is committed alone, where the one at
//! fault fails by itself. Not savepoints: a savepoint per finish would cost
//! two more statements a finish on every batch (and past 64 a transaction,
//! PostgreSQL's subtransaction cache overflows), to serve a case (a finish
//! whose SQL fails: its values are checked before it queues) that should
//! not happen. A batch that finds the database unavailable, or whose COMMIT
//! fails, fails every finish in it with that error: their commit may or may
//! not have happened, and the server's retry of a finish is safe (a repeat
//! answers as the first).
//!
//! Counters: each committer counts its batches in a step-counter shard of
//! its own ([`shard_of`]), so a node's batches in flight never wait on each
//! other; where two still share rows (nodes whose shards coincide), the
//! rows are written in key order, so the batches may wait for each other's
//! commit but never deadlock.

use std::collections::HashMap;
use std::sync::Arc;

use deadpool_postgres::Pool;
use tokio::sync::mpsc;
use tokio::task::JoinSet;

use super::PoolGuard;
use super::{columns, step_counts, PgDb, DIALECT};
use crate::db::Db;
use crate::db::{parse, to_u32};
use crate::error::StoreError;
use crate::group::{Commits, FinishJob, MAX_BATCH};
use crate::record::{FinishedRun, RunState};
use crate::rules::convert::streak_of;

/// Batches one node commits at once: while one waits for its flush, the
/// next is already executing (each on its own connection).
pub const COMMITTERS: usize = 2;

/// The step-counter shard a node's committer counts its batches in (schema
/// version 5's `board_step_shards`): one of its own, so that two batches in
/// flight never wait on each other's counter rows whatever their step
/// counts (the board's best is a common score), and so that a board holds
/// rows for the shards in use only (a rank sums them all: fewer rows, a
/// cheaper rank). Nodes are told apart by their id's first byte: the
/// committers of up to 16 / [`COMMITTERS`] nodes with consecutive letters
/// get shards of their own, more share one now and then (a shared row
/// costs a wait, never a wrong count).
fn shard_of(node: &str, slot: usize) -> i32 {
    let base = node.bytes().next().map_or(0, usize::from) * COMMITTERS;
    ((base + slot) % 16) as i32
}

/// The whole batch in one statement: `$1` run ids, `$2` states, `$3` steps,
/// `$4` times (NULL unless finished), `$5` actions, `$6` action times, `$8`
/// paced at the floor, one element per finish in batch order; `$7` the
/// committer's counter shard. Ranks go by steps, then the time ranked by
/// (`rank_ms`: 0 for a run at the floor, as `rules::convert::rank_time`).
const FINISH_BATCH: &str = concat!(
    "
WITH input AS (
    SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::bigint[], $5::text[], $6::text[],
                         $8::boolean[])
        AS i(id, state, steps, time_ms, actions, times, at_floor)
), done AS (
    UPDATE runs r SET state = i.state, steps = i.steps, time_ms = i.time_ms, actions = i.actions,
        times = i.times, at_floor = i.at_floor, ended_at = now()
    FROM input i
    WHERE r.id = ANY($1::bigint[]) AND r.id = i.id AND (r.state = 'playing') IS TRUE
    RETURNING r.id, r.player, r.date, r.game, r.size, r.ranked, i.steps, i.time_ms,
        CASE WHEN i.at_floor THEN 0 ELSE i.time_ms END AS rank_ms
), counted AS (
    INSERT INTO board_step_shards (date, game, size, steps, shard, n)
    SELECT date, game, size, steps, $7::integer, COUNT(*)::integer FROM done
    WHERE ranked AND time_ms IS NOT NULL
    GROUP BY date, game, size, steps
    ORDER BY date, game, size, steps
    ON CONFLICT (date, game, size, steps, shard) DO UPDATE SET n = board_step_shards.n + excluded.n
), boards AS MATERIALIZED (
    SELECT date, game, size, row_number() OVER () AS k
    FROM (SELECT DISTINCT date, game, size FROM done WHERE ranked AND time_ms IS NOT NULL) x
), ranked AS MATERIALIZED (
    SELECT d.id, b.k, d.steps, RANK() OVER (PARTITION BY b.k ORDER BY d.steps, d.rank_ms) - 1 AS better
    FROM done d JOIN boards b USING (date, game, size)
    WHERE d.ranked AND d.time_ms IS NOT NULL
), hist AS MATERIALIZED (
    SELECT b.k, c.steps, SUM(c.n)::bigint AS n FROM ",
    step_counts!(),
    " c
    JOIN boards b USING (date, game, size)
    GROUP BY b.k, c.steps
), below AS MATERIALIZED (
    SELECT id, n FROM (
        SELECT id, SUM(n) OVER (PARTITION BY k ORDER BY steps, id IS NULL ROWS UNBOUNDED PRECEDING) AS n
        FROM (SELECT k, steps, n, NULL::bigint AS id FROM hist UNION ALL SELECT k, steps, 0, id FROM ranked) m
    ) w
    WHERE id IS NOT NULL
)
SELECT d.id, d.player, d.date, d.game, d.size, d.ranked,
    CASE WHEN q.id IS NOT NULL THEN
        w.n + q.better
      + (SELECT COUNT(*) FROM runs r
         WHERE r.date = d.date AND r.game = d.game AND r.size = d.size AND r.ranked
           AND r.state = 'finished' AND r.steps = d.steps
           AND (CASE WHEN r.at_floor THEN 0 ELSE r.time_ms END) < d.rank_ms)
    END::bigint,
    (SELECT COALESCE(SUM(e.n), 0) FROM board_entrants e
     WHERE e.date = d.date AND e.game = d.game AND e.size = d.size)::bigint,
    ARRAY(SELECT DISTINCT r.date FROM runs r
          WHERE r.player = d.player AND r.ranked AND r.date <= d.date ORDER BY r.date DESC)
FROM done d LEFT JOIN ranked q ON q.id = d.id LEFT JOIN below w ON w.id = d.id"
);

/// The node's group commits: takes the finishes as they come and, whenever
/// one of the [`COMMITTERS`] is free, commits every finish waiting as one
/// batch (while all are busy, the next batch gathers). Ends once the store
/// is gone and its queue is empty, its batches committed.
pub(crate) async fn committer(
    pool: Arc<PoolGuard>,
    node: String,
    mut queue: mpsc::Receiver<FinishJob>,
    commits: Arc<Commits>,
) {
    // The free committers.
    let (give_back, mut free) = mpsc::channel(COMMITTERS);
    for slot in 0..COMMITTERS {
        let _ = give_back.try_send(Committer { shard: shard_of(&node, slot), db: None });
    }
    let mut running = JoinSet::new();
    while let Some(first) = queue.recv().await {
        let Some(mut committer) = free.recv().await else { break };
        let mut batch = vec![first];
        while batch.len() < MAX_BATCH {
            match queue.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        let (pool, commits, give_back) = (Arc::clone(&pool), Arc::clone(&commits), give_back.clone());
        running.spawn(async move {
            committer.commit(&pool.pool, batch, &commits).await;
            let _ = give_back.send(committer).await;
        });
        while running.try_join_next().is_some() {}
    }
    while running.join_next().await.is_some() {}
}

/// One of a node's committers: its counter shard, and the connection it
/// keeps from batch to batch (taken from the pool once, so the batch
/// statement is prepared and planned on it once, not on each of the pool's
/// connections in turn).
struct Committer {
    shard: i32,
    db: Option<PgDb>,
}

/// Set once on a committer's connection: the batch statement's plan does not
/// depend on its arrays' contents, so it is planned once rather than afresh
/// for each of its first executions (PostgreSQL's default tries five custom
/// plans first, each a few milliseconds of a batch).
const COMMITTER_SESSION: &str = "SET plan_cache_mode = force_generic_plan";

impl Committer {
    /// Its connection: the one it keeps (unless its socket closed while
    /// it waited), or a new one from `pool`.
    async fn connection(&mut self, pool: &Pool) -> Result<PgDb, StoreError> {
        match self.db.take() {
            Some(db) if !db.client().is_closed() => return Ok(db),
            Some(dead) => dead.discard(pool, false),
            None => {}
        }
        let db = PgDb::new(pool.get().await?);
        db.client().batch_execute(COMMITTER_SESSION).await?;
        Ok(db)
    }

    /// Commit `batch` and answer every finish in it.
    async fn commit(&mut self, pool: &Pool, batch: Vec<FinishJob>, commits: &Commits) {
        let answers = match self.connection(pool).await {
            Err(e) => batch.iter().map(|_| Err(e.for_each_caller())).collect(),
            Ok(mut db) => {
                let answers = commit_on(&mut db, &batch, commits, self.shard).await;
                let lost = answers.iter().any(|a| matches!(a, Err(StoreError::Unavailable(_))));
                if lost || !db.settle().await {
                    db.discard(pool, lost);
                } else {
                    self.db = Some(db);
                }
                answers
            }
        };
        for (job, answer) in batch.into_iter().zip(answers) {
            job.answer(answer);
        }
    }
}

/// One outcome per finish, in order.
async fn commit_on(
    db: &mut PgDb,
    batch: &[FinishJob],
    commits: &Commits,
    shard: i32,
) -> Vec<Result<FinishedRun, StoreError>> {
    match try_commit(db, batch, commits, shard).await {
        Ok(answers) => answers,
        Err(e) if batch.len() == 1 || matches!(e, StoreError::Unavailable(_)) => {
            batch.iter().map(|_| Err(e.for_each_caller())).collect()
        }
        Err(e) => {
            tracing::warn!(error = %e, finishes = batch.len(), "a batch of finishes failed: committing each alone");
            let mut out = Vec::with_capacity(batch.len());
            for job in batch {
                if let Err(e) = roll_back(db).await {
                    out.push(Err(e));
                    continue;
                }
                out.push(match try_commit(db, std::slice::from_ref(job), commits, shard).await {
                    Ok(mut one) => one.pop().unwrap_or(Err(StoreError::Closed)),
                    Err(e) => Err(e),
                });
            }
            out
        }
    }
}

async fn roll_back(db: &mut PgDb) -> Result<(), StoreError> {
    db.client().batch_execute("ROLLBACK").await?;
    Ok(())
}

/// BEGIN, the batch statement, the careful path for the runs it did not
/// finish, COMMIT. `Err` when the transaction is lost (a statement failed,
/// or the commit); a finish refused by the rules is its own `Err` inside.
async fn try_commit(
    db: &mut PgDb,
    batch: &[FinishJob],
    commits: &Commits,
    shard: i32,
) -> Result<Vec<Result<FinishedRun, StoreError>>, StoreError> {
    let mut fast = begin_with_statement(db, batch, shard).await?;
    let mut out = Vec::with_capacity(batch.len());
    for job in batch {
        if let Some(done) = fast.remove(&job.run_id) {
            out.push(Ok(done));
            continue;
        }
        match crate::rules::runs::finish_one(db, job.run_id, &job.end).await {
            Err(e @ (StoreError::Db(_) | StoreError::Unavailable(_))) => return Err(e),
            answer => out.push(answer),
        }
    }
    db.commit().await?;
    commits.record(out.iter().filter(|r| r.is_ok()).count());
    Ok(out)
}

/// BEGIN and the batch statement, sent together (one round trip, not two:
/// on a busy machine each is a wake-up of the database and of this task);
/// the finishes it made, by run id. Should the BEGIN fail and the statement
/// run anyway, it commits on its own and every finish in it hears an error:
/// their retries are repeats, answered as stored.
async fn begin_with_statement(
    db: &mut PgDb,
    batch: &[FinishJob],
    shard: i32,
) -> Result<HashMap<i64, FinishedRun>, StoreError> {
    let ids: Vec<i64> = batch.iter().map(|j| j.run_id).collect();
    let states: Vec<&str> = batch.iter().map(|j| j.end.state.as_str()).collect();
    let steps: Vec<i64> = batch.iter().map(|j| i64::from(j.end.steps)).collect();
    let times: Vec<Option<i64>> = batch.iter().map(|j| j.end.time_db).collect();
    let actions: Vec<&str> = batch.iter().map(|j| j.end.actions.as_str()).collect();
    let action_times: Vec<Option<&str>> = batch.iter().map(|j| j.end.times.as_deref()).collect();
    let at_floor: Vec<bool> = batch.iter().map(|j| j.end.at_floor).collect();
    let stmt = db.client().prepare_cached(FINISH_BATCH).await?;
    db.began();
    let client = db.client();
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 8] =
        [&ids, &states, &steps, &times, &actions, &action_times, &shard, &at_floor];
    let (began, rows) = tokio::join!(client.batch_execute(DIALECT.begin_write), client.query(&stmt, &params));
    began?;
    let rows = rows?;
    let by_id: HashMap<i64, &FinishJob> = batch.iter().map(|j| (j.run_id, j)).collect();
    let mut done = HashMap::with_capacity(rows.len());
    for r in &rows {
        let dates: Vec<String> =
            r.try_get(8).map_err(|e| StoreError::Corrupt(format!("streak dates: {e}")))?;
        // Every column but the dates array (read above).
        let row = columns(r, 8)?;
        let run_id = row.int(0)?;
        let Some(job) = by_id.get(&run_id) else { continue };
        let date = row.date(2)?;
        let rank =
            row.opt_int(6)?.map(|better| to_u32(better, "rank").map(|b| b.saturating_add(1))).transpose()?;
        done.insert(
            run_id,
            FinishedRun {
                run_id,
                date,
                game: row.game(3)?,
                size: row.size(4)?,
                ranked: row.bool(5)?,
                finished: job.end.state == RunState::Finished,
                steps: job.end.steps,
                time_ms: job.end.time_ms,
                rank,
                entrants: row.u32(7, "count")?,
                streak: streak_of(date, dates.iter().map(|d| parse(d, "date")))?,
            },
        );
    }
    Ok(done)
}

#[cfg(test)]
#[path = "finish_tests.rs"]
mod tests;
