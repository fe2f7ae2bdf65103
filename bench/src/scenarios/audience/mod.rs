//! The `spectators` scenario: what an audience costs (issue 24, item 6).
//!
//! A watched race: one room, two racers moving 8 times a second each
//! (back and forth, so the race never ends), and 32, 500 or 2000
//! spectators (`--max-spectators` raised to fit). Over the measured
//! window: the server's RSS and CPU, the frames a second every client
//! together received, the largest `room` anyone got, and how many
//! connections the server closed. Median of 3 runs, each on its own
//! server. (The join/leave loop of item 5 is an end-to-end test,
//! `tests/tests/room_updates.rs`, not a figure.) Its sibling, the `screen`
//! scenario ([`screen`]), weighs one screen against one spectator beside a
//! race of 8, with the same clients.

mod clients;
pub mod screen;

use std::time::Duration;

use mazerace_protocol::Size;

use super::{after, read_window, Ctx};
use crate::procs::Server;
use crate::report::{fmt_bytes, fmt_count, Goal, Section, Table};
use crate::rooms::{create_room, hello, join_room, name_for, Target};
use crate::stats::{median, Window};
use crate::sys;
use clients::{race_room, watch, Reading};

/// The room's board: a normal maze (the racers never reach its exit).
const SIZE: Size = Size::Normal;
const SEED: u64 = 24;
/// Moves a second per racer: a quick human.
const MOVES_PER_SEC: f64 = 8.0;

pub async fn run(ctx: &Ctx) -> Section {
    let mut sec = Section::new("spectators", "An audience: many spectators watching one race");
    let sizes: &[usize] = if ctx.quick { &[32, 100] } else { &[32, 500, 2000] };
    let runs = if ctx.quick { 1 } else { 3 };
    let measure = if ctx.quick { Duration::from_secs(1) } else { ctx.measure };
    let mut t = Table::new(&[
        "spectators",
        "runs",
        "server RSS before",
        "server RSS watched",
        "per spectator",
        "server CPU",
        "frames/s (all clients)",
        "frames/s per spectator",
        "KB/s to each racer",
        "largest room",
        "closed: racers / spectators",
    ]);
    let mut raw =
        Table::new(&["spectators", "run", "server RSS watched", "frames/s", "server CPU", "closed"]);
    let mut worst_closed = 0;
    let mut largest_room = 0;
    for &n in sizes {
        if n + 8 > ctx.connection_cap() {
            sec.note(format!("{n} spectators skipped: over the open-file limit"));
            continue;
        }
        let mut got = Vec::new();
        for run in 1..=runs {
            match watched_race(ctx, n, measure).await {
                Ok(r) => {
                    raw.row(vec![
                        n.to_string(),
                        run.to_string(),
                        fmt_bytes(r.rss_watched as f64),
                        fmt_count(r.frames_per_sec()),
                        format!("{:.0}%", 100.0 * r.cpu_share()),
                        format!("{} / {}", r.racers_closed, r.spectators_closed),
                    ]);
                    got.push(r);
                }
                Err(e) => sec.fail(format!("{n} spectators, run {run}: {e:#}")),
            }
        }
        let Some(m) = Median::of(&got) else { continue };
        worst_closed = worst_closed.max(m.closed);
        largest_room = largest_room.max(m.largest_room);
        t.row(vec![
            n.to_string(),
            got.len().to_string(),
            fmt_bytes(m.rss_before),
            fmt_bytes(m.rss_watched),
            fmt_bytes((m.rss_watched - m.rss_before) / n as f64),
            format!("{:.0}%", 100.0 * m.cpu),
            fmt_count(m.frames_per_sec),
            format!("{:.1}", m.frames_per_sec / n as f64),
            format!("{:.1}", m.racer_bytes_per_sec / 1024.0),
            format!("{} B", m.largest_room),
            format!("{} / {}", m.racers_closed, m.spectators_closed),
        ]);
    }
    sec.tables.push(t);
    sec.tables.push(raw);
    sec.note(format!(
        "Each run: a fresh server (`--max-spectators` at the audience, `--countdown-secs 0`), two racers on \
         {} moving {MOVES_PER_SEC} times a second each (back and forth: the race goes on), then the \
         spectators join one after the other and read everything; measured over {:.0} s after 1 s of warm-up. \
         RSS from /proc after the window; \"before\": the two racers alone; frames counted by the clients. \
         The first table is the median of the runs (each figure on its own), the second every run.",
        SIZE.board_name(),
        measure.as_secs_f64()
    ));
    sec.goals.push(Goal::new(
        "connections closed in a watched race",
        "0",
        format!("{worst_closed} (largest `room`: {largest_room} B)"),
        worst_closed == 0,
    ));
    sec
}

