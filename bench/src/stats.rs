//! Counting and timing during a measured window: latency histograms
//! (HdrHistogram, nanosecond precision to three significant figures), the
//! counters one load phase accumulates, and the median of a few runs.
//! Single-threaded by design: the load generator runs on one current-thread
//! runtime.

use hdrhistogram::Histogram;
use std::time::{Duration, Instant};

/// A latency distribution.
#[derive(Clone)]
pub struct Lat {
    h: Histogram<u64>,
}

impl Default for Lat {
    fn default() -> Self {
        Lat::new()
    }
}

impl Lat {
    pub fn new() -> Lat {
        // 1 ns .. 100 s, 3 significant figures: about 50 KiB of buckets.
        let h = Histogram::new_with_bounds(1, 100_000_000_000, 3).expect("constant bounds are valid");
        Lat { h }
    }

    pub fn record(&mut self, d: Duration) {
        let ns = (d.as_nanos() as u64).clamp(1, 100_000_000_000);
        // In bounds by the clamp above.
        let _ = self.h.record(ns);
    }

    pub fn count(&self) -> u64 {
        self.h.len()
    }

    pub fn quantile(&self, q: f64) -> Duration {
        Duration::from_nanos(self.h.value_at_quantile(q))
    }

    pub fn max(&self) -> Duration {
        Duration::from_nanos(self.h.max())
    }

    /// Add another distribution's samples to this one.
    pub fn merge(&mut self, other: &Lat) {
        // Same bounds on both sides: adding cannot fail.
        let _ = self.h.add(&other.h);
    }
}

/// The measured window of a load phase: events are counted when the
/// message they time was sent inside it (latencies), or when they happened
/// inside it (deliveries).
#[derive(Clone, Copy, Debug)]
pub struct Window {
    pub start: Instant,
    pub end: Instant,
}

impl Window {
    pub fn contains(&self, t: Instant) -> bool {
        t >= self.start && t < self.end
    }

    pub fn secs(&self) -> f64 {
        (self.end - self.start).as_secs_f64()
    }
}

/// Counters and histograms of one load phase.
#[derive(Default)]
pub struct Meter {
    pub window: Option<Window>,
    /// Moves (and rewinds) sent in the window.
    pub sent: u64,
    /// Of those, answered.
    pub acked: u64,
    pub ack: Lat,
    /// Moves sent in the window with no answer by the end of the phase.
    pub unanswered: u64,
    /// Answers that disagreed with the local mirror (`ok` or `steps`).
    pub mismatches: u64,
    /// `progress` frames received in the window, and the entries in them.
    pub progress_msgs: u64,
    pub progress_entries: u64,
    /// From sending a move to another room member receiving the progress that shows it.
    pub progress_lat: Lat,
    /// Staleness: from sending a move to each other member's first
    /// `progress` showing it or a later step, for every move (a coalesced
    /// frame answers for several; `progress_lat` times only the last).
    pub stale: Lat,
    /// How late the open-loop generator sent against its schedule.
    pub lag: Lat,
    /// Server `error` frames, unexpected closes, and other failures (any time).
    pub errors: u64,
    pub first_error: Option<String>,
}

impl Meter {
    pub fn in_window(&self, t: Instant) -> bool {
        self.window.is_some_and(|w| w.contains(t))
    }

    pub fn error(&mut self, what: impl Into<String>) {
        self.errors += 1;
        if self.first_error.is_none() {
            self.first_error = Some(what.into());
        }
    }
}

/// Microseconds with one decimal, or milliseconds past 10 ms, for tables.
pub fn fmt_dur(d: Duration) -> String {
    let us = d.as_secs_f64() * 1e6;
    if us < 10_000.0 {
        format!("{us:.0} µs")
    } else {
        format!("{:.1} ms", us / 1000.0)
    }
}

/// The median of the finite values (the upper one of an even count), or
/// `None` when there are none.
pub fn median(v: &[f64]) -> Option<f64> {
    let mut v: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    Some(v[v.len() / 2])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_come_out_of_the_histogram() {
        let mut l = Lat::new();
        for us in 1..=1000u64 {
            l.record(Duration::from_micros(us));
        }
        let p99 = l.quantile(0.99).as_micros();
        assert!((985..=995).contains(&p99), "{p99}");
        assert_eq!(l.count(), 1000);
        assert!(l.max() >= Duration::from_micros(999));
        assert_eq!(fmt_dur(Duration::from_micros(250)), "250 µs");
        assert_eq!(fmt_dur(Duration::from_millis(12)), "12.0 ms");
    }

    #[test]
    fn medians_skip_what_is_not_a_number() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[f64::NAN, 5.0]), Some(5.0));
        assert_eq!(median(&[]), None);
    }
}
