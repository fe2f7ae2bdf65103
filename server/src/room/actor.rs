//! The room's task: it owns the state machine, feeds it commands from the
//! inbox and its one timer, and carries out what it asks for, in order:
//! frames to the members' outboxes (each broadcast serialised once), the
//! daily store's calls (spawned: a room never waits on storage), and the
//! registry entry removed when the room ends. While the node drains, a
//! room that may move is sent away (`crate::moves`, spawned too): it then
//! tells its members the new code and ends.

use std::sync::Arc;

use mazerace_protocol::messages::{ErrorCode, Phase, PlayerId, ServerMsg};
use tokio::sync::mpsc;
use tokio::time::Instant;
use tracing::Instrument;

use super::effects::Effect;
use super::input::Input;
use super::state::Room;
use super::{Directory, NewMember, RoomCmd, RoomEnv};
use crate::edge::address::Slot;
use crate::metrics;
use crate::outbox::{frame, Frame, Outbox};

mod moving;
use moving::Move;

/// Where a room comes from: the server's rooms environment, the directory
/// it leaves when it ends, and its creator's address's place.
pub(super) struct Origin {
    pub env: Arc<RoomEnv>,
    pub directory: Arc<dyn Directory>,
    /// `None` for a room moved here (no address made it here).
    pub slot: Option<Slot>,
}

struct Actor {
    room: Room,
    env: Arc<RoomEnv>,
    directory: Arc<dyn Directory>,
    /// Given back when the room ends (`max_rooms_per_address`).
    _slot: Option<Slot>,
    moving: Move,
    code: Arc<str>,
    id: u64,
    me: mpsc::WeakSender<RoomCmd>,
    /// The connected members' outboxes.
    outboxes: Vec<(PlayerId, Outbox)>,
    /// The effects being carried out (swapped with the state machine's
    /// buffer, so both keep their memory).
    spare: Vec<Effect>,
    /// Which outboxes (by index in `outboxes`) got frames while effects
    /// were carried out: each writer is woken once, at the end, so a
    /// mover's answer and a `progress` due with it leave in one batch.
    touched: Vec<bool>,
}

/// Runs `room` (its connected members' `outboxes`) as room `id`.
pub(super) fn start(
    origin: Origin,
    code: Arc<str>,
    id: u64,
    room: Room,
    outboxes: Vec<(PlayerId, Outbox)>,
    me: mpsc::WeakSender<RoomCmd>,
    rx: mpsc::Receiver<RoomCmd>,
) {
    let span = tracing::info_span!("room", room = %code);
    let Origin { env, directory, slot } = origin;
    let tracker = env.tracker.clone();
    tracker.spawn(
        async move {
            let s = &room.settings;
            tracing::info!(game = %s.game, size = %s.size, adopted = slot.is_none(), "room created");
            env.phase_moved(None, Some(Phase::Lobby));
            let actor = Actor {
                room,
                env,
                directory,
                _slot: slot,
                moving: Move::Stay,
                code,
                id,
                me,
                outboxes,
                spare: Vec::new(),
                touched: Vec::new(),
            };
            actor.run(rx).await;
        }
        .instrument(span),
    );
}

impl Actor {
    async fn run(mut self, mut rx: mpsc::Receiver<RoomCmd>) {
        self.carry_out();
        // Made once, like the timer: a fresh `cancelled()` or `sleep_until`
        // per command would join and leave the token's waiter list, and the
        // timer wheel, under their locks, on every move. A child token, so
        // that polling it takes this room's lock, not the server-wide one.
        let shutdown = self.env.shutdown.child_token();
        let cancelled = shutdown.cancelled();
        tokio::pin!(cancelled);
        let timer = tokio::time::sleep_until(Instant::now());
        tokio::pin!(timer);
        let mut armed: Option<Instant> = None;
        loop {
            // While the room waits to be adopted nothing timed runs: an
            // intermission counting on would start a round the export does
            // not hold (`moving.rs`).
            let wake = if self.moving == Move::Moving { None } else { self.room.next_wake() };
            // What is already due runs now, without a trip through the timer:
            // the usual case for `progress` when moves are spread out.
            if wake.is_some_and(|t| t <= Instant::now()) {
                self.input(Input::Tick);
                continue;
            }
            if wake != armed {
                if let Some(t) = wake {
                    timer.as_mut().reset(t);
                }
                armed = wake;
            }
            tokio::select! {
                cmd = rx.recv() => match cmd {
                    Some(cmd) => self.command(cmd),
                    None => break,
                },
                () = &mut timer, if armed.is_some() => {
                    armed = None;
                    self.input(Input::Tick);
                }
                () = &mut cancelled => break,
            }
            if self.room.is_empty() || self.moving == Move::Gone {
                break;
            }
        }
        self.env.phase_moved(Some(self.room.phase()), None);
        self.directory.remove(&self.code, self.id);
        tracing::info!("room closed");
    }

