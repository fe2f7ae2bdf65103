// The board's grid as every builder walks it (protocol/src/board.rs Dir):
// the four directions in Dir::ALL's order, which the builders' draws depend
// on, and a step by cell index. Shared by each game's builder (js/games/).

export const DIRS = ['up', 'down', 'left', 'right']; // Dir::ALL, the order that matters

/** The cell one step in direction `d` (0..3, DIRS order) from `p` on an n by n board, or -1. */
export function stepIndex(p, d, n) {
  switch (d) {
    case 0:
      return p >= n ? p - n : -1;
    case 1:
      return p + n < n * n ? p + n : -1;
    case 2:
      return p % n !== 0 ? p - 1 : -1;
    default:
      return p % n !== n - 1 ? p + 1 : -1;
  }
}
