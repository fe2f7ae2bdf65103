//! One race in a room: its racers, each with their own game judged by the
//! protocol crate's engine, the race clock, and what each racer's line says
//! in `progress`, `finished` and `results`. Pure: time comes in as `now`.

use std::sync::Arc;
use std::time::Duration;

use mazerace_protocol::daily::DailyDate;
use mazerace_protocol::messages::{PlayerId, Progress, RacerStatus, RankBy, ServerMsg};
use mazerace_protocol::play::GameView;
use mazerace_protocol::race::{self, Clock, Entry};
use mazerace_protocol::{Action, Board, GoalDistances, PlayerGame, Reject, Status};
use tokio::time::Instant;

use super::progress::{Change, Coalescer, Window};
pub use crate::daily::pace::Pace;
use crate::daily::DailyOutcome;

/// One racer in one race.
pub struct Racer {
    pub id: PlayerId,
    pub name: Arc<str>,
    pub token: Arc<str>,
    pub game: PlayerGame,
    pub status: RacerStatus,
    /// The server's time for this racer's finish.
    pub time_ms: Option<u64>,
    pub first_move: Option<Instant>,
    /// Accepted actions, in order, each with its time since the racer's
    /// first accepted move (the daily replay).
    pub actions: Vec<(Action, u64)>,
    /// What changed since the last `progress`.
    pub change: Change,
    /// A daily attempt's end was reported to the store.
    pub reported: bool,
    /// This attempt's id for the daily store.
    pub attempt: u64,
    /// Paced races: when the racer's next move is due by the floor alone
    /// (GCRA's theoretical arrival time); `None` before their first.
    pub due: Option<Instant>,
    /// A rival (a stored run played back, `rival.rs`); `None`: a player.
    pub rival: Option<Box<Playback>>,
}

/// A rival racer's place in its script (`rival.rs` plays it).
#[derive(Clone, Debug)]
pub struct Playback {
    pub script: Arc<[(Action, u64)]>,
    pub next: usize,
}

impl Racer {
    pub fn new(id: PlayerId, name: Arc<str>, token: Arc<str>, board: &Board) -> Self {
        Racer {
            id,
            name,
            token,
            game: PlayerGame::new(board),
            status: RacerStatus::Racing,
            time_ms: None,
            first_move: None,
            actions: Vec::new(),
            change: Change::None,
            reported: false,
            attempt: crate::daily::next_attempt(),
            due: None,
            rival: None,
        }
    }

    pub fn racing(&self) -> bool {
        self.status == RacerStatus::Racing
    }

    /// A player (not a rival) still racing.
    pub fn player_racing(&self) -> bool {
        self.racing() && self.rival.is_none()
    }

    pub fn progress(&self, left: &GoalDistances) -> Progress {
        let pos = self.game.pos();
        Progress {
            id: self.id,
            pos,
            steps: self.game.steps(),
            run: self.game.run(),
            ghost: self.game.companion(),
            status: self.status,
            left: if self.status == RacerStatus::Finished { 0 } else { left.at(pos) },
            name: None,
        }
    }

    pub fn entry(&self) -> Entry {
        Entry {
            id: self.id,
            name: self.name.to_string(),
            status: self.status,
            steps: self.game.steps(),
            time_ms: self.time_ms,
        }
    }

    /// How the attempt ended, for the daily store; `pace`: the race's, to
    /// tell a run paced at its floor end to end.
    pub fn outcome(&self, pace: Option<Pace>) -> DailyOutcome {
        // A daily run is timed from its first move (RULES.md), also when
        // a rival made the race's clock the start signal's (practice).
        let time_ms = self.time_ms.and(self.actions.last().map(|&(_, t)| t));
        DailyOutcome {
            finished: self.status == RacerStatus::Finished,
            steps: self.game.steps(),
            time_ms,
            at_floor: match (pace, time_ms) {
                (Some(pace), Some(t)) => pace.at_floor(self.actions.len(), t),
                _ => false,
            },
            moves: self.actions.iter().map(|&(a, _)| a).collect(),
            move_times_ms: Some(self.actions.iter().map(|&(_, t)| t).collect()),
        }
    }

