//! One room as an actor (Alice Ryhl, "Actors with Tokio"): a task that owns
//! the room's whole state (members, phase, board, every racer's game), fed
//! by a bounded inbox; [`RoomHandle`] is the cloneable way in. Nothing else
//! touches a room's state, so there are no locks here at all.
//!
//! The room applies every `move` and `rewind` through the protocol crate's
//! [`PlayerGame`]: the client never says where it is. It runs the countdown
//! and measures every time on its own (tokio) clock, coalesces `progress`
//! (at most one per `progress_interval`, only racers that changed), ends the
//! race when nobody is still racing or at the time limit, and ranks it.
//!
//! The room ends, and leaves the registry, when its last member is gone
//! (disconnected members still count until their resume window runs out).

use std::sync::Arc;

use mazerace_protocol::board::Board;
use mazerace_protocol::messages::{
    DailyResult, ErrorCode, Phase, PlayerId, PlayerInfo, Progress, RacerStatus, RankBy, RoomInfo, ServerMsg,
    Snapshot,
};
use mazerace_protocol::{Action, Game, PlayerGame, Size, Status};
use tokio::sync::mpsc::error::TrySendError;
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;
use tracing::Instrument;

use crate::daily::{DailyBoard, DailyOutcome, DailyRun};
use crate::outbox::{frame, Frame, Outbox};
use crate::results::{self, Entry};
use crate::server::Shared;

/// Commands waiting for a room beyond this make their senders wait.
const INBOX: usize = 256;

/// The way into a room.
#[derive(Clone)]
pub struct RoomHandle {
    pub code: Arc<str>,
    /// Tells this room from a later one that reuses its code.
    pub id: u64,
    tx: mpsc::Sender<RoomCmd>,
}

/// Why a join failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JoinError {
    Full,
    /// The room ended in the meantime.
    Gone,
}

impl RoomHandle {
    /// Sends `cmd`; `false` if the room has closed. Waits only while the
    /// inbox is full. That wait is boxed because it is rare, and an inline
    /// one would add its size to every connection's future.
    pub async fn send(&self, cmd: RoomCmd) -> bool {
        match self.tx.try_send(cmd) {
            Ok(()) => true,
            Err(TrySendError::Full(cmd)) => Box::pin(self.tx.send(cmd)).await.is_ok(),
            Err(TrySendError::Closed(_)) => false,
        }
    }

    pub async fn join(&self, member: NewMember, spectate: bool) -> Result<(), JoinError> {
        let (reply, rx) = oneshot::channel();
        if !self.send(RoomCmd::Join { member, spectate, reply }).await {
            return Err(JoinError::Gone);
        }
        rx.await.unwrap_or(Err(JoinError::Gone))
    }
}

/// A player entering a room.
pub struct NewMember {
    pub id: PlayerId,
    pub name: Arc<str>,
    pub token: Arc<str>,
    pub outbox: Outbox,
}

pub enum RoomCmd {
    Join {
        member: NewMember,
        spectate: bool,
        reply: oneshot::Sender<Result<(), JoinError>>,
    },
    /// The player resumed on a new connection.
    Reattach {
        id: PlayerId,
        outbox: Outbox,
    },
    /// The player's connection `conn` dropped; they may resume.
    Detach {
        id: PlayerId,
        conn: u64,
    },
    /// The player left (or `expired`: stayed away past the resume window).
    Leave {
        id: PlayerId,
        expired: bool,
    },
    Ready {
        id: PlayerId,
        ready: bool,
    },
    Start {
        id: PlayerId,
    },
    Act {
        id: PlayerId,
        seq: u32,
        action: Action,
    },
    Rematch {
        id: PlayerId,
    },
    /// The daily store committed a result for `id` (or failed to).
    DailyDone {
        id: PlayerId,
        result: Option<Box<DailyResult>>,
    },
}

/// What a room is made with.
pub struct RoomSettings {
    pub game: Game,
    pub size: Size,
    pub rank_by: RankBy,
    pub max_players: u32,
    pub board: Board,
    /// A daily room's date and seed (a room of one).
    pub daily: Option<DailyBoard>,
}

