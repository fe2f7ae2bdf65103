//! The room as a pure state machine: members, the host, and one [`Stage`]
//! (lobby, countdown, racing, results) that holds exactly the data its phase
//! needs, so no invalid mix can exist and nothing is reset by hand.
//! [`Room::handle`] takes the time and one [`Input`] and writes what should
//! happen to [`Effects`]; it never touches a socket, a task or the store.
//! The actor (`actor.rs`) feeds it and carries the effects out; the unit
//! tests (`tests.rs`) do the same without either.

use std::sync::Arc;

use mazerace_protocol::messages::{
    ErrorCode, Phase, PlayerId, PlayerInfo, Progress, RacerStatus, RoomInfo, ServerMsg, Snapshot,
};
use mazerace_protocol::{Action, Board};
use tokio::time::Instant;

use super::effects::{Effect, Effects};
use super::race::{Race, Racer};
use super::{JoinError, RoomSettings, Timings};

/// One thing that happened to the room.
#[derive(Debug)]
pub enum Input {
    /// A player joins (the actor has checked [`Room::check_join`]).
    Join {
        id: PlayerId,
        name: Arc<str>,
        token: Arc<str>,
        spectate: bool,
    },
    /// A member's connection is back.
    Connected {
        id: PlayerId,
    },
    /// A member's connection dropped; they may resume.
    Disconnected {
        id: PlayerId,
    },
    /// A member left (or `expired`: stayed away past the resume window).
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
    GiveUp {
        id: PlayerId,
    },
    /// `seed` is the new board's, drawn by the caller (the state machine has
    /// no randomness of its own); unused for `same_board`.
    Rematch {
        id: PlayerId,
        same_board: bool,
        seed: u64,
    },
    Rename {
        id: PlayerId,
        name: Arc<str>,
    },
    /// The timer fired: whatever is due at `now` happens.
    Tick,
}

pub(super) struct Member {
    id: PlayerId,
    name: Arc<str>,
    token: Arc<str>,
    spectate: bool,
    ready: bool,
    connected: bool,
}

/// Where the room is in its life, with what that part needs.
pub(super) enum Stage {
    Lobby,
    Countdown {
        racers: Vec<Racer>,
        left: u32,
        next: Instant,
    },
    Racing(Race),
    /// `results` is kept for members who resume after the race.
    Results {
        race: Race,
        results: ServerMsg,
    },
}

/// One room's whole state.
pub struct Room {
    code: Arc<str>,
    pub(super) settings: RoomSettings,
    pub(super) timings: Timings,
    host: PlayerId,
    /// In join order (host hand-over follows it).
    pub(super) members: Vec<Member>,
    pub(super) stage: Stage,
    pub(super) fx: Effects,
}

pub(super) fn error(code: ErrorCode, message: &str) -> ServerMsg {
    ServerMsg::Error { code, message: message.into() }
}

impl Room {
    /// A room in the lobby with its host in it. The host's `room` is among
    /// the first effects.
    pub fn new(
        code: Arc<str>,
        settings: RoomSettings,
        timings: Timings,
        host: (PlayerId, Arc<str>, Arc<str>),
    ) -> Self {
        let (id, name, token) = host;
        let mut room = Room {
            code,
            settings,
            timings,
            host: id,
            members: vec![Member { id, name, token, spectate: false, ready: false, connected: true }],
            stage: Stage::Lobby,
            fx: Effects::default(),
        };
        room.broadcast_room();
        room
    }

    /// The effects written since the last call, in order.
    pub fn effects(&mut self) -> &mut Effects {
        &mut self.fx
    }

    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    pub fn is_member(&self, id: PlayerId) -> bool {
        self.members.iter().any(|m| m.id == id)
    }

    pub fn phase(&self) -> Phase {
        match self.stage {
            Stage::Lobby => Phase::Lobby,
            Stage::Countdown { .. } => Phase::Countdown,
            Stage::Racing(_) => Phase::Racing,
            Stage::Results { .. } => Phase::Results,
        }
    }

