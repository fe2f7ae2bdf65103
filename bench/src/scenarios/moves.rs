//! Room moves during a rolling restart's drain (issue 27): nodes A and B on
//! one PostgreSQL behind the shipped nginx config (as `--two-nodes`), 200
//! players (20 with `--quick`) in rooms of 8 and 2 on node A, each member
//! connected through nginx by the room's code, as the web client is. A is
//! sent SIGTERM; every member waits for `room_moved`, connects through
//! nginx naming the new code and says `hello` with its token, as the web
//! client does, until the new room's `snapshot`. Timed from the signal:
//! each member's arrival, and each room's last member's (the move as its
//! players feel it). Three runs, each on fresh nodes and a fresh schema;
//! the goal is judged on the median of the three p99s.
//!
//! The rooms wait in their lobby (a room mid-race moves once its race is
//! over, which adds the race's remaining time and nothing else).

use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use anyhow::{bail, Result};
use mazerace_protocol::messages::{ClientMsg, ServerMsg};
use mazerace_protocol::{Game, Size};

use super::Ctx;
use crate::nodes::{nginx_bin, Nginx, Postgres};
use crate::procs::Server;
use crate::report::{Goal, Section, Table};
use crate::stats::{fmt_dur, Lat};
use crate::ws::{self, Conn};

/// A room's move, as its players feel it, at p99.
const ROOM_P99_GOAL: Duration = Duration::from_secs(2);
/// How long a member may wait for its move before the run fails.
const MOVE_LIMIT: Duration = Duration::from_secs(30);

/// The figures of one run.
struct Run {
    members: Lat,
    rooms: Lat,
    room_count: (usize, usize),
}

pub async fn run(ctx: &Ctx) -> Section {
    let mut sec = Section::new("moves", "Room moves while a node drains (rolling restart, two nodes)");
    if let Err(e) = nginx_bin() {
        sec.fail(format!("{e:#}"));
        return sec;
    }
    let pg = match Postgres::given_or_throwaway(ctx.store_database_url.as_deref()) {
        Ok(pg) => pg,
        Err(e) => {
            sec.fail(format!("PostgreSQL: {e:#}"));
            return sec;
        }
    };
    let players = if ctx.quick { 20 } else { 200 };
    let mut table = Table::new(&[
        "run",
        "players",
        "rooms of 8 / of 2",
        "member p50",
        "member p99",
        "room p50",
        "room p99",
    ]);
    let mut p99s = Vec::new();
    for n in 1..=3 {
        eprintln!("moves: run {n} of 3, {players} players");
        match one_run(ctx, &pg, players).await {
            Ok(r) => {
                let q = |l: &Lat, p| fmt_dur(l.quantile(p));
                table.row(vec![
                    n.to_string(),
                    players.to_string(),
                    format!("{} / {}", r.room_count.0, r.room_count.1),
                    q(&r.members, 0.5),
                    q(&r.members, 0.99),
                    q(&r.rooms, 0.5),
                    q(&r.rooms, 0.99),
                ]);
                p99s.push(r.rooms.quantile(0.99));
            }
            Err(e) => {
                sec.fail(format!("run {n}: {e:#}"));
                break;
            }
        }
    }
    sec.tables.push(table);
    if p99s.len() == 3 {
        p99s.sort();
        let median = p99s[1];
        sec.goals.push(Goal::new(
            "room move p99 (SIGTERM to every member in the new room)",
            &format!("< {}", fmt_dur(ROOM_P99_GOAL)),
            fmt_dur(median),
            median < ROOM_P99_GOAL,
        ));
    }
    sec.note(
        "Nodes A and B (`--node-id`, `--trusted-proxy 127.0.0.1`) on one PostgreSQL, behind one nginx running \
         deploy/nginx.conf, all on this machine with the load generator. Rooms made on A; members through \
         nginx. From SIGTERM to A: 'member' is each member's `snapshot` in the new room on B (its \
         `room_moved`, a new WebSocket through nginx, `hello` with its token); 'room' is a room's last \
         member's. The adopting node polls the mailbox every 100 ms; the draining node asks for its answer \
         every 25 ms.",
    );
    sec
}

/// Room sizes for `players`: 8 and 2 in turn while they fit, then 2s.
fn sizes(players: usize) -> Vec<usize> {
    let (mut left, mut out) = (players, Vec::new());
    while left >= 2 {
        let s = if out.len() % 2 == 0 && left >= 8 { 8 } else { 2 };
        out.push(s);
        left -= s;
    }
    out
}

