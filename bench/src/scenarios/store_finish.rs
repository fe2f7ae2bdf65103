//! The store scenario's write half: ranked finishes committed per second and
//! their commit latency, through a node's own [`Store`] (its bounded queue,
//! its connections and its group commit), as a node's players use it:
//! - closed loop: `writers` callers, each finishing its share of begun runs
//!   one after another (each waits for its commit);
//! - open loop: finishes offered at a fixed rate whatever the answers do,
//!   each timed from its scheduled moment, so a store that falls behind
//!   shows it in the tail (and in its queue) instead of slowing the offer.
//!
//! Also the disk's own flush rate (8 KiB written and `fdatasync`ed, in a
//! loop, in the temp dir), because every durable commit waits for one and on
//! a shared machine that rate moves by ten times from hour to hour.

use std::io::Write;
use std::time::{Duration, Instant};

use mazerace_store::{CommitCounts, Outcome, Store};

use crate::stats::Lat;

/// What one closed-loop run measured.
pub struct Closed {
    pub per_sec: f64,
    pub lat: Lat,
    /// Finishes per committed transaction.
    pub per_commit: f64,
}

/// Finish every run in `runs`, split among `writers` callers at once.
pub async fn closed_loop(
    store: &Store,
    runs: &[i64],
    writers: usize,
    one_step: bool,
) -> anyhow::Result<Closed> {
    let before = store.commits();
    let chunk = runs.len().div_ceil(writers.max(1)).max(1);
    let t0 = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for ids in runs.chunks(chunk) {
        let (store, ids) = (store.clone(), ids.to_vec());
        tasks.spawn(async move {
            let mut lat = Lat::new();
            for (i, id) in ids.into_iter().enumerate() {
                let steps = if one_step { 100 } else { 100 + (i as u32 % 400) };
                let t = Instant::now();
                store
                    .finish_run(
                        id,
                        Outcome::Finished { steps, time_ms: 5_000, at_floor: false },
                        Vec::new(),
                        None,
                    )
                    .await?;
                lat.record(t.elapsed());
            }
            anyhow::Ok(lat)
        });
    }
    let mut lat = Lat::new();
    while let Some(done) = tasks.join_next().await {
        lat.merge(&done??);
    }
    let took = t0.elapsed().as_secs_f64().max(1e-9);
    Ok(Closed { per_sec: runs.len() as f64 / took, lat, per_commit: per_commit(before, store.commits()) })
}

fn per_commit(before: CommitCounts, after: CommitCounts) -> f64 {
    (after.finishes - before.finishes) as f64 / (after.batches - before.batches).max(1) as f64
}

/// What one open-loop run measured.
pub struct Open {
    pub offered_per_sec: f64,
    pub done_per_sec: f64,
    pub lat: Lat,
    pub per_commit: f64,
    /// The store's queue, sampled every 20 ms while the finishes were offered:
    /// its mean over the offer's second quarter and over its last quarter.
    pub queue_early: f64,
    pub queue_late: f64,
    /// The commit p99 of each quarter of the offer, in order: a stall of
    /// the machine shows in one quarter, a store that cannot keep up in the
    /// last ones.
    pub p99_by_quarter: [Duration; 4],
}

impl Open {
    /// The queue did not grow: the last quarter's mean depth is within a
    /// batch's worth of the second quarter's (a queue that grows, grows by
    /// hundreds over an offer of seconds), and far from the store's
    /// capacity (a queue held at its cap has stopped growing only because
    /// the callers wait outside it).
    pub fn queue_steady(&self) -> bool {
        self.queue_late <= self.queue_early + 32.0
            && self.queue_late < 0.75 * mazerace_store::DEFAULT_QUEUE as f64
    }
}

/// Finish every run in `runs` (begun ranked runs), offering `rate` a second.
pub async fn open_loop(store: &Store, runs: &[i64], rate: f64) -> anyhow::Result<Open> {
    let before = store.commits();
    let period = Duration::from_secs_f64(1.0 / rate.max(1.0));
    let start = Instant::now() + Duration::from_millis(50);
    let offer = period.mul_f64(runs.len().saturating_sub(1) as f64);
    // The queue's depth while the finishes are offered, by a sampler of its own.
    let sampler = tokio::spawn({
        let store = store.clone();
        async move {
            let mut samples = Vec::new();
            tokio::time::sleep_until(start.into()).await;
            let mut every = tokio::time::interval(Duration::from_millis(20));
            while Instant::now() < start + offer {
                every.tick().await;
                samples.push(store.queued());
            }
            samples
        }
    });
    let mut tasks = Vec::with_capacity(runs.len());
    for (i, &id) in runs.iter().enumerate() {
        let at = start + period.mul_f64(i as f64);
        let store = store.clone();
        tasks.push(tokio::spawn(async move {
            tokio::time::sleep_until(at.into()).await;
            let outcome =
                Outcome::Finished { steps: 100 + (i as u32 % 400), time_ms: 5_000, at_floor: false };
            store.finish_run(id, outcome, Vec::new(), None).await.map(|_| at.elapsed())
        }));
    }
    let mut lat = Lat::new();
    let mut quarters = [Lat::new(), Lat::new(), Lat::new(), Lat::new()];
    let mut last = start;
    let n = tasks.len().max(1);
    for (i, t) in tasks.into_iter().enumerate() {
        let took = t.await??;
        lat.record(took);
        quarters[(i * 4 / n).min(3)].record(took);
        last = last.max(Instant::now());
    }
    let samples = sampler.await?;
    let quarter = |q: usize| {
        let n = samples.len();
        let part = &samples[n * q / 4..n * (q + 1) / 4];
        part.iter().sum::<usize>() as f64 / part.len().max(1) as f64
    };
    let took = last.saturating_duration_since(start).as_secs_f64().max(1e-9);
    Ok(Open {
        offered_per_sec: runs.len() as f64 / offer.as_secs_f64().max(period.as_secs_f64()),
        done_per_sec: runs.len() as f64 / took,
        lat,
        per_commit: per_commit(before, store.commits()),
        queue_early: quarter(1),
        queue_late: quarter(3),
        p99_by_quarter: quarters.map(|q| q.quantile(0.99)),
    })
}

/// The disk's durable-write rate where `dir` lives: 8 KiB overwritten and
/// `fdatasync`ed in a loop for `secs`; flushes a second.
pub fn disk_flushes_per_sec(dir: &std::path::Path, secs: f64) -> anyhow::Result<f64> {
    let path = dir.join("flush-probe");
    let mut f = std::fs::File::create(&path)?;
    let block = [0x5au8; 8192];
    let t0 = Instant::now();
    let mut n = 0u64;
    while t0.elapsed().as_secs_f64() < secs {
        use std::io::Seek;
        f.seek(std::io::SeekFrom::Start(0))?;
        f.write_all(&block)?;
        f.sync_data()?;
        n += 1;
    }
    let rate = n as f64 / t0.elapsed().as_secs_f64();
    drop(f);
    let _ = std::fs::remove_file(&path);
    Ok(rate)
}
