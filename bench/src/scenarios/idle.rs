//! Idle memory: connect many players (hello, then create or join a room of
//! eight), leave them idle, and report the server's resident memory per
//! connected player over the empty server's baseline.

use mazerace_protocol::Size;
use std::time::{Duration, Instant};

use super::Ctx;
use crate::procs::Server;
use crate::report::{fmt_bytes, fmt_count, Goal, Section, Table};
use crate::rooms::{setup_rooms, RoomPlan, Target};
use crate::sys;

const ROOM_SIZE: usize = 8;
const GOAL_BYTES: f64 = 6.0 * 1024.0;

pub async fn run(ctx: &Ctx) -> Section {
    let mut sec = Section::new("idle", "Idle memory per connected player");
    let want = ctx.idle_players;
    let cap = ctx.connection_cap() / ROOM_SIZE * ROOM_SIZE;
    let n = want.min(cap) / ROOM_SIZE * ROOM_SIZE;
    let server = match Server::start_race(&ctx.server_with(&[])) {
        Ok(s) => s,
        Err(e) => {
            sec.fail(format!("the server did not start: {e:#}"));
            sec.goals.push(Goal::new("idle RSS per player", "<= 6 KiB", "not measured".into(), false));
            return sec;
        }
    };
    // Let the empty server settle (database opened, runtime threads up).
    tokio::time::sleep(Duration::from_millis(500)).await;
    let base = sys::rss_bytes(server.pid).unwrap_or(0);
    let target = Target { addr: server.addr, per_source: ctx.per_source, room_in_url: false };
    let t0 = Instant::now();
    let plan = RoomPlan {
        rooms: n / ROOM_SIZE,
        room_size: ROOM_SIZE,
        size: Size::Normal,
        seed_base: 7,
        seed_spread: 16,
        first_index: 0,
    };
    let (sets, failed_rooms, err) = setup_rooms(target, plan, 256).await;
    let took = t0.elapsed();
    let connected: usize = sets.iter().map(|s| s.players.len()).sum();
    tokio::time::sleep(Duration::from_secs(1)).await;
    let loaded = sys::rss_bytes(server.pid).unwrap_or(0);
    let per = if connected > 0 { (loaded as f64 - base as f64) / connected as f64 } else { f64::NAN };
    let sources = sets
        .iter()
        .flat_map(|s| &s.players)
        .map(|p| p.index / ctx.per_source.max(1))
        .max()
        .map_or(0, |k| k + 1);
    drop(sets);
    let mut t = Table::new(&[
        "players wanted",
        "connected",
        "rooms failed",
        "source addresses",
        "connect rate",
        "server RSS empty",
        "server RSS loaded",
        "server RSS per player",
    ]);
    t.row(vec![
        fmt_count(want as f64),
        fmt_count(connected as f64),
        fmt_count(failed_rooms as f64),
        sources.to_string(),
        format!("{}/s", fmt_count(connected as f64 / took.as_secs_f64().max(1e-9))),
        fmt_bytes(base as f64),
        fmt_bytes(loaded as f64),
        fmt_bytes(per),
    ]);
    sec.tables.push(t);
    if let Some(e) = err {
        sec.note(format!("first setup failure: {e}"));
    }
    if n < want {
        sec.note(format!(
            "Capped at {} players: the open-file limit is {} (hard {}), and each connection is one file in the server \
             and one here. The hard limit cannot be raised without CAP_SYS_RESOURCE.",
            fmt_count(n as f64),
            ctx.files.soft,
            ctx.files.hard
        ));
    }
    sec.note(format!(
        "Each player: TCP connect (source 127.0.0.x, {} per address), WebSocket upgrade, hello -> welcome, \
         create_room or join_room -> room, then idle. RSS from /proc/<pid>/status after 1 s of quiet.",
        fmt_count(ctx.per_source as f64)
    ));
    let pass = connected > 0 && per <= GOAL_BYTES && failed_rooms == 0;
    sec.goals.push(Goal::new(
        "server RSS per idle connected player",
        "<= 6 KiB",
        format!("{} at {} players", fmt_bytes(per), fmt_count(connected as f64)),
        pass,
    ));
    sec
}
