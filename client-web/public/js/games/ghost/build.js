// A Ghost board built in the page for (size, seed), in the server's shapes
// (protocol/src/board.rs): offline/board.js asks it through the table. The
// vault itself is vault.js's.

import { buildVault, MAX_ATTEMPTS } from './vault.js';

/** {board (Board::public()), answer (Board::answer()), best (true_par, null for an unsolvable fallback), built}. */
export function build(size, seed, { maxAttempts = MAX_ATTEMPTS } = {}) {
  const v = buildVault(size, seed, maxAttempts);
  return {
    board: {
      game: 'ghost',
      size,
      seed: v.seed,
      n: v.n,
      cells: v.cells.rows(),
      start: v.start,
      flag: v.flag,
      plate: v.plate,
      gate: v.gate,
      par: v.par,
      allowance: v.allowance,
      fallback: v.fallback,
      attempts: v.attempts,
    },
    answer: { l: v.l, true_par: v.true_par, solution: v.solution },
    best: v.true_par,
    built: v,
  };
}

/** The `reveal` of `results` (server/src/results.rs reveal()). */
export const reveal = (b) => ({ game: 'ghost', par: b.board.par, true_par: b.answer.true_par, solution: b.answer.solution.slice() });
