//! The reads, once for both databases: a board's table (its first lines,
//! entrants and the asker's own line, in one snapshot), a run's rank, a
//! player's ranked run and streak, stored runs for replays and the
//! verifier, and a player's day across the day's boards.

use mazerace_protocol::daily::day::{DayBoard, PlayedBoard, PlayerDay};
use mazerace_protocol::daily::DailyDate;
use mazerace_protocol::messages::{Leaderboard, LeaderboardEntry};
use mazerace_protocol::{Game, Size};

use super::check_board;
use super::convert::{competition_ranks, rank_time, rank_time_sql, run_columns, stored_run};
use super::runs::{entrants_in, rank_in, streak_in};
use crate::db::{params, to_u64, Db, Row, Sql, TxKind};
use crate::error::StoreError;
use crate::player::PlayerKey;
use crate::record::{RankedRow, RunState, StoredRun};

/// A table's first lines: by steps, then the time ranked by (runs at the
/// floor tie on time), then who finished first.
static TOP: Sql = Sql::new(concat!(
    "SELECT name, steps, time_ms, id, at_floor FROM runs
     WHERE date = $1 AND game = $2 AND size = $3 AND {ranked} AND state = 'finished'
     ORDER BY steps, ",
    rank_time_sql!(),
    ", id LIMIT $4"
));
static MINE: Sql = Sql::new(
    "SELECT name, steps, time_ms, id, at_floor FROM runs
     WHERE player = $1 AND date = $2 AND game = $3 AND size = $4 AND {ranked} AND state = 'finished'",
);
static RANKED_FINISH: Sql = Sql::new(
    "SELECT date, game, size, steps, time_ms, at_floor FROM runs
     WHERE id = $1 AND {ranked} AND state = 'finished'",
);
static RANKED_RUN: Sql = Sql::new(
    "SELECT id, state, steps, time_ms, {started_at}, at_floor FROM runs
     WHERE player = $1 AND date = $2 AND game = $3 AND size = $4 AND {ranked}",
);
static RUN: Sql = Sql::new(concat!("SELECT ", run_columns!(), " FROM runs WHERE id = $1"));
static OWNS: Sql = Sql::new("SELECT 1 FROM runs WHERE id = $1 AND player = $2");
static PING: Sql = Sql::new("SELECT 1");
static RUNS_AFTER: Sql =
    Sql::new(concat!("SELECT ", run_columns!(), " FROM runs WHERE id > $1 ORDER BY id LIMIT $2"));

/// Every statement here, for the rendering test.
#[cfg(test)]
pub(crate) static STATEMENTS: &[&Sql] =
    &[&TOP, &MINE, &RANKED_FINISH, &RANKED_RUN, &RUN, &OWNS, &PING, &RUNS_AFTER];

/// Whether the database answers (a trivial query).
pub(crate) async fn ping(db: &mut dyn Db) -> Result<(), StoreError> {
    db.one(&PING, &[]).await.map(drop)
}

fn entry(r: &Row, rank: u32) -> Result<LeaderboardEntry, StoreError> {
    Ok(LeaderboardEntry {
        rank,
        name: r.string(0)?,
        steps: r.u32(1, "steps")?,
        time_ms: to_u64(r.int(2)?, "time")?,
        run_id: r.int(3)?,
        at_floor: r.bool(4)?,
    })
}

/// A finished row's (steps, time ranked by), from columns `steps`,
/// `steps + 1` (time) and `floor` (at_floor).
fn rank_key(r: &Row, steps: usize, floor: usize) -> Result<(i64, i64), StoreError> {
    Ok((r.int(steps)?, rank_time(r.int(steps + 1)?, r.bool(floor)?)))
}

/// A board's table: the first `limit` ranked finishers, `entrants`, and
/// `you`'s own line when that player has a ranked finish, all from one
/// snapshot.
pub(crate) async fn leaderboard(
    db: &mut dyn Db,
    date: DailyDate,
    game: Game,
    size: Size,
    you: Option<&PlayerKey>,
    limit: u32,
) -> Result<Leaderboard, StoreError> {
    check_board(game, size)?;
    db.begin(TxKind::Snapshot).await?;
    let rows = db.query(&TOP, &params![date, game, size, limit]).await?;
    let mut keys = Vec::with_capacity(rows.len());
    for r in &rows {
        keys.push(rank_key(r, 1, 4)?);
    }
    let entries = rows
        .iter()
        .zip(competition_ranks(&keys))
        .map(|(r, rank)| entry(r, rank))
        .collect::<Result<_, _>>()?;
    let you = match you {
        None => None,
        Some(player) => match db.opt(&MINE, &params![player.as_str(), date, game, size]).await? {
            None => None,
            Some(r) => {
                let (steps, rank_ms) = rank_key(&r, 1, 4)?;
                Some(entry(&r, rank_in(db, date, game, size, steps, rank_ms).await?)?)
            }
        },
    };
    let entrants = entrants_in(db, date, game, size).await?;
    db.commit().await?;
    Ok(Leaderboard { date, game, size, entrants, entries, you })
}

