//! One player's life through the rolling restart (`super`), as its own
//! task: race (the solver's route at a human pace, every answer checked
//! against the rules), wait for the results; if its room is on A, follow
//! the room's move to B; then follow the move off B to the restarted A.
//! Every wait reads the socket, so the player answers the server's pings
//! all along, as a browser tab does. Any `error` or `server_shutdown` the
//! server sends fails the member (the run counts it).

use std::cell::Cell;
use std::net::SocketAddr;
use std::rc::Rc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Result};
use mazerace_protocol::messages::{ClientMsg, RoomInfo, ServerMsg};
use mazerace_protocol::{Board, Status};

use crate::rooms::{await_ack, send_start, Player};
use crate::route::{Mode, Rng, Walker};
use crate::ws::{action_frame, source_for, Conn};

/// How long a member waits for its first move, or a race for its results.
const MOVE_LIMIT: Duration = Duration::from_secs(30);
/// How long a member waits for B's drain: A's exit, its restart and nginx
/// taking it back come first.
const SECOND_MOVE_LIMIT: Duration = Duration::from_secs(120);
/// Milliseconds between two moves of a player: a fast human, so a race
/// lasts seconds and A's drain comes in the middle of it.
const THINK_MS: (u64, u64) = (50, 90);

/// What the run's main task and the members tell each other.
#[derive(Default)]
pub struct Shared {
    /// Members who saw their `race_start`.
    pub started: Cell<usize>,
    /// Members of A's rooms in their room's new place on B.
    pub on_b: Cell<usize>,
    /// Members who failed (so the run's waits do not wait for them).
    pub failed: Cell<usize>,
}

/// A member as set up: in its room's lobby, not started yet.
pub struct Member {
    /// The room's index in the plan.
    pub room: usize,
    pub player: Player,
    pub host: bool,
    /// Its room was made on A (it moves twice).
    pub on_a: bool,
}

/// What a member went through.
pub struct Outcome {
    pub room: usize,
    pub on_a: bool,
    /// Its `results` (its race over, its room about to move if on A).
    pub race_end: Instant,
    /// A's rooms: its `snapshot` in the room's new place on B.
    pub on_b: Option<Instant>,
    /// Its `snapshot` in the room's final place, on the restarted A.
    pub back_on_a: Instant,
    /// That room as the snapshot shows it.
    pub last_room: RoomInfo,
    /// Kept open until the run ends (a closed socket would leave the room).
    pub conn: Conn,
}

/// Runs member `m` to its final room; a failure is counted in `shared`.
pub async fn live(
    m: Member,
    board: Board,
    lb: SocketAddr,
    per_source: usize,
    share: f64,
    shared: Rc<Shared>,
) -> Result<Outcome> {
    let r = life(m, &board, lb, per_source, share, &shared).await;
    if r.is_err() {
        shared.failed.set(shared.failed.get() + 1);
    }
    r
}

async fn life(
    mut m: Member,
    board: &Board,
    lb: SocketAddr,
    per_source: usize,
    share: f64,
    shared: &Shared,
) -> Result<Outcome> {
    if m.host {
        send_start(&mut m.player).await?;
    }
    m.player
        .conn
        .wait_for(MOVE_LIMIT, |msg| matches!(msg, ServerMsg::RaceStart { .. }).then_some(()))
        .await?;
    shared.started.set(shared.started.get() + 1);
    race(&mut m.player, board, share).await?;
    let me = m.player.id;
    let line = m
        .player
        .conn
        .wait_for(MOVE_LIMIT, |msg| match msg {
            ServerMsg::Results { rankings, .. } => Some(rankings.iter().find(|r| r.player_id == me).cloned()),
            _ => None,
        })
        .await?
        .ok_or_else(|| anyhow!("results without this player"))?;
    let race_end = Instant::now();
    if line.steps != board.best().unwrap_or(0) || line.rank.is_none() {
        bail!("results line {line:?}: not the solver's finish");
    }
    let source = source_for(m.player.index, per_source);
    let (name, token) = (m.player.name.clone(), m.player.token.clone());
    let mut conn = m.player.conn;
    let mut on_b = None;
    if m.on_a {
        let (c, _) = follow(conn, lb, source, &name, &token, MOVE_LIMIT).await?;
        conn = c;
        on_b = Some(Instant::now());
        shared.on_b.set(shared.on_b.get() + 1);
    }
    let (conn, last_room) = follow(conn, lb, source, &name, &token, SECOND_MOVE_LIMIT).await?;
    Ok(Outcome { room: m.room, on_a: m.on_a, race_end, on_b, back_on_a: Instant::now(), last_room, conn })
}

/// Walks the solver's route at [`THINK_MS`] a move (with the run's share
/// of invalid moves), checking every answer against the rules.
async fn race(p: &mut Player, board: &Board, share: f64) -> Result<()> {
    let mut walker = Walker::new(board, Mode::Finish, share, p.index as u64);
    let mut rng = Rng::new(p.index as u64 ^ 0x5EED);
    let mut seq = 0u32;
    while let Some(plan) = walker.next() {
        seq += 1;
        let text = action_frame(plan.action, seq);
        p.conn.send_text(text).await?;
        let (ok, steps, _) = await_ack(p, seq).await?;
        if (ok, steps) != (plan.ok, plan.steps) {
            bail!(
                "move {seq}: the server said ok={ok} steps={steps}, the rules say {} {}",
                plan.ok,
                plan.steps
            );
        }
        if walker.status() == Status::Playing {
            tokio::time::sleep(Duration::from_millis(rng.range(THINK_MS.0, THINK_MS.1))).await;
        }
    }
    if walker.status() != Status::Won {
        bail!("the walk ended {:?}, not won", walker.status());
    }
    Ok(())
}

/// Waits (at most `limit`) for `room_moved` on `old` and follows it as the
/// web client does: a new socket through nginx naming the new code, `hello`
/// with the same token (a resume), until the new room's `snapshot`.
async fn follow(
    mut old: Conn,
    lb: SocketAddr,
    source: Option<std::net::Ipv4Addr>,
    name: &str,
    token: &str,
    limit: Duration,
) -> Result<(Conn, RoomInfo)> {
    let to = old
        .wait_for(limit, |m| match m {
            ServerMsg::RoomMoved { code, .. } => Some(Some(code.clone())),
            ServerMsg::ServerShutdown => Some(None),
            _ => None,
        })
        .await?
        .ok_or_else(|| anyhow!("server_shutdown instead of a move"))?;
    let mut c = Conn::connect(lb, source, &format!("/ws?room={to}")).await?;
    c.send_msg(&ClientMsg::Hello { name: name.into(), token: Some(token.into()) }).await?;
    let resumed = c
        .wait_for(MOVE_LIMIT, |m| match m {
            ServerMsg::Welcome { resumed, .. } => Some(*resumed),
            _ => None,
        })
        .await?;
    if !resumed {
        bail!("{name}: a new session in {to}, not the seat that waited for the token");
    }
    let room = c
        .wait_for(MOVE_LIMIT, |m| match m {
            ServerMsg::Snapshot(s) if s.room.code == to => Some(s.room.clone()),
            _ => None,
        })
        .await?;
    old.close().await;
    Ok((c, room))
}
