//! The store scenario's write half: ranked finishes committed per second and
//! their commit latency, through the node's own [`Store`] (its bounded queue
//! and its connections: [`POSTGRES_CONNECTIONS`] on PostgreSQL, one on
//! SQLite), as a node's players use it. Open loop: finishes are offered at a
//! fixed rate (the goal's 2,000 a second) whatever the answers do, and each
//! is timed from its scheduled moment, so a store that falls behind shows it
//! in the tail instead of slowing the offer down.
//!
//! Also the disk's own flush rate (8 KiB written and `fdatasync`ed, in a
//! loop, in the temp dir), because every durable commit waits for one and on
//! a shared machine that rate moves by ten times from hour to hour.

use std::io::Write;
use std::rc::Rc;
use std::time::{Duration, Instant};

use mazerace_store::{Database, NodeOptions, Outcome, Store, StoreError};

use crate::stats::Lat;

/// What one open-loop run measured.
pub struct Finishes {
    pub offered_per_sec: f64,
    pub done_per_sec: f64,
    pub lat: Lat,
    pub connections: usize,
}

/// Finish every run in `runs` (begun ranked runs), offering `rate` a second.
pub fn measure(db: &Database, runs: &[i64], rate: f64) -> anyhow::Result<Finishes> {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let local = tokio::task::LocalSet::new();
    local.block_on(&rt, async {
        let store = Store::connect(db.clone(), NodeOptions::default()).await?;
        let connections = match db {
            Database::Postgres(_) => mazerace_store::POSTGRES_CONNECTIONS,
            Database::SqliteDir(_) => 1,
        };
        let period = Duration::from_secs_f64(1.0 / rate.max(1.0));
        let start = Instant::now() + Duration::from_millis(50);
        let first_err: Rc<std::cell::RefCell<Option<StoreError>>> = Rc::default();
        let mut tasks = Vec::with_capacity(runs.len());
        for (i, &id) in runs.iter().enumerate() {
            let at = start + period.mul_f64(i as f64);
            let store = store.clone();
            let first_err = Rc::clone(&first_err);
            tasks.push(tokio::task::spawn_local(async move {
                tokio::time::sleep_until(at.into()).await;
                let outcome = Outcome::Finished { steps: 100 + (i as u32 % 400), time_ms: 5_000 };
                let r = store.finish_run(id, outcome, Vec::new(), None).await;
                let took = at.elapsed();
                match r {
                    Ok(_) => Some(took),
                    Err(e) => {
                        first_err.borrow_mut().get_or_insert(e);
                        None
                    }
                }
            }));
        }
        let mut lat = Lat::new();
        let mut last = start;
        for t in tasks {
            if let Some(took) = t.await? {
                lat.record(took);
            }
            last = last.max(Instant::now());
        }
        store.close().await;
        if let Some(e) = first_err.borrow_mut().take() {
            anyhow::bail!("a finish failed: {e}");
        }
        let offered = period.mul_f64(runs.len().saturating_sub(1) as f64).as_secs_f64();
        let took = last.saturating_duration_since(start).as_secs_f64().max(1e-9);
        Ok(Finishes {
            offered_per_sec: runs.len() as f64 / offered.max(period.as_secs_f64()),
            done_per_sec: runs.len() as f64 / took,
            lat,
            connections,
        })
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
