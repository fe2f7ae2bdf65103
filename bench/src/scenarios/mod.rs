//! The scenarios, one module each, and what they share: the run's settings
//! ([`Ctx`]), starting every room's race, and reading a measured window
//! (server and load-generator CPU and memory around it).

pub mod audience;
pub mod boards;
pub mod capacity;
pub mod capacity_nodes;
pub mod churn;
pub mod idle;
mod matches;
pub mod moves;
pub mod races;
pub mod saturate;
pub mod store;
mod store_finish;

use std::rc::Rc;
use std::time::{Duration, Instant};

use crate::load::{Pace, Racer, Schedule, Shared};
use crate::procs::RaceServerSpec;
use crate::rooms::{await_race_start, send_start, Boards, Player, RoomSet};
use crate::route::{Mode, Walker};
use crate::stats::{Meter, Window};
use crate::sys::{self, FileLimit};

/// Everything a scenario needs to know about this run.
#[derive(Clone, Debug)]
pub struct Ctx {
    pub quick: bool,
    pub server: RaceServerSpec,
    pub echo_runtime: String,
    /// Connections per 127.0.0.x source address.
    pub per_source: usize,
    pub files: FileLimit,
    /// Share of deliberately invalid moves.
    pub invalid_share: f64,
    /// Capacity: one sweep per room size.
    pub room_sizes: Vec<usize>,
    pub rate: f64,
    pub sweep: Vec<usize>,
    pub warmup: Duration,
    pub measure: Duration,
    /// The `screen` scenario's windows (two a run, nine runs): shorter than
    /// `measure` unless `--measure-secs` sets both.
    pub screen_measure: Duration,
    /// The `screen` scenario: spectators, or screens, joining its race of 8.
    pub screen_members: usize,
    pub idle_players: usize,
    pub fanout_players: usize,
    pub fanout_sizes: Vec<usize>,
    /// Run the echo server phases (the limit) in the fan-out scenario.
    pub echo: bool,
    pub window: usize,
    pub race_rooms: usize,
    pub race_secs: u64,
    pub churn_rooms: usize,
    pub churn_secs: u64,
    pub board_samples: usize,
    /// Store: ranked runs on the big board.
    pub store_runs: usize,
    /// Store: a PostgreSQL URL to measure beside SQLite (and the two-node
    /// capacity run's database, when given).
    pub store_database_url: Option<String>,
    /// Capacity: also sweep two nodes behind nginx.
    pub two_nodes: bool,
    /// Store: PostgreSQL connections finishing runs at once.
    pub store_writers: usize,
    /// Store: the closed loop's finishes all on one step count.
    pub store_one_step: bool,
    /// Store: finishes a second offered to a node's store (open loop), one run each.
    pub store_rates: Vec<f64>,
}

impl Ctx {
    /// The most connections one process may hold here, with room for the
    /// listener, the database and stdio.
    pub fn connection_cap(&self) -> usize {
        self.files.soft.saturating_sub(mazerace_server::fdlimit::RESERVED_FILES) as usize
    }

    /// The race server spec with extra flags for one scenario.
    pub fn server_with(&self, extra: &[&str]) -> RaceServerSpec {
        let mut spec = self.server.clone();
        // Scenario flags first: flags given on the command line come later and win.
        let mut args: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
        args.extend(spec.extra_args);
        spec.extra_args = args;
        spec
    }
}

/// A measured window's readings of the server and of this process.
pub struct Readings {
    pub window: Window,
    pub server_cpu: Duration,
    /// The system time in `server_cpu`: what its system calls cost, which
    /// no change to the server's own code can take below the calls it
    /// makes (one read a move, one send a frame).
    pub server_kernel_cpu: Duration,
    pub client_cpu: Duration,
    /// A proxy's CPU time (nginx in front of two nodes), else zero.
    pub proxy_cpu: Duration,
    /// CPU time of everything else on the machine during the window: other
    /// processes (other users' builds ...), the kernel's interrupt work
    /// (the loopback's receiving, charged to no process) and `stolen_cpu`.
    /// The figures are only as clean as this is small.
    pub other_cpu: Duration,
    /// The hypervisor's steal over the window: the host running other
    /// guests while this machine's processors wanted to run. Counted in
    /// `other_cpu` too (which is clamped at zero, so rounding can leave it
    /// the smaller).
    pub stolen_cpu: Duration,
    pub server_rss: u64,
    /// `server_cpu` to the nanosecond ([`sys::thread_run_times`]), when the
    /// kernel keeps it and no server thread ended inside the window: ticks
    /// are too coarse for a server under 1% of a core.
    pub server_cpu_fine: Option<Duration>,
}

