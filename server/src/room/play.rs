//! The racing half of the room's state machine: actions, giving up, the
//! timer (countdown, `progress`, time limit), the end of a race, and the
//! daily attempt's start and end as effects. Same [`Room`] as `state.rs`.

use mazerace_protocol::daily::DailyDate;
use mazerace_protocol::messages::{ErrorCode, PlayerId, RacerStatus, ServerMsg};
use mazerace_protocol::{Action, Reject};
use tokio::time::Instant;

use super::effects::Effect;
use super::race::Racer;
use super::state::{error, Room, Stage};
use super::RoomSettings;
use crate::daily::{secrecy, DailyRun};

impl Room {
    pub(super) fn act(&mut self, id: PlayerId, seq: u32, action: Action, now: Instant) {
        // A racer who left and came back as a spectator keeps their line in
        // the results but is a watcher now, like every spectator.
        let watching = self.watching(id);
        // Rivals' moves due by now come first, so the order of finishes is
        // the order of their times even if the timer is late.
        self.rivals_move(now);
        let idx = match self.acting(id, watching) {
            Ok(idx) => idx,
            Err(why) => return self.fx.to(id, self.not_racing(id, why)),
        };
        let Stage::Racing(race) = &mut self.stage else { return };
        let acted = race.act(idx, seq, action, now);
        if acted.ok {
            race.progress.schedule(now, self.load);
        }
        let finished = if acted.won { race.finished(id, self.settings.rank_by) } else { None };
        self.fx.to(id, acted.reply);
        if let Some(msg) = finished {
            self.fx.all(msg);
        }
        if acted.ended {
            self.daily_ended(id);
        }
        self.check_end(now);
    }

    /// `id`'s action the connection dropped (over its message rate): the
    /// answer names its `seq` as any action's does, refused as
    /// `rate_limited`, so the client's prediction is corrected by it;
    /// one not racing is told so, as for any action.
    pub(super) fn dropped(&mut self, id: PlayerId, seq: u32, action: Action) {
        let watching = self.watching(id);
        let reply = match (self.acting(id, watching), &self.stage) {
            (Ok(idx), Stage::Racing(race)) => race.refused(idx, seq, action, Reject::RateLimited),
            (Err(why), _) => self.not_racing(id, why),
            (Ok(_), _) => return,
        };
        self.fx.to(id, reply);
    }

