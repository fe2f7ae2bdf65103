//! Saturation: closed-loop throughput (every player keeps a window of moves
//! in flight) for room sizes 1, 2, 8 and 32 on one race server, then the
//! same client, frames and connection count against the bare echo server
//! (the limit), on both runtime flavours in a full run. Reports race/echo
//! ratios for throughput and CPU per message.
//!
//! The race server runs with its per-connection rate limit lifted
//! (`--msgs-per-sec`): the point is what the engine can do, and a
//! saturating client is, by design, a flood.

use anyhow::{bail, Result};
use mazerace_protocol::Size;
use std::rc::Rc;
use std::time::Duration;

use super::{
    figures, join_drivers, read_window, shared_for, spawn_drivers, start_races, trouble, Ctx, Readings,
};
use crate::load::{Pace, Racer, Schedule};
use crate::procs::Server;
use crate::report::{fmt_count, Goal, Section, Table};
use crate::rooms::{setup_rooms, Boards, Player, RoomPlan, Target};
use crate::route::{Mode, Walker};
use crate::stats::{fmt_dur, Meter, Window};
use crate::ws::Conn;

/// The players per room size: a multiple of every size.
pub fn players_per_size(ctx: &Ctx) -> usize {
    let big = ctx.fanout_sizes.iter().copied().max().unwrap_or(1).max(1);
    (ctx.fanout_players / big * big).max(big)
}

/// One measured saturation phase.
struct Measured {
    label: String,
    moves_per_sec: f64,
    cpu_us_per_msg: f64,
    row: Vec<String>,
}

fn row(label: &str, players: usize, m: &Meter, r: &Readings) -> Measured {
    let f = figures(m, r);
    let secs = r.window.secs();
    let cpu_us = f.server_cpu_per_1k * 1000.0;
    Measured {
        label: label.into(),
        moves_per_sec: f.moves_per_sec,
        cpu_us_per_msg: cpu_us,
        row: vec![
            label.into(),
            players.to_string(),
            fmt_count(f.moves_per_sec),
            fmt_dur(m.ack.quantile(0.5)),
            fmt_dur(m.ack.quantile(0.99)),
            fmt_dur(m.ack.max()),
            fmt_count(m.progress_msgs as f64 / secs),
            fmt_count(m.progress_entries as f64 / secs),
            fmt_dur(m.progress_lat.quantile(0.5)),
            fmt_dur(m.progress_lat.quantile(0.99)),
            format!("{cpu_us:.1} µs"),
            format!("{:.0}%", f.server_cpu_share * 100.0),
            format!("{:.0}%", f.client_cpu_share * 100.0),
            format!("{:.0}%", f.other_cpu_share * 100.0),
            trouble(m),
        ],
    }
}

fn headers() -> Table {
    Table::new(&[
        "server",
        "players",
        "msgs/s",
        "ack p50",
        "ack p99",
        "ack max",
        "progress msgs/s",
        "progress entries/s",
        "progress p50",
        "progress p99",
        "server CPU / msg",
        "server CPU",
        "loadgen CPU",
        "other CPU",
        "trouble",
    ])
}

pub async fn run(ctx: &Ctx) -> Section {
    let mut sec = Section::new("fanout", "Fan-out and the limit (saturated, closed loop)");
    let mut table = headers();
    let mut results: Vec<Measured> = Vec::new();
    match race_phases(ctx).await {
        Ok(ms) => results.extend(ms),
        Err(e) => sec.fail(format!("race server phases failed: {e:#}")),
    }
    let runtimes: Vec<&str> = if !ctx.echo {
        vec![]
    } else if ctx.quick {
        vec![ctx.echo_runtime.as_str()]
    } else {
        vec!["current", "multi"]
    };
    let mut echo_main = None;
    for rt in runtimes {
        match echo_phase(ctx, rt).await {
            Ok(m) => {
                if rt == ctx.echo_runtime {
                    echo_main = Some(results.len());
                }
                results.push(m);
            }
            Err(e) => sec.fail(format!("echo ({rt}) failed: {e:#}")),
        }
    }
    for m in &results {
        table.row(m.row.clone());
    }
    sec.tables.push(table);
    let echo =
        echo_main.map(|i| (results[i].moves_per_sec, results[i].cpu_us_per_msg, results[i].label.clone()));
    let mut ratios = Table::new(&["race room size", "throughput race/echo", "CPU per msg race/echo"]);
    let mut goal = None;
    if let Some((echo_rate, echo_cpu, _)) = &echo {
        for m in results.iter().filter(|m| m.label.starts_with("race")) {
            let tr = m.moves_per_sec / echo_rate;
            let cr = m.cpu_us_per_msg / echo_cpu;
            ratios.row(vec![
                m.label.trim_start_matches("race, ").to_string(),
                format!("{tr:.2}"),
                format!("{cr:.2}"),
            ]);
            if m.label == "race, rooms of 8" {
                goal = Some(tr);
            }
        }
        sec.tables.push(ratios);
    }
    let players = players_per_size(ctx);
    sec.note(format!(
        "{players} players per room size, each keeping {} moves in flight, hard mazes walked back and forth with {:.0}% \
         invalid moves; warm-up {:?}, measured {:?}. The echo server gets the same {players} connections and the same frames.",
        ctx.window,
        ctx.invalid_share * 100.0,
        ctx.warmup,
        ctx.measure
    ));
    sec.note(format!(
        "Ratios are against the echo server on the `{}` runtime; `server CPU / msg` is the server process's CPU time \
         over the window divided by moves answered (echo: frames echoed). One core runs the load generator: where \
         'loadgen CPU' is near 100% the client, not the server, sets the pace, and the throughput ratio flatters the \
         slower server. The CPU-per-message ratio does not depend on who sets the pace.",
        ctx.echo_runtime
    ));
    sec.goals.push(match goal {
        Some(r) => Goal::new(
            "saturated moves/s at room size 8 vs bare echo msgs/s",
            ">= 0.90",
            format!("{r:.2}"),
            r >= 0.9,
        ),
        None => Goal::new(
            "saturated moves/s at room size 8 vs bare echo msgs/s",
            ">= 0.90",
            "not measured".into(),
            false,
        ),
    });
    sec
}

