//! The `screen` scenario's verdict: each configuration's medians and the
//! goal that a screen costs no more than a spectator, within the noise the
//! measurement allows. Pure, so its tests need no server.

use super::{Joins, Run};
use crate::report::{fmt_bytes, Goal};
use crate::stats::median;

/// The noise allowed when comparing the screen's cost with the spectator's:
/// 10% of the spectator's, but never less than these floors. Two windows of
/// the racers alone ("nobody" joining) differed by up to 0.08 points of one
/// core and 16 KiB of RSS (whole pages, as the allocator pleases) on the
/// shared 2-core VM; the screen's cost and the spectator's each carry that
/// noise, so a floor is twice it. The bytes a member reads need no floor:
/// they are what the server sends it, and vary by a frame or two.
const TOLERANCE: f64 = 0.10;
const CPU_FLOOR_POINTS: f64 = 0.15;
const RSS_FLOOR_BYTES: f64 = 32.0 * 1024.0;
/// The medians of one configuration's runs, each figure on its own; the
/// costs are the medians of each run's own difference.
pub(super) struct Median {
    pub(super) runs: usize,
    pub(super) rss_alone: f64,
    pub(super) rss_with: f64,
    pub(super) rss_cost: f64,
    pub(super) cpu_alone: f64,
    pub(super) cpu_with: f64,
    pub(super) cpu_cost: f64,
    pub(super) frames_per_sec: f64,
    pub(super) bytes_per_sec: f64,
    pub(super) racers_closed: usize,
    pub(super) members_closed: usize,
}

impl Median {
    pub(super) fn of(runs: &[Run]) -> Option<Median> {
        let med = |f: &dyn Fn(&Run) -> f64| median(&runs.iter().map(f).collect::<Vec<_>>());
        Some(Median {
            runs: runs.len(),
            rss_alone: med(&|r| r.rss_alone as f64)?,
            rss_with: med(&|r| r.rss_with as f64)?,
            rss_cost: med(&Run::rss_cost)?,
            cpu_alone: med(&|r| r.cpu_alone)?,
            cpu_with: med(&|r| r.cpu_with)?,
            cpu_cost: med(&Run::cpu_cost)?,
            frames_per_sec: med(&|r| r.frames_per_sec)?,
            bytes_per_sec: med(&|r| r.bytes_per_sec)?,
            racers_closed: runs.iter().map(|r| r.racers_closed).max().unwrap_or(0),
            members_closed: runs.iter().map(|r| r.members_closed).max().unwrap_or(0),
        })
    }
}

/// The goal: the screen's CPU and RSS costs, and the bytes it is sent,
/// are each at most the spectator's plus the noise allowed ([`allowance`]).
pub(super) fn cost_goal(medians: &[(Joins, Median)], n: usize) -> Goal {
    let name = "a screen's cost (CPU, RSS, bytes sent) vs a spectator's, race of 8";
    let each = if n == 1 { String::new() } else { format!(" ({n} of each)") };
    let target = format!(
        "<= a spectator's + max({tol:.0}%, {CPU_FLOOR_POINTS} pt CPU / {} RSS); bytes + {tol:.0}%",
        fmt_bytes(RSS_FLOOR_BYTES),
        tol = 100.0 * TOLERANCE,
    );
    let of = |j: Joins| medians.iter().find(|(k, _)| *k == j).map(|(_, m)| m);
    let (Some(screen), Some(spectator)) = (of(Joins::Screen), of(Joins::Spectator)) else {
        return Goal::new(name, &target, "not measured".into(), false);
    };
    let cpu_ok = screen.cpu_cost <= spectator.cpu_cost + allowance(spectator.cpu_cost, CPU_FLOOR_POINTS);
    let rss_ok = screen.rss_cost <= spectator.rss_cost + allowance(spectator.rss_cost, RSS_FLOOR_BYTES);
    let sent_ok = screen.bytes_per_sec <= spectator.bytes_per_sec + allowance(spectator.bytes_per_sec, 0.0);
    let noise = of(Joins::Nobody)
        .map(|n| format!("; nobody joining: {:+.2} pt, {}", n.cpu_cost, signed_bytes(n.rss_cost)))
        .unwrap_or_default();
    Goal::new(
        name,
        &target,
        format!(
            "screen vs spectator{each}: CPU {:+.2} pt vs {:+.2} pt, RSS {} vs {}, {:.2} vs {:.2} KB/s \
             ({:.1} vs {:.1} frames/s){noise}",
            screen.cpu_cost,
            spectator.cpu_cost,
            signed_bytes(screen.rss_cost),
            signed_bytes(spectator.rss_cost),
            screen.bytes_per_sec / 1024.0,
            spectator.bytes_per_sec / 1024.0,
            screen.frames_per_sec,
            spectator.frames_per_sec,
        ),
        cpu_ok && rss_ok && sent_ok,
    )
}

