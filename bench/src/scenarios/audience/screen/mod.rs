//! The `screen` scenario: a screen costs no more than a spectator (issue 37,
//! the party screen).
//!
//! One room of 8 racers, each moving 8 times a second (back and forth, as
//! the `spectators` scenario's racers do, so the race goes on), on a fresh
//! server per run. Two measured windows on that server: the racers alone,
//! then with whoever joined between them: nobody (what the two windows
//! differ by on their own: the noise), a spectator, or a screen
//! (`join_room` with `screen` and the room's key, as a TV does); with
//! `--screen-members N`, N of them (up to the server's `--max-screens`, 4),
//! to lift a cost of a few pages above the noise. A cost is the second
//! window minus the first, on the same server, so two servers' different
//! baselines never enter it; the goal compares the screen's cost with the
//! spectator's. The runs take the three in turn (nobody, spectator,
//! screen, then again), so the neighbours' load on a shared machine falls
//! on all three alike. Median of 3 runs (1 with `--quick`). This file runs
//! and reports; `verdict.rs` holds the medians and the goal.

use std::time::{Duration, Instant};

use anyhow::{bail, Result};
use mazerace_protocol::Size;

use super::clients::{join_watcher, race_room, watch, Reading, Watcher};
use crate::procs::Server;
use crate::report::{fmt_bytes, Goal, Section, Table};
use crate::rooms::{create_room_info, hello, join_room, name_for, Target};
use crate::scenarios::{read_window, Ctx};
use crate::stats::Window;
use verdict::{cost_goal, signed_bytes, Median};

mod verdict;

/// Racers in the room: the most a party around one TV is likely to be.
const RACERS: usize = 8;
/// The room's board: a normal maze (the racers never reach its exit).
const SIZE: Size = Size::Normal;
const SEED: u64 = 37;
/// Moves a second per racer: a quick human, as in `spectators`.
const MOVES_PER_SEC: f64 = 8.0;
/// The least time from the last join to the second window (its `snapshot`
/// and first frames out of the way), when joining took longer than planned.
const MIN_SETTLE: Duration = Duration::from_millis(100);

/// Who joins the race of 8 between the two windows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Joins {
    Nobody,
    Spectator,
    Screen,
}

const JOINS: [Joins; 3] = [Joins::Nobody, Joins::Spectator, Joins::Screen];

impl Joins {
    /// `n` of this kind, for a table.
    fn label(self, n: usize) -> String {
        match (self, n) {
            (Joins::Nobody, _) => "nobody".into(),
            (Joins::Spectator, 1) => "a spectator".into(),
            (Joins::Screen, 1) => "a screen".into(),
            (Joins::Spectator, n) => format!("{n} spectators"),
            (Joins::Screen, n) => format!("{n} screens"),
        }
    }
}

/// One run's figures: the first window (the racers alone) and the second
/// (with whoever joined).
struct Run {
    rss_alone: u64,
    rss_with: u64,
    /// Server CPU over each window, as a share of one core.
    cpu_alone: f64,
    cpu_with: f64,
    /// Both CPU figures are to the nanosecond, not in clock ticks.
    fine: bool,
    /// What each joined member read in the second window, on average
    /// (zero for nobody).
    frames_per_sec: f64,
    bytes_per_sec: f64,
    racers_closed: usize,
    members_closed: usize,
}

impl Run {
    fn rss_cost(&self) -> f64 {
        self.rss_with as f64 - self.rss_alone as f64
    }

    /// In points of one core (percent).
    fn cpu_cost(&self) -> f64 {
        100.0 * (self.cpu_with - self.cpu_alone)
    }
}

/// The scenario's timings.
#[derive(Clone, Copy, Debug)]
struct Timing {
    /// From the race's start to the first window.
    warmup: Duration,
    /// From the first window's end to the second's start: the members join
    /// in it, so their handshakes and `snapshot`s fall outside both windows.
    /// A slow join starts the second window later (and shortens it).
    settle: Duration,
    /// Each window.
    measure: Duration,
}

