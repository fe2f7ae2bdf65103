//! One room slot of the churn soak, from the players' side: a room formed
//! out of fresh connections, its races with players dropping, resuming and
//! leaving, and the check that every acknowledged finish is confirmed by
//! `results` or a resume snapshot (counted in the soak's [`Tally`]).

use anyhow::{anyhow, bail, Result};
use mazerace_protocol::messages::{ClientMsg, Phase, RacerStatus, ServerMsg, Snapshot};
use mazerace_protocol::{Board, Game, Size, Status};
use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use super::Tally;
use crate::rooms::{
    await_ack, await_race_start, create_room, hello, join_room, name_for, rematch, send_start, Boards,
    Player, Target,
};
use crate::route::{Mode, Rng, Walker};
use crate::ws::action_frame;

/// Chance that a non-host player drops mid-race (and resumes).
pub(super) const P_DROP: f64 = 0.25;
/// Chance that a non-host player leaves mid-race for good (`leave_room`).
pub(super) const P_LEAVE: f64 = 0.05;
/// Chance that a finished non-host player drops and resumes before results.
pub(super) const P_DROP_FINISHED: f64 = 0.15;
/// Chance the host calls a rematch after results.
pub(super) const P_REMATCH: f64 = 0.5;
const RACE_TIMEOUT: Duration = Duration::from_secs(60);

fn take_index(ni: &Rc<RefCell<usize>>) -> usize {
    let mut n = ni.borrow_mut();
    *n += 1;
    *n
}