    /// Ends the run (left, gave up, timed out) if it is still going.
    pub fn stop(&mut self, status: RacerStatus) -> bool {
        if !self.racing() {
            return false;
        }
        self.status = status;
        self.change = Change::Other;
        true
    }
}

/// A race under way or just over.
pub struct Race {
    pub racers: Vec<Racer>,
    pub started: Instant,
    pub deadline: Instant,
    pub clock: Clock,
    pub progress: Coalescer,
    /// The board's distances to the goal, for `progress.left`.
    pub left: GoalDistances,
    /// Ranked daily races: moves paced to human input; `None`: only the
    /// connection's message rate applies.
    pub pace: Option<Pace>,
    /// When the next rival action is due (`None`: no rival moves to come).
    pub rivals_due: Option<Instant>,
}

/// What one accepted or refused action led to.
pub struct Acted {
    pub reply: ServerMsg,
    pub ok: bool,
    /// The racer's run is over with this action (won or out of steps).
    pub ended: bool,
    pub won: bool,
}

impl Race {
    pub fn new(
        racers: Vec<Racer>,
        board: &Board,
        now: Instant,
        limit: Duration,
        window: Window,
        daily: bool,
        in_match: bool,
    ) -> Self {
        // A rival is someone to race: its moves start at the start signal
        // (where its script's times count from), and so does everyone's
        // clock, so the race on screen is the race in the results. A
        // match's round is a race whoever turns up: raced alone, it is
        // timed from the signal too, so studying its board is no edge.
        let rivals = racers.iter().any(|r| r.rival.is_some());
        let clock = match in_match {
            true => Clock::Start,
            false => Clock::for_race(daily && !rivals, racers.len()),
        };
        let mut racers = racers;
        racers.iter_mut().filter(|r| r.rival.is_some()).for_each(|r| r.first_move = Some(now));
        let mut race = Race {
            racers,
            started: now,
            deadline: now + limit,
            clock,
            progress: Coalescer::new(window),
            left: board.goal_distances(),
            pace: None,
            rivals_due: None,
        };
        race.rivals_due = race.next_rival_action();
        race
    }

    pub fn racer(&self, id: PlayerId) -> Option<&Racer> {
        self.racers.iter().find(|r| r.id == id)
    }

    pub fn racer_mut(&mut self, id: PlayerId) -> Option<&mut Racer> {
        self.racers.iter_mut().find(|r| r.id == id)
    }

    /// In this race and not gone from it.
    pub fn in_race(&self, id: PlayerId) -> bool {
        self.racers.iter().any(|r| r.id == id && r.status != RacerStatus::Left)
    }

    /// Whether a player (not a rival) is still racing.
    pub fn anyone_racing(&self) -> bool {
        self.racers.iter().any(Racer::player_racing)
    }

    /// Applies one action of racer `idx` at `now`.
    pub fn act(&mut self, idx: usize, seq: u32, action: Action, now: Instant) -> Acted {
        let (clock, started) = (self.clock, self.started);
        let r = &mut self.racers[idx];
        let paced = match self.pace {
            Some(pace) if r.racing() => match pace.admit(r.due, now) {
                Some(due) => Ok(Some(due)),
                None => Err(Reject::TooFast),
            },
            _ => Ok(None),
        };
        let result = match paced {
            Err(e) => Err(e),
            Ok(_) if !r.racing() => Err(Reject::GameOver),
            Ok(due) => r.game.apply(action).inspect(|_| {
                if due.is_some() {
                    r.due = due;
                }
            }),
        };
        let ok = result.is_ok();
        if ok {
            let first = *r.first_move.get_or_insert(now);
            r.actions.push((action, now.saturating_duration_since(first).as_millis() as u64));
            r.change = r.change.with_own_action();
            match r.game.status() {
                Status::Won => {
                    r.status = RacerStatus::Finished;
                    let from = clock.origin(started, r.first_move);
                    r.time_ms = Some(now.saturating_duration_since(from).as_millis() as u64);
                }
                Status::OutOfSteps => r.status = RacerStatus::OutOfSteps,
                Status::Playing => {}
            }
        }
        let reply = answer(action, seq, result.err(), r.game.view());
        let ended = ok && !r.racing();
        Acted { reply, ok, ended, won: ended && r.status == RacerStatus::Finished }
    }

