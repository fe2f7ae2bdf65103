//! Rivals (issue 16): a stored run raced as one more racer. A rival is a
//! [`Racer`] like any other, with a [`Playback`]: the room's one timer
//! applies each stored action through the protocol crate's engine at its
//! stored time after the start signal, so its position, steps, finish and
//! time are judged exactly as a player's (and `progress`, `finished` and
//! `results` carry it unchanged). It never reaches the daily store.
//!
//! A run becomes a [`Rival`] only after [`Rival::check`] (`rival_run.rs`).
//! Here: the lobby's `add_rival` / `remove_rival` and the rivals' moves
//! during a race (same [`Room`] as `state.rs`).

use mazerace_protocol::messages::{ErrorCode, PlayerId, RacerStatus, RivalPick, ServerMsg};
use tokio::time::Instant;

use super::effects::Effect;
use super::race::Race;
use super::rival_run::{Refusal, Rival, MAX_RIVALS};
use super::state::{error, Room, Stage};
use crate::daily::{RivalQuery, RivalRun};

/// Why a run already raced as a rival here is refused.
const ALREADY_IN: &str = "that run is already a rival in this room";

impl Race {
    /// The instant the next rival action is due, if any.
    pub fn next_rival_action(&self) -> Option<Instant> {
        self.racers
            .iter()
            .filter(|r| r.racing())
            .filter_map(|r| r.rival.as_ref())
            .filter_map(|p| p.script.get(p.next))
            .map(|&(_, t)| self.started + std::time::Duration::from_millis(t))
            .min()
    }

    /// Applies every rival action due by `until`, each at its own instant
    /// (so a late timer changes no time). Returns the rivals that finished.
    pub fn play_rivals(&mut self, until: Instant) -> Vec<PlayerId> {
        let mut won = Vec::new();
        for idx in 0..self.racers.len() {
            loop {
                let r = &self.racers[idx];
                let Some(p) = r.rival.as_ref().filter(|_| r.racing()) else { break };
                let Some(&(action, t)) = p.script.get(p.next) else { break };
                let at = self.started + std::time::Duration::from_millis(t);
                if at > until {
                    break;
                }
                if let Some(p) = self.racers[idx].rival.as_mut() {
                    p.next += 1;
                }
                let acted = self.act(idx, 0, action, at);
                if !acted.ok {
                    // Checked before the race, so this is a bug: stop the
                    // rival rather than show a run it did not make.
                    tracing::error!(rival = self.racers[idx].id, "a rival's action was refused");
                    self.racers[idx].stop(RacerStatus::GaveUp);
                }
                if acted.won {
                    won.push(self.racers[idx].id);
                }
            }
        }
        self.rivals_due = self.next_rival_action();
        won
    }
}

impl Room {
    /// `add_rival` from `id`.
    pub(super) fn add_rival(&mut self, id: PlayerId, run_id: Option<i64>, pick: Option<RivalPick>) {
        if let Err((code, why)) = self.may_add_rival(id) {
            return self.fx.to(id, error(code, why));
        }
        if run_id.is_some_and(|run| self.rivals.iter().any(|r| r.run_id == Some(run))) {
            return self.fx.to(id, error(ErrorCode::RivalRefused, ALREADY_IN));
        }
        let query = match (run_id, pick, &self.settings.daily) {
            (Some(run), None, _) => RivalQuery::Run(run),
            (None, Some(RivalPick::Last), _) => return self.add_last_run(id),
            (None, Some(pick), Some(d)) => {
                let (date, game, size) = (d.date, self.settings.game, self.settings.size);
                match pick {
                    RivalPick::Best => RivalQuery::Best { date, game, size },
                    _ => RivalQuery::Mine { date, game, size },
                }
            }
            (None, Some(_), None) => {
                let why = "best and mine are for a daily room; name the run_id instead";
                return self.fx.to(id, error(ErrorCode::RivalRefused, why));
            }
            _ => {
                let why = "add_rival takes a run_id or a pick, not both";
                return self.fx.to(id, error(ErrorCode::BadMessage, why));
            }
        };
        let Some(m) = self.members.iter().find(|m| m.id == id) else { return };
        let token = m.token.to_string();
        self.fx.push(Effect::LoadRival { player: id, query, token });
    }

    fn may_add_rival(&self, id: PlayerId) -> Result<(), Refusal> {
        if id != self.host {
            return Err((ErrorCode::NotHost, "only the host can add a rival"));
        }
        if !matches!(self.stage, Stage::Lobby) {
            return Err((ErrorCode::WrongPhase, "rivals are added in the lobby"));
        }
        if self.rivals.len() >= MAX_RIVALS {
            return Err((ErrorCode::RivalRefused, "the room has all the rivals it takes (3)"));
        }
        // Racing a rival is never a ranked attempt.
        if self.settings.daily.as_ref().is_some_and(|d| d.ranked) {
            return Err((ErrorCode::RivalRefused, "race a rival after your ranked try on this board"));
        }
        Ok(())
    }

