// Building a Ghost vault from (size, seed), step by step as RULES.md numbers
// them and protocol/src/ghost/vault.rs implements them: up to 300 attempts,
// each drawing walls, shuffling the open cells, testing the flag distance,
// collecting up to 4 gate candidates, then L, the run-two search and the par
// window; after 300 dropped attempts, the last attempt that chose a gate
// becomes a fallback vault (par 12). `maxAttempts` is the same seam the Rust
// builder has (build_with_limit) so tests reach the fallback on purpose.

import { BoardRng } from '../../offline/rng.js';
import { Cells, DIRS } from './cells.js';
import { solve } from './solve.js';

export const MAX_ATTEMPTS = 300;
const MAX_RUN_TWO = 80;
const FALLBACK_PAR = 12;

/** Per-size wall chance and slack (RULES.md). */
export const VAULT_SIZES = {
  small: { n: 6, wallChance: 0.14, slack: 6 },
  medium: { n: 7, wallChance: 0.16, slack: 6 },
  large: { n: 8, wallChance: 0.18, slack: 5 },
};

/** No attempt got as far as a gate (Rust's VaultError::NoGate). */
export class NoGateError extends Error {
  constructor(attempts) {
    super(`no attempt out of ${attempts} produced a gate; no vault can be built for this seed`);
    this.attempts = attempts;
  }
}

// Scratch space for the run-two search, shared by every attempt: 64 cells
// times at most 65 folded times.
const SEEN = new Uint8Array(64 * 66);
const QUEUE_P = new Int32Array(64 * 66);
const QUEUE_T = new Int32Array(64 * 66);

/** Step 7: the length of the shortest run-two route, or -1. */
function runTwoLength(layout, l) {
  const cells = layout.cells;
  const width = l + 1;
  SEEN.fill(0, 0, cells.n * cells.n * width);
  let head = 0,
    tail = 0;
  SEEN[layout.start * width] = 1;
  QUEUE_P[tail] = layout.start;
  QUEUE_T[tail++] = 0;
  while (head < tail) {
    const p = QUEUE_P[head],
      t = QUEUE_T[head++];
    if (p === layout.flag) return t;
    if (t >= MAX_RUN_TWO) continue;
    for (let d = 0; d < 4; d++) {
      const q = cells.neighbour(p, d);
      if (q < 0 || (q === layout.gate && t + 1 < l)) continue;
      const k = q * width + Math.min(t + 1, l);
      if (!SEEN[k]) {
        SEEN[k] = 1;
        QUEUE_P[tail] = q;
        QUEUE_T[tail++] = t + 1;
      }
    }
  }
  return -1;
}

/** Steps 6 and 7: {l, par} or null where the builder drops the vault. */
export function builderPar(layout) {
  const l = layout.cells.distance(layout.start, layout.plate, layout.gate);
  if (l < 2) return null; // also unreachable (-1)
  const r = runTwoLength(layout, l);
  return r < 0 ? null : { l, par: l + r };
}

// Scratch for the attempts: one grid, its open list and the gate candidates,
// reused, so an attempt allocates nothing unless it gets as far as a gate
// (garbage collection pauses were the slowest builds).
const WALLS = new Uint8Array(64);
const OPEN = new Int32Array(64);
const CANDIDATES = new Int32Array(4);
const GRID = new Cells(1, WALLS);
const SCRATCH = { cells: GRID, start: 0, flag: 0, plate: 0, gate: 0 };
const DROPPED = 0,
  GATED = 1,
  KEPT = 2;
let keptL = 0,
  keptPar = 0; // the numbers of the last KEPT attempt

/** A layout of its own, out of the scratch one. */
const own = (n) => ({ ...SCRATCH, cells: new Cells(n, WALLS.slice(0, n * n)) });

/** One attempt on SCRATCH: DROPPED, GATED (scratch holds a gated layout) or KEPT (and keptL, keptPar). */
function attemptOnce(rng, n, wallChance) {
  // 1. One uniform draw per cell, row-major.
  for (let i = 0; i < n * n; i++) WALLS[i] = rng.unit() < wallChance ? 1 : 0;
  const cells = GRID.load(n, WALLS);
  // 2. Shuffle the open cells; the first three are start, flag, plate.
  const count = cells.openCells(OPEN);
  rng.shuffle(OPEN, count);
  // 3. Too few open cells.
  if (count < 6) return DROPPED;
  const start = OPEN[0],
    flag = OPEN[1];
  // 4. The flag must be at least 3 steps away.
  if (cells.distance(start, flag, -1) < 3) return DROPPED;
  // 5. Gate candidates: the first four cells (after the three) that cut the flag off.
  let found = 0;
  for (let k = 3; k < count && found < 4; k++) {
    if (cells.distance(start, flag, OPEN[k]) < 0) CANDIDATES[found++] = OPEN[k];
  }
  if (found === 0) return DROPPED;
  SCRATCH.start = start;
  SCRATCH.flag = flag;
  SCRATCH.plate = OPEN[2];
  SCRATCH.gate = CANDIDATES[rng.belowSmall(found)];
  // 6.-8. L, the run-two search, and the par window.
  const bp = builderPar(SCRATCH);
  if (bp && bp.par >= 6 && bp.par <= 50) {
    keptL = bp.l;
    keptPar = bp.par;
    return KEPT;
  }
  return GATED;
}

const pos = (i, n) => [Math.floor(i / n), i % n];

/**
 * The vault for (size, seed): {size, seed, n, cells (Cells), layout, start,
 * flag, plate, gate ([row, col]), l (or null), par, allowance, fallback,
 * attempts, true_par (or null), solution (action names)}. `seed`: a decimal
 * string or a BigInt. Throws NoGateError (or on a size that is not Ghost's).
 */
export function buildVault(size, seed, maxAttempts = MAX_ATTEMPTS) {
  const params = VAULT_SIZES[size];
  if (!params) throw new Error(`${size} is not a Ghost size`);
  const { n, wallChance, slack } = params;
  const rng = new BoardRng(seed);
  let lastGated = null;
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    const a = attemptOnce(rng, n, wallChance);
    if (a === KEPT) return finish(size, seed, own(n), keptL, keptPar, keptPar + slack, false, attempt);
    if (a === GATED) lastGated = own(n);
  }
  if (!lastGated) throw new NoGateError(maxAttempts);
  const l = lastGated.cells.distance(lastGated.start, lastGated.plate, lastGated.gate);
  return finish(size, seed, lastGated, l < 0 ? null : l, FALLBACK_PAR, FALLBACK_PAR + slack, true, maxAttempts);
}

function finish(size, seed, layout, l, par, allowance, fallback, attempts) {
  const line = solve(layout, allowance);
  const n = layout.cells.n;
  return {
    size,
    seed: BigInt(seed).toString(),
    n,
    cells: layout.cells,
    layout,
    start: pos(layout.start, n),
    flag: pos(layout.flag, n),
    plate: pos(layout.plate, n),
    gate: pos(layout.gate, n),
    l,
    par,
    allowance,
    fallback,
    attempts,
    true_par: line ? line.length - (line.includes('rewind') ? 1 : 0) : null,
    solution: line || [],
  };
}

export { DIRS };
