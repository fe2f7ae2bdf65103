//! Board generation as the server does it when a room is made or a rematch
//! drawn: `Board::build` (for a vault, the builder with its exact true-par
//! search), timed one board at a time over consecutive seeds, in this
//! process with nothing else of ours running.
//!
//! Each build is timed twice over: wall clock, and this thread's CPU time
//! (`CLOCK_THREAD_CPUTIME_ID`). On a shared machine the wall-clock tail is
//! other tenants preempting us; the CPU-time tail is the generator's own,
//! so the goals are judged on CPU time and both are shown.

use mazerace_protocol::{Board, Game, Size};
use std::time::{Duration, Instant};

use super::Ctx;
use crate::report::{fmt_count, Goal, Section, Table};
use crate::stats::{fmt_dur, Lat};
use crate::sys;

pub fn run(ctx: &Ctx) -> Section {
    let mut sec = Section::new("boards", "Board generation");
    let mut t = Table::new(&[
        "board",
        "boards",
        "p50",
        "p90",
        "p99",
        "max",
        "CPU p50",
        "CPU p99",
        "CPU max",
        "boards/s (one core)",
        "failures",
    ]);
    let sizes = Size::ALL;
    let mut p99s = Vec::new();
    for size in sizes {
        let (lat, cpu, fails, total) = time_builds(size, ctx.board_samples);
        t.row(vec![
            format!("{} {size}", size.game()),
            fmt_count(lat.count() as f64),
            fmt_dur(lat.quantile(0.5)),
            fmt_dur(lat.quantile(0.9)),
            fmt_dur(lat.quantile(0.99)),
            fmt_dur(lat.max()),
            fmt_dur(cpu.quantile(0.5)),
            fmt_dur(cpu.quantile(0.99)),
            fmt_dur(cpu.max()),
            fmt_count(lat.count() as f64 / total.as_secs_f64().max(1e-9)),
            fails.to_string(),
        ]);
        p99s.push((size, cpu.quantile(0.99), lat.quantile(0.99), fails));
    }
    sec.tables.push(t);
    sec.note(format!(
        "Seeds 1..={} per size; a release build of the protocol crate when this binary is built with --release. \
         p50/p90/p99/max are wall clock; CPU columns are this thread's CPU time per build (preemption excluded).",
        ctx.board_samples
    ));
    // Each game's goal, on its largest board.
    for (size, limit) in Game::ALL.map(|g| (g.largest(), g.build_goal())) {
        if let Some((_, cpu99, wall99, fails)) = p99s.iter().find(|(s, _, _, _)| *s == size) {
            sec.goals.push(Goal::new(
                &format!("board generation p99, {}", size.board_name()),
                &format!("< {}", fmt_dur(limit)),
                format!("{} CPU time ({} wall clock)", fmt_dur(*cpu99), fmt_dur(*wall99)),
                *cpu99 < limit && *fails == 0,
            ));
        }
    }
    sec
}

fn time_builds(size: Size, n: usize) -> (Lat, Lat, usize, Duration) {
    let mut lat = Lat::new();
    let mut cpu = Lat::new();
    let mut fails = 0;
    let t0 = Instant::now();
    for seed in 1..=n as u64 {
        let c = sys::thread_cpu_time();
        let t = Instant::now();
        let b = Board::build(size, seed);
        lat.record(t.elapsed());
        cpu.record(sys::thread_cpu_time().saturating_sub(c));
        fails += usize::from(b.is_err());
        std::hint::black_box(b.ok());
    }
    (lat, cpu, fails, t0.elapsed())
}
