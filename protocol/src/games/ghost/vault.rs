//! Building a vault from `(size, seed)`, step by step as RULES.md numbers
//! them, plus the fallback after 300 dropped attempts.

use std::collections::VecDeque;

use super::cells::Cells;
pub use super::cells::Layout;
use super::solve;
use crate::action::Action;
use crate::games::Size;
use crate::grid::{Dir, Pos};
use crate::rng::BoardRng;

/// RULES.md: up to 300 attempts per vault.
pub const MAX_ATTEMPTS: u32 = 300;
/// Run-two routes longer than this are abandoned (step 7).
const MAX_RUN_TWO: u32 = 80;
/// The par a fallback vault is given.
const FALLBACK_PAR: u32 = 12;

/// A built vault, with the builder's numbers and the exact solve.
#[derive(Clone, Debug, PartialEq)]
pub struct Vault {
    /// The vault's size.
    pub size: Size,
    /// The seed it was built from.
    pub seed: u64,
    /// The walls.
    pub cells: Cells,
    /// Where the player starts (and the ghost in run two).
    pub start: Pos,
    /// The goal.
    pub flag: Pos,
    /// The plate: standing on it opens the gate.
    pub plate: Pos,
    /// The gate, shut unless someone stands on the plate.
    pub gate: Pos,
    /// Start to plate with the gate shut; `None` on a fallback without one.
    pub l: Option<u32>,
    /// The builder's par (`L + R`), which decides the allowance.
    pub par: u32,
    /// Steps a player may use, both runs together: `par + slack`.
    pub allowance: u32,
    /// Whether every attempt was dropped and this is the fallback (`par = 12`).
    pub fallback: bool,
    /// Which attempt produced this vault (1-based).
    pub attempts: u32,
    /// Fewest steps that win under the play rules; `None` if none can.
    pub true_par: Option<u32>,
    /// One line that wins in exactly `true_par` (empty when unsolvable).
    pub solution: Vec<Action>,
}

/// Why no vault could be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum VaultError {
    /// No attempt (of this many) got as far as choosing a gate.
    #[error("no attempt out of {0} produced a gate; no vault can be built for this seed")]
    NoGate(u32),
    /// The size is a maze size.
    #[error("{0} is not a Ghost size")]
    NotGhostSize(Size),
}

/// Per-size constants: wall chance and slack.
fn params(size: Size) -> Option<(f64, u32)> {
    match size {
        Size::Small => Some((0.14, 6)),
        Size::Medium => Some((0.16, 6)),
        Size::Large => Some((0.18, 5)),
        _ => None,
    }
}

/// Build the vault for `(size, seed)`.
pub fn build(size: Size, seed: u64) -> Result<Vault, VaultError> {
    build_with_limit(size, seed, MAX_ATTEMPTS)
}

/// [`build`] with a different attempt limit: the seam tests use to reach the
/// fallback and the no-gate error without waiting for luck.
pub fn build_with_limit(size: Size, seed: u64, max_attempts: u32) -> Result<Vault, VaultError> {
    let (wall_chance, slack) = params(size).ok_or(VaultError::NotGhostSize(size))?;
    let n = size.n();
    let mut rng = BoardRng::new(seed);
    let mut last_gated = None;
    for attempt in 1..=max_attempts {
        match attempt_once(&mut rng, n, wall_chance) {
            Attempt::Dropped => {}
            Attempt::Gated(layout) => last_gated = Some(layout),
            Attempt::Kept(layout, l, par) => {
                return Ok(finish(size, seed, layout, Some(l), par, par + slack, false, attempt));
            }
        }
    }
    let layout = last_gated.ok_or(VaultError::NoGate(max_attempts))?;
    let l = layout.cells.distance(layout.start, layout.plate, Some(layout.gate));
    Ok(finish(size, seed, layout, l, FALLBACK_PAR, FALLBACK_PAR + slack, true, max_attempts))
}

enum Attempt {
    Dropped,
    /// Got as far as a gate, then dropped: a candidate for the fallback.
    Gated(Layout),
    Kept(Layout, u32, u32),
}

