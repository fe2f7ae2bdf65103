//! The lobby half of the room's state machine: ready flags and the start
//! (with a daily attempt saved before its countdown), the countdown's
//! messages, the start signal, rematches, and members leaving with the host
//! handed over. Same [`Room`] as `state.rs`.

use std::sync::Arc;

use mazerace_protocol::messages::{ErrorCode, Phase, PlayerId, RacerStatus, ServerMsg};
use tokio::time::Instant;

use super::effects::Effect;
use super::race::{Race, Racer};
use super::state::{error, Room, Stage};

impl Room {
    pub(super) fn ready(&mut self, id: PlayerId, ready: bool, now: Instant) {
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
            // Everyone sees the lobby they all said ready in, then the countdown.
            self.flush_room();
            let host = self.host;
            self.start(host, now);
        }
    }

    pub(super) fn start(&mut self, id: PlayerId, now: Instant) {
        let racers = self.round_racers();
        if !racers.iter().any(|r| r.rival.is_none()) {
            return self.fx.to(id, error(ErrorCode::WrongPhase, "nobody to race: everyone is spectating"));
        }
        if self.settings.format.is_some() {
            if self.the_match.as_ref().is_some_and(|m| !m.is_over()) {
                // A match moved here between two rounds (`export.rs`): its
                // next round, the score kept. Nowhere else does a lobby hold
                // a match under way (one that empties ends into the lobby over).
                return self.next_round(now);
            }
            self.begin_match();
        }
        if self.settings.daily.is_some() {
            // The attempt is saved before it starts: one that could not be
            // (a full disk, the database away) is refused now, not found
            // out at the finish. (A rival is never an attempt.)
            for r in racers.iter().filter(|r| r.rival.is_none()) {
                if let Some(run) = super::play::daily_run(&self.settings, r) {
                    self.fx.push(Effect::DailyStarted { player: r.id, run });
                }
            }
            self.stage = Stage::Saving { racers };
            return;
        }
        self.countdown(racers, now);
    }

    /// Who races the next race or round on the room's board: the members
    /// who race it ([`Room::races_round`]), then the rivals.
    pub(super) fn round_racers(&self) -> Vec<Racer> {
        let board = &self.settings.board;
        self.members
            .iter()
            .filter(|m| self.races_round(m.id))
            .map(|m| Racer::new(m.id, Arc::clone(&m.name), Arc::clone(&m.token), board))
            .chain(self.rivals.iter().map(|r| r.racer(board)))
            .collect()
    }

    /// The daily store answered the attempt's start: `Some(ranked)` once it
    /// is saved (ranked or practice), `None` if it could not be.
    pub(super) fn daily_saved(
        &mut self,
        id: PlayerId,
        ranked: Option<crate::daily::DailyStart>,
        now: Instant,
    ) {
        let Stage::Saving { .. } = &self.stage else { return };
        let Stage::Saving { mut racers } = std::mem::replace(&mut self.stage, Stage::Lobby) else { return };
        match ranked {
            Some(start) => {
                if let Some(d) = &mut self.settings.daily {
                    d.ranked = start.ranked;
                    d.capped = start.capped;
                }
                self.countdown(racers, now);
            }
            None => {
                // Nothing was saved, so nothing is to be reported as ended.
                racers.iter_mut().for_each(|r| r.reported = true);
                let why =
                    "your daily attempt could not be saved, so it has not started; try again in a moment";
                self.fx.to(id, error(ErrorCode::DailyUnavailable, why));
            }
        }
    }

    pub(super) fn countdown(&mut self, racers: Vec<Racer>, now: Instant) {
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
        let board = self.public_board();
        self.announce(ServerMsg::Countdown { seconds, board });
    }

    pub(super) fn begin_race(&mut self, now: Instant) {
        let Stage::Countdown { racers, .. } = std::mem::replace(&mut self.stage, Stage::Lobby) else {
            return;
        };
        let t = &self.timings;
        let daily = self.settings.daily.is_some();
        let in_match = self.the_match.as_ref().is_some_and(|m| !m.is_over());
        let (limit, window) = (t.race_time_limit, t.progress);
        let mut race = Race::new(racers, &self.settings.board, now, limit, window, daily, in_match);
        // Only a ranked daily attempt is paced: practice and private rooms
        // keep the connection's message rate alone.
        if self.settings.daily.as_ref().is_some_and(|d| d.ranked) {
            race.pace = Some(t.ranked_pace);
        }
        let (clock, time_limit_ms) = (race.clock, t.race_time_limit.as_millis() as u64);
        tracing::info!(seed = self.settings.board.seed(), "race started");
        self.stage = Stage::Racing(race);
        self.broadcast_room();
        let board = self.public_board();
        self.announce(ServerMsg::RaceStart { board, time_limit_ms, clock });
    }

    pub(super) fn rematch(
        &mut self,
        id: PlayerId,
        same_board: bool,
        seed: u64,
        match_seed: u64,
        now: Instant,
    ) {
        if id != self.host {
            return self.fx.to(id, error(ErrorCode::NotHost, "only the host can call a rematch"));
        }
        if self.phase() == Phase::Intermission {
            let why = "the match goes on: its next round starts by itself";
            return self.fx.to(id, error(ErrorCode::WrongPhase, why));
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
        match self.rematch_board(same_board, seed, match_seed) {
            None => self.keep_last_runs(),
            Some(spec) => {
                if let Err((code, why)) = self.set_board(spec) {
                    return self.fx.to(id, error(code, why));
                }
            }
        }
        for m in &mut self.members {
            m.ready = false;
        }
        tracing::info!(same_board, "rematch");
        if self.settings.format.is_some() {
            // "Play another match": a new table, and its first round counted
            // down like the rounds between (the host may start it at once or
            // hold it), from the podium, with no trip through the lobby.
            return self.another_match(now);
        }
        self.the_match = None;
        self.stage = Stage::Lobby;
        self.broadcast_room();
    }

    // ---- leaving ----

    pub(super) fn leave(&mut self, id: PlayerId, expired: bool, now: Instant) {
        let Some(idx) = self.members.iter().position(|m| m.id == id) else { return };
        self.members.remove(idx);
        tracing::info!(player = id, expired, "player left");
        // A racer who leaves before the end is listed as `left`.
        let stopped = match &mut self.stage {
            Stage::Saving { racers } | Stage::Countdown { racers, .. } => {
                racers.iter_mut().find(|r| r.id == id).is_some_and(|r| r.stop(RacerStatus::Left))
            }
            Stage::Racing(race) => {
                let stopped = race.racer_mut(id).is_some_and(|r| r.stop(RacerStatus::Left));
                if stopped {
                    race.progress.schedule(now, self.load);
                }
                stopped
            }
            Stage::Lobby | Stage::Results { .. } => false,
        };
        if stopped {
            self.daily_ended(id);
        }
        if let Some(m) = self.the_match.as_mut().filter(|m| !m.is_over()) {
            m.leave(id);
        }
        let released = self.host == id && self.release_hold(now);
        if self.host == id {
            // A player, racing and here first; a screen only when no player
            // is left (it never acts as host: `screens.rs`).
            let players = || self.members.iter().filter(|m| !m.screen);
            let next = players()
                .find(|m| !m.spectate && m.connected)
                .or_else(|| players().find(|m| m.connected))
                .or_else(|| players().next())
                .or_else(|| self.members.first());
            if let Some(m) = next {
                self.host = m.id;
                tracing::info!(host = m.id, "host handed over");
            }
        }
        if !self.members.is_empty() {
            self.broadcast_room();
            if let Some(msg) = self.intermission_message().filter(|_| released) {
                self.announce(msg);
            }
            self.check_end(now);
        }
    }
}
