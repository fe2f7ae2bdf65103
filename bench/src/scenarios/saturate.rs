//! Saturation: closed-loop throughput (every player keeps a window of moves
//! in flight) for room sizes 1, 2, 8 and 32 on one race server, then the
//! same client, frames and connection count against the bare echo server
//! (the limit), on both runtime flavours in a full run. Reports race/echo
//! ratios for throughput and CPU per message.
//!
//! Everything is connected first and measured on one timeline of windows.
//! The goal's ratio comes from alternating pairs (race rooms of 8, then
//! echo, a few times over) and is the median of the pairs: on a shared
//! machine other people's load comes and goes, and windows seconds apart
//! see more nearly the same machine than windows a minute apart.
//!
//! The race server runs with its per-connection rate limit lifted
//! (`--msgs-per-sec`): the point is what the engine can do, and a
//! saturating client is, by design, a flood.

use anyhow::{bail, Result};
use mazerace_protocol::Size;
use std::rc::Rc;
use std::time::Duration;

use super::{figures, join_drivers, read_window, shared_for, start_races, trouble, Ctx, Readings};
use crate::load::{Pace, Racer, Schedule, Shared};
use crate::procs::Server;
use crate::report::{fmt_count, Goal, Section, Table};
use crate::rooms::{setup_rooms, Boards, Player, RoomPlan, Target};
use crate::route::{Mode, Walker};

/// Server CPU per message at saturation, rooms of 8, against the bare
/// echo's on the same runtime (issue 28's goal, read as race / echo).
const CPU_RATIO_GOAL: f64 = 0.75;
/// The board every room races: long routes, so a race outlasts the window.
const SIZE: Size = Size::Hard;
use crate::stats::{fmt_dur, median, Meter, Window};
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
    /// The kernel's part of `cpu_us_per_msg` (its system calls).
    kernel_us_per_msg: f64,
    other_cpu: f64,
    row: Vec<String>,
}

fn row(label: &str, players: usize, m: &Meter, r: &Readings) -> Measured {
    let f = figures(m, r);
    let secs = r.window.secs();
    let cpu_us = f.server_cpu_per_1k * 1000.0;
    let kernel_us = f.server_kernel_per_1k * 1000.0;
    Measured {
        label: label.into(),
        moves_per_sec: f.moves_per_sec,
        cpu_us_per_msg: cpu_us,
        kernel_us_per_msg: kernel_us,
        other_cpu: f.other_cpu_share,
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
            format!("{kernel_us:.1} µs"),
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
        "of it in the kernel",
        "server CPU",
        "loadgen CPU",
        "other CPU",
        "trouble",
    ])
}

/// Which server a window measures.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Who {
    /// The race server's players in rooms of this size (index into `fanout_sizes`).
    Race(usize),
    /// The echo server on this runtime (index into the runtimes list).
    Echo(usize),
}

/// One measured window of the timeline.
struct Slot {
    who: Who,
    label: String,
    window: Window,
    shared: Rc<Shared>,
    /// Part of the alternating race/echo pairs.
    pair: bool,
}

pub async fn run(ctx: &Ctx) -> Section {
    let mut sec = Section::new("fanout", "Fan-out and the limit (saturated, closed loop)");
    match measure(ctx, &mut sec).await {
        Ok(()) => {}
        Err(e) => sec.fail(format!("{e:#}")),
    }
    sec
}