/// Every room size on one server: all rooms set up and started together,
/// then one measured phase per size while the others stay connected.
async fn race_phases(ctx: &Ctx) -> Result<Vec<Measured>> {
    let server = Server::start_race(&ctx.server_with(&[
        "--countdown-secs",
        "0",
        "--max-players",
        "64",
        "--msgs-per-sec",
        "1000000",
        "--msgs-burst",
        "1000000",
    ]))?;
    let target = Target { addr: server.addr, per_source: ctx.per_source };
    let per_size = players_per_size(ctx);
    let boards = Boards::default();
    let mut groups = Vec::new();
    for (k, &s) in ctx.fanout_sizes.iter().enumerate() {
        let plan = RoomPlan {
            rooms: per_size / s,
            room_size: s,
            size: Size::Hard,
            seed_base: 2000 + 100 * k as u64,
            seed_spread: 16,
            first_index: k * per_size,
        };
        let (sets, failed, err) = setup_rooms(target, plan, 64).await;
        if failed > 0 {
            bail!(
                "rooms of {s}: {failed} failed to set up: {}{}",
                err.unwrap_or_default(),
                server.stderr_tail()
            );
        }
        let (players, fails, err) = start_races(sets, &boards, Duration::from_secs(30)).await;
        if fails > 0 {
            bail!("rooms of {s}: {fails} players got no race_start: {}", err.unwrap_or_default());
        }
        groups.push(players);
    }
    let slot = ctx.warmup + ctx.measure + Duration::from_millis(500);
    let t0 = super::after(Duration::from_millis(200));
    let end = t0 + slot * ctx.fanout_sizes.len() as u32 + Duration::from_secs(1);
    let mut phases = Vec::new();
    for (k, players) in groups.into_iter().enumerate() {
        let start = t0 + slot * k as u32;
        let window = Window { start: start + ctx.warmup, end: start + ctx.warmup + ctx.measure };
        // Everyone keeps reading until the last phase ends (pings, stray frames).
        let sched = Schedule { start, stop: window.end, linger: end };
        let shared = shared_for(window);
        let window_size = ctx.window;
        let handles = spawn_drivers(
            players,
            Mode::PingPong,
            ctx.invalid_share,
            |_| Pace::Closed { window: window_size },
            sched,
            &shared,
        );
        phases.push((window, shared, handles));
    }
    let mut out = Vec::new();
    for (k, (window, shared, _)) in phases.iter().enumerate() {
        let r = read_window(*window, server.pid).await;
        let label = format!("race, rooms of {}", ctx.fanout_sizes[k]);
        out.push(row(&label, per_size, &shared.meter.borrow(), &r));
    }
    for (_, _, handles) in phases {
        drop(join_drivers(handles).await);
    }
    Ok(out)
}

/// The echo server with the same client, connections and frames.
async fn echo_phase(ctx: &Ctx, runtime: &str) -> Result<Measured> {
    let server = Server::start_echo(runtime)?;
    let n = players_per_size(ctx);
    let board = mazerace_protocol::Board::build(Size::Hard, 2200).map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut racers = Vec::with_capacity(n);
    for i in 0..n {
        let conn = Conn::connect(server.addr, crate::ws::source_for(i, ctx.per_source), "/").await?;
        let p = Player { conn, id: i as u32, token: String::new(), name: String::new(), index: i };
        let walker = Walker::new(&board, Mode::PingPong, ctx.invalid_share, 0x5EED ^ i as u64);
        racers.push(Racer::new(p, walker, true));
    }
    let start = super::after(Duration::from_millis(200));
    let window = Window { start: start + ctx.warmup, end: start + ctx.warmup + ctx.measure };
    let sched = Schedule { start, stop: window.end, linger: window.end + Duration::from_secs(1) };
    let shared = shared_for(window);
    let handles: Vec<_> = racers
        .into_iter()
        .map(|r| {
            let sh = Rc::clone(&shared);
            tokio::task::spawn_local(r.drive(Pace::Closed { window: ctx.window }, sched, sh))
        })
        .collect();
    let r = read_window(window, server.pid).await;
    drop(join_drivers(handles).await);
    let label = format!("echo ({runtime} runtime)");
    let m = row(&label, n, &shared.meter.borrow(), &r);
    Ok(m)
}