    /// The answer to racer `idx`'s action refused before the game saw it
    /// (`reason`): its game as it stands.
    pub fn refused(&self, idx: usize, seq: u32, action: Action, reason: Reject) -> ServerMsg {
        answer(action, seq, Some(reason), self.racers[idx].game.view())
    }

    /// The `finished` message for a racer who just won.
    pub fn finished(&self, id: PlayerId, by: RankBy) -> Option<ServerMsg> {
        let entries: Vec<Entry> = self.racers.iter().map(Racer::entry).collect();
        let me = entries.iter().find(|e| e.id == id)?;
        let rank = race::rank_among(me, &entries, by);
        tracing::info!(player = id, steps = me.steps, time_ms = me.time_ms, rank, "finished");
        Some(ServerMsg::Finished { player_id: id, steps: me.steps, time_ms: me.time_ms.unwrap_or(0), rank })
    }

    /// The racers that changed since the last `progress`, and whether the
    /// only change is one racer's own actions (that racer is not sent it).
    /// Clears the changes.
    pub fn take_changes(&mut self) -> Option<(Vec<Progress>, Option<PlayerId>)> {
        let changed: Vec<Progress> =
            self.racers.iter().filter(|r| r.change != Change::None).map(|r| r.progress(&self.left)).collect();
        if changed.is_empty() {
            return None;
        }
        let mut changers = self.racers.iter().filter(|r| r.change != Change::None);
        let only_own_moves_of = match (changers.next(), changers.next()) {
            (Some(r), None) if r.change == Change::OwnActions => Some(r.id),
            _ => None,
        };
        for r in &mut self.racers {
            r.change = Change::None;
        }
        Some((changed, only_own_moves_of))
    }

    pub fn all_progress(&self) -> Vec<Progress> {
        self.racers.iter().map(|r| r.progress(&self.left)).collect()
    }

    /// Every racer's progress with their name (the snapshot's): a racer
    /// who left the room is in no `room` any more, yet stays in the race.
    pub fn named_progress(&self) -> Vec<Progress> {
        let named = |r: &Racer| Progress { name: Some(r.name.to_string()), ..r.progress(&self.left) };
        self.racers.iter().map(named).collect()
    }

    /// Milliseconds on `id`'s race clock at `now` (`None` before a
    /// first-move clock has started).
    pub fn elapsed_ms(&self, id: Option<PlayerId>, now: Instant) -> Option<u64> {
        let from = match (self.clock, id.and_then(|id| self.racer(id))) {
            (Clock::FirstMove, Some(r)) => r.first_move?,
            _ => self.started,
        };
        Some(now.saturating_duration_since(from).as_millis() as u64)
    }

    /// The `results` message; with `hidden_until` (a daily board's day
    /// that is still on) the reveal's solution is withheld.
    pub fn results(&self, board: &Board, by: RankBy, hidden_until: Option<DailyDate>) -> ServerMsg {
        let entries: Vec<Entry> = self.racers.iter().map(Racer::entry).collect();
        let mut rankings = race::rank(&entries, by, board.best());
        for line in &mut rankings {
            line.rival = self.racer(line.player_id).is_some_and(|r| r.rival.is_some());
        }
        tracing::info!(racers = rankings.len(), "results");
        let mut reveal = race::reveal(board);
        if hidden_until.is_some() {
            reveal.solution_mut().clear();
        }
        ServerMsg::Results { rankings, reveal, hidden_until }
    }
}

/// `move_result` or `rewind_result` (by the action) for `seq`: applied
/// unless refused for `reason`, with the racer's game `view` after it.
fn answer(action: Action, seq: u32, reason: Option<Reject>, view: GameView) -> ServerMsg {
    let ok = reason.is_none();
    match action {
        Action::Move(_) => ServerMsg::MoveResult { seq, ok, reason, view },
        Action::Rewind => ServerMsg::RewindResult { seq, ok, reason, view },
    }
}