/// Sleep until `window.start`, sample, sleep until its end, sample.
pub async fn read_window(window: Window, server_pid: u32) -> Readings {
    read_window_of(window, &[server_pid], None).await
}

/// [`read_window`] of several server processes (summed: CPU and RSS) and
/// an optional proxy in front of them (its CPU in `proxy_cpu`).
pub async fn read_window_of(window: Window, servers: &[u32], proxy: Option<u32>) -> Readings {
    let me = std::process::id();
    let servers_sample = || {
        servers
            .iter()
            .map(|&p| sys::sample(p))
            .fold((Duration::ZERO, Duration::ZERO, 0u64), |(c, k, r), s| (c + s.cpu, k + s.kernel, r + s.rss))
    };
    let proxy_cpu = || proxy.map_or(Duration::ZERO, |p| sys::sample(p).cpu);
    let servers_fine = || servers.iter().map(|&p| sys::thread_run_times(p)).collect::<Option<Vec<_>>>();
    tokio::time::sleep_until(window.start.into()).await;
    let (f0, s0, p0, c0, m0) = (
        servers_fine(),
        servers_sample(),
        proxy_cpu(),
        sys::sample(me),
        sys::machine_cpu().unwrap_or_default(),
    );
    tokio::time::sleep_until(window.end.into()).await;
    let (f1, s1, p1, c1, m1) = (
        servers_fine(),
        servers_sample(),
        proxy_cpu(),
        sys::sample(me),
        sys::machine_cpu().unwrap_or_default(),
    );
    let server_cpu_fine = f0.zip(f1).and_then(|(f0, f1)| {
        f0.iter().zip(&f1).map(|(a, b)| sys::run_time_between(a, b)).sum::<Option<Duration>>()
    });
    let server_cpu = s1.0.saturating_sub(s0.0);
    let server_kernel_cpu = s1.1.saturating_sub(s0.1);
    let proxy_cpu = p1.saturating_sub(p0);
    let client_cpu = c1.cpu.saturating_sub(c0.cpu);
    Readings {
        window,
        server_cpu,
        server_kernel_cpu,
        client_cpu,
        proxy_cpu,
        other_cpu: m1.busy.saturating_sub(m0.busy).saturating_sub(server_cpu + client_cpu + proxy_cpu),
        stolen_cpu: m1.stolen.saturating_sub(m0.stolen),
        server_rss: s1.2,
        server_cpu_fine,
    }
}

/// Host sends `start` in every room; every player waits for `race_start`.
/// Returns each player with the board it races on; failures are counted.
pub async fn start_races(
    rooms: Vec<RoomSet>,
    boards: &Boards,
    limit: Duration,
) -> (Vec<(Player, mazerace_protocol::Board)>, usize, Option<String>) {
    let mut handles = Vec::new();
    for mut set in rooms {
        let boards = boards.clone();
        handles.push(tokio::task::spawn_local(async move {
            let mut out = Vec::new();
            let mut fails = 0;
            let mut first = None;
            if let Some(host) = set.players.first_mut() {
                if let Err(e) = send_start(host).await {
                    return (out, set.players.len(), Some(format!("start: {e:#}")));
                }
            }
            let waits = set.players.into_iter().map(|mut p| {
                let boards = boards.clone();
                async move {
                    let b = await_race_start(&mut p, &boards, limit).await;
                    (p, b)
                }
            });
            for (p, b) in futures_util::future::join_all(waits).await {
                match b {
                    Ok(board) => out.push((p, board)),
                    Err(e) => {
                        fails += 1;
                        first.get_or_insert_with(|| format!("race_start: {e:#}"));
                    }
                }
            }
            (out, fails, first)
        }));
    }
    let mut all = Vec::new();
    let mut fails = 0;
    let mut first = None;
    for h in handles {
        match h.await {
            Ok((out, f, e)) => {
                all.extend(out);
                fails += f;
                if first.is_none() {
                    first = e;
                }
            }
            Err(e) => {
                fails += 1;
                first.get_or_insert_with(|| format!("start task: {e}"));
            }
        }
    }
    (all, fails, first)
}

