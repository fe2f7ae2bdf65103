//! The Ghost play engine, exactly as RULES.md "Ghost: playing" says: the
//! gate is tested before the ghost takes its step, the finish before the
//! budget, one rewind in run one, and a ghost that stands still once its
//! recording is used up.

use std::sync::Arc;

use super::vault::Vault;
use crate::action::{Reject, Status};
use crate::grid::{Dir, Pos};

/// One player's game on one vault.
#[derive(Clone, Debug)]
pub struct GhostPlay {
    vault: Arc<Vault>,
    run: u8,
    pos: Pos,
    steps: u32,
    recording: Vec<Dir>,
    /// In run two: where the ghost stands and how much of the recording it has replayed.
    ghost: Option<(Pos, usize)>,
    status: Status,
}

impl GhostPlay {
    /// A new game: run one, at the start, no steps used.
    pub fn new(vault: Arc<Vault>) -> Self {
        let start = vault.start;
        GhostPlay {
            vault,
            run: 1,
            pos: start,
            steps: 0,
            recording: Vec::new(),
            ghost: None,
            status: Status::Playing,
        }
    }

    /// The vault being played.
    pub fn vault(&self) -> &Vault {
        &self.vault
    }

    /// The vault, shared.
    pub fn vault_arc(&self) -> &Arc<Vault> {
        &self.vault
    }

    /// The run: 1, or 2 after the rewind.
    pub fn run(&self) -> u8 {
        self.run
    }

    /// Where the player stands.
    pub fn pos(&self) -> Pos {
        self.pos
    }

    /// Steps used in total, both runs.
    pub fn steps(&self) -> u32 {
        self.steps
    }

    /// Steps left before the allowance is spent.
    pub fn steps_left(&self) -> u32 {
        self.vault.allowance.saturating_sub(self.steps)
    }

    /// Playing, won or out of steps.
    pub fn status(&self) -> Status {
        self.status
    }

    /// The moves recorded in run one (what the ghost replays).
    pub fn recording(&self) -> &[Dir] {
        &self.recording
    }

    /// Where the ghost stands (run two only).
    pub fn ghost(&self) -> Option<Pos> {
        self.ghost.map(|(p, _)| p)
    }

    /// Whether the gate lets the player in on the next move: the player holds
    /// the plate, or in run two the ghost does.
    pub fn gate_open(&self) -> bool {
        self.pos == self.vault.plate || self.ghost() == Some(self.vault.plate)
    }

    /// One step in `dir` (rules 1 to 5).
    pub fn step(&mut self, dir: Dir) -> Result<(), Reject> {
        if self.status != Status::Playing {
            return Err(Reject::GameOver);
        }
        let v = &self.vault;
        // 1. Off the board or into a wall.
        let q = v.cells.neighbour(self.pos, dir).ok_or(Reject::Wall)?;
        // 2. The gate, judged on the state before this move.
        if q == v.gate && !self.gate_open() {
            return Err(Reject::GateClosed);
        }
        // 3. Move; record in run one; the ghost steps in run two.
        self.pos = q;
        self.steps += 1;
        if self.run == 1 {
            self.recording.push(dir);
        } else if let Some((ghost, replayed)) = &mut self.ghost {
            if let Some(&d) = self.recording.get(*replayed) {
                // The recording was a legal walk, so its steps stay on the board.
                *ghost = ghost.step(d, v.cells.n).unwrap_or(*ghost);
                *replayed += 1;
            }
        }
        // 4. The finish first, 5. then the budget.
        if q == v.flag {
            self.status = Status::Won;
        } else if self.steps >= v.allowance {
            self.status = Status::OutOfSteps;
        }
        Ok(())
    }

    /// End run one: back to the start, and the ghost sets off with the recording.
    pub fn rewind(&mut self) -> Result<(), Reject> {
        if self.status != Status::Playing {
            return Err(Reject::GameOver);
        }
        if self.run != 1 {
            return Err(Reject::RewindUsed);
        }
        self.run = 2;
        self.pos = self.vault.start;
        self.ghost = Some((self.vault.start, 0));
        Ok(())
    }
}