    /// When the next timed thing is due (countdown, `progress`, time limit).
    pub fn next_wake(&self) -> Option<Instant> {
        match &self.stage {
            Stage::Countdown { next, .. } => Some(*next),
            Stage::Racing(race) => Some(race.progress.due().map_or(race.deadline, |p| p.min(race.deadline))),
            Stage::Lobby | Stage::Results { .. } => None,
        }
    }

    /// Whether `id` may join: `Full` for a daily room, a full room (or
    /// spectator list), or a player already in it.
    pub fn check_join(&self, id: PlayerId, spectate: bool, max_spectators: u32) -> Result<(), JoinError> {
        let players = self.members.iter().filter(|m| !m.spectate).count() as u32;
        let watchers = self.members.len() as u32 - players;
        let full = self.settings.daily.is_some()
            || if spectate { watchers >= max_spectators } else { players >= self.settings.max_players };
        if full || self.is_member(id) {
            return Err(JoinError::Full);
        }
        Ok(())
    }

    /// Applies `input` at `now`.
    pub fn handle(&mut self, now: Instant, input: Input) {
        match input {
            Input::Join { id, name, token, spectate } => {
                self.members.push(Member { id, name, token, spectate, ready: false, connected: true });
                tracing::info!(player = id, spectate, "player joined");
                self.broadcast_room();
                if self.phase() != Phase::Lobby {
                    self.send_snapshot(id, now);
                }
            }
            Input::Connected { id } => {
                let Some(m) = self.members.iter_mut().find(|m| m.id == id) else { return };
                m.connected = true;
                tracing::info!(player = id, "player resumed");
                // The snapshot comes right after `welcome` (its room shows
                // the player connected); the others learn it from `room`.
                self.send_snapshot(id, now);
                let room = ServerMsg::Room(self.room_info());
                self.fx.push(Effect::AllBut(id, room));
            }
            Input::Disconnected { id } => {
                let Some(m) = self.members.iter_mut().find(|m| m.id == id && m.connected) else { return };
                m.connected = false;
                tracing::info!(player = id, "player disconnected");
                self.broadcast_room();
            }
            Input::Leave { id, expired } => self.leave(id, expired, now),
            Input::Ready { id, ready } => self.ready(id, ready, now),
            Input::Start { id } => {
                if id != self.host {
                    return self.fx.to(id, error(ErrorCode::NotHost, "only the host can start the race"));
                }
                if self.phase() != Phase::Lobby {
                    return self.fx.to(id, error(ErrorCode::WrongPhase, "the race has already started"));
                }
                self.start(id, now);
            }
            Input::Act { id, seq, action } => self.act(id, seq, action, now),
            Input::GiveUp { id } => self.give_up(id, now),
            Input::Rematch { id, same_board, seed } => self.rematch(id, same_board, seed),
            Input::Rename { id, name } => {
                let Some(m) = self.members.iter_mut().find(|m| m.id == id) else { return };
                m.name = Arc::clone(&name);
                if let Stage::Countdown { racers, .. } = &mut self.stage {
                    racers.iter_mut().filter(|r| r.id == id).for_each(|r| r.name = Arc::clone(&name));
                }
                if let Stage::Results { race, .. } = &mut self.stage {
                    race.racers.iter_mut().filter(|r| r.id == id).for_each(|r| r.name = Arc::clone(&name));
                }
                self.broadcast_room();
            }
            Input::Tick => self.tick(now),
        }
    }

    /// A member who watches (joined as a spectator, or came back as one).
    pub(super) fn watching(&self, id: PlayerId) -> bool {
        self.members.iter().any(|m| m.id == id && m.spectate)
    }

    /// Whether `id` may rename now: not while they are in a race that is on.
    pub fn may_rename(&self, id: PlayerId) -> bool {
        match &self.stage {
            Stage::Racing(race) => !race.racer(id).is_some_and(Racer::racing),
            Stage::Countdown { racers, .. } => !racers.iter().any(|r| r.id == id),
            Stage::Lobby | Stage::Results { .. } => true,
        }
    }

    // ---- what members see ----

