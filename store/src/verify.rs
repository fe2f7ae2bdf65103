//! The verifier: re-plays every stored run through the rules engine and
//! reports any whose stored result the engine does not reproduce. Backs the
//! `mazerace verify --data-dir` command. It trusts nothing stored but the
//! board address (size, seed) and the move list.

use std::collections::HashMap;
use std::fmt;

use mazerace_protocol::daily::daily_seed;
use mazerace_protocol::{Action, Board, PlayerGame, Reject, Status};

use crate::error::StoreError;
use crate::record::{RunState, StoredRun};
use crate::store::Store;

/// Runs read per page, so a large database is never loaded whole.
const PAGE: u32 = 500;

/// Why a stored run failed verification.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    /// The stored seed is not the daily seed of its date, game and size (only
    /// checked when the verifier is given the salt).
    WrongSeed { expected: u64 },
    /// The board cannot be built from the stored size and seed.
    NoBoard(String),
    /// An action the engine refuses: a stored list holds accepted actions only,
    /// and nothing after the finish.
    Refused { index: usize, action: Action, reason: Reject },
    /// The engine counts a different number of steps.
    Steps { stored: u32, replayed: u32 },
    /// Stored as finished but the replay does not win, or stored as not
    /// finished but the replay wins.
    Outcome { stored: RunState, replayed: Status },
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::WrongSeed { expected } => write!(f, "seed is not the daily seed {expected}"),
            Problem::NoBoard(e) => write!(f, "board cannot be built: {e}"),
            Problem::Refused { index, action, reason } => {
                write!(f, "action #{index} ({action}) is refused: {reason}")
            }
            Problem::Steps { stored, replayed } => {
                write!(f, "stored {stored} steps, the replay takes {replayed}")
            }
            Problem::Outcome { stored, replayed } => {
                write!(f, "stored as {stored:?}, the replay ends {replayed:?}")
            }
        }
    }
}

/// One run that failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    pub run_id: i64,
    pub problem: Problem,
}

/// What the verifier found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VerifyReport {
    /// Runs re-played (finished or not finished).
    pub checked: u64,
    /// Runs still `playing`: nothing to check yet.
    pub open: u64,
    pub mismatches: Vec<Mismatch>,
}

impl VerifyReport {
    /// True when every checked run matched.
    pub fn ok(&self) -> bool {
        self.mismatches.is_empty()
    }
}

impl fmt::Display for VerifyReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for m in &self.mismatches {
            writeln!(f, "run {}: {}", m.run_id, m.problem)?;
        }
        write!(
            f,
            "{} runs checked, {} mismatched, {} still open",
            self.checked,
            self.mismatches.len(),
            self.open
        )
    }
}

/// Re-play every finished and not-finished run, a page of runs per store
/// request (the store serves others in between). With `salt`, also check
/// that each run's seed is the daily seed of its board.
pub async fn verify(store: &Store, salt: Option<&[u8]>) -> Result<VerifyReport, StoreError> {
    let mut report = VerifyReport::default();
    // Everyone plays the same few boards a day: build each once.
    let mut boards: HashMap<(mazerace_protocol::Size, u64), Result<Board, String>> = HashMap::new();
    let mut after = 0;
    loop {
        let page = store.runs_after(after, PAGE).await?;
        let Some(last) = page.last() else { break };
        after = last.id;
        for run in &page {
            if run.state == RunState::Playing {
                report.open += 1;
                continue;
            }
            report.checked += 1;
            let board = boards
                .entry((run.size, run.seed.0))
                .or_insert_with(|| Board::build(run.size, run.seed.0).map_err(|e| e.to_string()));
            if let Some(problem) = check_run(run, board.as_ref(), salt) {
                report.mismatches.push(Mismatch { run_id: run.id, problem });
            }
        }
    }
    Ok(report)
}

/// The first thing wrong with one run, if any.
fn check_run(run: &StoredRun, board: Result<&Board, &String>, salt: Option<&[u8]>) -> Option<Problem> {
    if run.size.game() != run.game {
        return Some(Problem::NoBoard(format!("{} is not a {} size", run.size, run.game)));
    }
    if let Some(salt) = salt {
        let expected = daily_seed(salt, run.date, run.game, run.size);
        if expected != run.seed.0 {
            return Some(Problem::WrongSeed { expected });
        }
    }
    let board = match board {
        Ok(b) => b,
        Err(e) => return Some(Problem::NoBoard(e.clone())),
    };
    let mut game = PlayerGame::new(board);
    for (index, &action) in run.actions.iter().enumerate() {
        if let Err(reason) = game.apply(action) {
            return Some(Problem::Refused { index, action, reason });
        }
    }
    let won = game.status() == Status::Won;
    if won != (run.state == RunState::Finished) {
        return Some(Problem::Outcome { stored: run.state, replayed: game.status() });
    }
    if game.steps() != run.steps {
        return Some(Problem::Steps { stored: run.steps, replayed: game.steps() });
    }
    None
}