/// The rank of a run on its board; `None` unless it is a ranked finish.
pub(crate) async fn rank_of(db: &mut dyn Db, run_id: i64) -> Result<Option<u32>, StoreError> {
    db.begin(TxKind::Snapshot).await?;
    let Some(r) = db.opt(&RANKED_FINISH, &params![run_id]).await? else { return Ok(None) };
    let (steps, rank_ms) = rank_key(&r, 3, 5)?;
    let rank = rank_in(db, r.date(0)?, r.game(1)?, r.size(2)?, steps, rank_ms).await?;
    db.commit().await?;
    Ok(Some(rank))
}

/// Ranked runs started on a board, finished or not.
pub(crate) async fn entrants(
    db: &mut dyn Db,
    date: DailyDate,
    game: Game,
    size: Size,
) -> Result<u32, StoreError> {
    check_board(game, size)?;
    entrants_in(db, date, game, size).await
}

/// The player's ranked run on a board, if they have started one.
pub(crate) async fn ranked_run(
    db: &mut dyn Db,
    player: &PlayerKey,
    date: DailyDate,
    game: Game,
    size: Size,
) -> Result<Option<RankedRow>, StoreError> {
    check_board(game, size)?;
    let Some(r) = db.opt(&RANKED_RUN, &params![player.as_str(), date, game, size]).await? else {
        return Ok(None);
    };
    Ok(Some(RankedRow {
        run_id: r.int(0)?,
        state: r.state(1)?,
        steps: r.u32(2, "steps")?,
        time_ms: r.opt_u64(3, "time")?,
        at_floor: r.bool(5)?,
        started_at: r.string(4)?,
    }))
}

/// See [`streak_in`].
pub(crate) async fn streak(db: &mut dyn Db, player: &PlayerKey, today: DailyDate) -> Result<u32, StoreError> {
    streak_in(db, player.as_str(), today).await
}

/// Every board of `date` with the player's ranked result, and their
/// streak, from one snapshot.
pub(crate) async fn player_day(
    db: &mut dyn Db,
    player: &PlayerKey,
    date: DailyDate,
) -> Result<PlayerDay, StoreError> {
    db.begin(TxKind::Snapshot).await?;
    let streak = streak_in(db, player.as_str(), date).await?;
    let mut boards = Vec::with_capacity(Size::ALL.len());
    for size in Size::ALL {
        let game = size.game();
        let result = match ranked_run(db, player, date, game, size).await? {
            None => None,
            Some(row) => Some(PlayedBoard {
                finished: row.state == RunState::Finished,
                steps: row.steps,
                time_ms: row.time_ms,
                rank: rank_of_row(db, date, game, size, &row).await?,
                entrants: entrants_in(db, date, game, size).await?,
                run_id: row.run_id,
                at: row.started_at,
            }),
        };
        boards.push(DayBoard { game, size, played: result.is_some(), result });
    }
    db.commit().await?;
    Ok(PlayerDay { date, streak, boards })
}

/// The rank of a player's ranked run as found (a finish has one).
async fn rank_of_row(
    db: &mut dyn Db,
    date: DailyDate,
    game: Game,
    size: Size,
    row: &RankedRow,
) -> Result<Option<u32>, StoreError> {
    match (row.state, row.time_ms) {
        (RunState::Finished, Some(t)) => {
            let t = rank_time(super::convert::to_i64(t, "time")?, row.at_floor);
            Ok(Some(rank_in(db, date, game, size, i64::from(row.steps), t).await?))
        }
        _ => Ok(None),
    }
}

/// One run by id, for the replay view (a run of a game this build does not
/// know is an error, as in every read of one row: `Row::game`).
pub(crate) async fn run(db: &mut dyn Db, run_id: i64) -> Result<Option<StoredRun>, StoreError> {
    db.opt(&RUN, &params![run_id]).await?.as_ref().map(stored_run).transpose()
}

/// Whether `player` made run `run_id`.
pub(crate) async fn owns_run(db: &mut dyn Db, run_id: i64, player: &PlayerKey) -> Result<bool, StoreError> {
    Ok(db.opt(&OWNS, &params![run_id, player.as_str()]).await?.is_some())
}

/// Up to `limit` runs with id greater than `after_id`, in id order. A run
/// of a game this build does not know fails the page (`Row::game`) rather
/// than being left out: the verifier pages through every run with this,
/// and leaving one out would report runs it never replayed as checked (a
/// page of such runs only would even read as the end of the runs).
pub(crate) async fn runs_after(
    db: &mut dyn Db,
    after_id: i64,
    limit: u32,
) -> Result<Vec<StoredRun>, StoreError> {
    db.query(&RUNS_AFTER, &params![after_id, limit]).await?.iter().map(stored_run).collect()
}