    fn room_info(&self) -> RoomInfo {
        let race_on = self.phase() != Phase::Lobby;
        let in_race = |id| match &self.stage {
            Stage::Countdown { racers, .. } => {
                racers.iter().any(|r| r.id == id && r.status != RacerStatus::Left)
            }
            Stage::Racing(race) | Stage::Results { race, .. } => race.in_race(id),
            Stage::Lobby => false,
        };
        let daily = self.settings.daily.as_ref();
        RoomInfo {
            code: self.code.to_string(),
            host: self.host,
            game: self.settings.game,
            size: self.settings.size,
            phase: self.phase(),
            rank_by: self.settings.rank_by,
            max_players: self.settings.max_players,
            daily: daily.is_some(),
            ranked: daily.map(|d| d.ranked),
            ranked_at: daily.and_then(|d| d.ranked_at.clone()),
            players: self
                .members
                .iter()
                .map(|m| PlayerInfo {
                    id: m.id,
                    name: m.name.to_string(),
                    ready: m.ready,
                    spectator: m.spectate || (race_on && !in_race(m.id)),
                    connected: m.connected,
                })
                .collect(),
        }
    }

    pub(super) fn broadcast_room(&mut self) {
        let room = ServerMsg::Room(self.room_info());
        self.fx.all(room);
    }

    /// Every racer's progress (for a member whose last `progress` is unsent).
    pub fn full_progress(&self) -> Vec<Progress> {
        match &self.stage {
            Stage::Racing(race) | Stage::Results { race, .. } => race.all_progress(),
            Stage::Lobby | Stage::Countdown { .. } => Vec::new(),
        }
    }

    fn snapshot(&self, id: PlayerId, now: Instant) -> Snapshot {
        let room = self.room_info();
        let (board, race) = match &self.stage {
            Stage::Lobby => (None, None),
            Stage::Countdown { .. } => (Some(self.settings.board.public()), None),
            Stage::Racing(race) | Stage::Results { race, .. } => {
                (Some(self.settings.board.public()), Some(race))
            }
        };
        let me = race.and_then(|r| r.racer(id));
        Snapshot {
            room,
            board,
            you: me.map(|r| r.game.view()),
            recording: me.map(|r| r.game.recording().to_vec()).unwrap_or_default(),
            players: race.map(Race::all_progress).unwrap_or_default(),
            elapsed_ms: match &self.stage {
                Stage::Racing(race) => race.elapsed_ms(me.map(|r| r.id), now),
                _ => None,
            },
            clock: race.map(|r| r.clock),
        }
    }

    fn send_snapshot(&mut self, id: PlayerId, now: Instant) {
        let snap = ServerMsg::Snapshot(Box::new(self.snapshot(id, now)));
        self.fx.to(id, snap);
        if let Stage::Results { results, .. } = &self.stage {
            let results = results.clone();
            self.fx.to(id, results);
        }
    }

    // ---- the lobby ----

    fn ready(&mut self, id: PlayerId, ready: bool, now: Instant) {
        if self.phase() != Phase::Lobby {
            return self.fx.to(id, error(ErrorCode::WrongPhase, "ready is for the lobby"));
        }
        let Some(m) = self.members.iter_mut().find(|m| m.id == id) else { return };
        m.ready = ready;
        self.broadcast_room();
        // Everyone who would race says ready: no need to wait for the host.
        let mut racing = self.members.iter().filter(|m| !m.spectate && m.connected);
        if racing.clone().count() >= 2 && racing.all(|m| m.ready) {
            tracing::info!("everyone is ready");
            let host = self.host;
            self.start(host, now);
        }
    }

    fn start(&mut self, id: PlayerId, now: Instant) {
        let board = &self.settings.board;
        let racers: Vec<Racer> = self
            .members
            .iter()
            .filter(|m| !m.spectate)
            .map(|m| Racer::new(m.id, Arc::clone(&m.name), Arc::clone(&m.token), board))
            .collect();
        if racers.is_empty() {
            return self.fx.to(id, error(ErrorCode::WrongPhase, "nobody to race: everyone is spectating"));
        }
        tracing::info!(racers = racers.len(), "countdown");
        let left = self.timings.countdown_secs;
        self.stage = Stage::Countdown { racers, left, next: now + self.timings.countdown_step };
        self.broadcast_room();
        if left == 0 {
            self.begin_race(now);
        } else {
            self.countdown_message(left);
        }
    }

