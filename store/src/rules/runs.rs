//! The writes of a run's life, once for both databases: the daily salt
//! (made once, never over stored runs), a run's start (ranked or practice,
//! decided by the database; the per-address cap counted in the same
//! transaction), its end (once; a repeat of the stored ending answers as
//! the first did), and the node leases that close runs whose process died.

use mazerace_protocol::daily::DailyDate;
use mazerace_protocol::{Game, Size};

use super::convert::{rank_time_sql, streak_of, Ending};
use super::{check_board, lock};
use crate::db::{params, Db, Sql, TxKind};
use crate::error::StoreError;
use crate::node::Identity;
use crate::record::{AddressCap, BeginRun, FinishedRun, NewRun, RunState};

/// Why no new salt is made for a database that already holds runs.
pub(crate) const MISSING_SALT: &str = "runs are stored but the daily salt is missing: a new salt \
    would change every stored board. Pass the salt they were made with (--daily-salt)";

/// Lock classes of [`lock`]: one start at a time per (board, address).
const CAP_LOCK: i64 = 15;

static SALT: Sql = Sql::new("SELECT value FROM meta WHERE key = 'daily_salt'");
static ANY_RUN: Sql = Sql::new("SELECT EXISTS (SELECT 1 FROM runs)");
static NEW_SALT: Sql =
    Sql::new("INSERT INTO meta (key, value) VALUES ('daily_salt', $1) ON CONFLICT (key) DO NOTHING");
static RENEW_LEASE: Sql = Sql::new(
    "INSERT INTO nodes (boot, node, lease_until_ms) VALUES ($1, $2, $3)
     ON CONFLICT (boot) DO UPDATE SET lease_until_ms = excluded.lease_until_ms",
);
/// `$1..$3` the board, `$4` the player, `$5` the address key.
static CAP_COUNT: Sql = Sql::new(
    "SELECT EXISTS (SELECT 1 FROM runs WHERE player = $4 AND date = $1 AND game = $2 AND size = $3
                      AND {ranked}),
            (SELECT COUNT(*) FROM runs WHERE date = $1 AND game = $2 AND size = $3 AND {ranked}
                      AND address = $5)",
);
static UPSERT_PLAYER: Sql = Sql::new(
    "INSERT INTO players (key, name) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET name = excluded.name",
);
/// A ranked insert the unique index may refuse (no row back); a practice
/// one (`$7` false) is never refused.
static INSERT_RUN: Sql = Sql::new(
    "INSERT INTO runs (player, name, date, game, size, seed, ranked, node, boot, address)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
     ON CONFLICT (player, date, game, size) WHERE {ranked} DO NOTHING
     RETURNING id",
);
static COUNT_ENTRANT: Sql = Sql::new(
    "INSERT INTO board_entrants (date, game, size, shard, n) VALUES ($1, $2, $3, $4, 1)
     ON CONFLICT (date, game, size, shard) DO UPDATE SET n = board_entrants.n + 1",
);
static FINISH_READ: Sql = Sql::new(
    "SELECT player, date, game, size, ranked, state, steps, time_ms, actions FROM runs WHERE id = $1 {for_update}",
);
static FINISH_WRITE: Sql = Sql::new(
    "UPDATE runs SET state = $2, steps = $3, time_ms = $4, actions = $5, times = $6, at_floor = $7,
         ended_at = {now}
     WHERE id = $1",
);
/// `$1..$3` the board, `$4` steps, `$5` the time ranked by
/// ([`super::convert::rank_time`]): finished ranked runs strictly better.
pub(crate) static RANK: Sql = Sql::new(concat!(
    // Fewer steps: from the per-step counters; the same steps and less
    // time: one step count's slice of the board index.
    "SELECT (SELECT COALESCE(SUM(n), 0) FROM {step_counts} c
             WHERE date = $1 AND game = $2 AND size = $3 AND steps < $4)
          + (SELECT COUNT(*) FROM runs
             WHERE date = $1 AND game = $2 AND size = $3 AND {ranked} AND state = 'finished'
               AND steps = $4 AND ",
    rank_time_sql!(),
    " < $5)"
));
pub(crate) static ENTRANTS: Sql =
    Sql::new("SELECT COALESCE(SUM(n), 0) FROM board_entrants WHERE date = $1 AND game = $2 AND size = $3");
pub(crate) static STREAK_DATES: Sql = Sql::new(
    "SELECT DISTINCT date FROM runs WHERE player = $1 AND {ranked} AND date <= $2 ORDER BY date DESC",
);
static CLOSE_OWN: Sql = Sql::new(
    "UPDATE runs SET state = 'not_finished', steps = 0, actions = '[]', times = NULL, ended_at = {now}
     WHERE state = 'playing' AND node = $1",
);
static FORGET_OWN_BOOTS: Sql = Sql::new("DELETE FROM nodes WHERE node = $1 AND boot <> $2");
static CLOSE_EXPIRED: Sql = Sql::new(
    "UPDATE runs SET state = 'not_finished', steps = 0, actions = '[]', times = NULL, ended_at = {now}
     WHERE state = 'playing' AND boot IN (SELECT boot FROM nodes WHERE lease_until_ms < $1 AND boot <> $2)",
);
static FORGET_EXPIRED: Sql = Sql::new("DELETE FROM nodes WHERE lease_until_ms < $1 AND boot <> $2");