    fn input(&mut self, input: Input) {
        let before = self.room.phase();
        self.room.set_load(self.env.load.level());
        if let (Some(hook), true) = (&self.env.daily, self.room.settings.daily.is_some()) {
            self.room.set_today(hook.schedule().date);
        }
        self.room.handle(Instant::now(), input);
        let after = self.room.phase();
        // First what the room says (the results): a drain waiting for this
        // race may shut the node down as soon as it hears of the phase.
        self.carry_out();
        // A move begun before the drain hears the race is over: it waits for both.
        self.move_if_draining();
        if before != after {
            self.env.phase_moved(Some(before), Some(after));
            match after {
                Phase::Racing => metrics::race_started(),
                Phase::Results | Phase::Intermission if before == Phase::Racing => metrics::race_finished(),
                Phase::Lobby | Phase::Countdown | Phase::Results | Phase::Intermission => {}
            }
        }
    }

    /// One command from the inbox: an [`Input`] goes to the state machine
    /// as it is; the rest are the actor's own (see [`RoomCmd`]).
    fn command(&mut self, cmd: RoomCmd) {
        match cmd {
            RoomCmd::Input(input) => {
                if self.refused_while_moving(&input) {
                    return;
                }
                let read = if let Input::Act { at, .. } = &input { Some(*at) } else { None };
                self.input(input);
                if let Some(at) = read {
                    // From the frame's read to its answer queued for the writer.
                    metrics::ack_latency(at.elapsed());
                }
            }
            RoomCmd::Join { member, spectate, reply } => {
                let checked = match member.screen {
                    true => self.room.check_screen(member.id, self.env.max_screens),
                    false => self.room.check_join(member.id, spectate, self.env.max_spectators),
                };
                if let Err(e) = checked {
                    let _ = reply.send(Err(e));
                    return;
                }
                // The joiner's connection may have given up waiting: then it
                // never learns it is in, so it is not let in.
                if reply.send(Ok(())).is_ok() {
                    self.outboxes.push((member.id, member.outbox));
                    let NewMember { id, name, token, screen, .. } = member;
                    self.input(Input::Join { id, name, token, spectate, screen });
                }
            }
            RoomCmd::Reattach { id, outbox, reply } => {
                if !self.room.is_member(id) {
                    outbox.send_msg(&super::state::error(
                        ErrorCode::NotInRoom,
                        "you are no longer in that room",
                    ));
                    let _ = reply.send(false);
                    return;
                }
                self.outboxes.retain(|(m, _)| *m != id);
                self.outboxes.push((id, outbox));
                let _ = reply.send(true);
                self.input(Input::Connected { id });
            }
            RoomCmd::Detach { id, conn } => {
                let before = self.outboxes.len();
                self.outboxes.retain(|(m, o)| !(*m == id && o.conn() == conn));
                if self.outboxes.len() < before {
                    self.input(Input::Disconnected { id });
                }
            }
            RoomCmd::Leave { id, expired } => {
                self.outboxes.retain(|(m, _)| *m != id);
                self.input(Input::Leave { id, expired });
            }
            RoomCmd::Rename { id, name, reply } => {
                let ok = self.room.is_member(id) && self.room.may_rename(id);
                if ok {
                    self.input(Input::Rename { id, name });
                }
                let _ = reply.send(ok);
            }
            RoomCmd::Preview { reply } => {
                let _ = reply.send(self.room.preview());
            }
            RoomCmd::Drain { reply } => {
                self.move_if_draining();
                let _ = reply.send(());
            }
            RoomCmd::Moved { to, hold } => {
                self.moved(to);
                drop(hold);
            }
            RoomCmd::DailyDone { id, result, hold } => {
                match result {
                    Some(result) => self.send_to(id, &ServerMsg::DailyResult(*result)),
                    None => self.send_to(
                        id,
                        &super::state::error(
                            ErrorCode::Internal,
                            "your daily result could not be saved; it is not ranked",
                        ),
                    ),
                }
                // Queued before any `server_shutdown`: the player reads it first.
                drop(hold);
            }
        }
    }

    fn outbox(&self, id: PlayerId) -> Option<&Outbox> {
        self.outboxes.iter().find(|(m, _)| *m == id).map(|(_, o)| o)
    }

    fn send_to(&self, id: PlayerId, msg: &ServerMsg) {
        if let Some(o) = self.outbox(id) {
            o.send_msg(msg);
        }
    }

    /// Queues `f` for `id` without waking its writer (see `touched`).
    fn queue_to(&mut self, id: PlayerId, f: Frame) {
        if let Some(i) = self.outboxes.iter().position(|(m, _)| *m == id) {
            self.touched[i] |= self.outboxes[i].1.push(f);
        }
    }

