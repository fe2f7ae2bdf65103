//! Matches in the room's state machine (RULES.md, "Matches"): the host's
//! choice (`set_match`, or `create_room`'s `match`), each round's board from
//! the match's seed, the intermission between rounds (its countdown on the
//! server's clock, `hold` and `next_round`), and the end: the table, the
//! `match_over`, and the room's tally of matches won. The rules and the
//! numbers are the protocol crate's ([`Match`]); this is only when they are
//! applied. Same [`Room`] as `state.rs`.
//!
//! A member sees a match's table in `room` (its `standings` and `tally`),
//! through the room's one broadcast ([`Room::broadcast_room`]), and each
//! round's results and points once, in `match_round` as the round ends.

use std::time::Duration;

use mazerace_protocol::matches::{count_wins, Match, MatchSettings, RoundBoard};
use mazerace_protocol::messages::{ErrorCode, Phase, PlayerId, ServerMsg};
use mazerace_protocol::{Board, Size};
use tokio::time::Instant;

use super::intermission::Intermission;
use super::rival_run::Refusal;
use super::state::{error, Room, Stage};

/// The longest a host may hold an intermission: then its countdown runs
/// again, and the intermission cannot be held a second time. So a match
/// is bounded (rounds x (race time limit + this + the intermission)).
pub const MAX_HOLD: Duration = Duration::from_secs(300);

/// Lines of the room's tally beyond which the lines of players who have
/// left the room are dropped (members' lines are always kept).
pub const MAX_TALLY: usize = 64;

impl Room {
    /// The first board for the room's format on `seed`: round 1 of a match
    /// (with `harder`, maybe another size than the room's), or the room's
    /// own size.
    fn first_board(&self, seed: u64) -> RoundBoard {
        match self.settings.format {
            Some(f) => f.board(self.settings.base, seed, self.settings.match_seed, 1),
            None => single(self.settings.base, seed),
        }
    }

    /// Makes `spec` the room's board. Rivals and last runs belong to the
    /// board they were checked on, so a different board drops them.
    pub(super) fn set_board(&mut self, spec: RoundBoard) -> Result<(), Refusal> {
        let b = &self.settings.board;
        if b.size() == spec.size && b.seed() == spec.seed.0 {
            return Ok(());
        }
        let board = Board::build(spec.size, spec.seed.0).map_err(|e| {
            tracing::error!(error = %e, seed = spec.seed.0, "board failed");
            (ErrorCode::Internal, "could not build the next board; try again")
        })?;
        self.settings.board = board;
        self.settings.game = spec.game;
        self.settings.size = spec.size;
        self.rivals.clear();
        self.last.clear();
        Ok(())
    }

    /// `set_match`: host only, in the lobby, never in a daily room. The
    /// room's board stays round 1's when it can (same seed; its size unless
    /// `harder` starts smaller), so rivals of it stay too; the rounds after
    /// it get a new match seed (`seed`, drawn by the caller).
    pub(super) fn set_match(&mut self, id: PlayerId, format: Option<MatchSettings>, seed: u64) {
        if id != self.host {
            return self.fx.to(id, error(ErrorCode::NotHost, "only the host can choose a match"));
        }
        if self.settings.daily.is_some() {
            let why = "a daily room plays single races, not matches";
            return self.fx.to(id, error(ErrorCode::DailyMatch, why));
        }
        if !matches!(self.stage, Stage::Lobby) {
            return self.fx.to(id, error(ErrorCode::WrongPhase, "a match is chosen in the lobby"));
        }
        let (before, before_seed) = (self.settings.format, self.settings.match_seed);
        self.settings.format = format;
        self.settings.match_seed = seed;
        if let Err((code, why)) = self.set_board(self.first_board(self.settings.board.seed())) {
            (self.settings.format, self.settings.match_seed) = (before, before_seed);
            return self.fx.to(id, error(code, why));
        }
        // The last match's table stays up until the settings change.
        self.the_match = None;
        tracing::info!(rounds = format.map(|f| f.rounds.get()), "match set");
        self.broadcast_room();
    }

    /// The board a rematch plays, or `None`: the same board. After a match,
    /// "play another match": a new one (round 1 on `seed`, the others on
    /// `match_seed`), or the same match again (`same_board`: the same
    /// boards, round by round).
    pub(super) fn rematch_board(
        &mut self,
        same_board: bool,
        seed: u64,
        match_seed: u64,
    ) -> Option<RoundBoard> {
        match (self.settings.format, same_board) {
            (Some(_), true) => {
                let first = self.the_match.as_ref().map_or(self.settings.board.seed(), |m| m.first.0);
                Some(self.first_board(first))
            }
            (Some(_), false) => {
                self.settings.match_seed = match_seed;
                Some(self.first_board(seed))
            }
            (None, true) => None,
            (None, false) => Some(self.first_board(seed)),
        }
    }

