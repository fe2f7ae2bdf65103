// The board's grid, as every game and builder walks it (protocol/src/grid.rs):
// the four directions in Dir::ALL's order (the order draws and searches
// depend on), a step by position or by cell index, the same place. A leaf:
// the generic rules (rules.js), each game's rules and builders import it.

export const DIRS = ['up', 'down', 'left', 'right']; // Dir::ALL, the order that matters
const DELTA = { up: [-1, 0], down: [1, 0], left: [0, -1], right: [0, 1] };

export const samePos = (a, b) => !!a && !!b && a[0] === b[0] && a[1] === b[1];

/** One step from `p` on an n by n board, or null off the edge (or for no direction). */
export function stepPos(p, dir, n) {
  const d = DELTA[dir];
  if (!d) return null;
  const r = p[0] + d[0],
    c = p[1] + d[1];
  return r >= 0 && c >= 0 && r < n && c < n ? [r, c] : null;
}

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
