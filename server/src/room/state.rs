//! The room as a pure state machine: members, the host, and one [`Stage`]
//! (lobby, countdown, racing, results or a match's intermission) that holds exactly the data its phase
//! needs, so no invalid mix can exist and nothing is reset by hand.
//! [`Room::handle`] takes the time and one [`Input`] and writes what should
//! happen to [`Effects`]; it never touches a socket, a task or the store.
//! The actor (`actor.rs`) feeds it and carries the effects out; the unit
//! tests (`*_tests.rs`) do the same without either.
//!
//! This file owns the room's data ([`Member`], [`Stage`], [`Room`]), its
//! making, its phase and next wake, and [`Room::handle`]: the dispatch of
//! each [`Input`] (`input.rs`) to its handler, which lives in the file of
//! its topic (`lobby.rs`, `play.rs`, `matches.rs`, `rival.rs`,
//! `screens.rs`...). The checks before a join are in `joins.rs`.

use std::sync::Arc;

use mazerace_protocol::daily::DailyDate;
use mazerace_protocol::matches::{Match, TallyLine};
use mazerace_protocol::messages::{ErrorCode, Phase, PlayerId, ServerMsg};
use tokio::time::Instant;

use super::colours::Colours;
use super::effects::Effects;
use super::input::Input;
use super::intermission::Intermission;
use super::progress::RoomUpdates;
use super::race::{Race, Racer};
use super::rival_run::Rival;
use super::{RoomSettings, Timings};
use crate::load::Permille;

pub(super) struct Member {
    pub(super) id: PlayerId,
    pub(super) name: Arc<str>,
    pub(super) token: Arc<str>,
    /// Watches (a spectator, and every screen).
    pub(super) spectate: bool,
    /// A screen showing the room (`screens.rs`): never races, never hosts
    /// while a player is in, never listed.
    pub(super) screen: bool,
    pub(super) ready: bool,
    pub(super) connected: bool,
}

/// Where the room is in its life, with what that part needs.
pub(super) enum Stage {
    Lobby,
    /// A daily room's attempt being saved by the store before its countdown
    /// (the wire still says `lobby`).
    Saving {
        racers: Vec<Racer>,
    },
    Countdown {
        racers: Vec<Racer>,
        left: u32,
        next: Instant,
    },
    Racing(Race),
    /// `results` is kept for members who resume after the race. In a match
    /// between two rounds, the `intermission` counts down to the next
    /// (the wire says `intermission`).
    Results {
        race: Race,
        results: ServerMsg,
        intermission: Option<Box<Intermission>>,
    },
}