async fn hello(c: &mut Conn, name: &str, token: Option<String>) -> Result<String> {
    c.send_msg(&ClientMsg::Hello { name: name.into(), token }).await?;
    c.wait_for(Duration::from_secs(10), |m| match m {
        ServerMsg::Welcome { token, .. } => Some(token.clone()),
        _ => None,
    })
    .await
}

async fn one_run(ctx: &Ctx, pg: &Postgres, players: usize) -> Result<Run> {
    let schema = pg.schema("moves")?;
    let mut spec = ctx.server.clone();
    spec.extra_args.extend(["--drain-secs".to_owned(), "60".to_owned()]);
    let a = Server::start_node(&spec, 'A', &schema.url)?;
    let b = Server::start_node(&spec, 'B', &schema.url)?;
    let nginx = Nginx::start(&a, &b, ctx.files.soft)?;
    let lb = nginx.server.addr;
    let plan = sizes(players);
    // Every member: (room, its connection, its name, its token).
    let mut members = Vec::new();
    let mut i = 0;
    for (r, &size) in plan.iter().enumerate() {
        let name = format!("r{r}p0");
        let mut host = Conn::connect(a.addr, ws::source_for(i, ctx.per_source), "/ws").await?;
        let token = hello(&mut host, &name, None).await?;
        host.send_msg(&ClientMsg::CreateRoom {
            game: Game::Maze,
            size: Size::Easy,
            seed: None,
            rank_by: None,
            max_players: Some(8),
            daily: false,
            format: None,
            replaces: None,
        })
        .await?;
        let code = host
            .wait_for(Duration::from_secs(10), |m| match m {
                ServerMsg::Room(info) => Some(info.code.clone()),
                _ => None,
            })
            .await?;
        members.push((r, host, name, token));
        i += 1;
        for p in 1..size {
            let name = format!("r{r}p{p}");
            let mut c =
                Conn::connect(lb, ws::source_for(i, ctx.per_source), &format!("/ws?room={code}")).await?;
            let token = hello(&mut c, &name, None).await?;
            c.send_msg(&ClientMsg::JoinRoom { code: code.clone(), spectate: false, key: None }).await?;
            c.wait_for(Duration::from_secs(10), |m| match m {
                ServerMsg::Room(info) if info.players.iter().any(|p| p.name == name) => Some(()),
                _ => None,
            })
            .await?;
            members.push((r, c, name, token));
            i += 1;
        }
    }
    let sent = std::process::Command::new("kill").args(["-TERM", &a.pid.to_string()]).status()?;
    if !sent.success() {
        bail!("kill -TERM {} failed", a.pid);
    }
    let t0 = Instant::now();
    let arrivals: Rc<RefCell<Vec<(usize, Duration)>>> = Rc::default();
    let mut tasks = Vec::new();
    for (i, (room, mut old, name, token)) in members.into_iter().enumerate() {
        let arrivals = Rc::clone(&arrivals);
        let per_source = ctx.per_source;
        tasks.push(tokio::task::spawn_local(async move {
            let to = old
                .wait_for(MOVE_LIMIT, |m| match m {
                    ServerMsg::RoomMoved { code, .. } => Some(code.clone()),
                    _ => None,
                })
                .await?;
            let mut c = Conn::connect(lb, ws::source_for(i, per_source), &format!("/ws?room={to}")).await?;
            hello(&mut c, &name, Some(token)).await?;
            c.wait_for(MOVE_LIMIT, |m| match m {
                ServerMsg::Snapshot(s) if s.room.code == to => Some(()),
                _ => None,
            })
            .await?;
            arrivals.borrow_mut().push((room, t0.elapsed()));
            old.close().await;
            anyhow::Ok(c)
        }));
    }
    let mut kept = Vec::new();
    for t in tasks {
        kept.push(t.await??);
    }
    let (mut by_member, mut last) = (Lat::new(), vec![Duration::ZERO; plan.len()]);
    for &(room, d) in arrivals.borrow().iter() {
        by_member.record(d);
        last[room] = last[room].max(d);
    }
    let mut by_room = Lat::new();
    last.iter().for_each(|d| by_room.record(*d));
    drop(kept);
    drop((nginx, a, b, schema));
    let eights = plan.iter().filter(|&&s| s == 8).count();
    Ok(Run { members: by_member, rooms: by_room, room_count: (eights, plan.len() - eights) })
}