struct Member {
    id: PlayerId,
    name: Arc<str>,
    token: Arc<str>,
    spectate: bool,
    ready: bool,
    /// `None` while disconnected (waiting for a resume).
    outbox: Option<Outbox>,
}

struct Racer {
    id: PlayerId,
    name: Arc<str>,
    token: Arc<str>,
    game: PlayerGame,
    status: RacerStatus,
    /// The server's time for this racer's finish.
    time_ms: Option<u64>,
    first_move: Option<Instant>,
    /// Accepted actions, in order (the daily replay).
    actions: Vec<Action>,
    /// What changed since the last `progress`.
    change: Change,
    /// A daily attempt's end was reported to the hook.
    reported: bool,
    /// This attempt's id for the daily hook.
    attempt: u64,
}

/// What the next `progress` has to say about a racer.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Change {
    None,
    /// Only this racer's own accepted moves or rewinds, each already told
    /// to them in its `move_result` / `rewind_result`.
    OwnActions,
    /// Something the racer may not know yet (they left, the time ran out).
    Other,
}

impl Racer {
    fn progress(&self) -> Progress {
        Progress {
            id: self.id,
            pos: self.game.pos(),
            steps: self.game.steps(),
            run: self.game.run(),
            status: self.status,
        }
    }
}

struct Room {
    shared: Arc<Shared>,
    code: Arc<str>,
    id: u64,
    me: mpsc::WeakSender<RoomCmd>,
    settings: RoomSettings,
    phase: Phase,
    host: PlayerId,
    /// In join order (host hand-over follows it).
    members: Vec<Member>,
    racers: Vec<Racer>,
    countdown_left: u32,
    countdown_at: Option<Instant>,
    started: Option<Instant>,
    deadline: Option<Instant>,
    progress_at: Option<Instant>,
    last_progress: Option<Instant>,
    /// The last `results`, resent to a player who resumes after the race.
    last_results: Option<Frame>,
}

/// Starts a room with `host` in it and returns its handle.
pub fn spawn(
    shared: &Arc<Shared>,
    code: &str,
    id: u64,
    settings: RoomSettings,
    host: NewMember,
) -> RoomHandle {
    let (tx, rx) = mpsc::channel(INBOX);
    let code: Arc<str> = code.into();
    let room = Room {
        shared: Arc::clone(shared),
        code: Arc::clone(&code),
        id,
        me: tx.downgrade(),
        settings,
        phase: Phase::Lobby,
        host: host.id,
        members: vec![Member {
            id: host.id,
            name: host.name,
            token: host.token,
            spectate: false,
            ready: false,
            outbox: Some(host.outbox),
        }],
        racers: Vec::new(),
        countdown_left: 0,
        countdown_at: None,
        started: None,
        deadline: None,
        progress_at: None,
        last_progress: None,
        last_results: None,
    };
    let span = tracing::info_span!("room", room = %code);
    shared.tracker.spawn(room.run(rx).instrument(span));
    RoomHandle { code, id, tx }
}

fn error(code: ErrorCode, message: impl Into<String>) -> ServerMsg {
    ServerMsg::Error { code, message: message.into() }
}