/// One run's figures.
struct Run {
    rss_before: u64,
    rss_watched: u64,
    window: Window,
    server_cpu: Duration,
    frames: u64,
    racer_bytes: u64,
    largest_room: usize,
    racers_closed: usize,
    spectators_closed: usize,
}

impl Run {
    fn frames_per_sec(&self) -> f64 {
        self.frames as f64 / self.window.secs()
    }

    fn cpu_share(&self) -> f64 {
        self.server_cpu.as_secs_f64() / self.window.secs()
    }
}

/// The median of each figure over the runs.
struct Median {
    rss_before: f64,
    rss_watched: f64,
    cpu: f64,
    frames_per_sec: f64,
    racer_bytes_per_sec: f64,
    largest_room: usize,
    racers_closed: usize,
    spectators_closed: usize,
    closed: usize,
}

impl Median {
    fn of(runs: &[Run]) -> Option<Median> {
        if runs.is_empty() {
            return None;
        }
        let med = |f: &dyn Fn(&Run) -> f64| median(&runs.iter().map(f).collect::<Vec<_>>()).unwrap_or(0.0);
        Some(Median {
            rss_before: med(&|r| r.rss_before as f64),
            rss_watched: med(&|r| r.rss_watched as f64),
            cpu: med(&Run::cpu_share),
            frames_per_sec: med(&Run::frames_per_sec),
            racer_bytes_per_sec: med(&|r| r.racer_bytes as f64 / 2.0 / r.window.secs()),
            largest_room: runs.iter().map(|r| r.largest_room).max().unwrap_or(0),
            racers_closed: runs.iter().map(|r| r.racers_closed).max().unwrap_or(0),
            spectators_closed: runs.iter().map(|r| r.spectators_closed).max().unwrap_or(0),
            closed: runs.iter().map(|r| r.racers_closed + r.spectators_closed).max().unwrap_or(0),
        })
    }
}

/// A race of two watched by `n` spectators, measured over `measure`.
async fn watched_race(ctx: &Ctx, n: usize, measure: Duration) -> anyhow::Result<Run> {
    let cap = n.to_string();
    // No drain on the way out: the race never ends, and a drain would hold
    // the stop for its whole timeout.
    let args = ["--max-spectators", cap.as_str(), "--countdown-secs", "0", "--drain-secs", "0"];
    let server = Server::start_race(&ctx.server_with(&args))?;
    let target = Target { addr: server.addr, per_source: ctx.per_source, room_in_url: false };
    let (mut host, _) = hello(target, 0, name_for(0), None).await?;
    let code = create_room(&mut host, SIZE, SEED, 2).await?;
    let (mut guest, _) = hello(target, 1, name_for(1), None).await?;
    join_room(&mut guest, &code).await?;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let rss_before = sys::rss_bytes(server.pid).unwrap_or(0);
    let audience = clients::join_audience(target, &code, n).await?;
    let window =
        Window { start: after(Duration::from_secs(1)), end: after(Duration::from_secs(1) + measure) };
    let period = Duration::from_secs_f64(1.0 / MOVES_PER_SEC);
    let racers = race_room(host, vec![guest], period, window).await?;
    let watchers: Vec<_> = audience.into_iter().map(|p| tokio::task::spawn_local(watch(p, window))).collect();
    let readings = read_window(window, server.pid).await;
    let mut all: Vec<Reading> = Vec::new();
    for h in racers.into_iter().chain(watchers) {
        all.push(h.await.map_err(|e| anyhow::anyhow!("a client task: {e}"))?);
    }
    let (racers, spectators) = all.split_at(2);
    Ok(Run {
        rss_before,
        rss_watched: readings.server_rss,
        window,
        server_cpu: readings.server_cpu,
        frames: all.iter().map(|r| r.frames).sum(),
        racer_bytes: racers.iter().map(|r| r.bytes).sum(),
        largest_room: all.iter().map(|r| r.largest_room).max().unwrap_or(0),
        racers_closed: racers.iter().filter(|r| r.closed).count(),
        spectators_closed: spectators.iter().filter(|r| r.closed).count(),
    })
}
