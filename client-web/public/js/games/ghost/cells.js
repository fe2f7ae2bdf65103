// The vault's wall grid and its breadth-first distance, as
// protocol/src/ghost/cells.rs: a vault is at most 8 by 8, so the open cells
// are a 64-bit set (bit row * n + col) and a flood fill advances a whole
// frontier with a few shifts and masks. JS has no fast 64-bit integer, so the
// set is two 32-bit halves (lo: cells 0..31, hi: 32..63) and every shift
// carries bits between them. Cells are row-major indices; -1 means none.

import { DIRS, stepIndex } from '../../grid.js';

export { DIRS };

const bitLo = (i) => (i >= 0 && i < 32 ? 1 << i : 0);
const bitHi = (i) => (i >= 32 ? 1 << (i - 32) : 0);

export class Cells {
  /** `walls`: a Uint8Array of n*n, 1 for a wall, row-major (kept, not copied). */
  constructor(n, walls) {
    this.load(n, walls);
  }

  /** Re-point this grid at `walls` (the builder reuses one grid for every attempt). */
  load(n, walls) {
    if (n > 8) throw new Error('a vault is at most 8 by 8');
    if (walls.length < n * n) throw new Error('wall grid must be n*n');
    this.n = n;
    this.walls = walls;
    let openLo = 0,
      openHi = 0,
      nfLo = 0,
      nfHi = 0,
      nlLo = 0,
      nlHi = 0,
      boardLo = 0,
      boardHi = 0;
    for (let i = 0; i < n * n; i++) {
      const lo = bitLo(i),
        hi = bitHi(i);
      boardLo |= lo;
      boardHi |= hi;
      if (!walls[i]) {
        openLo |= lo;
        openHi |= hi;
      }
      if (i % n !== 0) {
        nfLo |= lo;
        nfHi |= hi;
      }
      if (i % n !== n - 1) {
        nlLo |= lo;
        nlHi |= hi;
      }
    }
    this.openLo = openLo;
    this.openHi = openHi;
    this.nfLo = nfLo;
    this.nfHi = nfHi;
    this.nlLo = nlLo;
    this.nlHi = nlHi;
    this.boardLo = boardLo;
    this.boardHi = boardHi;
    return this;
  }

  isWall(p) {
    return this.walls[p] === 1;
  }

  /** The open neighbour of `p` in direction `d`, or -1. */
  neighbour(p, d) {
    const q = stepIndex(p, d, this.n);
    return q >= 0 && !this.walls[q] ? q : -1;
  }

  /** Open cells in row-major order (into `out`, if given; returns how many when it is). */
  openCells(out) {
    const cells = this.n * this.n;
    if (!out) {
      const list = [];
      for (let i = 0; i < cells; i++) if (!this.walls[i]) list.push(i);
      return list;
    }
    let k = 0;
    for (let i = 0; i < cells; i++) if (!this.walls[i]) out[k++] = i;
    return k;
  }

  /** Rows of '#' (wall) and '.' (open), the wire's `cells`. */
  rows() {
    const out = [];
    for (let r = 0; r < this.n; r++) {
      let s = '';
      for (let c = 0; c < this.n; c++) s += this.walls[r * this.n + c] ? '#' : '.';
      out.push(s);
    }
    return out;
  }

  /** BFS distance `from` to `to` over open cells, `blocked` (or -1) as one more wall; -1 when unreachable. */
  distance(from, to, blocked) {
    const n = this.n,
      back = 32 - n;
    const { nfLo, nfHi, nlLo, nlHi, boardLo, boardHi } = this;
    const pLo = this.openLo & ~bitLo(blocked),
      pHi = this.openHi & ~bitHi(blocked);
    const tLo = bitLo(to),
      tHi = bitHi(to);
    let seenLo = bitLo(from),
      seenHi = bitHi(from);
    let fLo = seenLo,
      fHi = seenHi;
    let d = 0;
    while ((fLo | fHi) !== 0) {
      if (((fLo & tLo) | (fHi & tHi)) !== 0) return d;
      // Right (<< 1) and left (>> 1), kept inside the row by the column masks.
      const aLo = fLo & nlLo,
        aHi = fHi & nlHi;
      const bLo = fLo & nfLo,
        bHi = fHi & nfHi;
      let sLo = (aLo << 1) | (bLo >>> 1) | (bHi << 31);
      let sHi = (aHi << 1) | (aLo >>> 31) | (bHi >>> 1);
      // Down (<< n, cut at the board's end) and up (>> n).
      sLo |= ((fLo << n) & boardLo) | (fLo >>> n) | (fHi << back);
      sHi |= (((fHi << n) | (fLo >>> back)) & boardHi) | (fHi >>> n);
      fLo = sLo & pLo & ~seenLo;
      fHi = sHi & pHi & ~seenHi;
      seenLo |= fLo;
      seenHi |= fHi;
      d++;
    }
    return -1;
  }
}
