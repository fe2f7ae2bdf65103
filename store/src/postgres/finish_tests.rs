//! The group commit's test on a real PostgreSQL (`MAZERACE_TEST_DATABASE_URL`):
//! one batch ranks as of its commit, and repeats take the careful path.

use tokio::sync::{oneshot, Semaphore};

use super::*;
use crate::node::{Identity, NodeOptions};
use crate::player::PlayerKey;
use crate::record::{NewRun, Outcome};
use crate::rules::convert::Ending;

/// A schema of its own in `MAZERACE_TEST_DATABASE_URL` (as the store's
/// test suite: `None` when unset, a failure when `MAZERACE_REQUIRE_PG=1`):
/// an admin client and a URL whose connections use the schema.
async fn scratch(name: &str) -> Option<(tokio_postgres::Client, String, String)> {
    let Some(admin) = std::env::var("MAZERACE_TEST_DATABASE_URL").ok().filter(|u| !u.is_empty()) else {
        assert!(
            std::env::var("MAZERACE_REQUIRE_PG").as_deref() != Ok("1"),
            "MAZERACE_REQUIRE_PG=1 but MAZERACE_TEST_DATABASE_URL is unset"
        );
        return None;
    };
    let schema = format!("{name}_{}", std::process::id());
    let (c, conn) = tokio_postgres::connect(&admin, tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(conn);
    c.batch_execute(&format!("DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema}"))
        .await
        .unwrap();
    let sep = if admin.contains('?') { '&' } else { '?' };
    Some((c, format!("{admin}{sep}options=-c%20search_path%3D{schema}"), schema))
}

/// One batch of finishes as the committer forms them, with the receivers
/// of their answers.
fn batch(
    plays: &[(i64, Outcome)],
) -> (Vec<FinishJob>, Vec<oneshot::Receiver<Result<FinishedRun, StoreError>>>) {
    let places = Arc::new(Semaphore::new(plays.len()));
    plays
        .iter()
        .map(|&(run_id, outcome)| {
            let (reply, answer) = oneshot::channel();
            let end = Ending::new(outcome, &[], None).unwrap();
            let permit = Arc::clone(&places).try_acquire_owned().unwrap();
            (FinishJob { run_id, end, reply, _permit: permit }, answer)
        })
        .unzip()
}

async fn answers(
    rx: Vec<oneshot::Receiver<Result<FinishedRun, StoreError>>>,
) -> Vec<Result<FinishedRun, StoreError>> {
    let mut out = Vec::new();
    for a in rx {
        out.push(a.await.unwrap());
    }
    out
}

/// `n` ranked runs begun on one board, by players p0, p1, ...
async fn begin_runs(pool: &Pool, n: u32) -> Vec<i64> {
    let me = Identity::new(NodeOptions::default()).unwrap();
    let mut db = PgDb::new(pool.get().await.unwrap());
    let mut ids = Vec::new();
    for n in 0..n {
        let run = NewRun {
            player: PlayerKey::from_token(&format!("p{n}")),
            name: format!("p{n}"),
            date: "2026-12-01".parse().unwrap(),
            game: mazerace_protocol::Game::Maze,
            size: mazerace_protocol::Size::Easy,
            seed: 7,
        };
        ids.push(crate::rules::runs::begin_run(&mut db, &me, &run, None).await.unwrap().run_id);
    }
    ids
}

#[tokio::test]
async fn one_batch_ranks_as_it_commits_and_repeats_take_the_careful_path() {
    let Some((admin, url, schema)) = scratch("finish_batch").await else { return };
    let pool = crate::postgres::connect(&url).await.unwrap();
    let ids = begin_runs(&pool, 5).await;
    let commits = Commits::default();
    // In one batch: each rank counts the finishes strictly better
    // committed before it or with it, never itself: the board's ranks
    // as the batch commits.
    let plays = [(30, 900), (20, 500), (20, 500), (20, 400), (40, 100)];
    let finishes: Vec<(i64, Outcome)> = ids
        .iter()
        .zip(plays)
        .map(|(&id, (steps, time_ms))| (id, Outcome::Finished { steps, time_ms, at_floor: false }))
        .collect();
    let mut committer = Committer { shard: 0, db: None };
    let (jobs, rx) = batch(&finishes);
    committer.commit(&pool, jobs, &commits).await;
    let done = answers(rx).await;
    let ranks: Vec<Option<u32>> = done.iter().map(|d| d.as_ref().unwrap().rank).collect();
    assert_eq!(ranks, [Some(4), Some(2), Some(2), Some(1), Some(5)], "the board as the batch commits");
    assert!(done.iter().all(|d| d.as_ref().ok().map(|d| (d.entrants, d.streak)) == Some((5, 1))));
    assert_eq!(commits.snapshot(), crate::group::CommitCounts { batches: 1, finishes: 5 });
    // A repeat, a different ending and an unknown run in one batch: the
    // repeat answers from the stored finish with the board's rank now,
    // the others are refused, each alone.
    let again = [
        (ids[1], Outcome::Finished { steps: 20, time_ms: 500, at_floor: false }),
        (ids[2], Outcome::Finished { steps: 21, time_ms: 500, at_floor: false }),
        (999_999, Outcome::NotFinished { steps: 1 }),
    ];
    let (jobs, rx) = batch(&again);
    committer.commit(&pool, jobs, &commits).await;
    let done = answers(rx).await;
    assert_eq!(done[0].as_ref().map(|d| (d.rank, d.entrants, d.steps)).ok(), Some((Some(2), 5, 20)));
    assert!(matches!(done[1], Err(StoreError::RunOver(_))), "{:?}", done[1]);
    assert!(matches!(done[2], Err(StoreError::UnknownRun(999_999))), "{:?}", done[2]);
    assert_eq!(commits.snapshot().finishes, 6, "the repeat is answered, and counted as committed");
    pool.close();
    admin.batch_execute(&format!("DROP SCHEMA {schema} CASCADE")).await.unwrap();
}

/// Runs paced at the floor tie on time in one batch and against the
/// board: among them steps alone rank, and the flag is stored.
#[tokio::test]
async fn one_batch_ties_the_runs_at_the_floor_on_time() {
    let Some((admin, url, schema)) = scratch("finish_floor").await else { return };
    let pool = crate::postgres::connect(&url).await.unwrap();
    let ids = begin_runs(&pool, 4).await;
    let fin = |steps, time_ms, at_floor| Outcome::Finished { steps, time_ms, at_floor };
    let mut committer = Committer { shard: 0, db: None };
    let (jobs, rx) = batch(&[(ids[0], fin(36, 9_000, false))]);
    committer.commit(&pool, jobs, &Commits::default()).await;
    answers(rx).await.pop().unwrap().unwrap();
    // With the board's human run, in one batch: the two at the floor tie
    // (3 s and 2.9 s alike), ahead of the human's 9 s on the same steps.
    let (jobs, rx) = batch(&[
        (ids[1], fin(36, 3_000, true)),
        (ids[2], fin(36, 2_900, true)),
        (ids[3], fin(40, 2_000, true)),
    ]);
    committer.commit(&pool, jobs, &Commits::default()).await;
    let ranks: Vec<Option<u32>> = answers(rx).await.iter().map(|d| d.as_ref().unwrap().rank).collect();
    assert_eq!(ranks, [Some(1), Some(1), Some(4)], "steps first, then time, at the floor a tie");
    let client = pool.get().await.unwrap();
    let rows = client.query("SELECT at_floor FROM runs ORDER BY id", &[]).await.unwrap();
    let stored: Vec<bool> = rows.iter().map(|r| r.get(0)).collect();
    assert_eq!(stored, [false, true, true, true]);
    drop(client);
    pool.close();
    admin.batch_execute(&format!("DROP SCHEMA {schema} CASCADE")).await.unwrap();
}
