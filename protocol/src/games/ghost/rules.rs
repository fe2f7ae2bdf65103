//! Ghost behind the seam: its sizes and labels, its wire shapes (the public
//! vault, the answer, the reveal, the run's view) and the [`Rules`] and
//! [`Play`] implementations the registry dispatches to.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::play::GhostPlay;
use super::vault::{self, Vault, VaultError};
use crate::action::{Action, Reject, Status};
use crate::board::Seed;
use crate::games::seam::{Labels, Play, Rules};
use crate::games::{Game, Size, ViewExtra};
use crate::grid::{Dir, Pos};

/// A vault without its answer: what racers see before and during the race.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PublicVault {
    /// The vault's size.
    pub size: Size,
    /// The seed it was built from; absent on a daily board until its day
    /// is over (the seed would let anyone practise it in a private room).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<Seed>,
    /// Cells per side.
    pub n: u8,
    /// `n` rows of `#` (wall) and `.` (open).
    pub cells: Vec<String>,
    /// Where the player starts (and the ghost in run two).
    pub start: Pos,
    /// The goal.
    pub flag: Pos,
    /// The plate: standing on it opens the gate.
    pub plate: Pos,
    /// The gate, shut unless someone stands on the plate.
    pub gate: Pos,
    /// The builder's par, which set the allowance.
    pub par: u32,
    /// Steps a player may use, both runs together.
    pub allowance: u32,
    /// Whether every attempt was dropped and this is the fallback vault (which
    /// may be unsolvable).
    pub fallback: bool,
    /// Which attempt produced the vault (1-based; the limit for a fallback).
    pub attempts: u32,
}

/// A vault's answer, as `mazerace gen` prints it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VaultAnswer {
    /// Start to plate with the gate shut; absent on a fallback without a path.
    pub l: Option<u32>,
    /// The fewest steps that win; `null` when nothing wins.
    pub true_par: Option<u32>,
    /// One line that wins in `true_par` steps (empty when none does).
    pub solution: Vec<Action>,
}

/// A vault's answer, as the results reveal it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VaultReveal {
    /// The builder's par, which set the allowance.
    pub par: u32,
    /// `null` when the vault is a fallback nobody can solve.
    pub true_par: Option<u32>,
    /// One line that wins in `true_par` steps (empty when none does).
    pub solution: Vec<Action>,
}

/// Ghost's part of `move_result`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GhostView {
    /// 1, or 2 after the rewind.
    pub run: u8,
    /// Steps left before the allowance is spent.
    pub steps_left: u32,
    /// Where the ghost stands (run two only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ghost: Option<Pos>,
    /// Whether the gate would let the player in on the next move.
    pub gate_open: bool,
}

impl Rules for Vault {
    type Public = PublicVault;
    type Answer = VaultAnswer;
    type Reveal = VaultReveal;
    type Play = GhostPlay;
    type Error = VaultError;

    const GAME: Game = Game::Ghost;
    const SIZES: &'static [(Size, u8)] = &[(Size::Small, 6), (Size::Medium, 7), (Size::Large, 8)];
    const LABELS: Labels = Labels {
        title: "Ghost",
        unit: "steps",
        best: "best possible",
        boards: "vaults",
        stats_sample: 2_000,
    };
    const BUDGETED: bool = true;
    const BUILD_GOAL: std::time::Duration = std::time::Duration::from_millis(1);

    fn build(size: Size, seed: u64) -> Result<Self, VaultError> {
        vault::build(size, seed)
    }
    fn size(&self) -> Size {
        self.size
    }
    fn seed(&self) -> u64 {
        self.seed
    }
    fn best(&self) -> Option<u32> {
        self.true_par
    }
    fn public(&self) -> PublicVault {
        PublicVault {
            size: self.size,
            seed: Some(Seed(self.seed)),
            n: self.cells.n,
            cells: self.cells.rows(),
            start: self.start,
            flag: self.flag,
            plate: self.plate,
            gate: self.gate,
            par: self.par,
            allowance: self.allowance,
            fallback: self.fallback,
            attempts: self.attempts,
        }
    }
    fn answer(&self) -> VaultAnswer {
        VaultAnswer { l: self.l, true_par: self.true_par, solution: self.solution.clone() }
    }
    fn reveal(&self) -> VaultReveal {
        VaultReveal { par: self.par, true_par: self.true_par, solution: self.solution.clone() }
    }
    fn n(&self) -> u8 {
        self.cells.n
    }
    fn goal(&self) -> Pos {
        self.flag
    }
    // The gate counts as open, so progress is a lower bound here: the exact
    // remaining count depends on the ghost and would need the solver per move.
    fn open_step(&self, from: Pos, dir: Dir) -> Option<Pos> {
        self.cells.neighbour(from, dir)
    }
    fn play(board: &Arc<Self>) -> GhostPlay {
        GhostPlay::new(Arc::clone(board))
    }

    /// Par p10/median/p90, the share of each `true_par - par`, and fallbacks.
    fn summary(boards: &[Self]) -> String {
        let count = boards.len().max(1) as f64;
        let mut pars: Vec<u32> = boards.iter().map(|v| v.par).collect();
        pars.sort_unstable();
        let mut gaps: BTreeMap<Option<i64>, u64> = BTreeMap::new();
        for v in boards {
            *gaps.entry(v.true_par.map(|t| i64::from(t) - i64::from(v.par))).or_default() += 1;
        }
        let fallbacks = boards.iter().filter(|v| v.fallback).count();
        let share = |keep: &dyn Fn(Option<i64>) -> bool| {
            let n: u64 = gaps.iter().filter(|(g, _)| keep(**g)).map(|(_, n)| n).sum();
            n as f64 * 100.0 / count
        };
        let above: Vec<String> = gaps
            .iter()
            .filter_map(|(g, n)| g.filter(|g| *g >= 0).map(|g| (g, n)))
            .map(|(g, n)| format!("{g:+} {:.1}%", *n as f64 * 100.0 / count))
            .collect();
        format!(
            "par {}  true_par - par: {}, below (holding the plate beats par) {:.1}%, unsolvable {:.1}%  fallbacks {fallbacks}",
            crate::games::seam::percentiles(&pars),
            above.join(", "),
            share(&|g| g.is_some_and(|g| g < 0)),
            share(&|g| g.is_none()),
        )
    }
}

impl Play for GhostPlay {
    fn apply(&mut self, action: Action) -> Result<(), Reject> {
        match action {
            Action::Move(d) => self.step(d),
            Action::Rewind => self.rewind(),
        }
    }
    fn status(&self) -> Status {
        GhostPlay::status(self)
    }
    fn pos(&self) -> Pos {
        GhostPlay::pos(self)
    }
    fn steps(&self) -> u32 {
        GhostPlay::steps(self)
    }
    fn run(&self) -> Option<u8> {
        Some(GhostPlay::run(self))
    }
    fn companion(&self) -> Option<Pos> {
        self.ghost()
    }
    fn recording(&self) -> &[Dir] {
        GhostPlay::recording(self)
    }
    fn view_extra(&self) -> Option<ViewExtra> {
        Some(ViewExtra::Ghost(GhostView {
            run: GhostPlay::run(self),
            steps_left: self.steps_left(),
            ghost: self.ghost(),
            gate_open: self.gate_open(),
        }))
    }
}