fn attempt_once(rng: &mut BoardRng, n: u8, wall_chance: f64) -> Attempt {
    // 1. One uniform draw per cell, row-major.
    let walls = (0..n as usize * n as usize).map(|_| rng.unit() < wall_chance).collect();
    let cells = Cells::new(n, walls);
    // 2. Shuffle the open cells; the first three are start, flag, plate.
    let mut open = cells.open_cells();
    rng.shuffle(&mut open);
    // 3. Too few open cells.
    if open.len() < 6 {
        return Attempt::Dropped;
    }
    let (start, flag, plate) = (open[0], open[1], open[2]);
    // 4. The flag must be at least 3 steps away.
    match cells.distance(start, flag, None) {
        Some(d) if d >= 3 => {}
        _ => return Attempt::Dropped,
    }
    // 5. Gate candidates: the first four cells (after the three) that cut the flag off.
    let candidates: Vec<Pos> = open[3..]
        .iter()
        .copied()
        .filter(|&c| cells.distance(start, flag, Some(c)).is_none())
        .take(4)
        .collect();
    if candidates.is_empty() {
        return Attempt::Dropped;
    }
    let gate = candidates[rng.below(candidates.len() as u64) as usize];
    let layout = Layout { cells, start, flag, plate, gate };
    // 6.-8. L, the run-two search, and the par window.
    match builder_par(&layout) {
        Some((l, par)) if (6..=50).contains(&par) => Attempt::Kept(layout, l, par),
        _ => Attempt::Gated(layout),
    }
}

/// Steps 6 and 7: `L` and `par = L + R`, or `None` where the builder drops
/// the vault (no path to the plate, `L < 2`, or no run two).
pub fn builder_par(layout: &Layout) -> Option<(u32, u32)> {
    let l = layout.cells.distance(layout.start, layout.plate, Some(layout.gate))?;
    if l < 2 {
        return None;
    }
    let r = run_two_length(layout, l)?;
    Some((l, l + r))
}

/// Step 7: BFS over `(cell, t)` from `(start, 0)`; the gate may be entered
/// only arriving at `t + 1 >= L`; times from `L` on fold into one state per
/// cell; routes past 80 steps are abandoned.
fn run_two_length(layout: &Layout, l: u32) -> Option<u32> {
    let cells = &layout.cells;
    let n = cells.n;
    let folded = |t: u32| t.min(l) as usize;
    let width = l as usize + 1;
    let mut seen = vec![false; n as usize * n as usize * width];
    let key = |p: Pos, t: u32| p.index(n) * width + folded(t);
    let mut queue = VecDeque::new();
    seen[key(layout.start, 0)] = true;
    queue.push_back((layout.start, 0u32));
    while let Some((p, t)) = queue.pop_front() {
        if p == layout.flag {
            return Some(t);
        }
        if t >= MAX_RUN_TWO {
            continue;
        }
        for dir in Dir::ALL {
            let Some(q) = cells.neighbour(p, dir) else { continue };
            if q == layout.gate && t + 1 < l {
                continue;
            }
            let k = key(q, t + 1);
            if !seen[k] {
                seen[k] = true;
                queue.push_back((q, t + 1));
            }
        }
    }
    None
}

#[allow(clippy::too_many_arguments)]
fn finish(
    size: Size,
    seed: u64,
    layout: Layout,
    l: Option<u32>,
    par: u32,
    allowance: u32,
    fallback: bool,
    attempts: u32,
) -> Vault {
    let best = solve::solve(&layout, allowance);
    let (true_par, solution) = match best {
        Some(line) => (Some(line.len() as u32 - line.contains(&Action::Rewind) as u32), line),
        None => (None, Vec::new()),
    };
    let Layout { cells, start, flag, plate, gate } = layout;
    Vault {
        size,
        seed,
        cells,
        start,
        flag,
        plate,
        gate,
        l,
        par,
        allowance,
        fallback,
        attempts,
        true_par,
        solution,
    }
}

impl Vault {
    /// A vault from a fixed layout (the seed's worked example, tests): the
    /// builder's steps 6 to 8 and the exact solve, without the random parts.
    /// `None` where the builder would drop it.
    pub fn from_layout(size: Size, layout: Layout) -> Option<Vault> {
        let (_, slack) = params(size)?;
        let (l, par) = builder_par(&layout)?;
        Some(finish(size, 0, layout, Some(l), par, par + slack, false, 1))
    }
}

/// [`solve`](solve::solve) on a built vault (benchmarks, checks).
pub fn solve_vault(v: &Vault) -> Option<Vec<Action>> {
    let layout =
        Layout { cells: v.cells.clone(), start: v.start, flag: v.flag, plate: v.plate, gate: v.gate };
    solve::solve(&layout, v.allowance)
}