async fn measure(ctx: &Ctx, sec: &mut Section) -> Result<()> {
    let per_size = players_per_size(ctx);
    // The race server and every room size's players.
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
    let target = Target { addr: server.addr, per_source: ctx.per_source, room_in_url: false };
    let boards = Boards::default();
    let mut groups = Vec::new();
    for (k, &s) in ctx.fanout_sizes.iter().enumerate() {
        let plan = RoomPlan {
            rooms: per_size / s,
            room_size: s,
            size: SIZE,
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
    // The echo servers and their connections.
    let runtimes: Vec<&str> = if !ctx.echo {
        vec![]
    } else if ctx.quick {
        vec![ctx.echo_runtime.as_str()]
    } else {
        vec!["current", "multi"]
    };
    let board = mazerace_protocol::Board::build(SIZE, 2200).map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut echoes = Vec::new();
    for rt in &runtimes {
        let echo = Server::start_echo(rt)?;
        let mut racers = Vec::with_capacity(per_size);
        for i in 0..per_size {
            let conn = Conn::connect(echo.addr, crate::ws::source_for(i, ctx.per_source), "/").await?;
            let p =
                Player { conn, id: i as u32, token: String::new(), name: String::new(), index: i, room: i };
            let walker = Walker::new(&board, Mode::PingPong, ctx.invalid_share, 0x5EED ^ i as u64);
            racers.push(Racer::new(p, walker, true));
        }
        echoes.push((echo, racers));
    }

    // The timeline: each room size, each echo runtime, then the pairs.
    let slot_len = ctx.warmup + ctx.measure + Duration::from_millis(500);
    let mut plan: Vec<(Who, String, bool)> = Vec::new();
    for (k, s) in ctx.fanout_sizes.iter().enumerate() {
        plan.push((Who::Race(k), format!("race, rooms of {s}"), false));
    }
    for (e, rt) in runtimes.iter().enumerate() {
        plan.push((Who::Echo(e), format!("echo ({rt} runtime)"), false));
    }
    let eight = ctx.fanout_sizes.iter().position(|&s| s == 8);
    let main_echo = runtimes.iter().position(|&r| r == ctx.echo_runtime);
    let pairs = if ctx.quick { 1 } else { 3 };
    if let (Some(k), Some(e)) = (eight, main_echo) {
        for i in 1..=pairs {
            plan.push((Who::Race(k), format!("pair {i}: race, rooms of 8"), true));
            plan.push((Who::Echo(e), format!("pair {i}: echo ({} runtime)", ctx.echo_runtime), true));
        }
    }
    let t0 = super::after(Duration::from_millis(300));
    let end = t0 + slot_len * plan.len() as u32 + Duration::from_secs(1);
    let slots: Vec<Slot> = plan
        .into_iter()
        .enumerate()
        .map(|(i, (who, label, pair))| {
            let start = t0 + slot_len * i as u32;
            let window = Window { start: start + ctx.warmup, end: start + ctx.warmup + ctx.measure };
            Slot { who, label, window, shared: shared_for(window), pair }
        })
        .collect();
    // Each player's phases: its group's slots, lingering (reading) in between.
    let phases_for = |who: Who| -> Vec<(Schedule, Rc<Shared>)> {
        let mine: Vec<&Slot> = slots.iter().filter(|s| s.who == who).collect();
        mine.iter()
            .enumerate()
            .map(|(j, s)| {
                let start = s.window.start - ctx.warmup;
                let linger = mine.get(j + 1).map_or(end, |n| n.window.start - ctx.warmup);
                (Schedule { start, stop: s.window.end, linger }, Rc::clone(&s.shared))
            })
            .collect()
    };
    let pace = Pace::Closed { window: ctx.window };
    let mut handles = Vec::new();
    for (k, players) in groups.into_iter().enumerate() {
        let phases = phases_for(Who::Race(k));
        for (p, board) in players {
            let walker = Walker::new(&board, Mode::PingPong, ctx.invalid_share, 0x5EED ^ p.index as u64);
            let racer = Racer::new(p, walker, false);
            handles.push(tokio::task::spawn_local(racer.drive_phases(pace, phases.clone())));
        }
    }
    let mut echo_pids = Vec::new();
    for (e, (echo, racers)) in echoes.iter_mut().enumerate() {
        echo_pids.push(echo.pid);
        let phases = phases_for(Who::Echo(e));
        for r in racers.drain(..) {
            handles.push(tokio::task::spawn_local(r.drive_phases(pace, phases.clone())));
        }
    }
    let mut measured = Vec::new();
    for s in &slots {
        let pid = match s.who {
            Who::Race(_) => server.pid,
            Who::Echo(e) => echo_pids[e],
        };
        let r = read_window(s.window, pid).await;
        measured.push(row(&s.label, per_size, &s.shared.meter.borrow(), &r));
    }
    drop(join_drivers(handles).await);

    // The tables: the main windows, the ratios, the pairs.
    let mut table = headers();
    for (s, m) in slots.iter().zip(&measured) {
        if !s.pair {
            table.row(m.row.clone());
        }
    }
    sec.tables.push(table);
    let echo_main =
        slots.iter().zip(&measured).find(|(s, _)| !s.pair && Some(s.who) == main_echo.map(Who::Echo));
    if let Some((_, echo)) = echo_main {
        let mut ratios = Table::new(&["race room size", "throughput race/echo", "CPU per msg race/echo"]);
        for (s, m) in slots.iter().zip(&measured) {
            if !s.pair && matches!(s.who, Who::Race(_)) {
                ratios.row(vec![
                    m.label.trim_start_matches("race, ").to_string(),
                    format!("{:.2}", m.moves_per_sec / echo.moves_per_sec),
                    format!("{:.2}", m.cpu_us_per_msg / echo.cpu_us_per_msg),
                ]);
            }
        }
        sec.tables.push(ratios);
    }
    let paired: Vec<(&Measured, &Measured)> = {
        let p: Vec<&Measured> = slots.iter().zip(&measured).filter(|(s, _)| s.pair).map(|(_, m)| m).collect();
        p.chunks(2).filter(|c| c.len() == 2).map(|c| (c[0], c[1])).collect()
    };
    let mut pair_table = Table::new(&[
        "pair",
        "race rooms of 8 msgs/s",
        "echo msgs/s",
        "throughput race/echo",
        "race CPU / msg",
        "echo CPU / msg",
        "CPU per msg race/echo",
        "race kernel / msg",
        "race kernel / echo CPU",
        "other CPU (race, echo)",
    ]);
    let mut ratios: Vec<f64> = Vec::new();
    let mut cpu_ratios: Vec<f64> = Vec::new();
    // The race server's system calls alone against the echo's whole cost:
    // the CPU ratio's floor, were its own code to cost nothing.
    let mut kernel_ratios: Vec<f64> = Vec::new();
    for (i, (r, e)) in paired.iter().enumerate() {
        let tr = r.moves_per_sec / e.moves_per_sec;
        let cr = r.cpu_us_per_msg / e.cpu_us_per_msg;
        let kr = r.kernel_us_per_msg / e.cpu_us_per_msg;
        ratios.push(tr);
        cpu_ratios.push(cr);
        kernel_ratios.push(kr);
        pair_table.row(vec![
            (i + 1).to_string(),
            fmt_count(r.moves_per_sec),
            fmt_count(e.moves_per_sec),
            format!("{tr:.2}"),
            format!("{:.1} µs", r.cpu_us_per_msg),
            format!("{:.1} µs", e.cpu_us_per_msg),
            format!("{cr:.2}"),
            format!("{:.1} µs", r.kernel_us_per_msg),
            format!("{kr:.2}"),
            format!("{:.0}%, {:.0}%", r.other_cpu * 100.0, e.other_cpu * 100.0),
        ]);
    }
    if !paired.is_empty() {
        sec.tables.push(pair_table);
    }
    sec.note(format!(
        "{per_size} players per room size, each keeping {} moves in flight, {} boards walked back and forth with \
         {:.0}% invalid moves; warm-up {:?}, measured {:?} per window. The echo server gets the same {per_size} \
         connections and the same frames.",
        ctx.window,
        SIZE.board_name(),
        ctx.invalid_share * 100.0,
        ctx.warmup,
        ctx.measure
    ));
    sec.note(format!(
        "Ratios are against the echo server on the `{}` runtime (the race server's flavour); `server CPU / msg` is \
         the server process's CPU time over the window divided by moves answered (echo: frames echoed). One core \
         runs the load generator: where 'loadgen CPU' is near 100% the client, not the server, sets the pace, and \
         the throughput ratio flatters the slower server. The CPU-per-message ratio does not depend on who sets \
         the pace. The goal uses the median of the alternating pairs.",
        ctx.echo_runtime
    ));
    let name = "saturated moves/s at room size 8 vs bare echo msgs/s";
    sec.goals.push(match (median(&ratios), median(&cpu_ratios)) {
        (Some(r), Some(c)) => Goal::new(
            name,
            ">= 0.90",
            format!("{r:.2} (median of {} pairs; CPU per msg {c:.2}x echo's)", ratios.len()),
            r >= 0.9,
        ),
        _ => Goal::new(name, ">= 0.90", "not measured".into(), false),
    });
    // What the server spends per message against a bare echo.
    let name = "saturated server CPU per msg at room size 8 vs bare echo's";
    sec.goals.push(match (median(&cpu_ratios), median(&kernel_ratios)) {
        (Some(c), Some(k)) => Goal::new(
            name,
            &format!("<= {CPU_RATIO_GOAL:.2}x"),
            format!(
                "{c:.2}x (median of {} pairs; the race server's kernel time alone {k:.2}x the echo's whole CPU)",
                cpu_ratios.len()
            ),
            c <= CPU_RATIO_GOAL,
        ),
        _ => Goal::new(name, &format!("<= {CPU_RATIO_GOAL:.2}x"), "not measured".into(), false),
    });
    drop(echoes);
    drop(server);
    Ok(())
}
