//! Getting simulated players into races over the real protocol: connect and
//! `hello`, create or join rooms, `start`, and wait for `race_start`. Also
//! the board cache: every player rebuilds the board it was sent from the
//! seed (and checks it matches what the server sent) to know the solution.

use anyhow::{anyhow, bail, Result};
use mazerace_protocol::messages::{ClientMsg, Phase, PlayerId, RoomInfo, ServerMsg};
use mazerace_protocol::{Board, PublicBoard, Seed, Size, Status};
use std::cell::RefCell;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::rc::Rc;
use std::time::{Duration, Instant};
use tokio::sync::Semaphore;

use crate::ws::{source_for, Conn, In};

/// How long one setup reply may take. Generous: setting up 20,000 players
/// at once queues a lot of handshakes.
pub const REPLY_TIMEOUT: Duration = Duration::from_secs(60);

/// Where and how to connect.
#[derive(Clone, Copy, Debug)]
pub struct Target {
    pub addr: SocketAddr,
    /// Connections per 127.0.0.x source address.
    pub per_source: usize,
    /// Joiners put the room code in the socket URL (`/ws?room=CODE`), as the
    /// client does, so a load balancer in front routes them to its node.
    pub room_in_url: bool,
}

/// A connected player who has said hello.
pub struct Player {
    pub conn: Conn,
    pub id: PlayerId,
    pub token: String,
    pub name: String,
    /// Global connection index (picks the source address).
    pub index: usize,
    /// The room this player races in, as its host's global connection index:
    /// unique across nodes, where player ids are not (each node numbers its
    /// own players from 1, so two nodes both have a player 5).
    pub room: usize,
}

pub fn name_for(index: usize) -> String {
    format!("bot{index}")
}

/// Connect and say hello (with `token` to resume).
pub async fn hello(t: Target, index: usize, name: String, token: Option<String>) -> Result<(Player, bool)> {
    hello_at(t, "/ws", index, name, token).await
}

/// [`hello`] on a socket at `path` (`/ws?room=CODE` to be routed to a room's node).
pub async fn hello_at(
    t: Target,
    path: &str,
    index: usize,
    name: String,
    token: Option<String>,
) -> Result<(Player, bool)> {
    let mut conn = Conn::connect(t.addr, source_for(index, t.per_source), path).await?;
    conn.send_msg(&ClientMsg::Hello { name: name.clone(), token }).await?;
    let (id, token, resumed) = conn
        .wait_for(REPLY_TIMEOUT, |m| match m {
            ServerMsg::Welcome { player_id, token, resumed, .. } => {
                Some((*player_id, token.clone(), *resumed))
            }
            _ => None,
        })
        .await?;
    Ok((Player { conn, id, token, name, index, room: index }, resumed))
}

/// Create a room (host) on an explicit seed; returns the room's code.
pub async fn create_room(p: &mut Player, size: Size, seed: u64, max_players: u32) -> Result<String> {
    Ok(create_room_info(p, size, seed, max_players).await?.code)
}

/// [`create_room`], returning the whole first `room` (its invite `key` too,
/// which a screen joins with).
pub async fn create_room_info(p: &mut Player, size: Size, seed: u64, max_players: u32) -> Result<RoomInfo> {
    p.conn
        .send_msg(&ClientMsg::CreateRoom {
            game: size.game(),
            size,
            seed: Some(Seed(seed)),
            rank_by: None,
            max_players: Some(max_players),
            daily: false,
            format: None,
            replaces: None,
            party: false,
        })
        .await?;
    p.conn
        .wait_for(REPLY_TIMEOUT, |m| match m {
            ServerMsg::Room(r) => Some(r.clone()),
            _ => None,
        })
        .await
}

pub async fn join_room(p: &mut Player, code: &str) -> Result<RoomInfo> {
    p.conn
        .send_msg(&ClientMsg::JoinRoom { code: code.to_string(), spectate: false, key: None, screen: false })
        .await?;
    let me = p.id;
    p.conn
        .wait_for(REPLY_TIMEOUT, |m| match m {
            ServerMsg::Room(r) if r.players.iter().any(|x| x.id == me) => Some(r.clone()),
            _ => None,
        })
        .await
}

/// One room's players, host first.
pub struct RoomSet {
    pub players: Vec<Player>,
}

/// What rooms to make.
#[derive(Clone, Copy, Debug)]
pub struct RoomPlan {
    pub rooms: usize,
    pub room_size: usize,
    pub size: Size,
    /// Room `r` gets seed `seed_base + r % seed_spread`.
    pub seed_base: u64,
    pub seed_spread: u64,
    /// First global connection index for these players.
    pub first_index: usize,
}