/// Every statement here, for the rendering test.
#[cfg(test)]
pub(crate) static STATEMENTS: &[&Sql] = &[
    &SALT,
    &ANY_RUN,
    &NEW_SALT,
    &RENEW_LEASE,
    &CAP_COUNT,
    &UPSERT_PLAYER,
    &INSERT_RUN,
    &COUNT_ENTRANT,
    &FINISH_READ,
    &FINISH_WRITE,
    &RANK,
    &ENTRANTS,
    &STREAK_DATES,
    &CLOSE_OWN,
    &FORGET_OWN_BOOTS,
    &CLOSE_EXPIRED,
    &FORGET_EXPIRED,
];

/// The daily salt kept in the database; a random 32-byte one (OS entropy)
/// is made and committed the first time (whoever inserts first wins,
/// everyone then reads the one salt), never over stored runs.
pub(crate) async fn daily_salt(db: &mut dyn Db) -> Result<Vec<u8>, StoreError> {
    db.begin(TxKind::Write).await?;
    if let Some(row) = db.opt(&SALT, &[]).await? {
        return row.bytes(0);
    }
    if db.one(&ANY_RUN, &[]).await?.bool(0)? {
        return Err(StoreError::Corrupt(MISSING_SALT.into()));
    }
    let salt = new_salt()?;
    db.execute(&NEW_SALT, &params![&salt[..]]).await?;
    let salt = db.one(&SALT, &[]).await?.bytes(0)?;
    db.commit().await?;
    Ok(salt)
}

/// A fresh random 32-byte daily salt (OS entropy).
fn new_salt() -> Result<Vec<u8>, StoreError> {
    let mut salt = vec![0u8; 32];
    getrandom::fill(&mut salt).map_err(|e| std::io::Error::other(format!("no OS entropy: {e}")))?;
    Ok(salt)
}

/// Push this process's lease forward (its `nodes` row).
pub(crate) async fn renew_lease(db: &mut dyn Db, me: &Identity) -> Result<(), StoreError> {
    db.execute(&RENEW_LEASE, &params![&me.boot, &me.node, me.lease_until_ms()]).await?;
    Ok(())
}

/// Whether `player`'s first run on a board would be practice because the
/// address under `cap` already has `cap.limit` ranked runs there (a player
/// who has their own ranked run is not capped by it). The start asks it
/// under its lock; the lobby asks it before, to say so up front.
pub(crate) async fn cap_reached(
    db: &mut dyn Db,
    (date, game, size): (DailyDate, Game, Size),
    player: &str,
    cap: &AddressCap,
) -> Result<bool, StoreError> {
    let board = params![date, game, size];
    let row = db.one(&CAP_COUNT, &[board[0], board[1], board[2], player.into(), (&cap.key).into()]).await?;
    let (own, from_address) = (row.bool(0)?, row.int(1)?);
    Ok(!own && from_address >= i64::from(cap.limit))
}

/// Record the start of a run: the player's first on the board is ranked,
/// any later one practice; with a `cap`, the first is practice too
/// (`capped`) when the address already has `cap.limit` ranked runs on the
/// board, counted in the same transaction as the insert (under a lock per
/// board and address where several writers run at once), so concurrent
/// starts from one address cannot pass the cap.
pub(crate) async fn begin_run(
    db: &mut dyn Db,
    me: &Identity,
    run: &NewRun,
    cap: Option<&AddressCap>,
) -> Result<BeginRun, StoreError> {
    check_board(run.game, run.size)?;
    let board = params![run.date, run.game, run.size];
    db.begin(TxKind::Write).await?;
    let capped = match cap {
        None => false,
        Some(cap) => {
            lock(db, &format!("{}|{}|{}|{}", run.date, run.game, run.size, cap.key), CAP_LOCK).await?;
            cap_reached(db, (run.date, run.game, run.size), run.player.as_str(), cap).await?
        }
    };
    db.execute(&UPSERT_PLAYER, &params![run.player.as_str(), &run.name]).await?;
    let seed = run.seed.to_string();
    let address = cap.map(|c| c.key.as_str());
    let insert = |ranked: bool| {
        params![
            run.player.as_str(),
            &run.name,
            run.date,
            run.game,
            run.size,
            &seed,
            ranked,
            &me.node,
            &me.boot,
            address
        ]
    };
    // Ask for a ranked run and let the unique index say no: the database,
    // not a read-then-write here, decides which attempt is the ranked one
    // (a second insert of another node waits for the first to commit, then
    // does nothing).
    let ranked_id = if capped { None } else { db.opt(&INSERT_RUN, &insert(true)).await? };
    let begun = match ranked_id {
        Some(row) => {
            let shard = db.dialect().entrant_shard()?;
            db.execute(&COUNT_ENTRANT, &[board[0], board[1], board[2], shard.into()]).await?;
            BeginRun { run_id: row.int(0)?, ranked: true, capped: false }
        }
        None => {
            BeginRun { run_id: db.one(&INSERT_RUN, &insert(false)).await?.int(0)?, ranked: false, capped }
        }
    };
    db.commit().await?;
    Ok(begun)
}