/// How far over `base` a figure may be and still count as no more than it:
/// a share of it, or the floor (the measurement's own resolution) when
/// that is larger.
fn allowance(base: f64, floor: f64) -> f64 {
    (TOLERANCE * base.abs()).max(floor)
}

/// A byte count with its sign (`+12.0 KiB`, `-4.0 KiB`).
pub(super) fn signed_bytes(b: f64) -> String {
    if b >= 0.0 {
        format!("+{}", fmt_bytes(b))
    } else {
        fmt_bytes(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn median_of(cpu_cost: f64, rss_cost: f64) -> Median {
        sent(cpu_cost, rss_cost, 2000.0)
    }

    fn sent(cpu_cost: f64, rss_cost: f64, bytes_per_sec: f64) -> Median {
        Median {
            runs: 3,
            rss_alone: 10e6,
            rss_with: 10e6 + rss_cost,
            rss_cost,
            cpu_alone: 0.05,
            cpu_with: 0.05 + cpu_cost / 100.0,
            cpu_cost,
            frames_per_sec: 20.0,
            bytes_per_sec,
            racers_closed: 0,
            members_closed: 0,
        }
    }

    #[test]
    fn a_screen_within_the_noise_of_a_spectator_passes() {
        // Over by less than the floors: noise.
        let g = cost_goal(
            &[(Joins::Spectator, sent(0.02, 16_000.0, 4000.0)), (Joins::Screen, sent(0.1, 40_000.0, 4300.0))],
            1,
        );
        assert_eq!(g.verdict(), "PASS", "{g:?}");
        // Over by under 10% of a large cost.
        let g = cost_goal(
            &[(Joins::Spectator, median_of(10.0, 1e6)), (Joins::Screen, median_of(10.9, 1.09e6))],
            1,
        );
        assert_eq!(g.verdict(), "PASS", "{g:?}");
    }

    #[test]
    fn a_screen_dearer_than_a_spectator_misses() {
        let cpu = cost_goal(
            &[(Joins::Spectator, median_of(0.02, 16_000.0)), (Joins::Screen, median_of(0.2, 16_000.0))],
            1,
        );
        assert_eq!(cpu.verdict(), "MISS", "{cpu:?}");
        let rss =
            cost_goal(&[(Joins::Spectator, median_of(0.2, 1e6)), (Joins::Screen, median_of(0.2, 1.2e6))], 1);
        assert_eq!(rss.verdict(), "MISS", "{rss:?}");
        let bytes = cost_goal(
            &[
                (Joins::Spectator, sent(0.02, 16_000.0, 4000.0)),
                (Joins::Screen, sent(0.02, 16_000.0, 4500.0)),
            ],
            1,
        );
        assert_eq!(bytes.verdict(), "MISS", "{bytes:?}");
        let missing = cost_goal(&[(Joins::Screen, median_of(0.0, 0.0))], 1);
        assert_eq!(missing.verdict(), "MISS");
    }
}