pub async fn run(ctx: &Ctx) -> Section {
    let mut sec = Section::new("screen", "A screen beside a spectator: one race of 8 racers");
    let runs = if ctx.quick { 1 } else { 3 };
    let n = ctx.screen_members;
    let timing = if ctx.quick {
        Timing {
            warmup: Duration::from_millis(200),
            settle: Duration::from_millis(300),
            measure: ctx.screen_measure,
        }
    } else {
        Timing { warmup: Duration::from_secs(1), settle: Duration::from_secs(1), measure: ctx.screen_measure }
    };
    let mut got: Vec<(Joins, Vec<Run>)> = JOINS.iter().map(|&j| (j, Vec::new())).collect();
    let mut raw = Table::new(&[
        "joins",
        "run",
        "server RSS: racers alone",
        "RSS cost",
        "server CPU: racers alone",
        "CPU cost",
        "frames/s to each",
        "KB/s to each",
        "closed (racers / joined)",
    ]);
    for run in 1..=runs {
        for (joins, runs_of) in &mut got {
            match race_of_eight(ctx, *joins, n, timing).await {
                Ok(r) => {
                    raw.row(vec![
                        joins.label(n),
                        run.to_string(),
                        fmt_bytes(r.rss_alone as f64),
                        signed_bytes(r.rss_cost()),
                        format!("{:.2}%", 100.0 * r.cpu_alone),
                        format!("{:+.2} pt", r.cpu_cost()),
                        member_cell(*joins, format!("{:.1}", r.frames_per_sec)),
                        member_cell(*joins, format!("{:.2}", r.bytes_per_sec / 1024.0)),
                        format!(
                            "{} / {}",
                            r.racers_closed,
                            member_cell(*joins, r.members_closed.to_string())
                        ),
                    ]);
                    runs_of.push(r);
                }
                Err(e) => sec.fail(format!("{}, run {run}: {e:#}", joins.label(n))),
            }
        }
    }
    let mut t = Table::new(&[
        "joins the race of 8",
        "runs",
        "server RSS: racers alone",
        "with them",
        "RSS cost",
        "server CPU: racers alone",
        "with them",
        "CPU cost",
        "frames/s to each",
        "KB/s to each",
        "closed (racers / joined)",
    ]);
    let mut medians = Vec::new();
    let mut closed = 0;
    for (joins, runs_of) in &got {
        let Some(m) = Median::of(runs_of) else { continue };
        closed = closed.max(m.racers_closed + m.members_closed);
        t.row(vec![
            joins.label(n),
            m.runs.to_string(),
            fmt_bytes(m.rss_alone),
            fmt_bytes(m.rss_with),
            signed_bytes(m.rss_cost),
            format!("{:.2}%", 100.0 * m.cpu_alone),
            format!("{:.2}%", 100.0 * m.cpu_with),
            format!("{:+.2} pt", m.cpu_cost),
            member_cell(*joins, format!("{:.1}", m.frames_per_sec)),
            member_cell(*joins, format!("{:.2}", m.bytes_per_sec / 1024.0)),
            format!("{} / {}", m.racers_closed, member_cell(*joins, m.members_closed.to_string())),
        ]);
        medians.push((*joins, m));
    }
    sec.tables.push(t);
    sec.tables.push(raw);
    sec.note(format!(
        "Each run: a fresh server (`--countdown-secs 0`), {RACERS} racers on {} moving \
         {MOVES_PER_SEC} times a second each (back and forth: the race goes on); {:.1} s of warm-up, \
         {:.1} s measured with the racers alone, then {} join (or nobody; a screen with the room's \
         key), {:.1} s to settle, {:.1} s measured with them. RSS from /proc at each window's end; CPU \
         over each window, in percent of one core; frames and bytes as the joined members counted them \
         (each one's, on average). A cost is the second window minus the first, on the same server; \
         \"nobody\" shows what two windows differ by on their own. The runs take the three in turn. \
         The first table is the median of the runs (each figure, and each run's cost, on its own), the \
         second every run.",
        SIZE.board_name(),
        timing.warmup.as_secs_f64(),
        timing.measure.as_secs_f64(),
        if n == 1 { "a spectator or a screen".to_owned() } else { format!("{n} spectators or {n} screens") },
        timing.settle.as_secs_f64(),
        timing.measure.as_secs_f64(),
    ));
    let (fine, all): (usize, usize) =
        got.iter().flat_map(|(_, r)| r).fold((0, 0), |(f, n), r| (f + usize::from(r.fine), n + 1));
    sec.note(format!(
        "Server CPU to the nanosecond (each thread's `se.sum_exec_runtime` in /proc) in {fine} of {all} \
         runs, the rest in /proc's 10 ms ticks (the kernel keeps no per-thread figure, or a server \
         thread ended in a window)."
    ));
    sec.goals.push(cost_goal(&medians, n));
    sec.goals.push(Goal::new(
        "connections closed in a race of 8 with a screen or a spectator",
        "0",
        closed.to_string(),
        closed == 0,
    ));
    sec
}