    /// The index of the racer `id` acts as, or why one is `not_racing`
    /// (no race on, watching, or left it).
    fn acting(&self, id: PlayerId, watching: bool) -> Result<usize, &'static str> {
        let Stage::Racing(race) = &self.stage else { return Err("no race is on") };
        let idx = race.racers.iter().position(|r| r.id == id && r.status != RacerStatus::Left);
        idx.filter(|_| !watching).ok_or("you are not racing in this race")
    }

    pub(super) fn give_up(&mut self, id: PlayerId, now: Instant) {
        let watching = self.watching(id);
        let Stage::Racing(race) = &mut self.stage else {
            return self.fx.to(id, error(ErrorCode::NotRacing, "no race is on"));
        };
        let stopped = !watching && race.racer_mut(id).is_some_and(|r| r.stop(RacerStatus::GaveUp));
        if !stopped {
            return self.fx.to(id, error(ErrorCode::NotRacing, "you are not racing in this race"));
        }
        tracing::info!(player = id, "gave up");
        race.progress.schedule(now, self.load);
        self.daily_ended(id);
        self.check_end(now);
    }

    pub(super) fn tick(&mut self, now: Instant) {
        match &mut self.stage {
            Stage::Countdown { left, next, .. } if *next <= now => {
                *left = left.saturating_sub(1);
                *next = now + self.timings.countdown_step;
                let left = *left;
                if left == 0 {
                    self.begin_race(now);
                } else {
                    self.countdown_message(left);
                }
            }
            Stage::Racing(_) => {
                self.rivals_move(now);
                let Stage::Racing(race) = &mut self.stage else { return };
                if race.progress.is_due(now) {
                    self.flush_progress(now);
                }
                let Stage::Racing(race) = &mut self.stage else { return };
                if race.deadline <= now {
                    let timed_out: Vec<PlayerId> = race
                        .racers
                        .iter_mut()
                        .filter_map(|r| r.stop(RacerStatus::TimedOut).then_some(r.id))
                        .collect();
                    tracing::info!(timed_out = timed_out.len(), "time limit reached");
                    for id in timed_out {
                        self.daily_ended(id);
                    }
                    self.finish_race(now);
                }
            }
            Stage::Results { intermission: Some(_), .. } => self.intermission_tick(now),
            Stage::Countdown { .. } | Stage::Lobby | Stage::Saving { .. } | Stage::Results { .. } => {}
        }
    }

    /// One `progress` with the racers that changed, to everyone; when the
    /// only change is one racer's own moves, that racer is skipped: their
    /// `move_result`s said it all already. In a room of two that is a third
    /// of all frames sent.
    fn flush_progress(&mut self, now: Instant) {
        let Stage::Racing(race) = &mut self.stage else { return };
        let changes = race.take_changes();
        race.progress.flushed(now, changes.is_some());
        if let Some((players, skip)) = changes {
            self.fx.push(Effect::Progress { delta: ServerMsg::Progress { players }, skip });
        }
    }

    pub(super) fn check_end(&mut self, now: Instant) {
        match &self.stage {
            Stage::Racing(race) if !race.anyone_racing() => {
                self.rivals_play_out();
                self.finish_race(now)
            }
            Stage::Saving { racers } | Stage::Countdown { racers, .. }
                if !racers.iter().any(Racer::player_racing) =>
            {
                // Every racer left before the start: back to the lobby (in a
                // match, the round is raced by whoever is left).
                if self.the_match.as_ref().is_some_and(|m| !m.is_over()) {
                    return self.countdown_emptied(now);
                }
                self.stage = Stage::Lobby;
                self.broadcast_room();
            }
            _ => {}
        }
    }

    fn finish_race(&mut self, now: Instant) {
        self.flush_progress(now);
        let Stage::Racing(mut race) = std::mem::replace(&mut self.stage, Stage::Lobby) else { return };
        race.progress.cancel();
        let results = race.results(&self.settings.board, self.settings.rank_by, self.solution_hidden_until());
        self.stage = Stage::Results { race, results: results.clone(), intermission: None };
        // In a match: scored first, so `room` shows the table with it.
        let played = self.rounds_played();
        let match_over = self.round_over(&results, now);
        self.broadcast_room();
        self.announce(results);
        if self.rounds_played() > played {
            if let Some(scored) = self.last_round_message() {
                self.announce(scored);
            }
        }
        let then = if match_over { self.match_over_message() } else { self.intermission_message() };
        if let Some(msg) = then {
            self.announce(msg);
        }
    }

    // ---- the daily attempt ----

    /// A daily room's board day while it is on ([`secrecy::day_is_on`]):
    /// its results withhold the solution, practice or ranked alike. A room
    /// not yet told the date (unit tests) keeps it secret.
    fn solution_hidden_until(&self) -> Option<DailyDate> {
        let date = self.settings.daily.as_ref()?.date;
        let on = self.today.is_none_or(|today| secrecy::day_is_on(date, today));
        on.then_some(date)
    }

    /// Racer `id`'s attempt is over: report it once.
    pub(super) fn daily_ended(&mut self, id: PlayerId) {
        let pace = match &self.stage {
            Stage::Racing(race) | Stage::Results { race, .. } => race.pace,
            _ => None,
        };
        let racers = match &mut self.stage {
            Stage::Saving { racers } | Stage::Countdown { racers, .. } => racers,
            Stage::Racing(race) | Stage::Results { race, .. } => &mut race.racers,
            Stage::Lobby => return,
        };
        let Some(r) = racers.iter_mut().find(|r| r.id == id && !r.reported && r.rival.is_none()) else {
            return;
        };
        let Some(run) = daily_run(&self.settings, r) else { return };
        r.reported = true;
        self.fx.push(Effect::DailyEnded { player: id, run, outcome: r.outcome(pace) });
    }
}

/// Who attempts which daily board, for the store (`None` outside a daily room).
pub(super) fn daily_run(settings: &RoomSettings, r: &Racer) -> Option<DailyRun> {
    let d = settings.daily.as_ref()?;
    Some(DailyRun {
        attempt: r.attempt,
        date: d.date,
        game: settings.game,
        size: settings.size,
        seed: d.seed,
        token: r.token.to_string(),
        name: r.name.to_string(),
        address: d.address.clone(),
    })
}
