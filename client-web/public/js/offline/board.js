// The offline board builder's front door: a board of any game for (size,
// seed), built by that game's builder (js/games/NAME/build.js, found through
// the table) in the exact shapes the server speaks (protocol/src/board.rs):
// `board` is Board::public() (race_start's board, same field order), `answer`
// is Board::answer(), genLine() is one line of `mazerace gen`, reveal() is
// what `results` carries. Seeds are u64 decimal strings (or BigInts). A
// game's build.js exports build(size, seed, opts) -> {board, answer, best,
// built} and reveal(built).

import { gameOfSize, load } from '../games/index.js';

// Every game's builder, here before anything is built: offline play and a
// match round's best line load this module only when they need a board.
const BUILDERS = await load('build');

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
 * whatever the game's builder throws (a vault's NoGateError when no attempt
 * chose a gate). `opts.maxAttempts` is the vault builder's test seam.
 */
export function buildBoard(size, seed, opts = {}) {
  const s = parseSeed(seed);
  if (s === null) throw new Error(`a seed is a string of decimal digits up to 2^64 - 1, not ${JSON.stringify(String(seed))}`);
  const game = gameOfSize(size);
  if (!game) throw new Error(`unknown size ${JSON.stringify(String(size))}`);
  return { game: game.name, ...BUILDERS.get(game.name).build(size, s, opts) };
}

/** One line of `mazerace gen`: the public board and its answer together. */
export function genLine(size, seed, opts) {
  const b = buildBoard(size, seed, opts);
  return { ...b.board, ...b.answer };
}

/** The `reveal` of `results` for a built board (server/src/results.rs reveal()). */
export const reveal = (b) => BUILDERS.get(b.game).reveal(b);