impl Room {
    async fn run(mut self, mut rx: mpsc::Receiver<RoomCmd>) {
        tracing::info!(game = %self.settings.game, size = %self.settings.size, "room created");
        self.broadcast_room();
        // Made once, like the timer: a fresh `cancelled()` or `sleep_until`
        // per command would join and leave the token's waiter list, and the
        // timer wheel, under their locks, on every move. A child token, so
        // that polling it takes this room's lock, not the server-wide one.
        let shutdown = self.shared.shutdown.child_token();
        let cancelled = shutdown.cancelled();
        tokio::pin!(cancelled);
        let timer = tokio::time::sleep_until(Instant::now());
        tokio::pin!(timer);
        let mut armed: Option<Instant> = None;
        loop {
            let wake = [self.countdown_at, self.progress_at, self.deadline].into_iter().flatten().min();
            // What is already due runs now, without a trip through the timer:
            // the usual case for `progress` when moves are spread out.
            if wake.is_some_and(|t| t <= Instant::now()) {
                self.on_timer();
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
                    Some(cmd) => self.handle(cmd),
                    None => break,
                },
                () = &mut timer, if armed.is_some() => {
                    armed = None;
                    self.on_timer();
                }
                () = &mut cancelled => break,
            }
            if self.members.is_empty() {
                break;
            }
        }
        self.shared.rooms.remove(&self.code, self.id);
        tracing::info!("room closed");
    }

    // ---- sending ----

    fn outbox(&self, id: PlayerId) -> Option<&Outbox> {
        self.members.iter().find(|m| m.id == id).and_then(|m| m.outbox.as_ref())
    }

    fn send_to(&self, id: PlayerId, msg: &ServerMsg) {
        if let Some(o) = self.outbox(id) {
            o.send_msg(msg);
        }
    }

    fn broadcast_frame(&self, f: &Frame) {
        for o in self.members.iter().filter_map(|m| m.outbox.as_ref()) {
            o.send(f.clone());
        }
    }

    fn broadcast(&self, msg: &ServerMsg) {
        self.broadcast_frame(&frame(msg));
    }

    fn racer(&self, id: PlayerId) -> Option<&Racer> {
        self.racers.iter().find(|r| r.id == id)
    }

    fn race_on(&self) -> bool {
        matches!(self.phase, Phase::Countdown | Phase::Racing | Phase::Results)
    }

    fn room_info(&self) -> RoomInfo {
        let in_race = |id| self.racers.iter().any(|r: &Racer| r.id == id && r.status != RacerStatus::Left);
        RoomInfo {
            code: self.code.to_string(),
            host: self.host,
            game: self.settings.game,
            size: self.settings.size,
            phase: self.phase,
            rank_by: self.settings.rank_by,
            max_players: self.settings.max_players,
            daily: self.settings.daily.is_some(),
            players: self
                .members
                .iter()
                .map(|m| PlayerInfo {
                    id: m.id,
                    name: m.name.to_string(),
                    ready: m.ready,
                    spectator: m.spectate || (self.race_on() && !in_race(m.id)),
                    connected: m.outbox.is_some(),
                })
                .collect(),
        }
    }

    fn broadcast_room(&self) {
        self.broadcast(&ServerMsg::Room(self.room_info()));
    }

    fn snapshot(&self, id: PlayerId) -> Snapshot {
        let raced = matches!(self.phase, Phase::Racing | Phase::Results);
        let me = self.racer(id).filter(|_| raced);
        Snapshot {
            room: self.room_info(),
            board: raced.then(|| self.settings.board.public()),
            you: me.map(|r| r.game.view()),
            recording: me.map(|r| r.game.recording().to_vec()).unwrap_or_default(),
            players: if raced { self.racers.iter().map(Racer::progress).collect() } else { Vec::new() },
            elapsed_ms: self
                .started
                .filter(|_| self.phase == Phase::Racing)
                .map(|s| Instant::now().saturating_duration_since(s).as_millis() as u64),
        }
    }

    fn send_snapshot(&self, id: PlayerId) {
        self.send_to(id, &ServerMsg::Snapshot(Box::new(self.snapshot(id))));
        if self.phase == Phase::Results {
            if let (Some(o), Some(f)) = (self.outbox(id), &self.last_results) {
                o.send(f.clone());
            }
        }
    }

    // ---- commands ----

    fn handle(&mut self, cmd: RoomCmd) {
        match cmd {
            RoomCmd::Join { member, spectate, reply } => self.join(member, spectate, reply),
            RoomCmd::Reattach { id, outbox } => {
                let Some(m) = self.members.iter_mut().find(|m| m.id == id) else {
                    outbox.send_msg(&error(ErrorCode::NotInRoom, "you are no longer in that room"));
                    return;
                };
                m.outbox = Some(outbox);
                tracing::info!(player = id, "player resumed");
                // The snapshot comes right after `welcome` (its room shows
                // the player connected); the others learn it from `room`.
                self.send_snapshot(id);
                let f = frame(&ServerMsg::Room(self.room_info()));
                for o in self.members.iter().filter(|m| m.id != id).filter_map(|m| m.outbox.as_ref()) {
                    o.send(f.clone());
                }
            }
            RoomCmd::Detach { id, conn } => {
                let Some(m) = self.members.iter_mut().find(|m| m.id == id) else { return };
                if m.outbox.as_ref().map(Outbox::conn) == Some(conn) {
                    m.outbox = None;
                    tracing::info!(player = id, "player disconnected");
                    self.broadcast_room();
                }
            }
            RoomCmd::Leave { id, expired } => self.leave(id, expired),
            RoomCmd::Ready { id, ready } => {
                if self.phase != Phase::Lobby {
                    self.send_to(id, &error(ErrorCode::WrongPhase, "ready is for the lobby"));
                    return;
                }
                let Some(m) = self.members.iter_mut().find(|m| m.id == id) else { return };
                m.ready = ready;
                self.broadcast_room();
            }
            RoomCmd::Start { id } => self.start(id),
            RoomCmd::Act { id, seq, action } => self.act(id, seq, action),
            RoomCmd::Rematch { id } => self.rematch(id),
            RoomCmd::DailyDone { id, result: Some(result) } => {
                self.send_to(id, &ServerMsg::DailyResult(*result))
            }
            RoomCmd::DailyDone { id, result: None } => self.send_to(
                id,
                &error(ErrorCode::Internal, "your daily result could not be saved; it is not ranked"),
            ),
        }
    }

    fn join(&mut self, member: NewMember, spectate: bool, reply: oneshot::Sender<Result<(), JoinError>>) {
        let players = self.members.iter().filter(|m| !m.spectate).count() as u32;
        let watchers = self.members.len() as u32 - players;
        let full = self.settings.daily.is_some()
            || if spectate {
                watchers >= self.shared.config.max_spectators
            } else {
                players >= self.settings.max_players
            };
        if full || self.members.iter().any(|m| m.id == member.id) {
            let _ = reply.send(Err(JoinError::Full));
            return;
        }
        let id = member.id;
        self.members.push(Member {
            id,
            name: member.name,
            token: member.token,
            spectate,
            ready: false,
            outbox: Some(member.outbox),
        });
        if reply.send(Ok(())).is_err() {
            // The joiner's connection gave up waiting; it never learns it is in.
            self.members.pop();
            return;
        }
        tracing::info!(player = id, spectate, "player joined");
        self.broadcast_room();
        if self.phase != Phase::Lobby {
            self.send_snapshot(id);
        }
    }

    fn leave(&mut self, id: PlayerId, expired: bool) {
        let Some(idx) = self.members.iter().position(|m| m.id == id) else { return };
        self.members.remove(idx);
        tracing::info!(player = id, expired, "player left");
        if matches!(self.phase, Phase::Countdown | Phase::Racing) {
            if let Some(r) = self.racers.iter_mut().find(|r| r.id == id && r.status == RacerStatus::Racing) {
                r.status = RacerStatus::Left;
                r.change = Change::Other;
                self.daily_ended(id);
                self.schedule_progress(Instant::now());
            }
        }
        if self.host == id {
            let next = self
                .members
                .iter()
                .find(|m| !m.spectate && m.outbox.is_some())
                .or_else(|| self.members.iter().find(|m| m.outbox.is_some()))
                .or_else(|| self.members.first());
            if let Some(m) = next {
                self.host = m.id;
                tracing::info!(host = m.id, "host handed over");
            }
        }
        if !self.members.is_empty() {
            self.broadcast_room();
            self.check_end();
        }
    }

    fn start(&mut self, id: PlayerId) {
        if id != self.host {
            self.send_to(id, &error(ErrorCode::NotHost, "only the host can start the race"));
            return;
        }
        if self.phase != Phase::Lobby {
            self.send_to(id, &error(ErrorCode::WrongPhase, "the race has already started"));
            return;
        }
        let board = &self.settings.board;
        self.racers = self
            .members
            .iter()
            .filter(|m| !m.spectate)
            .map(|m| Racer {
                id: m.id,
                name: Arc::clone(&m.name),
                token: Arc::clone(&m.token),
                game: PlayerGame::new(board),
                status: RacerStatus::Racing,
                time_ms: None,
                first_move: None,
                actions: Vec::new(),
                change: Change::None,
                reported: false,
                attempt: crate::daily::next_attempt(),
            })
            .collect();
        if self.racers.is_empty() {
            self.send_to(id, &error(ErrorCode::WrongPhase, "nobody to race: everyone is spectating"));
            return;
        }
        self.phase = Phase::Countdown;
        self.last_results = None;
        self.countdown_left = self.shared.config.countdown_secs;
        tracing::info!(racers = self.racers.len(), "countdown");
        self.broadcast_room();
        if self.countdown_left == 0 {
            self.begin_race();
        } else {
            self.broadcast(&ServerMsg::Countdown { seconds: self.countdown_left });
            self.countdown_at = Some(Instant::now() + self.shared.config.countdown_step);
        }
    }

    fn begin_race(&mut self) {
        let now = Instant::now();
        self.phase = Phase::Racing;
        self.countdown_at = None;
        self.started = Some(now);
        self.deadline = Some(now + self.shared.config.race_time_limit);
        self.last_progress = None;
        tracing::info!(seed = self.settings.board.seed(), "race started");
        self.broadcast_room();
        self.broadcast(&ServerMsg::RaceStart {
            board: self.settings.board.public(),
            time_limit_ms: self.shared.config.race_time_limit.as_millis() as u64,
        });
        if self.settings.daily.is_some() {
            for r in &self.racers {
                self.daily_started(r);
            }
        }
    }

    fn act(&mut self, id: PlayerId, seq: u32, action: Action) {
        let now = Instant::now();
        let (racing, started) = (self.phase == Phase::Racing, self.started);
        // A racer who left and came back as a spectator keeps their line in
        // the results but is a watcher now, like every spectator.
        let watching = self.members.iter().any(|m| m.id == id && m.spectate);
        let idx = self
            .racers
            .iter()
            .position(|r| r.id == id && r.status != RacerStatus::Left)
            .filter(|_| !watching);
        let (Some(idx), true, Some(started)) = (idx, racing, started) else {
            let why = if racing { "you are not racing in this race" } else { "no race is on" };
            self.send_to(id, &error(ErrorCode::NotRacing, why));
            return;
        };
        // RULES.md: solo and daily times run from the first accepted move;
        // races with others from the start signal.
        let time_from_first_move = self.settings.daily.is_some() || self.racers.len() == 1;
        let r = &mut self.racers[idx];
        let result = if r.status == RacerStatus::Racing {
            r.game.apply(action)
        } else {
            Err(mazerace_protocol::Reject::GameOver)
        };
        if result.is_ok() {
            r.actions.push(action);
            r.first_move.get_or_insert(now);
            if r.change == Change::None {
                r.change = Change::OwnActions;
            }
        }
        let (ok, reason, view) = (result.is_ok(), result.err(), r.game.view());
        let reply = match action {
            Action::Move(_) => ServerMsg::MoveResult { seq, ok, reason, view },
            Action::Rewind => ServerMsg::RewindResult { seq, ok, reason, view },
        };
        let finished_now = ok && r.game.status() == Status::Won;
        if ok {
            match r.game.status() {
                Status::Won => {
                    let from = if time_from_first_move { r.first_move.unwrap_or(started) } else { started };
                    r.status = RacerStatus::Finished;
                    r.time_ms = Some(now.saturating_duration_since(from).as_millis() as u64);
                }
                Status::OutOfSteps => r.status = RacerStatus::OutOfSteps,
                Status::Playing => {}
            }
        }
        let ended = r.status != RacerStatus::Racing && ok;
        self.send_to(id, &reply);
        if finished_now {
            let entries = self.entries();
            if let Some(me) = entries.iter().find(|e| e.id == id) {
                let rank = results::rank_among(me, &entries, self.settings.rank_by);
                tracing::info!(player = id, steps = me.steps, time_ms = me.time_ms, rank, "finished");
                self.broadcast(&ServerMsg::Finished {
                    player_id: id,
                    steps: me.steps,
                    time_ms: me.time_ms.unwrap_or(0),
                    rank,
                });
            }
        }
        if ended {
            self.daily_ended(id);
        }
        if ok {
            self.schedule_progress(now);
        }
        self.check_end();
    }

    fn rematch(&mut self, id: PlayerId) {
        if id != self.host {
            self.send_to(id, &error(ErrorCode::NotHost, "only the host can call a rematch"));
            return;
        }
        if self.phase != Phase::Results || self.settings.daily.is_some() {
            let why = if self.settings.daily.is_some() {
                "a daily room has no rematch"
            } else {
                "a rematch comes after the results"
            };
            self.send_to(id, &error(ErrorCode::WrongPhase, why));
            return;
        }
        let seed = self.shared.ids.seed();
        match Board::build(self.settings.size, seed) {
            Ok(board) => self.settings.board = board,
            Err(e) => {
                tracing::error!(error = %e, seed, "rematch board failed");
                self.send_to(id, &error(ErrorCode::Internal, "could not build a new board; try again"));
                return;
            }
        }
        self.phase = Phase::Lobby;
        self.racers.clear();
        self.started = None;
        self.deadline = None;
        self.progress_at = None;
        self.last_results = None;
        for m in &mut self.members {
            m.ready = false;
        }
        tracing::info!("rematch");
        self.broadcast_room();
    }

    // ---- timers ----

    fn on_timer(&mut self) {
        let now = Instant::now();
        if self.countdown_at.is_some_and(|t| t <= now) {
            self.countdown_left = self.countdown_left.saturating_sub(1);
            if self.countdown_left == 0 {
                self.begin_race();
            } else {
                self.broadcast(&ServerMsg::Countdown { seconds: self.countdown_left });
                self.countdown_at = Some(now + self.shared.config.countdown_step);
            }
        }
        if self.progress_at.is_some_and(|t| t <= now) {
            self.flush_progress(now);
        }
        if self.deadline.is_some_and(|t| t <= now) {
            let mut timed_out = Vec::new();
            for r in self.racers.iter_mut().filter(|r| r.status == RacerStatus::Racing) {
                r.status = RacerStatus::TimedOut;
                r.change = Change::Other;
                timed_out.push(r.id);
            }
            tracing::info!(timed_out = timed_out.len(), "time limit reached");
            for id in timed_out {
                self.daily_ended(id);
            }
            self.finish_race(now);
        }
    }

    fn schedule_progress(&mut self, now: Instant) {
        if self.progress_at.is_none() {
            let earliest = self.last_progress.map_or(now, |t| t + self.shared.config.progress_interval);
            self.progress_at = Some(earliest.max(now));
        }
    }

    /// One `progress` with the racers that changed, to everyone; a member
    /// whose previous one is still unsent gets the full list instead.
    /// When the only change is one racer's own moves, that racer is skipped:
    /// their `move_result`s said it all already. This matters for the
    /// common case of moves spread out in time: in a room of two, it is a
    /// third of all frames sent.
    fn flush_progress(&mut self, now: Instant) {
        self.progress_at = None;
        let changed: Vec<Progress> =
            self.racers.iter().filter(|r| r.change != Change::None).map(Racer::progress).collect();
        if changed.is_empty() {
            return;
        }
        let mut changers = self.racers.iter().filter(|r| r.change != Change::None);
        let only_own_moves_of = match (changers.next(), changers.next()) {
            (Some(r), None) if r.change == Change::OwnActions => Some(r.id),
            _ => None,
        };
        for r in &mut self.racers {
            r.change = Change::None;
        }
        self.last_progress = Some(now);
        let delta = frame(&ServerMsg::Progress { players: changed });
        let mut full: Option<Frame> = None;
        let racers = &self.racers;
        let mut make_full = || {
            full.get_or_insert_with(|| {
                frame(&ServerMsg::Progress { players: racers.iter().map(Racer::progress).collect() })
            })
            .clone()
        };
        for m in self.members.iter().filter(|m| Some(m.id) != only_own_moves_of) {
            if let Some(o) = &m.outbox {
                o.progress(&delta, &mut make_full);
            }
        }
    }

    fn entries(&self) -> Vec<Entry> {
        self.racers
            .iter()
            .map(|r| Entry {
                id: r.id,
                name: r.name.to_string(),
                status: r.status,
                steps: r.game.steps(),
                time_ms: r.time_ms,
            })
            .collect()
    }

    fn check_end(&mut self) {
        let anyone_racing = self.racers.iter().any(|r| r.status == RacerStatus::Racing);
        match self.phase {
            Phase::Racing if !anyone_racing => self.finish_race(Instant::now()),
            Phase::Countdown if !anyone_racing => {
                // Every racer left before the start: back to the lobby.
                self.phase = Phase::Lobby;
                self.countdown_at = None;
                self.racers.clear();
                self.broadcast_room();
            }
            _ => {}
        }
    }

    fn finish_race(&mut self, now: Instant) {
        self.flush_progress(now);
        self.phase = Phase::Results;
        self.deadline = None;
        self.progress_at = None;
        let rankings = results::rank(&self.entries(), self.settings.rank_by, self.settings.board.best());
        tracing::info!(racers = rankings.len(), "results");
        let msg = ServerMsg::Results { rankings, reveal: results::reveal(&self.settings.board) };
        let f = frame(&msg);
        self.broadcast_room();
        self.broadcast_frame(&f);
        self.last_results = Some(f);
    }

    // ---- daily hook (see crate::daily) ----

    fn daily_run(&self, r: &Racer) -> Option<(Arc<dyn crate::DailyHook>, DailyRun)> {
        let hook = self.shared.daily.clone()?;
        let d = self.settings.daily.as_ref()?;
        Some((
            hook,
            DailyRun {
                attempt: r.attempt,
                date: d.date.clone(),
                game: self.settings.game,
                size: self.settings.size,
                seed: d.seed,
                token: r.token.to_string(),
                name: r.name.to_string(),
            },
        ))
    }

    fn daily_started(&self, r: &Racer) {
        let Some((hook, run)) = self.daily_run(r) else { return };
        let fut = hook.started(run);
        self.shared.tracker.spawn(
            async move {
                if let Err(e) = fut.await {
                    tracing::error!(error = %e, "daily start not recorded");
                }
            }
            .in_current_span(),
        );
    }

    fn daily_ended(&mut self, id: PlayerId) {
        let Some(idx) = self.racers.iter().position(|r| r.id == id && !r.reported) else { return };
        let Some((hook, run)) = self.daily_run(&self.racers[idx]) else { return };
        let r = &mut self.racers[idx];
        r.reported = true;
        let outcome = DailyOutcome {
            finished: r.status == RacerStatus::Finished,
            steps: r.game.steps(),
            time_ms: r.time_ms,
            moves: r.actions.clone(),
            move_times_ms: None, // the room does not keep action times yet (issue 16)
        };
        let fut = hook.ended(run, outcome);
        let me = self.me.clone();
        self.shared.tracker.spawn(
            async move {
                let result = match fut.await {
                    // Only now, after the commit, does the player hear of it.
                    Ok(result) => Some(Box::new(result)),
                    Err(e) => {
                        tracing::error!(error = %e, player = id, "daily result not stored");
                        None
                    }
                };
                if let Some(tx) = me.upgrade() {
                    let _ = tx.send(RoomCmd::DailyDone { id, result }).await;
                }
            }
            .in_current_span(),
        );
    }
}