    /// A new match on the room's board (its round 1) and match seed, none
    /// of it begun; everyone not watching is in its table.
    fn new_match(&self) -> Option<Match> {
        let format = self.settings.format?;
        let (first, seed) = (self.settings.board.seed(), self.settings.match_seed);
        let mut m = Match::new(format, self.settings.base, first, seed);
        for p in self.members.iter().filter(|p| !p.spectate) {
            m.join(p.id, &p.name);
        }
        tracing::info!(rounds = format.rounds.get(), seed = m.seed.0, "match started");
        Some(m)
    }

    /// The host starts a room that plays matches: a new match, whose first
    /// round (the room's board) begins now.
    pub(super) fn begin_match(&mut self) {
        self.the_match = self.new_match();
        if let Some(m) = &mut self.the_match {
            m.begin();
        }
    }

    /// "Play another match" from the podium: a new match whose first round
    /// follows an intermission, as every later round does.
    pub(super) fn another_match(&mut self, now: Instant) {
        self.the_match = self.new_match();
        let fresh = self.fresh_intermission(1, now);
        if let Stage::Results { intermission, .. } = &mut self.stage {
            *intermission = Some(Box::new(fresh));
        }
        self.broadcast_room();
        if let Some(msg) = self.intermission_message() {
            self.announce(msg);
        }
    }

    /// Whether member `id` races the next round: not watching, and in a
    /// match also connected (a player away misses rounds while away).
    pub(super) fn races_round(&self, id: PlayerId) -> bool {
        let matches = self.settings.format.is_some();
        self.members.iter().any(|m| m.id == id && !m.spectate && (m.connected || !matches))
    }

    /// A round of a match ended with `results`: scored, then an
    /// intermission, or the match is over (`true`: the tally has counted it).
    pub(super) fn round_over(&mut self, results: &ServerMsg, now: Instant) -> bool {
        let (Some(m), ServerMsg::Results { rankings, .. }) = (&mut self.the_match, results) else {
            return false;
        };
        if m.is_over() {
            return false;
        }
        m.record(rankings.clone(), self.settings.rank_by);
        if m.is_over() {
            self.close_match();
            return true;
        }
        let round = m.rounds.len() as u32 + 1;
        let fresh = self.fresh_intermission(round, now);
        if let Stage::Results { intermission, .. } = &mut self.stage {
            *intermission = Some(Box::new(fresh));
        }
        false
    }

    /// An intermission from `now`; of length 0 (`--intermission-secs 0`)
    /// it is due at once, so the next round follows the results at once.
    fn fresh_intermission(&self, round: u32, now: Instant) -> Intermission {
        let t = &self.timings;
        let next = if t.intermission_secs == 0 { now } else { now + t.countdown_step };
        Intermission { round, left: t.intermission_secs, next, held_until: None, was_held: false }
    }

    /// The intermission's message, when one is on (after `results`); none
    /// for an intermission of length 0, which is over as soon as it began.
    pub(super) fn intermission_message(&self) -> Option<ServerMsg> {
        match &self.stage {
            Stage::Results { intermission: Some(i), .. } if i.left > 0 || i.held_until.is_some() => {
                Some(i.message())
            }
            _ => None,
        }
    }

    /// Rounds of the room's match scored so far (0 with no match).
    pub(super) fn rounds_played(&self) -> usize {
        self.the_match.as_ref().map_or(0, |m| m.rounds.len())
    }

    /// `match_round` for the match's last round scored.
    pub(super) fn last_round_message(&self) -> Option<ServerMsg> {
        let last = self.the_match.as_ref()?.rounds.last()?;
        Some(ServerMsg::MatchRound(Box::new(last.clone())))
    }

    /// `match_round` for every round played so far, in order: what a member
    /// who resumes or joins mid-match has missed. One message a round, so
    /// none grows with the match.
    pub(super) fn round_messages(&self) -> Vec<ServerMsg> {
        let rounds = self.the_match.as_ref().map_or(&[][..], |m| &m.rounds[..]);
        rounds.iter().map(|r| ServerMsg::MatchRound(Box::new(r.clone()))).collect()
    }

    /// `match_over`, once the match is over and nothing else is on (its
    /// last results showing, or the lobby it ended early into).
    pub(super) fn match_over_message(&self) -> Option<ServerMsg> {
        let m = self.the_match.as_ref().filter(|m| m.is_over())?;
        matches!(self.stage, Stage::Results { intermission: None, .. } | Stage::Lobby)
            .then(|| ServerMsg::MatchOver(Box::new(m.over())))
    }

    /// The intermission's timer: the next step, the next round, or a hold
    /// running out (the countdown then starts over, and cannot be held again).
    pub(super) fn intermission_tick(&mut self, now: Instant) {
        let step = self.timings.countdown_step;
        let full = self.timings.intermission_secs;
        let Stage::Results { intermission: Some(i), .. } = &mut self.stage else { return };
        match i.held_until {
            Some(until) if until <= now => {
                tracing::info!("hold ran out");
                i.held_until = None;
                i.left = full;
                i.next = now + step;
                self.broadcast_room();
            }
            Some(_) => return,
            None if i.next <= now => {
                i.left = i.left.saturating_sub(1);
                i.next = now + step;
                if i.left == 0 {
                    return self.next_round(now);
                }
            }
            None => return,
        }
        if let Some(msg) = self.intermission_message() {
            self.announce(msg);
        }
    }

