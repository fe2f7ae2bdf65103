//! Full races end to end: rooms that race again and again (start,
//! countdown, race_start, every player walks the solution with invalid
//! moves mixed in, results, rematch) for a set time. Reports races per
//! second, race duration, and server CPU per race; every result is checked
//! (everyone finished, at the solver's step count).
//!
//! Two variants: `paced` (the default server, a 3-second countdown,
//! players moving about 25 times a second: a lively human) and `flat out`
//! (no countdown, no rate limit, no pause between moves: what the server
//! can turn over), and `paced with a rival` (issue 16: from the second
//! race on, each room races the same board again with the host's last run
//! as a rival, played back by the room's timer: what a rival costs), and
//! `matches` (issue 25: rooms play matches of 10 rounds, alternating Ghost
//! and Maze, flat out with no intermission: each round starts by itself
//! after the last one's results, and every `match_over` is checked: how
//! many rounds a second the server turns over).

use anyhow::{anyhow, bail, Result};
use mazerace_protocol::messages::{ClientMsg, Phase, RacerStatus, RivalPick, ServerMsg};
use mazerace_protocol::{Game, Size, Status};
use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use super::matches::{match_over, set_match};
use super::Ctx;
use crate::procs::Server;
use crate::report::{fmt_count, Section, Table};
use crate::rooms::{
    await_ack, await_race_start, rematch, send_start, setup_rooms, Boards, Player, RoomPlan, Target,
};
use crate::route::{Mode, Rng, Walker};
use crate::stats::{fmt_dur, Lat};
use crate::sys;
use crate::ws::action_frame;

const ROOM_SIZE: usize = 4;
/// A race (countdown included) longer than this counts as failed.
const RACE_TIMEOUT: Duration = Duration::from_secs(60);

#[derive(Default)]
struct Tally {
    races: u64,
    verified: u64,
    failures: u64,
    first_failure: Option<String>,
    duration: Lat,
    moves: u64,
    /// Matches played to their `match_over` and checked.
    matches: u64,
}

impl Tally {
    fn fail(&mut self, e: String) {
        self.failures += 1;
        self.first_failure.get_or_insert(e);
    }
}

struct Variant {
    label: &'static str,
    args: &'static [&'static str],
    think: Option<(u64, u64)>,
    /// Rematch on the same board with the host's last run as a rival.
    rival: bool,
    /// Play matches of this many rounds instead of single races.
    rounds: Option<u32>,
}

pub async fn run(ctx: &Ctx) -> Section {
    let mut sec = Section::new("races", "Full races end to end");
    let mut t = Table::new(&[
        "variant",
        "rooms x players",
        "races",
        "races/s",
        "race p50",
        "race p99",
        "moves/s",
        "server CPU / race",
        "server CPU",
        "results verified",
        "failures",
    ]);
    let paced = if ctx.quick {
        // Quick: a shorter countdown and quicker hands, so a race fits in a couple of seconds.
        Variant {
            label: "paced (1 s countdown, ~100 moves/s each)",
            args: &["--countdown-secs", "1", "--msgs-per-sec", "200", "--msgs-burst", "200"],
            think: Some((5, 15)),
            rival: false,
            rounds: None,
        }
    } else {
        Variant {
            label: "paced (3 s countdown, ~25 moves/s each)",
            args: &[],
            think: Some((30, 50)),
            rival: false,
            rounds: None,
        }
    };
    let with_rival = Variant { label: "paced with a rival (the host's last run)", rival: true, ..paced };
    let flat = Variant {
        label: "flat out (no countdown, no rate limit)",
        args: &["--countdown-secs", "0", "--msgs-per-sec", "1000000", "--msgs-burst", "1000000"],
        think: None,
        rival: false,
        rounds: None,
    };
    let matches = Variant {
        label: "matches of 10 rounds, flat out (no intermission): a race is a round",
        args: &[
            "--countdown-secs",
            "0",
            "--intermission-secs",
            "0",
            "--msgs-per-sec",
            "1000000",
            "--msgs-burst",
            "1000000",
        ],
        rounds: Some(10),
        ..flat
    };
    let variants = [paced, with_rival, flat, matches];
    for v in &variants {
        match variant(ctx, v).await {
            Ok(row) => t.row(row),
            Err(e) => sec.fail(format!("{}: {e:#}", v.label)),
        }
    }
    sec.tables.push(t);
    sec.note(format!(
        "Rooms of {ROOM_SIZE}, shared among {} boards (rematch draws a new seed each time); \
         a race is timed from the host's `start` to the last member's `results`; moves are closed loop (one in \
         flight), {:.0}% of them invalid. In the matches variant a race is a round, timed from the previous \
         round's `results` (round 1: from `start`), the rounds of a match alternate games from a seed \
         the server draws, and each `match_over` is checked (10 rounds, everyone in each, the points adding up).",
        board_names(&middle_sizes()),
        ctx.invalid_share * 100.0
    ));
    sec
}