    pub(super) fn countdown_message(&mut self, seconds: u32) {
        let board = self.settings.board.public();
        self.fx.all(ServerMsg::Countdown { seconds, board });
    }

    pub(super) fn begin_race(&mut self, now: Instant) {
        let Stage::Countdown { racers, .. } = std::mem::replace(&mut self.stage, Stage::Lobby) else {
            return;
        };
        let t = &self.timings;
        let daily = self.settings.daily.is_some();
        let race =
            Race::new(racers, &self.settings.board, now, t.race_time_limit, t.progress_interval, daily);
        let (clock, time_limit_ms) = (race.clock, t.race_time_limit.as_millis() as u64);
        tracing::info!(seed = self.settings.board.seed(), "race started");
        self.stage = Stage::Racing(race);
        self.broadcast_room();
        self.fx.all(ServerMsg::RaceStart { board: self.settings.board.public(), time_limit_ms, clock });
        if let Stage::Racing(race) = &self.stage {
            for run in race.racers.iter().filter_map(|r| super::play::daily_run(&self.settings, r)) {
                self.fx.push(Effect::DailyStarted(run));
            }
        }
    }

    fn rematch(&mut self, id: PlayerId, same_board: bool, seed: u64) {
        if id != self.host {
            return self.fx.to(id, error(ErrorCode::NotHost, "only the host can call a rematch"));
        }
        if self.phase() != Phase::Results {
            return self.fx.to(id, error(ErrorCode::WrongPhase, "a rematch comes after the results"));
        }
        if let Some(daily) = &mut self.settings.daily {
            if !same_board {
                let why = "a daily room has only a same-board rematch, as practice";
                return self.fx.to(id, error(ErrorCode::WrongPhase, why));
            }
            // The store ranks only the first attempt; say so before the start.
            daily.ranked = false;
        }
        if !same_board {
            match Board::build(self.settings.size, seed) {
                Ok(board) => self.settings.board = board,
                Err(e) => {
                    tracing::error!(error = %e, seed, "rematch board failed");
                    return self
                        .fx
                        .to(id, error(ErrorCode::Internal, "could not build a new board; try again"));
                }
            }
        }
        self.stage = Stage::Lobby;
        for m in &mut self.members {
            m.ready = false;
        }
        tracing::info!(same_board, "rematch");
        self.broadcast_room();
    }

    // ---- leaving ----

    fn leave(&mut self, id: PlayerId, expired: bool, now: Instant) {
        let Some(idx) = self.members.iter().position(|m| m.id == id) else { return };
        self.members.remove(idx);
        tracing::info!(player = id, expired, "player left");
        // A racer who leaves before the end is listed as `left`.
        let stopped = match &mut self.stage {
            Stage::Countdown { racers, .. } => {
                racers.iter_mut().find(|r| r.id == id).is_some_and(|r| r.stop(RacerStatus::Left))
            }
            Stage::Racing(race) => {
                let stopped = race.racer_mut(id).is_some_and(|r| r.stop(RacerStatus::Left));
                if stopped {
                    race.progress.schedule(now);
                }
                stopped
            }
            Stage::Lobby | Stage::Results { .. } => false,
        };
        if stopped {
            self.daily_ended(id);
        }
        if self.host == id {
            let next = self
                .members
                .iter()
                .find(|m| !m.spectate && m.connected)
                .or_else(|| self.members.iter().find(|m| m.connected))
                .or_else(|| self.members.first());
            if let Some(m) = next {
                self.host = m.id;
                tracing::info!(host = m.id, "host handed over");
            }
        }
        if !self.members.is_empty() {
            self.broadcast_room();
            self.check_end(now);
        }
    }
}
