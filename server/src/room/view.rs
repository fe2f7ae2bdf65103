//! What members see of the room: the `room` message, the `snapshot` a
//! resuming or late member gets, and everyone's progress. Same [`Room`] as
//! `state.rs`.
//!
//! A `room` lists every member who races (at most `max_players`) and the
//! rivals, but only the first [`LISTED_SPECTATORS`] of those who asked to
//! watch (and the host, should the host watch), with a count of the rest:
//! its size is bounded whatever `--max-spectators` allows. Listing them
//! all made each `room` grow with the audience and the room's broadcasts
//! with its square: 2000 spectators took the server from 9 to 139.5 MB,
//! 40 MB of it in send queues, and closed everyone as too slow.

use mazerace_protocol::messages::{
    Phase, PlayerId, PlayerInfo, Progress, RacerStatus, RoomInfo, ServerMsg, Snapshot,
};
use tokio::time::Instant;

use super::matches::MAX_TALLY;
use super::race::Race;
use super::state::{Member, Room, Stage};

/// Spectators named in a `room` (the host comes on top when watching).
pub const LISTED_SPECTATORS: usize = 8;

impl Room {
    pub(super) fn room_info(&self) -> RoomInfo {
        // Between two rounds of a match everyone not watching races the
        // next round, so nobody is shown as a spectator for the last one.
        let race_on = !matches!(self.phase(), Phase::Lobby | Phase::Intermission);
        let in_race = |id| match &self.stage {
            Stage::Saving { racers } | Stage::Countdown { racers, .. } => {
                racers.iter().any(|r| r.id == id && r.status != RacerStatus::Left)
            }
            Stage::Racing(race) | Stage::Results { race, .. } => race.in_race(id),
            Stage::Lobby => false,
        };
        let daily = self.settings.daily.as_ref();
        let listed = self.listed_members();
        let more_spectators = self.members.iter().filter(|m| m.spectate && !m.screen).count() as u32
            - listed.iter().filter(|m| m.spectate).count() as u32;
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
            practice: daily.filter(|d| !d.ranked).map(|d| match d.capped {
                true => mazerace_protocol::messages::PracticeReason::AddressCap,
                false => mazerace_protocol::messages::PracticeReason::Played,
            }),
            key: self.settings.key.to_string(),
            players: listed
                .into_iter()
                .map(|m| PlayerInfo {
                    id: m.id,
                    name: m.name.to_string(),
                    ready: m.ready,
                    spectator: m.spectate || (race_on && !in_race(m.id)),
                    connected: m.connected,
                    colour: self.colours.of(m.id).filter(|_| !m.spectate),
                    rival: false,
                    run_id: None,
                })
                .chain(self.rivals.iter().map(|r| PlayerInfo {
                    id: r.id,
                    name: r.name.to_string(),
                    ready: true,
                    spectator: false,
                    connected: true,
                    colour: self.colours.of(r.id),
                    rival: true,
                    run_id: r.run_id,
                }))
                .collect(),
            more_spectators,
            screens: self.screen_count(),
            party: self.settings.party,
            format: self.settings.format,
            standings: self.the_match.as_ref().map(|m| Box::new(m.view(self.held()))),
            // The top of the tally: members' lines are kept past its cap, and
            // a room's members are not bounded by its racers.
            tally: self.tally.iter().take(MAX_TALLY).cloned().collect(),
        }
    }

    /// The members a `room` names, in join order: all who race (or would),
    /// the host, and the first [`LISTED_SPECTATORS`] spectators; never a
    /// screen (`screens` counts them).
    fn listed_members(&self) -> Vec<&Member> {
        let mut spectators = 0;
        self.members
            .iter()
            .filter(|m| !m.screen)
            .filter(|m| {
                if !m.spectate || m.id == self.host {
                    return true;
                }
                spectators += 1;
                spectators <= LISTED_SPECTATORS
            })
            .collect()
    }

    /// Whether the host holds a match's intermission.
    fn held(&self) -> bool {
        matches!(&self.stage, Stage::Results { intermission: Some(i), .. } if i.held_until.is_some())
    }

    /// What an invite card shows: built from the `room` message, so the
    /// two never disagree on who is in.
    pub fn preview(&self) -> super::RoomPreview {
        let info = self.room_info();
        let name = |id| info.players.iter().find(|p| p.id == id).map(|p| p.name.clone());
        super::RoomPreview {
            host: name(info.host).unwrap_or_default(),
            players: info.players.iter().filter(|p| !p.spectator).map(|p| p.name.clone()).collect(),
            spectators: u32::try_from(info.players.iter().filter(|p| p.spectator).count())
                .unwrap_or(u32::MAX),
            code: info.code,
            game: info.game,
            size: info.size,
            phase: info.phase,
            max_players: info.max_players,
        }
    }

    /// The board as members see it: a daily room's carries no seed while
    /// its day is on (the seed would let anyone practise it in a private
    /// room before their ranked try; it is revealed once the day is over).
    pub(super) fn public_board(&self) -> mazerace_protocol::PublicBoard {
        match self.settings.daily {
            Some(_) => self.settings.board.public_hidden(),
            None => self.settings.board.public(),
        }
    }

    /// Every racer's progress (for a member whose last `progress` is unsent).
    pub fn full_progress(&self) -> Vec<Progress> {
        match &self.stage {
            Stage::Racing(race) | Stage::Results { race, .. } => race.all_progress(),
            Stage::Lobby | Stage::Saving { .. } | Stage::Countdown { .. } => Vec::new(),
        }
    }

    fn snapshot(&self, id: PlayerId, now: Instant) -> Snapshot {
        let room = self.room_info();
        let (board, race) = match &self.stage {
            Stage::Lobby | Stage::Saving { .. } => (None, None),
            Stage::Countdown { .. } => (Some(self.public_board()), None),
            Stage::Racing(race) | Stage::Results { race, .. } => (Some(self.public_board()), Some(race)),
        };
        let me = race.and_then(|r| r.racer(id));
        Snapshot {
            room,
            board,
            you: me.map(|r| r.game.view()),
            recording: me.map(|r| r.game.recording().to_vec()).unwrap_or_default(),
            players: race.map(Race::named_progress).unwrap_or_default(),
            elapsed_ms: match &self.stage {
                Stage::Racing(race) => race.elapsed_ms(me.map(|r| r.id), now),
                _ => None,
            },
            clock: race.map(|r| r.clock),
        }
    }

    pub(super) fn send_snapshot(&mut self, id: PlayerId, now: Instant) {
        let snap = ServerMsg::Snapshot(Box::new(self.snapshot(id, now)));
        self.fx.to(id, snap);
        if let Stage::Results { results, .. } = &self.stage {
            let results = results.clone();
            self.fx.to(id, results);
        }
        // In a match: every round so far, then where the intermission
        // stands, or the match's end.
        for round in self.round_messages() {
            self.fx.to(id, round);
        }
        if let Some(msg) = self.intermission_message().or_else(|| self.match_over_message()) {
            self.fx.to(id, msg);
        }
    }
}