async fn variant(ctx: &Ctx, v: &Variant) -> Result<Vec<String>> {
    let server = Server::start_race(&ctx.server_with(v.args))?;
    let target = Target { addr: server.addr, per_source: ctx.per_source, room_in_url: false };
    let rooms = ctx.race_rooms.max(2);
    let mut sets = Vec::new();
    // The rooms shared among the games, each on its middle size.
    let per_game = rooms / Game::ALL.len();
    for (k, size) in middle_sizes().into_iter().enumerate() {
        let plan = RoomPlan {
            rooms: per_game,
            room_size: ROOM_SIZE,
            size,
            seed_base: 300 + k as u64 * 1000,
            seed_spread: 1000,
            first_index: k * per_game * ROOM_SIZE,
        };
        let (s, failed, err) = setup_rooms(target, plan, 64).await;
        if failed > 0 {
            bail!("{failed} rooms failed to set up: {}", err.unwrap_or_default());
        }
        sets.extend(s);
    }
    let tally = Rc::new(RefCell::new(Tally::default()));
    let boards = Boards::default();
    let t0 = Instant::now();
    let deadline = t0 + Duration::from_secs(ctx.race_secs);
    let cpu0 = sys::sample(server.pid).cpu;
    let handles: Vec<_> = sets
        .into_iter()
        .enumerate()
        .map(|(r, set)| {
            let tally = Rc::clone(&tally);
            let boards = boards.clone();
            let plan = Plan { think: v.think, share: ctx.invalid_share, rival: v.rival, rounds: v.rounds };
            tokio::task::spawn_local(room_loop(set.players, deadline, boards, tally, plan, r as u64))
        })
        .collect();
    for h in handles {
        let _ = h.await;
    }
    let elapsed = t0.elapsed().as_secs_f64();
    let cpu = sys::sample(server.pid).cpu.saturating_sub(cpu0).as_secs_f64();
    let t = tally.borrow();
    let per_race = if t.races > 0 { Duration::from_secs_f64(cpu / t.races as f64) } else { Duration::ZERO };
    let failures = match &t.first_failure {
        Some(e) => format!("{} (first: {e})", t.failures),
        None => "0".into(),
    };
    Ok(vec![
        v.label.into(),
        format!("{} x {ROOM_SIZE}", rooms / 2 * 2),
        fmt_count(t.races as f64),
        format!("{:.1}", t.races as f64 / elapsed),
        fmt_dur(t.duration.quantile(0.5)),
        fmt_dur(t.duration.quantile(0.99)),
        fmt_count(t.moves as f64 / elapsed),
        fmt_dur(per_race),
        format!("{:.0}%", cpu / elapsed * 100.0),
        match v.rounds {
            Some(_) => format!("{}/{} ({} matches)", t.verified, t.races, t.matches),
            None => format!("{}/{}", t.verified, t.races),
        },
        failures,
    ])
}

/// How a room's players race.
#[derive(Clone, Copy)]
struct Plan {
    think: Option<(u64, u64)>,
    share: f64,
    rival: bool,
    rounds: Option<u32>,
}

/// One room racing until the deadline; stops at its first failure.
async fn room_loop(
    mut players: Vec<Player>,
    deadline: Instant,
    boards: Boards,
    tally: Rc<RefCell<Tally>>,
    plan: Plan,
    room: u64,
) {
    let Plan { think, share, rival, rounds } = plan;
    if let (Some(n), Some(host)) = (rounds, players.first_mut()) {
        if let Err(e) = set_match(host, n).await {
            tally.borrow_mut().fail(format!("set_match: {e:#}"));
            return;
        }
    }
    let mut round = 0u64;
    while Instant::now() < deadline {
        let Some(host) = players.first_mut() else { return };
        if let Err(e) = send_start(host).await {
            tally.borrow_mut().fail(format!("start: {e:#}"));
            return;
        }
        // A single race, or every round of a match with no message between.
        for _ in 0..rounds.unwrap_or(1) {
            round += 1;
            let t0 = Instant::now();
            let runs = players.iter_mut().enumerate().map(|(k, p)| {
                let boards = boards.clone();
                let seed = room << 32 | round << 8 | k as u64;
                async move { race_one(p, &boards, think, share, seed).await }
            });
            let outcomes = tokio::time::timeout(RACE_TIMEOUT, futures_util::future::join_all(runs)).await;
            if !record(&tally, outcomes, t0.elapsed()) {
                return;
            }
        }
        if let Some(n) = rounds {
            let ids: Vec<u32> = players.iter().map(|p| p.id).collect();
            let Some(host) = players.first_mut() else { return };
            match match_over(host, n, &ids).await {
                Ok(()) => tally.borrow_mut().matches += 1,
                Err(e) => {
                    tally.borrow_mut().fail(format!("match_over: {e:#}"));
                    return;
                }
            }
        }
        if Instant::now() >= deadline {
            return;
        }
        let Some(host) = players.first_mut() else { return };
        let again = match rival {
            true => rematch_with_rival(host, round == 1).await,
            false => rematch(host, Duration::from_secs(10)).await,
        };
        if let Err(e) = again {
            tally.borrow_mut().fail(format!("rematch: {e:#}"));
            return;
        }
    }
}