/// Spawn one driver per player for a phase; returns the handles.
pub fn spawn_drivers(
    players: Vec<(Player, mazerace_protocol::Board)>,
    mode: Mode,
    invalid_share: f64,
    pace: impl Fn(usize) -> Pace,
    sched: Schedule,
    shared: &Rc<Shared>,
) -> Vec<tokio::task::JoinHandle<Racer>> {
    players
        .into_iter()
        .enumerate()
        .map(|(i, (p, board))| {
            let walker = Walker::new(&board, mode, invalid_share, 0x5EED ^ p.index as u64);
            let racer = Racer::new(p, walker, false);
            let sh = Rc::clone(shared);
            tokio::task::spawn_local(racer.drive(pace(i), sched, sh))
        })
        .collect()
}

/// Await the drivers; returns the players still connected.
pub async fn join_drivers(handles: Vec<tokio::task::JoinHandle<Racer>>) -> Vec<Racer> {
    let mut out = Vec::with_capacity(handles.len());
    for h in handles {
        if let Ok(r) = h.await {
            out.push(r);
        }
    }
    out
}

/// A fresh shared meter measuring `window`.
pub fn shared_for(window: Window) -> Rc<Shared> {
    let sh = Shared::default();
    sh.meter.borrow_mut().window = Some(window);
    Rc::new(sh)
}

/// Rates and per-move costs of one measured phase.
pub struct PhaseFigures {
    pub moves_per_sec: f64,
    pub server_cpu_per_1k: f64,
    /// The kernel's part of `server_cpu_per_1k`.
    pub server_kernel_per_1k: f64,
    /// The load generator's CPU seconds per 1,000 moves.
    pub client_cpu_per_1k: f64,
    pub server_cpu_share: f64,
    pub client_cpu_share: f64,
    pub other_cpu_share: f64,
    pub stolen_cpu_share: f64,
}

pub fn figures(m: &Meter, r: &Readings) -> PhaseFigures {
    let secs = r.window.secs();
    let per_1k = |d: Duration| if m.acked > 0 { d.as_secs_f64() * 1000.0 / m.acked as f64 } else { 0.0 };
    PhaseFigures {
        moves_per_sec: m.acked as f64 / secs,
        server_cpu_per_1k: per_1k(r.server_cpu),
        server_kernel_per_1k: per_1k(r.server_kernel_cpu),
        client_cpu_per_1k: per_1k(r.client_cpu),
        server_cpu_share: r.server_cpu.as_secs_f64() / secs,
        client_cpu_share: r.client_cpu.as_secs_f64() / secs,
        other_cpu_share: r.other_cpu.as_secs_f64() / secs,
        stolen_cpu_share: r.stolen_cpu.as_secs_f64() / secs,
    }
}

/// A short description of a meter's failures, for a table cell.
pub fn trouble(m: &Meter) -> String {
    let mut parts = Vec::new();
    if m.errors > 0 {
        parts.push(format!("{} errors", m.errors));
    }
    if m.unanswered > 0 {
        parts.push(format!("{} unanswered", m.unanswered));
    }
    if m.mismatches > 0 {
        parts.push(format!("{} mismatched", m.mismatches));
    }
    if parts.is_empty() {
        "none".into()
    } else {
        parts.join(", ")
    }
}

/// `Instant::now() + d`.
pub fn after(d: Duration) -> Instant {
    Instant::now() + d
}