/// One room slot: form a room, race one or more times, break up; repeat.
#[allow(clippy::too_many_arguments)]
pub(super) async fn room_task(
    t: Target,
    slot: u64,
    deadline: Instant,
    counts: Tally,
    boards: Boards,
    ni: Rc<RefCell<usize>>,
    share: f64,
    think: (u64, u64),
) {
    let mut rng = Rng::new(slot * 7919 + 1);
    let sizes = churn_sizes();
    while Instant::now() < deadline {
        let n = rng.range(2, 6) as usize;
        let size = sizes[rng.range(0, sizes.len() as u64 - 1) as usize];
        match form_room(t, n, size, rng.next_u64() % 1_000_000, &counts, &ni).await {
            Ok(players) => {
                counts.borrow_mut().rooms += 1;
                run_room(t, players, deadline, &counts, &boards, &mut rng, share, think).await;
            }
            Err(e) => {
                counts.borrow_mut().fail(format!("forming a room: {e:#}"));
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        }
    }
}

async fn form_room(
    t: Target,
    n: usize,
    size: Size,
    seed: u64,
    counts: &Tally,
    ni: &Rc<RefCell<usize>>,
) -> Result<Vec<Player>> {
    let i = take_index(ni);
    let (mut host, _) = hello(t, i, name_for(i), None).await?;
    counts.borrow_mut().connected();
    let code = create_room(&mut host, size, seed, 8).await?;
    let mut players = vec![host];
    for _ in 1..n {
        let i = take_index(ni);
        let (mut p, _) = hello(t, i, name_for(i), None).await?;
        counts.borrow_mut().connected();
        join_room(&mut p, &code).await?;
        players.push(p);
    }
    Ok(players)
}

#[allow(clippy::too_many_arguments)]
async fn run_room(
    t: Target,
    mut players: Vec<Player>,
    deadline: Instant,
    counts: &Tally,
    boards: &Boards,
    rng: &mut Rng,
    share: f64,
    think: (u64, u64),
) {
    let Some(host_index) = players.first().map(|p| p.index) else { return };
    loop {
        let Some(host) = players.first_mut() else { return };
        if let Err(e) = send_start(host).await {
            counts.borrow_mut().fail(format!("start: {e:#}"));
            break;
        }
        let races = players.into_iter().enumerate().map(|(k, p)| {
            let seed = rng.next_u64();
            churn_race(t, p, k == 0, boards.clone(), Rc::clone(counts), share, think, seed)
        });
        let outcome = tokio::time::timeout(RACE_TIMEOUT, futures_util::future::join_all(races)).await;
        let Ok(outcome) = outcome else {
            counts.borrow_mut().fail(format!("a race took longer than {RACE_TIMEOUT:?}"));
            // The players were dropped with the timed-out futures.
            return;
        };
        players = outcome.into_iter().flatten().collect();
        let host_ok = players.first().is_some_and(|p| p.index == host_index);
        counts.borrow_mut().races += 1;
        if !host_ok || players.is_empty() || Instant::now() >= deadline || !rng.chance(P_REMATCH) {
            break;
        }
        let Some(host) = players.first_mut() else { return };
        if let Err(e) = rematch(host, Duration::from_secs(10)).await {
            counts.borrow_mut().fail(format!("rematch: {e:#}"));
            break;
        }
    }
    // Break up: half leave politely, half just vanish.
    for p in players {
        if rng.chance(0.5) {
            let mut p = p;
            let _ = p.conn.send_msg(&ClientMsg::LeaveRoom {}).await;
            p.conn.close().await;
        }
        counts.borrow_mut().disconnected();
    }
}

/// What one player knows about its own finish, and whether it holds a connection.
struct Finish {
    acked_steps: Option<u32>,
    confirmed: bool,
    connected: bool,
}

/// One player's race. Returns the player if it is still in the room afterwards.
#[allow(clippy::too_many_arguments)]
async fn churn_race(
    t: Target,
    p: Player,
    host: bool,
    boards: Boards,
    counts: Tally,
    share: f64,
    think: (u64, u64),
    seed: u64,
) -> Option<Player> {
    let mut rng = Rng::new(seed);
    let mut fin = Finish { acked_steps: None, confirmed: false, connected: true };
    match race_inner(t, p, host, &boards, &counts, share, think, &mut rng, &mut fin).await {
        Ok(p) => {
            settle(&counts, &fin);
            p
        }
        Err(e) => {
            settle(&counts, &fin);
            let mut c = counts.borrow_mut();
            c.fail(format!("{e:#}"));
            if fin.connected {
                c.disconnected();
            }
            None
        }
    }
}

fn settle(counts: &Tally, fin: &Finish) {
    if fin.acked_steps.is_some() {
        let mut c = counts.borrow_mut();
        c.finishes_acked += 1;
        if fin.confirmed {
            c.finishes_confirmed += 1;
        } else {
            c.finishes_unconfirmed += 1;
        }
    }
}

fn lost(counts: &Tally, fin: &mut Finish, what: String) {
    let mut c = counts.borrow_mut();
    c.finishes_lost += 1;
    c.first_lost.get_or_insert(what);
    // Counted as lost, not also as unconfirmed.
    fin.acked_steps = None;
}

#[allow(clippy::too_many_arguments)]
async fn race_inner(
    t: Target,
    mut p: Player,
    host: bool,
    boards: &Boards,
    counts: &Tally,
    share: f64,
    think: (u64, u64),
    rng: &mut Rng,
    fin: &mut Finish,
) -> Result<Option<Player>> {
    let board = await_race_start(&mut p, boards, Duration::from_secs(20)).await?;
    let mut walker = Walker::new(&board, Mode::Finish, share, rng.next_u64());
    let len = walker.route_len().max(1) as u64;
    let mut drop_at = (!host && rng.chance(P_DROP)).then(|| rng.range(1, len));
    let leave_at = (!host && drop_at.is_none() && rng.chance(P_LEAVE)).then(|| rng.range(1, len));
    let drop_finished = !host && rng.chance(P_DROP_FINISHED);
    let mut seq = 0u32;
    let mut sent = 0u64;
    while let Some(plan) = walker.next() {
        if Some(sent) == leave_at {
            p.conn.send_msg(&ClientMsg::LeaveRoom {}).await?;
            p.conn.close().await;
            let mut c = counts.borrow_mut();
            c.leaves += 1;
            c.disconnected();
            fin.connected = false;
            return Ok(None);
        }
        if Some(sent) == drop_at {
            drop_at = None;
            // Undo the planned action: the walk resumes from the server's snapshot.
            // The planned action is never sent: resuming rebuilds the walk
            // from the server's snapshot, which undoes it.
            p = resume(t, p, &board, &mut walker, counts, rng, fin).await?;
            continue;
        }
        seq += 1;
        let text = action_frame(plan.action, seq);
        p.conn.send_text(text).await?;
        sent += 1;
        let (ok, steps, status) = await_ack(&mut p, seq).await?;
        if ok != plan.ok || steps != plan.steps {
            bail!("move {seq}: server ok={ok} steps={steps}, rules ok={} steps={}", plan.ok, plan.steps);
        }
        if status == Status::Won {
            fin.acked_steps = Some(steps);
        }
        if walker.status() == Status::Playing {
            tokio::time::sleep(Duration::from_millis(rng.range(think.0, think.1))).await;
        }
    }
    if walker.status() != Status::Won {
        bail!("the walk ended {:?}, not won", walker.status());
    }
    if drop_finished {
        p = resume(t, p, &board, &mut walker, counts, rng, fin).await?;
        if fin.confirmed {
            // The room has moved past this race (results shown): nothing more to wait for.
            return Ok(Some(p));
        }
    }
    let me = p.id;
    let line = p
        .conn
        .wait_for(Duration::from_secs(45), |m| match m {
            ServerMsg::Results { rankings, .. } => Some(rankings.iter().find(|r| r.player_id == me).cloned()),
            _ => None,
        })
        .await?;
    if let Some(steps) = fin.acked_steps {
        match line {
            Some(l) if l.status == RacerStatus::Finished && l.steps == steps => fin.confirmed = true,
            other => lost(counts, fin, format!("player {me}: acked won in {steps}, results say {other:?}")),
        }
    }
    Ok(Some(p))
}

/// Drop the connection, wait, `hello {name, token}`, expect `resumed` and a
/// snapshot, and bring the walker to the server's state.
async fn resume(
    t: Target,
    p: Player,
    board: &Board,
    walker: &mut Walker,
    counts: &Tally,
    rng: &mut Rng,
    fin: &mut Finish,
) -> Result<Player> {
    let Player { conn, id, token, name, index, room } = p;
    drop(conn);
    {
        let mut c = counts.borrow_mut();
        c.drops += 1;
        c.disconnected();
    }
    fin.connected = false;
    tokio::time::sleep(Duration::from_millis(rng.range(100, 1500))).await;
    counts.borrow_mut().resumes_tried += 1;
    let (mut np, resumed) =
        hello(t, index, name, Some(token)).await.map_err(|e| anyhow!("resume hello: {e:#}"))?;
    np.room = room;
    counts.borrow_mut().connected();
    fin.connected = true;
    if !resumed || np.id != id {
        bail!("resume: welcome resumed={resumed}, player {} (was {id})", np.id);
    }
    let snap: Box<Snapshot> = np
        .conn
        .wait_for(Duration::from_secs(20), |m| match m {
            ServerMsg::Snapshot(s) => Some(s.clone()),
            _ => None,
        })
        .await
        .map_err(|e| anyhow!("resume snapshot: {e:#}"))?;
    let you = snap.you.as_ref();
    if let Some(steps) = fin.acked_steps {
        match you {
            Some(v) if v.status == Status::Won && v.steps == steps && snap.room.phase == Phase::Results => {
                fin.confirmed = true;
            }
            // Still racing (others are): results will confirm it.
            Some(v) if v.status == Status::Won && v.steps == steps => {}
            Some(v) if snap.room.phase == Phase::Racing || snap.room.phase == Phase::Results => {
                lost(counts, fin, format!("player {id}: acked won in {steps}, snapshot says {v:?}"))
            }
            // Back in the lobby (a rematch happened): the old race is gone from view.
            _ => {}
        }
    } else if snap.room.phase == Phase::Racing {
        let v = you.ok_or_else(|| anyhow!("resume snapshot while racing has no `you`"))?;
        if !walker.resync(board, v) {
            bail!("resume: the snapshot's state {v:?} is not on this player's route");
        }
    } else {
        bail!("resumed mid-race into phase {:?}", snap.room.phase);
    }
    counts.borrow_mut().resumes_ok += 1;
    Ok(np)
}

/// The boards churn rooms race: each game's two smallest sizes.
pub(super) fn churn_sizes() -> Vec<Size> {
    Game::ALL.iter().flat_map(|g| g.sizes().take(2)).collect()
}