    /// Queues `f` for every connected member but `but` (see `touched`).
    fn queue_all(&mut self, f: &Frame, but: Option<PlayerId>) {
        for (i, (m, o)) in self.outboxes.iter().enumerate() {
            if Some(*m) != but {
                self.touched[i] |= o.push(f.clone());
            }
        }
    }

    /// Carries out the state machine's effects, in order.
    fn carry_out(&mut self) {
        std::mem::swap(&mut self.spare, self.room.effects().list());
        let mut effects = std::mem::take(&mut self.spare);
        self.touched.clear();
        self.touched.resize(self.outboxes.len(), false);
        for effect in effects.drain(..) {
            match effect {
                Effect::To(id, msg) => {
                    count_answer(&msg);
                    self.queue_to(id, frame(&msg));
                }
                Effect::All(msg) => self.queue_all(&frame(&msg), None),
                Effect::AllBut(id, msg) => self.queue_all(&frame(&msg), Some(id)),
                Effect::Progress { delta, skip } => {
                    let delta = frame(&delta);
                    let mut full: Option<Frame> = None;
                    let room = &self.room;
                    let mut make_full = || {
                        full.get_or_insert_with(|| {
                            frame(&ServerMsg::Progress { players: room.full_progress() })
                        })
                        .clone()
                    };
                    for (i, (m, o)) in self.outboxes.iter().enumerate() {
                        if Some(*m) != skip {
                            self.touched[i] |= o.offer_progress(&delta, &mut make_full);
                        }
                    }
                }
                Effect::DailyStarted { player, run } => {
                    let Some(hook) = self.env.daily.clone() else { continue };
                    let fut = hook.started(run);
                    let me = self.me.clone();
                    self.env.tracker.spawn(
                        async move {
                            let ranked = match fut.await {
                                Ok(start) => {
                                    metrics::daily_start();
                                    Some(start)
                                }
                                Err(e) => {
                                    tracing::error!(error = %e, player, "daily start not saved: refused");
                                    None
                                }
                            };
                            if let Some(tx) = me.upgrade() {
                                let _ = tx.send(Input::DailySaved { id: player, ranked }.into()).await;
                            }
                        }
                        .in_current_span(),
                    );
                }
                Effect::LoadRival { player, query, token } => self.load_rival(player, query, token),
                Effect::DailyEnded { player, run, outcome } => {
                    let Some(hook) = self.env.daily.clone() else { continue };
                    let fut = hook.ended(run, outcome);
                    let me = self.me.clone();
                    // Taken before the race leaves the playing count (see `input`).
                    let hold = self.env.drain.hold();
                    self.env.tracker.spawn(
                        async move {
                            let result = match fut.await {
                                // Only now, after the commit, does the player hear of it.
                                Ok(result) => {
                                    metrics::daily_finish();
                                    Some(Box::new(result))
                                }
                                Err(e) => {
                                    tracing::error!(error = %e, player, "daily result not stored");
                                    None
                                }
                            };
                            if let Some(tx) = me.upgrade() {
                                let _ = tx.send(RoomCmd::DailyDone { id: player, result, hold }).await;
                            }
                        }
                        .in_current_span(),
                    );
                }
            }
        }
        self.spare = effects;
        for (i, (_, o)) in self.outboxes.iter().enumerate() {
            if self.touched[i] {
                o.wake();
            }
        }
    }
}

impl Actor {
    /// Asks the store for `add_rival`'s run (spawned, like the daily calls:
    /// the room never waits on storage) and feeds the answer back.
    fn load_rival(&self, player: PlayerId, query: crate::daily::RivalQuery, token: String) {
        let Some(hook) = self.env.daily.as_ref() else {
            // No store: answered at once, in order with the room's other answers.
            return self
                .send_to(player, &super::state::error(ErrorCode::Internal, crate::daily::NOT_CONFIGURED));
        };
        let fut = hook.rival(query, token);
        let me = self.me.clone();
        self.env.tracker.spawn(
            async move {
                let run = fut.await.map(Box::new).map_err(|e| rival_refusal(&e));
                if let Some(tx) = me.upgrade() {
                    let _ = tx.send(Input::RivalLoaded { id: player, run }.into()).await;
                }
            }
            .in_current_span(),
        );
    }
}

/// A hook error as `add_rival`'s answer: its one socket mapping.
fn rival_refusal(e: &crate::daily::DailyError) -> (ErrorCode, String) {
    e.socket("the run")
}

/// Counts a move's answer: applied, refused by the rules, or not racing.
fn count_answer(msg: &ServerMsg) {
    match msg {
        ServerMsg::MoveResult { ok: true, .. } | ServerMsg::RewindResult { ok: true, .. } => {
            metrics::move_accepted()
        }
        ServerMsg::MoveResult { reason: Some(r), .. } | ServerMsg::RewindResult { reason: Some(r), .. } => {
            metrics::move_rejected(*r)
        }
        ServerMsg::Error { code: ErrorCode::NotRacing, .. } => metrics::move_not_racing(),
        _ => {}
    }
}