    /// `hold` (host, intermission, once each): the countdown stops, for at
    /// most [`MAX_HOLD`].
    pub(super) fn hold(&mut self, id: PlayerId, now: Instant) {
        if let Err((code, why)) = self.host_in_intermission(id) {
            return self.fx.to(id, error(code, why));
        }
        let Stage::Results { intermission: Some(i), .. } = &mut self.stage else { return };
        if i.was_held {
            return self.fx.to(id, error(ErrorCode::WrongPhase, "this intermission was held already"));
        }
        i.held_until = Some(now + MAX_HOLD);
        i.was_held = true;
        tracing::info!(round = i.round, "intermission held");
        self.broadcast_room();
        if let Some(msg) = self.intermission_message() {
            self.announce(msg);
        }
    }

    /// `next_round` (host, intermission): the next round now, held or not.
    pub(super) fn go(&mut self, id: PlayerId, now: Instant) {
        if let Err((code, why)) = self.host_in_intermission(id) {
            return self.fx.to(id, error(code, why));
        }
        self.next_round(now);
    }

    fn host_in_intermission(&self, id: PlayerId) -> Result<(), Refusal> {
        if id != self.host {
            return Err((ErrorCode::NotHost, "only the host can hold or start the next round"));
        }
        if self.phase() != Phase::Intermission {
            return Err((ErrorCode::WrongPhase, "that is for the intermission between two rounds"));
        }
        Ok(())
    }

    /// The host who held the intermission left: the hold ends with them,
    /// and the countdown starts over under the next host. `true` if a hold
    /// ended (the caller tells everyone, after the new `room`).
    pub(super) fn release_hold(&mut self, now: Instant) -> bool {
        let step = self.timings.countdown_step;
        let full = self.timings.intermission_secs;
        let Stage::Results { intermission: Some(i), .. } = &mut self.stage else { return false };
        if i.held_until.take().is_none() {
            return false;
        }
        i.left = full;
        i.next = now + step;
        true
    }

    /// The next round of the match: its board, and everyone who races it
    /// counting down. Nobody left to race: the match is over; everyone
    /// away: the intermission starts over (they may still resume).
    pub(super) fn next_round(&mut self, now: Instant) {
        if !self.members.iter().any(|p| !p.spectate) {
            tracing::info!("nobody left to race: the match ends");
            return self.end_early();
        }
        if !self.members.iter().any(|p| self.races_round(p.id)) {
            return self.restart_intermission(now);
        }
        let Some(spec) = self.the_match.as_mut().and_then(Match::begin) else { return };
        if let Err((code, why)) = self.set_board(spec) {
            // Very rare (a board no attempt could build): the match stops
            // where it stands rather than race another board than its own.
            self.fx.all(error(code, why));
            return self.end_early();
        }
        let round = self.the_match.as_ref().map_or(0, |m| m.begun);
        tracing::info!(round, "next round");
        let racers = self.round_racers();
        self.countdown(racers, now);
    }

    /// Everyone who would race is away: the intermission starts over.
    fn restart_intermission(&mut self, now: Instant) {
        let Some(m) = &self.the_match else { return };
        let fresh = self.fresh_intermission(m.rounds.len() as u32 + 1, now);
        if let Stage::Results { intermission, .. } = &mut self.stage {
            *intermission = Some(Box::new(fresh));
        }
        self.broadcast_room();
        if let Some(msg) = self.intermission_message() {
            self.announce(msg);
        }
    }

    /// Every racer of a round left during its countdown: the round is
    /// raced again by whoever is left, or the match ends (into the lobby).
    pub(super) fn countdown_emptied(&mut self, now: Instant) {
        if let Some(m) = &mut self.the_match {
            m.unbegin();
        }
        if self.members.iter().any(|p| self.races_round(p.id)) {
            return self.next_round(now);
        }
        self.stage = Stage::Lobby;
        self.end_early();
    }

    /// The match ends before its last round; everyone is told.
    fn end_early(&mut self) {
        if let Some(m) = &mut self.the_match {
            m.end_early();
        }
        self.close_match();
        self.broadcast_room();
        if let Some(msg) = self.match_over_message() {
            self.announce(msg);
        }
    }

    /// The match is over: the tally counts its winners.
    fn close_match(&mut self) {
        let Some(m) = &self.the_match else { return };
        let winners: Vec<(PlayerId, String)> = m
            .winners()
            .into_iter()
            .filter_map(|id| m.players.iter().find(|p| p.id == id).map(|p| (id, p.name.clone())))
            .collect();
        let members: Vec<PlayerId> = self.members.iter().map(|p| p.id).collect();
        count_wins(&mut self.tally, &winners, |id| members.contains(&id), MAX_TALLY);
        if let Stage::Results { intermission, .. } = &mut self.stage {
            *intermission = None;
        }
        tracing::info!(winners = winners.len(), "match over");
    }
}

/// A single race's board: the room's size on `seed`.
fn single(size: Size, seed: u64) -> RoundBoard {
    RoundBoard { game: size.game(), size, seed: mazerace_protocol::Seed(seed) }
}
