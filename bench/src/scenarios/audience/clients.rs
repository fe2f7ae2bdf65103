//! The audience scenarios' clients (`spectators` and `screen`): watchers
//! joining a room (spectators, or a screen with the room's key), a watcher
//! counting what it reads, and the racers moving back and forth on an open
//! loop.

use std::rc::Rc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context, Result};
use mazerace_protocol::messages::{ClientMsg, ServerMsg};
use mazerace_protocol::{Action, Board, Dir, PlayerGame};
use tokio::sync::Semaphore;

use crate::rooms::{await_race_start, hello, name_for, send_start, Boards, Player, Target, REPLY_TIMEOUT};
use crate::stats::Window;
use crate::ws::move_frame;

/// Joins being set up at once.
const PARALLEL: usize = 64;

/// What one client read inside the window.
#[derive(Debug, Default)]
pub struct Reading {
    pub frames: u64,
    pub bytes: u64,
    /// The largest `room` message it got (in the window or before).
    pub largest_room: usize,
    /// The server closed the connection (or it failed) before the window's end.
    pub closed: bool,
}

/// How a watcher joins: as a spectator, or as a screen (a TV showing the
/// room), which needs the room's invite key.
#[derive(Clone, Debug)]
pub enum Watcher {
    Spectator,
    Screen { key: String },
}

/// `n` spectators join `code` (connection indices from 2), each read to
/// its own `room`.
pub async fn join_audience(t: Target, code: &str, n: usize) -> Result<Vec<Player>> {
    let gate = Rc::new(Semaphore::new(PARALLEL));
    let joins = (0..n).map(|k| {
        let (gate, code) = (Rc::clone(&gate), code.to_owned());
        tokio::task::spawn_local(async move {
            let _permit = gate.acquire().await.map_err(|e| anyhow!("{e}"))?;
            join_watcher(t, 2 + k, &code, Watcher::Spectator)
                .await
                .with_context(|| format!("spectator {k} joining"))
        })
    });
    let mut out = Vec::with_capacity(n);
    for j in futures_util::future::join_all(joins).await {
        out.push(j.map_err(|e| anyhow!("a join task: {e}"))??);
    }
    Ok(out)
}

/// Connection `index` says hello and joins `code` as `how`, read to its own
/// `room`: a spectator is in it (listed, or counted past the first 8), a
/// screen is counted in `screens` (never listed).
pub async fn join_watcher(t: Target, index: usize, code: &str, how: Watcher) -> Result<Player> {
    let (mut p, _) = hello(t, index, name_for(index), None).await?;
    let join = match &how {
        Watcher::Spectator => {
            ClientMsg::JoinRoom { code: code.to_owned(), spectate: true, key: None, screen: false }
        }
        Watcher::Screen { key } => ClientMsg::JoinRoom {
            code: code.to_owned(),
            spectate: false,
            key: Some(key.clone()),
            screen: true,
        },
    };
    p.conn.send_msg(&join).await?;
    let me = p.id;
    p.conn
        .wait_for(REPLY_TIMEOUT, |m| match (m, &how) {
            (ServerMsg::Room(r), Watcher::Spectator)
                if r.players.iter().any(|x| x.id == me) || r.more_spectators > 0 =>
            {
                Some(())
            }
            (ServerMsg::Room(r), Watcher::Screen { .. }) if r.screens > 0 => Some(()),
            _ => None,
        })
        .await?;
    Ok(p)
}

/// Reads until the window's end, counting what arrives inside it.
pub async fn watch(mut p: Player, window: Window) -> Reading {
    let mut r = Reading::default();
    let end = tokio::time::sleep_until(window.end.into());
    tokio::pin!(end);
    loop {
        tokio::select! {
            () = &mut end => return r,
            got = p.conn.recv_text() => match got {
                Ok(Some(t)) => r.count(&t, Instant::now(), window),
                Ok(None) | Err(_) => {
                    r.closed = true;
                    return r;
                }
            }
        }
    }
}

impl Reading {
    fn count(&mut self, text: &str, at: Instant, window: Window) {
        if text.starts_with(r#"{"type":"room""#) {
            self.largest_room = self.largest_room.max(text.len());
        }
        if window.contains(at) {
            self.frames += 1;
            self.bytes += text.len() as u64;
        }
    }
}

/// The host starts the race of `1 + guests`; they all then move every
/// `period`, back and forth between the start and its open neighbour, and
/// read everything (counted like a spectator's) until the window's end.
pub async fn race_room(
    mut host: Player,
    mut guests: Vec<Player>,
    period: Duration,
    window: Window,
) -> Result<Vec<tokio::task::JoinHandle<Reading>>> {
    let boards = Boards::default();
    send_start(&mut host).await?;
    let board = await_race_start(&mut host, &boards, REPLY_TIMEOUT).await?;
    for g in &mut guests {
        await_race_start(g, &boards, REPLY_TIMEOUT).await?;
    }
    let step = open_step(&board)?;
    Ok(std::iter::once(host)
        .chain(guests)
        .map(|p| tokio::task::spawn_local(shuttle(p, step, period, window)))
        .collect())
}

/// A move from the start that the rules accept (there and back is a valid
/// pair of moves forever).
fn open_step(board: &Board) -> Result<Dir> {
    [Dir::Right, Dir::Down, Dir::Left, Dir::Up]
        .into_iter()
        .find(|&d| PlayerGame::new(board).apply(Action::Move(d)).is_ok())
        .ok_or_else(|| anyhow!("no open move from the start"))
}

/// One racer: a move every `period` (open loop), reading in between.
async fn shuttle(mut p: Player, step: Dir, period: Duration, window: Window) -> Reading {
    let mut r = Reading::default();
    let mut tick = tokio::time::interval(period);
    let end = tokio::time::sleep_until(window.end.into());
    tokio::pin!(end);
    let mut seq = 0u32;
    loop {
        tokio::select! {
            () = &mut end => return r,
            _ = tick.tick() => {
                seq += 1;
                let dir = if seq % 2 == 1 { step } else { step.opposite() };
                if p.conn.send_text(move_frame(dir, seq)).await.is_err() {
                    r.closed = true;
                    return r;
                }
            }
            got = p.conn.recv_text() => match got {
                Ok(Some(t)) => r.count(&t, Instant::now(), window),
                Ok(None) | Err(_) => {
                    r.closed = true;
                    return r;
                }
            }
        }
    }
}
