//! Room moves during a rolling restart (issue 27): nodes A and B on one
//! PostgreSQL behind the shipped nginx config (as `--two-nodes`), 200
//! players (20 with `--quick`) in rooms of 8 and 2 (pairs of one of each
//! made on A and B in turn), the hosts on their node, every other member connected through nginx by the room's
//! code, as the web client is. Every room races (the solver's route at a
//! fast human's pace, [`member`]); mid-race A is sent SIGTERM: its races
//! end, its rooms move to B and their members follow (`room_moved`, a new
//! socket through nginx naming the new code, `hello` with the token, as
//! the web client does, until the new room's `snapshot`). A exits and
//! starts again on its port; once nginx sends A's codes to it again, B is
//! sent SIGTERM and every room (its own and A's) moves to the new A.
//!
//! Timed per member: A's drain from the member's `results` (its race over,
//! which is when its room can move) to its `snapshot` on B; B's drain from
//! the SIGTERM to its `snapshot` on A (no room races then: this is the
//! lobby-and-results move). A room's time is its last member's. Counted:
//! rooms lost (a member missing, or members not together in one room of
//! the same players and host at the end) and errors (a member that saw an
//! `error` or `server_shutdown`, or failed otherwise). Three runs, each on
//! fresh nodes and a fresh schema; goals on the median of the three.

mod member;

use std::rc::Rc;
use std::time::{Duration, Instant};

use anyhow::{bail, Result};
use mazerace_protocol::messages::{ClientMsg, ErrorCode, ServerMsg};
use mazerace_protocol::{Board, Size};
use rustix::process::Signal;

use self::member::{Member, Outcome, Shared};
use super::Ctx;
use crate::nodes::{nginx_bin, Nginx, Postgres};
use crate::procs::Server;
use crate::report::{Goal, Section, Table};
use crate::rooms::{create_room, hello_at, join_room, Target};
use crate::stats::{fmt_dur, Lat};

/// A room's move, as its players feel it, at p99.
const ROOM_P99_GOAL: Duration = Duration::from_secs(2);
/// Every room races on the easy maze of this seed.
const SEED: u64 = 1;
/// The board every room races.
const SIZE: Size = Size::Easy;
/// A is sent SIGTERM this long after the last member's `race_start`.
const DRAIN_AFTER: Duration = Duration::from_secs(1);
/// How long the run waits for each of its steps.
const STEP_LIMIT: Duration = Duration::from_secs(90);

/// One drain's figures.
#[derive(Default)]
struct Drained {
    members: Lat,
    rooms: Lat,
}

/// The figures of one run.
struct Run {
    room_count: (usize, usize),
    /// A's rooms, and those of them still racing at its SIGTERM.
    a_rooms: (usize, usize),
    first: Drained,
    second: Drained,
    lost: usize,
    errors: usize,
    first_error: Option<String>,
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
        "A's rooms racing at SIGTERM",
        "A→B member p50 / p99 / max",
        "A→B room p99",
        "B→A member p50 / p99 / max",
        "B→A room p99",
        "rooms lost",
        "errors",
    ]);
    let (mut p99s, mut clean) = ((Vec::new(), Vec::new()), true);
    for n in 1..=3 {
        eprintln!("moves: run {n} of 3, {players} players");
        match one_run(ctx, &pg, players).await {
            Ok(r) => {
                let three = |l: &Lat| {
                    format!(
                        "{} / {} / {}",
                        fmt_dur(l.quantile(0.5)),
                        fmt_dur(l.quantile(0.99)),
                        fmt_dur(l.max())
                    )
                };
                table.row(vec![
                    n.to_string(),
                    players.to_string(),
                    format!("{} / {}", r.room_count.0, r.room_count.1),
                    format!("{} of {}", r.a_rooms.1, r.a_rooms.0),
                    three(&r.first.members),
                    fmt_dur(r.first.rooms.quantile(0.99)),
                    three(&r.second.members),
                    fmt_dur(r.second.rooms.quantile(0.99)),
                    r.lost.to_string(),
                    r.errors.to_string(),
                ]);
                clean &= r.lost == 0 && r.errors == 0 && r.a_rooms.0 == r.a_rooms.1;
                if let Some(e) = r.first_error {
                    sec.note(format!("run {n}: first error: {e}"));
                }
                p99s.0.push(r.first.rooms.quantile(0.99));
                p99s.1.push(r.second.rooms.quantile(0.99));
            }
            Err(e) => {
                sec.fail(format!("run {n}: {e:#}"));
                clean = false;
                break;
            }
        }
    }
    sec.tables.push(table);
    sec.goals.push(Goal::new(
        "rolling restart: rooms lost, errors seen (every run; A's rooms all mid-race at its SIGTERM)",
        "0, 0",
        if clean { "0, 0".to_owned() } else { "see the table".to_owned() },
        clean,
    ));
    for (what, mut v) in [("A's race end", p99s.0), ("B's SIGTERM", p99s.1)] {
        if v.len() == 3 {
            v.sort();
            sec.goals.push(Goal::new(
                &format!("room move p99 ({what} to every member in the new room), median of 3"),
                &format!("< {}", fmt_dur(ROOM_P99_GOAL)),
                fmt_dur(v[1]),
                v[1] < ROOM_P99_GOAL,
            ));
        }
    }
    sec.note(format!(
        "Nodes A and B (`--node-id`, `--trusted-proxy 127.0.0.1`, `--drain-secs 60`) on one PostgreSQL, \
         behind one nginx running deploy/nginx.conf, all on this machine with the load generator. Rooms (pairs of \
         one of 8 and one of 2) made on A and B in turn, hosts on the node, members through nginx. Every room races {} (a move every \
         50-90 ms); A gets SIGTERM 1 s after the last race began. 'A→B': from a member's `results` to its \
         `snapshot` in the new room on B; A then exits, starts again on its port, nginx takes it back, and \
         B gets SIGTERM. 'B→A': from that SIGTERM to a member's `snapshot` in the new room on A (rooms in \
         their lobby or results: the lobby move). A room's time is its last member's. The adopting node \
         polls the mailbox every 100 ms; the draining node asks for its answer every 25 ms.",
        SIZE.board_name()
    ));
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