/// A cell about the joined members: a dash when nobody joined.
fn member_cell(joins: Joins, s: String) -> String {
    if joins == Joins::Nobody {
        "–".into()
    } else {
        s
    }
}

/// One run: a fresh server, a race of 8, the two windows around `n` of
/// `joins` joining.
async fn race_of_eight(ctx: &Ctx, joins: Joins, n: usize, timing: Timing) -> Result<Run> {
    // No drain on the way out: the race never ends, and a drain would hold
    // the stop for its whole timeout.
    let server = Server::start_race(&ctx.server_with(&["--countdown-secs", "0", "--drain-secs", "0"]))?;
    let target = Target { addr: server.addr, per_source: ctx.per_source, room_in_url: false };
    let (mut host, _) = hello(target, 0, name_for(0), None).await?;
    let room = create_room_info(&mut host, SIZE, SEED, RACERS as u32).await?;
    let mut guests = Vec::with_capacity(RACERS - 1);
    for i in 1..RACERS {
        let (mut g, _) = hello(target, i, name_for(i), None).await?;
        join_room(&mut g, &room.code).await?;
        guests.push(g);
    }
    let alone_start = Instant::now() + timing.warmup;
    let alone = Window { start: alone_start, end: alone_start + timing.measure };
    let with_end = alone.end + timing.settle + timing.measure;
    let period = Duration::from_secs_f64(1.0 / MOVES_PER_SEC);
    let racers = race_room(host, guests, period, Window { start: alone.start, end: with_end }).await?;
    let first = read_window(alone, server.pid).await;
    let how = match joins {
        Joins::Nobody => None,
        Joins::Spectator => Some(Watcher::Spectator),
        Joins::Screen => Some(Watcher::Screen { key: room.key.clone() }),
    };
    let mut members = Vec::new();
    if let Some(how) = &how {
        for i in RACERS..RACERS + n {
            members.push(join_watcher(target, i, &room.code, how.clone()).await?);
        }
    }
    let earliest = Instant::now() + MIN_SETTLE;
    if earliest + timing.measure / 2 > with_end {
        bail!("{} took too long to join: the second window would be under half its length", joins.label(n));
    }
    let with = Window { start: (alone.end + timing.settle).max(earliest), end: with_end };
    let watching: Vec<_> = members.into_iter().map(|p| tokio::task::spawn_local(watch(p, with))).collect();
    let second = read_window(with, server.pid).await;
    let mut racers_closed = 0;
    for h in racers {
        let r = h.await.map_err(|e| anyhow::anyhow!("a racer's task: {e}"))?;
        racers_closed += usize::from(r.closed);
    }
    let mut seen = Vec::with_capacity(watching.len());
    for h in watching {
        seen.push(h.await.map_err(|e| anyhow::anyhow!("a joined member's task: {e}"))?);
    }
    let secs = with.secs();
    // Each member's, on average (nobody's: zero).
    let each =
        |f: fn(&Reading) -> u64| seen.iter().map(f).sum::<u64>() as f64 / seen.len().max(1) as f64 / secs;
    let (cpu_alone, cpu_with, fine) = match (first.server_cpu_fine, second.server_cpu_fine) {
        (Some(a), Some(b)) => (a, b, true),
        _ => (first.server_cpu, second.server_cpu, false),
    };
    Ok(Run {
        rss_alone: first.server_rss,
        rss_with: second.server_rss,
        cpu_alone: cpu_alone.as_secs_f64() / alone.secs(),
        cpu_with: cpu_with.as_secs_f64() / secs,
        fine,
        frames_per_sec: each(|r| r.frames),
        bytes_per_sec: each(|r| r.bytes),
        racers_closed,
        members_closed: seen.iter().filter(|r| r.closed).count(),
    })
}