    fn add_last_run(&mut self, id: PlayerId) {
        let rid = self.free_rival_id();
        let rival = self.last.iter().find(|(p, _)| *p == id).map(|(_, r)| Rival { id: rid, ..r.clone() });
        match rival {
            Some(r) => self.push_rival(id, r),
            None => {
                let why = "you have no finished run in this room's last race";
                self.fx.to(id, error(ErrorCode::RivalNotFound, why));
            }
        }
    }

    /// The store answered `add_rival` for `id`.
    pub(super) fn rival_loaded(&mut self, id: PlayerId, run: Result<Box<RivalRun>, (ErrorCode, String)>) {
        let run = match run {
            Ok(run) => run,
            Err((code, why)) => return self.fx.to(id, ServerMsg::Error { code, message: why }),
        };
        if let Err((code, why)) = self.may_add_rival(id) {
            return self.fx.to(id, error(code, why));
        }
        match Rival::check(self.free_rival_id(), &run, &self.settings.board) {
            Ok(rival) => self.push_rival(id, rival),
            Err((code, why)) => self.fx.to(id, error(code, why)),
        }
    }

    /// `id`'s rival joins the next race, unless the room has that run already
    /// (`best` picked three times would race one run three times).
    fn push_rival(&mut self, id: PlayerId, rival: Rival) {
        if self.rivals.iter().any(|r| r.same_run(&rival)) {
            return self.fx.to(id, error(ErrorCode::RivalRefused, ALREADY_IN));
        }
        tracing::info!(rival = rival.id, run_id = rival.run_id, "rival added");
        let rid = rival.id;
        self.rivals.push(rival);
        self.give_colour(rid);
        self.broadcast_room();
    }

    /// `remove_rival` from `id`.
    pub(super) fn remove_rival(&mut self, id: PlayerId, rival: PlayerId) {
        if id != self.host {
            return self.fx.to(id, error(ErrorCode::NotHost, "only the host can remove a rival"));
        }
        if !matches!(self.stage, Stage::Lobby) {
            return self.fx.to(id, error(ErrorCode::WrongPhase, "rivals are removed in the lobby"));
        }
        let before = self.rivals.len();
        self.rivals.retain(|r| r.id != rival);
        if self.rivals.len() == before {
            return self.fx.to(id, error(ErrorCode::RivalNotFound, "no rival has that id"));
        }
        self.broadcast_room();
    }

    /// Rival ids count down from the top of the id space (players' count
    /// up from 1), so they never meet.
    fn free_rival_id(&self) -> PlayerId {
        (0..=MAX_RIVALS as u32)
            .map(|k| PlayerId::MAX - k)
            .find(|&k| !self.rivals.iter().any(|r| r.id == k))
            .unwrap_or(PlayerId::MAX - MAX_RIVALS as u32)
    }

    /// Rivals' actions due by `now`, with their `finished` messages.
    pub(super) fn rivals_move(&mut self, now: Instant) {
        let Stage::Racing(race) = &mut self.stage else { return };
        if race.rivals_due.is_none_or(|t| t > now) {
            return;
        }
        // Nothing after the time limit happens (the tick then times out).
        let won = race.play_rivals(now.min(race.deadline));
        race.progress.schedule(now, self.load);
        for id in won {
            if let Some(msg) = race.finished(id, self.settings.rank_by) {
                self.fx.all(msg);
            }
        }
    }

    /// Nobody but rivals is racing: their remaining actions are played out
    /// at once, each at its own time (up to the time limit), so the results
    /// need not wait for a run whose end is already known.
    pub(super) fn rivals_play_out(&mut self) {
        let Stage::Racing(race) = &mut self.stage else { return };
        let won = race.play_rivals(race.deadline);
        for r in race.racers.iter_mut().filter(|r| r.rival.is_some()) {
            r.stop(RacerStatus::TimedOut);
        }
        for id in won {
            if let Some(msg) = race.finished(id, self.settings.rank_by) {
                self.fx.all(msg);
            }
        }
    }

    /// At a same-board rematch: each finisher's run, for `pick: "last"`.
    pub(super) fn keep_last_runs(&mut self) {
        let Stage::Results { race, .. } = &self.stage else { return };
        self.last = race
            .racers
            .iter()
            .filter(|r| r.rival.is_none())
            .filter_map(|r| Some((r.id, Rival::from_racer(0, r)?)))
            .collect();
    }
}