/// Waits (at most [`STEP_LIMIT`]) until `done` holds, checking every 10 ms.
async fn until(what: &str, done: impl Fn() -> bool) -> Result<()> {
    let deadline = Instant::now() + STEP_LIMIT;
    while !done() {
        if Instant::now() >= deadline {
            bail!("{what}: not within {STEP_LIMIT:?}");
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    Ok(())
}

/// Waits until nginx sends node A's room codes to A again (it skips a node
/// for `fail_timeout` after it went away): an unused code of A is answered
/// `room_not_found` by A, `wrong_node` by the backup.
async fn nginx_takes_a_back(lb: Target, index: usize) -> Result<()> {
    let deadline = Instant::now() + STEP_LIMIT;
    loop {
        let (mut p, _) = hello_at(lb, "/ws?room=AZZZZ", index, "probe".into(), None).await?;
        p.conn
            .send_msg(&ClientMsg::JoinRoom {
                code: "AZZZZ".into(),
                spectate: false,
                key: None,
                screen: false,
            })
            .await?;
        let code = p
            .conn
            .wait_for(Duration::from_secs(10), |m| match m {
                ServerMsg::Error { code, .. } => Some(*code),
                _ => None,
            })
            .await?;
        p.conn.close().await;
        match code {
            ErrorCode::RoomNotFound => return Ok(()),
            ErrorCode::WrongNode if Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            other => bail!("nginx taking A back: {other:?}"),
        }
    }
}

async fn one_run(ctx: &Ctx, pg: &Postgres, players: usize) -> Result<Run> {
    let schema = pg.schema("moves")?;
    let mut spec = ctx.server.clone();
    spec.extra_args.extend(["--drain-secs", "60", "--countdown-secs", "1"].map(String::from));
    let mut a = Server::start_node(&spec, 'A', &schema.url)?;
    let mut b = Server::start_node(&spec, 'B', &schema.url)?;
    let nginx = Nginx::start(&a, &b, ctx.files.soft)?;
    let lb = Target { addr: nginx.server.addr, per_source: ctx.per_source, room_in_url: true };
    let board = Board::build(SIZE, SEED).map_err(|e| anyhow::anyhow!("board: {e}"))?;
    let plan = sizes(players);
    let mut members = Vec::new();
    let mut index = 0;
    for (r, &size) in plan.iter().enumerate() {
        // Pairs of rooms (one of 8, one of 2) on A and B in turn: both sizes on both.
        let on_a = (r / 2) % 2 == 0;
        let node = Target { addr: if on_a { a.addr } else { b.addr }, ..lb };
        let (mut host, _) = hello_at(node, "/ws", index, format!("r{r}p0"), None).await?;
        let code = create_room(&mut host, SIZE, SEED, 8).await?;
        members.push(Member { room: r, player: host, host: true, on_a });
        index += 1;
        for p in 1..size {
            let (mut c, _) =
                hello_at(lb, &format!("/ws?room={code}"), index, format!("r{r}p{p}"), None).await?;
            join_room(&mut c, &code).await?;
            members.push(Member { room: r, player: c, host: false, on_a });
            index += 1;
        }
    }
    let a_members = members.iter().filter(|m| m.on_a).count();
    let shared = Rc::new(Shared::default());
    let tasks: Vec<_> = members
        .into_iter()
        .map(|m| {
            let live = member::live(
                m,
                board.clone(),
                lb.addr,
                ctx.per_source,
                ctx.invalid_share,
                Rc::clone(&shared),
            );
            tokio::task::spawn_local(live)
        })
        .collect();
    let failed = || shared.failed.get();
    until("every race started", || shared.started.get() + failed() >= players).await?;
    tokio::time::sleep(DRAIN_AFTER).await;
    a.signal(Signal::TERM)?;
    let a_drained = Instant::now();
    let status = a.exited_within(STEP_LIMIT).await?;
    if !status.success() {
        bail!("A exited with {status:?}");
    }
    let a_addr = a.addr.to_string();
    drop(a);
    let a2 = Server::start_node_at(&spec, 'A', &schema.url, &a_addr)?;
    nginx_takes_a_back(lb, index).await?;
    until("A's members on B", || shared.on_b.get() + failed() >= a_members).await?;
    b.signal(Signal::TERM)?;
    let b_drained = Instant::now();
    let mut outcomes = Vec::new();
    let mut first_error = None;
    for t in tasks {
        match t.await? {
            Ok(o) => outcomes.push(o),
            Err(e) => drop(first_error.get_or_insert_with(|| format!("{e:#}"))),
        }
    }
    let status = b.exited_within(STEP_LIMIT).await?;
    if !status.success() {
        bail!("B exited with {status:?}");
    }
    let run = tally(&plan, &outcomes, a_drained, b_drained, first_error);
    futures_util::future::join_all(outcomes.into_iter().map(|o| o.conn.close())).await;
    drop((nginx, a2, b, schema));
    Ok(run)
}

/// The run's figures from its members' outcomes.
fn tally(
    plan: &[usize],
    outcomes: &[Outcome],
    a_drained: Instant,
    b_drained: Instant,
    first_error: Option<String>,
) -> Run {
    let (mut first, mut second) = (Drained::default(), Drained::default());
    let mut lost = 0;
    let mut a_rooms = (0, 0);
    for (r, &size) in plan.iter().enumerate() {
        let here: Vec<&Outcome> = outcomes.iter().filter(|o| o.room == r).collect();
        let together = here.first().is_some_and(|o0| {
            let names = |o: &Outcome| o.last_room.players.iter().map(|p| p.name.clone()).collect::<Vec<_>>();
            here.iter().all(|o| o.last_room.code == o0.last_room.code && names(o) == names(o0))
                && o0.last_room.code.starts_with('A')
                && o0.last_room.players.len() == size
                && o0.last_room.players[0].name == format!("r{r}p0")
                && o0.last_room.host == o0.last_room.players[0].id
        });
        if here.len() != size || !together {
            lost += 1;
        }
        let Some(race_end) = here.iter().map(|o| o.race_end).min() else { continue };
        if here.iter().any(|o| o.on_a) {
            a_rooms.0 += 1;
            a_rooms.1 += usize::from(race_end > a_drained);
            let moved: Vec<Duration> = here.iter().filter_map(|o| Some(o.on_b? - o.race_end)).collect();
            moved.iter().for_each(|d| first.members.record(*d));
            let last = here.iter().filter_map(|o| o.on_b).max();
            if let Some(last) = last {
                first.rooms.record(last - race_end);
            }
        }
        here.iter().for_each(|o| second.members.record(o.back_on_a - b_drained));
        if let Some(last) = here.iter().map(|o| o.back_on_a).max() {
            second.rooms.record(last - b_drained);
        }
    }
    let eights = plan.iter().filter(|&&s| s == 8).count();
    Run {
        room_count: (eights, plan.len() - eights),
        a_rooms,
        first,
        second,
        lost,
        errors: plan.iter().sum::<usize>() - outcomes.len(),
        first_error,
    }
}
