//! How busy the server's runtime is, as rooms see it: the share of its
//! workers' time spent running tasks rather than parked, smoothed. Rooms
//! widen their `progress` window with it (`room/progress.rs`): under load a
//! `progress` frame per move is what the machine can least afford (each one
//! is a loopback send), and when quiet the window narrows to its floor.
//!
//! There is no sampling task: whichever room asks first after a period is
//! over takes the next sample (tokio's runtime metrics are a few atomic
//! reads), everyone else reads one atomic. Outside a tokio runtime (unit
//! tests of the state machine) the level stays 0.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How often the level is sampled.
const PERIOD: Duration = Duration::from_millis(100);

/// Busy share, in permille (0 = idle, 1000 = every worker always busy).
pub type Permille = u32;

/// One server's load level.
#[derive(Debug)]
pub struct Load {
    /// The smoothed level, in permille.
    level: AtomicU32,
    /// When the next sample is due, in ns since `base`.
    next: AtomicU64,
    base: Instant,
    last: Mutex<Option<Sample>>,
}

#[derive(Debug, Clone, Copy)]
struct Sample {
    at: Instant,
    busy: Duration,
}

impl Default for Load {
    fn default() -> Self {
        Load {
            level: AtomicU32::new(0),
            next: AtomicU64::new(0),
            base: Instant::now(),
            last: Mutex::new(None),
        }
    }
}

impl Load {
    /// The current level, sampling the runtime first if a period is over.
    pub fn level(&self) -> Permille {
        let now = Instant::now();
        let since = now.saturating_duration_since(self.base).as_nanos() as u64;
        if since >= self.next.load(Ordering::Relaxed) {
            self.sample(now, since);
        }
        self.level.load(Ordering::Relaxed)
    }

    fn sample(&self, now: Instant, since: u64) {
        // Someone else is sampling: their figure will do.
        let Ok(mut last) = self.last.try_lock() else { return };
        self.next.store(since + PERIOD.as_nanos() as u64, Ordering::Relaxed);
        let Ok(rt) = tokio::runtime::Handle::try_current() else { return };
        let m = rt.metrics();
        let workers = m.num_workers();
        let busy: Duration = (0..workers).map(|w| m.worker_total_busy_duration(w)).sum();
        let here = Sample { at: now, busy };
        if let Some(prev) = last.replace(here) {
            let wall = now.saturating_duration_since(prev.at).as_secs_f64() * workers.max(1) as f64;
            if wall > 0.0 {
                let share = (busy.saturating_sub(prev.busy).as_secs_f64() / wall).clamp(0.0, 1.0);
                let old = self.level.load(Ordering::Relaxed);
                self.level.store(smooth(old, (share * 1000.0) as Permille), Ordering::Relaxed);
            }
        }
    }
}

/// An exponential average over about four samples: one busy period (a
/// burst of room setups, a GC-like pause of another tenant) moves the
/// window a little, a sustained load moves it all the way within ~0.5 s.
fn smooth(old: Permille, new: Permille) -> Permille {
    (old * 3 + new) / 4
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_level_follows_a_sustained_load_and_forgets_a_burst() {
        let mut l = 0;
        l = smooth(l, 1000);
        assert!(l < 300, "one busy sample moves it a quarter: {l}");
        for _ in 0..8 {
            l = smooth(l, 800);
        }
        assert!((700..=800).contains(&l), "sustained 80% reads close to 80%: {l}");
        for _ in 0..8 {
            l = smooth(l, 0);
        }
        assert!(l < 100, "and quiet brings it back down: {l}");
    }

    #[test]
    fn outside_a_runtime_the_level_is_zero() {
        assert_eq!(Load::default().level(), 0);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_runtime_kept_busy_reads_as_busy() {
        let load = Load::default();
        load.level();
        // Keep one of the two workers spinning for a few periods, in short
        // polls (tokio counts a worker's busy time between its pauses).
        let spin = tokio::spawn(async {
            let end = Instant::now() + PERIOD * 6;
            while Instant::now() < end {
                let slice = Instant::now() + Duration::from_millis(1);
                while Instant::now() < slice {
                    std::hint::spin_loop();
                }
                tokio::task::yield_now().await;
            }
        });
        let mut seen = 0;
        for _ in 0..6 {
            tokio::time::sleep(PERIOD).await;
            seen = seen.max(load.level());
        }
        let _ = spin.await;
        assert!(seen > 150, "one of two workers busy should read well above idle: {seen}");
    }
}