/// End run `run_id` as `end` says, inside the caller's write transaction
/// (the batch the finish is committed with). A run ends once: a different
/// ending later is [`StoreError::RunOver`]; a repeat of the very ending
/// stored (a retry after an unknown outcome) answers as the first did and
/// counts nothing twice. Rank, entrants and streak are read in the same
/// transaction, after the run's own write: its rank counts the finishes
/// strictly better, never itself (a batch ranks its finishes again once all
/// are written, so that each rank is the board's as the batch commits).
pub(crate) async fn finish_one(
    db: &mut dyn Db,
    run_id: i64,
    end: &Ending,
) -> Result<FinishedRun, StoreError> {
    let row = db.opt(&FINISH_READ, &params![run_id]).await?.ok_or(StoreError::UnknownRun(run_id))?;
    // The board is read and checked before anything is written: a run of a
    // game this build does not know is refused, not ended or counted.
    let (player, date, game, size) = (row.string(0)?, row.date(1)?, row.game(2)?, row.size(3)?);
    let ranked = row.bool(4)?;
    let repeat = row.state(5)? != RunState::Playing;
    if repeat
        && (row.state(5)? != end.state
            || row.int(6)? != i64::from(end.steps)
            || row.opt_int(7)? != end.time_db
            || row.text(8)? != end.actions)
    {
        return Err(StoreError::RunOver(run_id));
    }
    let steps = i64::from(end.steps);
    if !repeat {
        let ending =
            params![run_id, end.state, steps, end.time_db, &end.actions, end.times.as_deref(), end.at_floor];
        db.execute(&FINISH_WRITE, &ending).await?;
        if ranked && end.finished() {
            let count_step = db.dialect().count_step;
            db.execute(count_step, &params![date, game, size, steps, run_id]).await?;
        }
    }
    let rank = match end.rank_db() {
        Some(t) if ranked => Some(rank_in(db, date, game, size, steps, t).await?),
        _ => None,
    };
    Ok(FinishedRun {
        run_id,
        date,
        game,
        size,
        ranked,
        finished: end.finished(),
        steps: end.steps,
        time_ms: end.time_ms,
        rank,
        entrants: entrants_in(db, date, game, size).await?,
        streak: streak_in(db, &player, date).await?,
    })
}

/// Standard competition rank of (steps, time) among the board's ranked
/// finishes: one more than the number strictly better. `rank_ms`: the
/// run's time as ranked ([`super::convert::rank_time`]: 0 at the floor).
pub(crate) async fn rank_in(
    db: &mut dyn Db,
    date: mazerace_protocol::daily::DailyDate,
    game: Game,
    size: Size,
    steps: i64,
    rank_ms: i64,
) -> Result<u32, StoreError> {
    let better = db.one(&RANK, &params![date, game, size, steps, rank_ms]).await?.u32(0, "count")?;
    Ok(better.saturating_add(1))
}

/// Ranked runs started on the board, finished or not.
pub(crate) async fn entrants_in(
    db: &mut dyn Db,
    date: mazerace_protocol::daily::DailyDate,
    game: Game,
    size: Size,
) -> Result<u32, StoreError> {
    db.one(&ENTRANTS, &params![date, game, size]).await?.u32(0, "count")
}

/// Consecutive UTC days, ending `today`, on which the player started a
/// ranked run; a day not yet played does not break it.
pub(crate) async fn streak_in(
    db: &mut dyn Db,
    player: &str,
    today: mazerace_protocol::daily::DailyDate,
) -> Result<u32, StoreError> {
    let rows = db.query(&STREAK_DATES, &params![player, today]).await?;
    streak_of(today, rows.iter().map(|r| r.date(0)))
}

/// Close this node's runs still `playing` (its earlier, dead, boots'), and
/// forget those boots' leases; other nodes' runs are not touched.
pub(crate) async fn abandon_open_runs(db: &mut dyn Db, me: &Identity) -> Result<u64, StoreError> {
    db.begin(TxKind::Write).await?;
    let n = db.execute(&CLOSE_OWN, &params![&me.node]).await?;
    db.execute(&FORGET_OWN_BOOTS, &params![&me.node, &me.boot]).await?;
    db.commit().await?;
    Ok(n)
}

/// Renew this process's lease, then close the open runs of every other
/// boot whose lease has run out and forget those boots. Two nodes reaping
/// at once: the second waits on the row locks, then finds the runs no
/// longer playing and closes nothing.
pub(crate) async fn heartbeat(db: &mut dyn Db, me: &Identity) -> Result<u64, StoreError> {
    let now = me.now_ms();
    renew_lease(db, me).await?;
    db.begin(TxKind::Write).await?;
    let n = db.execute(&CLOSE_EXPIRED, &params![now, &me.boot]).await?;
    db.execute(&FORGET_EXPIRED, &params![now, &me.boot]).await?;
    db.commit().await?;
    Ok(n)
}