/// Make the rooms: at most `parallel` rooms being set up at once. Rooms
/// that fail are counted, not fatal; the first error is kept.
pub async fn setup_rooms(
    t: Target,
    plan: RoomPlan,
    parallel: usize,
) -> (Vec<RoomSet>, usize, Option<String>) {
    let gate = Rc::new(Semaphore::new(parallel.max(1)));
    let mut handles = Vec::with_capacity(plan.rooms);
    for r in 0..plan.rooms {
        let gate = Rc::clone(&gate);
        handles.push(tokio::task::spawn_local(async move {
            let _permit = gate.acquire().await.map_err(|e| anyhow!("{e}"))?;
            let first = plan.first_index + r * plan.room_size;
            let seed = plan.seed_base + (r as u64) % plan.seed_spread.max(1);
            setup_room(t, first, plan.room_size, plan.size, seed).await
        }));
    }
    let mut sets = Vec::with_capacity(plan.rooms);
    let mut failed = 0;
    let mut first_err = None;
    for h in handles {
        match h.await {
            Ok(Ok(set)) => sets.push(set),
            Ok(Err(e)) => {
                failed += 1;
                first_err.get_or_insert_with(|| format!("{e:#}"));
            }
            Err(e) => {
                failed += 1;
                first_err.get_or_insert_with(|| format!("setup task: {e}"));
            }
        }
    }
    (sets, failed, first_err)
}

async fn setup_room(t: Target, first: usize, room_size: usize, size: Size, seed: u64) -> Result<RoomSet> {
    let (mut host, _) = hello(t, first, name_for(first), None).await?;
    let code = create_room(&mut host, size, seed, room_size as u32).await?;
    let joins = (1..room_size).map(|k| {
        let code = code.clone();
        async move {
            let i = first + k;
            let path = if t.room_in_url { format!("/ws?room={code}") } else { "/ws".to_owned() };
            let (mut p, _) = hello_at(t, &path, i, name_for(i), None).await?;
            join_room(&mut p, &code).await?;
            p.room = first;
            Ok::<Player, anyhow::Error>(p)
        }
    });
    let mut players = vec![host];
    for j in futures_util::future::join_all(joins).await {
        players.push(j?);
    }
    Ok(RoomSet { players })
}

/// Boards built locally from the seeds the server sent, shared by every
/// player on one thread. Each new board is checked against the server's copy.
#[derive(Clone, Default)]
pub struct Boards(Rc<RefCell<HashMap<(Size, u64), Board>>>);

impl Boards {
    pub fn get(&self, public: &PublicBoard) -> Result<Board> {
        let (size, seed) = (public.size(), public.seed().map_or(0, |s| s.0));
        if let Some(b) = self.0.borrow().get(&(size, seed)) {
            return Ok(b.clone());
        }
        let board = Board::build(size, seed).map_err(|e| anyhow!("building {size} {seed}: {e}"))?;
        if &board.public() != public {
            bail!("the server's {size} board for seed {seed} differs from the protocol crate's");
        }
        self.0.borrow_mut().insert((size, seed), board.clone());
        Ok(board)
    }
}

/// Host: `start`. Everyone (host included): wait for `race_start`; returns the board.
pub async fn send_start(host: &mut Player) -> Result<()> {
    host.conn.send_msg(&ClientMsg::Start {}).await
}

pub async fn await_race_start(p: &mut Player, boards: &Boards, limit: Duration) -> Result<Board> {
    let public = p
        .conn
        .wait_for(limit, |m| match m {
            ServerMsg::RaceStart { board, .. } => Some(board.clone()),
            _ => None,
        })
        .await?;
    boards.get(&public)
}

/// Host after results: `rematch`, then wait until the room is back in the lobby.
pub async fn rematch(host: &mut Player, limit: Duration) -> Result<()> {
    host.conn.send_msg(&ClientMsg::Rematch { same_board: false }).await?;
    host.conn
        .wait_for(limit, |m| match m {
            ServerMsg::Room(r) if r.phase == Phase::Lobby => Some(()),
            _ => None,
        })
        .await
}

/// Read until the answer to move (or rewind) `seq`, skipping everything
/// else; returns (ok, steps, status). A server `error` fails.
pub async fn await_ack(p: &mut Player, seq: u32) -> Result<(bool, u32, Status)> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, p.conn.recv()).await {
            Err(_) => bail!("no answer to move {seq}"),
            Ok(Err(e)) => return Err(e),
            Ok(Ok(None)) => bail!("closed while waiting for move {seq}"),
            Ok(Ok(Some(In::Ack { seq: s, ok, steps, status, .. }))) if s == seq => {
                return Ok((ok, steps, status))
            }
            Ok(Ok(Some(In::Other(m)))) => {
                if let ServerMsg::Error { code, message } = *m {
                    bail!("server error {code:?}: {message}");
                }
            }
            Ok(Ok(Some(_))) => {}
        }
    }
}
