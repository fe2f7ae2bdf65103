// The offline board builder's front door: a board of either game for
// (size, seed), in the exact shapes the server speaks (protocol/src/board.rs):
// `board` is Board::public() (race_start's board, same field order), `answer`
// is Board::answer(), genLine() is one line of `mazerace gen`, reveal() is
// what `results` carries. Seeds are u64 decimal strings (or BigInts).

import { buildVault, VAULT_SIZES, MAX_ATTEMPTS, NoGateError } from '../games/ghost/vault.js';
import { buildMaze, passageRows, MAZE_SIZES } from '../games/maze/build.js';

export { NoGateError, MAX_ATTEMPTS };

/** The game a size belongs to ('ghost' or 'maze'), or null for an unknown size. */
export function gameOf(size) {
  if (Object.hasOwn(VAULT_SIZES, size)) return 'ghost';
  if (Object.hasOwn(MAZE_SIZES, size)) return 'maze';
  return null;
}

/** The sizes of each game, smallest first. */
export const SIZES = { ghost: Object.keys(VAULT_SIZES), maze: Object.keys(MAZE_SIZES) };

const U64_MAX = (1n << 64n) - 1n;

/** A seed in its canonical decimal form, or null if it is not decimal digits in 0..2^64-1 (Seed::from_str). */
export function parseSeed(s) {
  if (typeof s === 'bigint') return s >= 0n && s <= U64_MAX ? s.toString() : null;
  if (typeof s !== 'string' || !/^[0-9]+$/.test(s)) return null;
  const v = BigInt(s);
  return v <= U64_MAX ? v.toString() : null;
}

/** A uniformly random u64 seed as a decimal string (crypto.getRandomValues). */
export function randomSeed() {
  const w = new Uint32Array(2);
  globalThis.crypto.getRandomValues(w);
  return ((BigInt(w[0]) << 32n) | BigInt(w[1])).toString();
}

/**
 * The board for (size, seed): {game, board, answer, best, built}. `best` is
 * Board::best() (true_par or shortest; null for an unsolvable fallback);
 * `built` is the builder's own object. Throws on a bad size or seed, and
 * NoGateError when no attempt chose a gate. `maxAttempts` is the test seam.
 */
export function buildBoard(size, seed, { maxAttempts = MAX_ATTEMPTS } = {}) {
  const s = parseSeed(seed);
  if (s === null) throw new Error(`a seed is a string of decimal digits up to 2^64 - 1, not ${JSON.stringify(String(seed))}`);
  const game = gameOf(size);
  if (game === 'ghost') {
    const v = buildVault(size, s, maxAttempts);
    return {
      game,
      board: {
        game,
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
  if (game === 'maze') {
    const m = buildMaze(size, s);
    return {
      game,
      board: { game, size, seed: m.seed, n: m.n, passages: passageRows(m), start: m.start, exit: m.exit },
      answer: { shortest: m.shortest, solution: m.solution },
      best: m.shortest,
      built: m,
    };
  }
  throw new Error(`unknown size ${JSON.stringify(String(size))}`);
}

/** One line of `mazerace gen`: the public board and its answer together. */
export function genLine(size, seed, opts) {
  const b = buildBoard(size, seed, opts);
  return { ...b.board, ...b.answer };
}

/** The `reveal` of `results` for a built board (server/src/results.rs reveal()). */
export function reveal(b) {
  if (b.game === 'ghost') {
    return { game: 'ghost', par: b.board.par, true_par: b.answer.true_par, solution: b.answer.solution.slice() };
  }
  return { game: 'maze', shortest: b.answer.shortest, solution: b.answer.solution.slice() };
}
