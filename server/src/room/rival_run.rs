//! A stored run made ready to race as a rival (issue 16): [`Rival::check`]
//! takes a run only of this room's board, replayed here to exactly its
//! stored steps and time (a rules change since is refused, never shown
//! wrong); runs stored without times are spread at a steady pace over
//! their stored time. A [`Rival`] becomes a [`Racer`] with a
//! [`super::race::Playback`] when its race starts.
//!
//! Data only, no [`super::state::Room`]: the room's state holds its
//! rivals, and `rival.rs` (the room's rival commands) uses both.

use std::sync::Arc;

use mazerace_protocol::messages::{ErrorCode, PlayerId, RacerStatus};
use mazerace_protocol::{Action, Board, PlayerGame, Status};

use super::race::{Playback, Racer};
use crate::daily::RivalRun;

/// Rivals a room may hold at once.
pub const MAX_RIVALS: usize = 3;

/// A run checked against the room's board, ready to race.
#[derive(Clone, Debug)]
pub struct Rival {
    pub id: PlayerId,
    pub name: Arc<str>,
    /// The stored run, when it came from the store (`None`: a run of this
    /// room's last race).
    pub run_id: Option<i64>,
    /// Each action with its ms from the run's clock origin; the last is the
    /// finish, at exactly the run's time.
    pub script: Arc<[(Action, u64)]>,
}

/// Why a run cannot race here.
pub type Refusal = (ErrorCode, &'static str);

impl Rival {
    /// `run` as a rival on `board`: of this board, finished, and replaying
    /// to exactly its stored steps and time.
    pub fn check(id: PlayerId, run: &RivalRun, board: &Board) -> Result<Rival, Refusal> {
        if run.size != board.size() || run.seed != board.seed() {
            return Err((ErrorCode::RivalOtherBoard, "that run was made on another board"));
        }
        let times = match &run.times_ms {
            Some(t) if t.len() == run.actions.len() && t.windows(2).all(|w| w[0] <= w[1]) => t.clone(),
            // Older runs (or times that cannot be right): a steady pace
            // that ends at the stored time.
            _ => steady(run.actions.len(), run.time_ms),
        };
        let script: Arc<[(Action, u64)]> = run.actions.iter().copied().zip(times).collect();
        let rival = Rival { id, name: run.name.as_str().into(), run_id: Some(run.run_id), script };
        rival.replays_to(board, run.steps, run.time_ms)?;
        Ok(rival)
    }

    /// Whether the script wins on `board` in exactly `steps` and `time_ms`.
    fn replays_to(&self, board: &Board, steps: u32, time_ms: u64) -> Result<(), Refusal> {
        const CHANGED: Refusal =
            (ErrorCode::RivalChanged, "that run no longer replays to its stored result (the rules changed)");
        let mut game = PlayerGame::new(board);
        for &(action, _) in self.script.iter() {
            game.apply(action).map_err(|_| CHANGED)?;
        }
        let end = self.script.last().map(|&(_, t)| t);
        if game.status() != Status::Won || game.steps() != steps || end != Some(time_ms) {
            return Err(CHANGED);
        }
        Ok(())
    }

    /// Whether `other` is the same run: two stored runs by their ids;
    /// otherwise (one of them a finish of the room's last race, `pick:
    /// "last"`, which has no id) the same moves at the same times from the
    /// first move. That is how a last run is known for the stored run it
    /// also is (a daily room stores every attempt):
    /// before, `run_id` then `last` raced it twice. Its script starts at
    /// the race's clock (the start signal, with a rival or a second racer),
    /// the stored one at the first move, so times are compared from each
    /// one's first action (wrapping: equal shifts, and never a panic on an
    /// odd stored time).
    pub fn same_run(&self, other: &Rival) -> bool {
        if let (Some(a), Some(b)) = (self.run_id, other.run_id) {
            return a == b;
        }
        let (mine, theirs) = (&self.script, &other.script);
        if Arc::ptr_eq(mine, theirs) {
            return true;
        }
        let (Some(&(_, t0)), Some(&(_, u0))) = (mine.first(), theirs.first()) else {
            return mine.is_empty() && theirs.is_empty();
        };
        mine.len() == theirs.len()
            && mine
                .iter()
                .zip(theirs.iter())
                .all(|(&(a, t), &(b, u))| a == b && t.wrapping_sub(t0) == u.wrapping_sub(u0))
    }

    /// The rival as a racer (not yet started: [`Race::new`] puts its clock
    /// at the start signal).
    pub fn racer(&self, board: &Board) -> Racer {
        let mut r = Racer::new(self.id, Arc::clone(&self.name), "".into(), board);
        // Never a daily attempt: nothing to report.
        r.reported = true;
        r.rival = Some(Box::new(Playback { script: Arc::clone(&self.script), next: 0 }));
        r
    }

    /// A finished racer's run (from the room's last race) as a rival
    /// script: times from that race's clock origin, so it ends at its time.
    /// Its actions' times count from the racer's first move; the lead of
    /// that move on the clock's origin is what the finish time says is left
    /// (not the first move's own instant: two roundings to whole ms could
    /// then miss the time by one).
    pub fn from_racer(id: PlayerId, r: &Racer) -> Option<Rival> {
        let time_ms = r.time_ms.filter(|_| r.status == RacerStatus::Finished)?;
        let &(_, last) = r.actions.last()?;
        let lead = time_ms.checked_sub(last)?;
        let script: Arc<[(Action, u64)]> = r.actions.iter().map(|&(a, t)| (a, lead + t)).collect();
        Some(Rival { id, name: Arc::clone(&r.name), run_id: None, script })
    }
}

/// `n` action times spread evenly, the last at `time_ms`.
fn steady(n: usize, time_ms: u64) -> Vec<u64> {
    match n {
        0 => Vec::new(),
        1 => vec![time_ms],
        _ => (0..n as u64).map(|i| time_ms * i / (n as u64 - 1)).collect(),
    }
}