/// The same board again; after the first race, with the host's run in it
/// as a rival (kept for every later same-board rematch).
async fn rematch_with_rival(host: &mut Player, first: bool) -> Result<()> {
    let limit = Duration::from_secs(10);
    host.conn.send_msg(&ClientMsg::Rematch { same_board: true }).await?;
    if first {
        host.conn.send_msg(&ClientMsg::AddRival { run_id: None, pick: Some(RivalPick::Last) }).await?;
    }
    host.conn
        .wait_for(limit, |m| match m {
            ServerMsg::Room(r) if r.phase == Phase::Lobby && r.players.iter().any(|p| p.rival) => {
                Some(Ok(()))
            }
            ServerMsg::Error { code, message } => Some(Err(anyhow!("add_rival: {code:?}: {message}"))),
            _ => None,
        })
        .await?
}

/// Count one race; false when it failed (the room then stops).
fn record(
    tally: &RefCell<Tally>,
    outcomes: Result<Vec<Result<u64>>, tokio::time::error::Elapsed>,
    took: Duration,
) -> bool {
    let mut t = tally.borrow_mut();
    let Ok(outcomes) = outcomes else {
        t.fail(format!("a race took longer than {RACE_TIMEOUT:?}"));
        return false;
    };
    t.races += 1;
    t.duration.record(took);
    let mut ok = true;
    for o in outcomes {
        match o {
            Ok(moves) => t.moves += moves,
            Err(e) => {
                ok = false;
                t.fail(format!("{e:#}"));
            }
        }
    }
    if ok {
        t.verified += 1;
    }
    ok
}

/// One player's race: wait for the start, walk the solution, wait for the
/// results and check this player's line. Returns the moves sent.
async fn race_one(
    p: &mut Player,
    boards: &Boards,
    think: Option<(u64, u64)>,
    share: f64,
    seed: u64,
) -> Result<u64> {
    let board = await_race_start(p, boards, Duration::from_secs(20)).await?;
    let best = board.best().ok_or_else(|| anyhow!("an unsolvable fallback vault: no route to walk"))?;
    let mut walker = Walker::new(&board, Mode::Finish, share, seed);
    let mut rng = Rng::new(seed ^ 0xABCD);
    let mut seq = 0u32;
    let mut moves = 0u64;
    while let Some(plan) = walker.next() {
        seq += 1;
        let text = action_frame(plan.action, seq);
        p.conn.send_text(text).await?;
        moves += 1;
        let (ok, steps, _) = await_ack(p, seq).await?;
        if ok != plan.ok || steps != plan.steps {
            bail!(
                "move {seq}: the server said ok={ok} steps={steps}, the rules say ok={} steps={}",
                plan.ok,
                plan.steps
            );
        }
        if let Some((lo, hi)) = think {
            if walker.status() == Status::Playing {
                tokio::time::sleep(Duration::from_millis(rng.range(lo, hi))).await;
            }
        }
    }
    if walker.status() != Status::Won {
        bail!("the walk ended {:?}, not won", walker.status());
    }
    let me = p.id;
    let line = p
        .conn
        .wait_for(Duration::from_secs(30), |m| match m {
            ServerMsg::Results { rankings, .. } => Some(rankings.iter().find(|r| r.player_id == me).cloned()),
            _ => None,
        })
        .await?
        .ok_or_else(|| anyhow!("results without this player"))?;
    if line.status != RacerStatus::Finished || line.steps != best || line.rank.is_none() {
        bail!("results line {line:?}: expected finished in {best} steps");
    }
    Ok(moves)
}

/// Each game's middle size, in the registry's order.
fn middle_sizes() -> Vec<Size> {
    Game::ALL.iter().filter_map(|g| g.sizes().nth(1)).collect()
}

/// `Ghost medium and Maze normal`.
pub(crate) fn board_names(sizes: &[Size]) -> String {
    let names: Vec<String> = sizes.iter().map(|s| s.board_name()).collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => names.concat(),
    }
}