/// One room's whole state.
pub struct Room {
    pub(super) code: Arc<str>,
    pub(super) settings: RoomSettings,
    pub(super) timings: Timings,
    pub(super) host: PlayerId,
    /// In join order (host hand-over follows it).
    pub(super) members: Vec<Member>,
    pub(super) stage: Stage,
    /// Rivals the next race includes (`add_rival`), of this board.
    pub(super) rivals: Vec<Rival>,
    /// Each finisher's run in the last race on this board (`pick: "last"`).
    pub(super) last: Vec<(PlayerId, Rival)>,
    /// The match under way, or the last one (until the next begins or a
    /// rematch): a plain value the protocol crate scores.
    pub(super) the_match: Option<Match>,
    /// Matches won here, per player, for the room's life (bounded:
    /// [`super::matches::MAX_TALLY`]).
    pub(super) tally: Vec<TallyLine>,
    /// Each racer's colour ([`Room::give_colour`]).
    pub(super) colours: Colours,
    /// A room holding only screens closes then (`screens.rs`).
    pub(super) screens_alone_until: Option<Instant>,
    pub(super) fx: Effects,
    /// When the next `room` goes out (`updates.rs`).
    pub(super) updates: RoomUpdates,
    /// How busy the server is, as last told ([`Room::set_load`]): it sets
    /// the progress window's width.
    pub(super) load: Permille,
    /// Today (UTC) as the daily hook sees it, for a daily room (the actor
    /// tells the room before each input, like the load).
    pub(super) today: Option<DailyDate>,
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
        // A party room's first member is the screen that made it.
        let party = settings.party;
        let mut room = Room {
            code,
            settings,
            timings,
            host: id,
            members: vec![Member {
                id,
                name,
                token,
                spectate: party,
                screen: party,
                ready: false,
                connected: true,
            }],
            stage: Stage::Lobby,
            rivals: Vec::new(),
            last: Vec::new(),
            the_match: None,
            tally: Vec::new(),
            colours: Colours::default(),
            screens_alone_until: None,
            fx: Effects::default(),
            updates: RoomUpdates::new(timings.room_window),
            load: 0,
            today: None,
        };
        if !room.settings.party {
            room.give_colour(id);
        }
        // The first `room`: nothing was sent before it, so the next change
        // goes out at once too.
        let first = ServerMsg::Room(room.room_info());
        room.fx.all(first);
        room
    }

    /// Racer `id` (a member who races, or a rival) takes a colour: the
    /// lowest the room's other racers do not hold (`colours.rs`).
    pub(super) fn give_colour(&mut self, id: PlayerId) {
        let racers: Vec<PlayerId> = (self.members.iter().filter(|m| !m.spectate).map(|m| m.id))
            .chain(self.rivals.iter().map(|r| r.id))
            .collect();
        self.colours.give(id, &racers);
    }

    /// The server's load level, for the progress window (the actor tells
    /// the room before each input; unit tests leave it at 0, the floor).
    pub fn set_load(&mut self, level: Permille) {
        self.load = level;
    }

    /// Today's date for a daily room's secrets (see `load` for when).
    pub fn set_today(&mut self, today: DailyDate) {
        self.today = Some(today);
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
            Stage::Lobby | Stage::Saving { .. } => Phase::Lobby,
            Stage::Countdown { .. } => Phase::Countdown,
            Stage::Racing(_) => Phase::Racing,
            Stage::Results { intermission: None, .. } => Phase::Results,
            Stage::Results { intermission: Some(_), .. } => Phase::Intermission,
        }
    }

    /// When the next timed thing is due (countdown, `progress`, time
    /// limit, a coalesced `room`).
    pub fn next_wake(&self) -> Option<Instant> {
        [self.stage_wake(), self.updates.due(), self.screens_alone_until].into_iter().flatten().min()
    }

    fn stage_wake(&self) -> Option<Instant> {
        match &self.stage {
            Stage::Countdown { next, .. } => Some(*next),
            Stage::Racing(race) => {
                let wake = race.progress.due().map_or(race.deadline, |p| p.min(race.deadline));
                Some(race.rivals_due.map_or(wake, |r| r.min(wake)))
            }
            Stage::Results { intermission: Some(i), .. } => Some(i.due()),
            Stage::Lobby | Stage::Saving { .. } | Stage::Results { intermission: None, .. } => None,
        }
    }

    /// Whether member `id` is a screen.
    pub(super) fn is_screen(&self, id: PlayerId) -> bool {
        self.members.iter().any(|m| m.id == id && m.screen)
    }

    /// Applies `input` at `now`; a `room` it changed goes out now or at the
    /// end of its window.
    pub fn handle(&mut self, now: Instant, input: Input) {
        self.apply(now, input);
        self.watch_screens_alone(now);
        self.settle_room(now);
    }

    fn apply(&mut self, now: Instant, input: Input) {
        if let Some(id) = input.screens_refuse().filter(|id| self.is_screen(*id)) {
            return self.fx.to(id, error(ErrorCode::Screen, super::screens::SCREEN_REFUSED));
        }
        match input {
            Input::Join { id, name, token, spectate, screen } => {
                let spectate = spectate || screen;
                if let Some(m) = self.the_match.as_mut().filter(|m| !m.is_over() && !spectate) {
                    // Races from the next round, on 0 points (or back on theirs).
                    m.join(id, &name);
                }
                self.members.push(Member {
                    id,
                    name,
                    token,
                    spectate,
                    screen,
                    ready: false,
                    connected: true,
                });
                if !spectate {
                    self.give_colour(id);
                }
                if !screen && self.is_screen(self.host) {
                    // A party room's first player is its host (the screen never is).
                    self.host = id;
                    tracing::info!(host = id, "host: the first player in");
                }
                tracing::info!(player = id, spectate, "player joined");
                self.tell_joiner(id);
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
                self.room_told(id);
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
                if !matches!(self.stage, Stage::Lobby) {
                    return self.fx.to(id, error(ErrorCode::WrongPhase, "the race has already started"));
                }
                self.start(id, now);
            }
            Input::Act { id, seq, action, at: _ } => self.act(id, seq, action, now),
            Input::Dropped { id, seq, action } => self.dropped(id, seq, action),
            Input::GiveUp { id } => self.give_up(id, now),
            Input::Rematch { id, same_board, seed, match_seed } => {
                self.rematch(id, same_board, seed, match_seed, now)
            }
            Input::Rename { id, name } => {
                let Some(m) = self.members.iter_mut().find(|m| m.id == id) else { return };
                m.name = Arc::clone(&name);
                if let Stage::Saving { racers } | Stage::Countdown { racers, .. } = &mut self.stage {
                    racers.iter_mut().filter(|r| r.id == id).for_each(|r| r.name = Arc::clone(&name));
                }
                if let Stage::Results { race, .. } = &mut self.stage {
                    race.racers.iter_mut().filter(|r| r.id == id).for_each(|r| r.name = Arc::clone(&name));
                }
                if let Some(m) = &mut self.the_match {
                    m.rename(id, &name);
                }
                self.broadcast_room();
            }
            Input::DailySaved { id, ranked } => self.daily_saved(id, ranked, now),
            Input::AddRival { id, run_id, pick } => self.add_rival(id, run_id, pick),
            Input::RivalLoaded { id, run } => self.rival_loaded(id, run),
            Input::RemoveRival { id, rival } => self.remove_rival(id, rival),
            Input::SetMatch { id, format, seed } => self.set_match(id, format, seed),
            Input::Hold { id } => self.hold(id, now),
            Input::NextRound { id } => self.go(id, now),
            Input::Claim { id, token } => self.claimed(id, token),
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
            Stage::Saving { racers } | Stage::Countdown { racers, .. } => !racers.iter().any(|r| r.id == id),
            Stage::Lobby | Stage::Results { .. } => true,
        }
    }
}
