// A maze built in the page for (size, seed), in the server's shapes
// (protocol/src/board.rs; offline/board.js asks it through the table), carved
// as protocol/src/maze/build.rs does (RULES.md "Maze Escape: building a
// maze"): the iterative recursive backtracker from [0,0] with an explicit
// stack, unvisited neighbours looked at in the order up, down, left, right and
// one picked by below(count); then BFS for `shortest` and its route. Passages
// are one bit per side: 1 up, 2 right, 4 down, 8 left.

import { BoardRng } from '../../offline/rng.js';
import { DIRS, stepIndex } from '../../grid.js';

export const MAZE_SIZES = { easy: { n: 11 }, normal: { n: 17 }, hard: { n: 23 } };
const BIT = [1, 4, 8, 2]; // DIRS order: up, down, left, right
const OPPOSITE = [1, 0, 3, 2];

/** {size, seed, n, open (Uint8Array of passage bits), start, exit, shortest, solution}. */
export function buildMaze(size, seed) {
  const params = MAZE_SIZES[size];
  if (!params) throw new Error(`${size} is not a maze size`);
  const n = params.n;
  const cells = n * n;
  const rng = new BoardRng(seed);
  const open = new Uint8Array(cells);
  const visited = new Uint8Array(cells);
  const stack = new Int32Array(cells);
  const choiceDir = new Int8Array(4),
    choiceCell = new Int32Array(4);
  let sp = 0;
  visited[0] = 1;
  stack[sp++] = 0;
  while (sp > 0) {
    const top = stack[sp - 1];
    let count = 0;
    for (let d = 0; d < 4; d++) {
      const q = stepIndex(top, d, n);
      if (q >= 0 && !visited[q]) {
        choiceDir[count] = d;
        choiceCell[count++] = q;
      }
    }
    if (count === 0) {
      sp--;
      continue;
    }
    const k = rng.belowSmall(count);
    const d = choiceDir[k],
      next = choiceCell[k];
    open[top] |= BIT[d];
    open[next] |= BIT[OPPOSITE[d]];
    visited[next] = 1;
    stack[sp++] = next;
  }
  const solution = route(open, n, 0, cells - 1);
  return {
    size,
    seed: BigInt(seed).toString(),
    n,
    open,
    start: [0, 0],
    exit: [n - 1, n - 1],
    shortest: solution.length,
    solution,
  };
}

/** A shortest route by BFS through open passages (in a perfect maze, the only one). */
export function route(open, n, from, to) {
  const prev = new Int32Array(open.length).fill(-1);
  const how = new Int8Array(open.length);
  const seen = new Uint8Array(open.length);
  const queue = new Int32Array(open.length);
  let head = 0,
    tail = 0;
  seen[from] = 1;
  queue[tail++] = from;
  while (head < tail) {
    const p = queue[head++];
    if (p === to) break;
    for (let d = 0; d < 4; d++) {
      if (!(open[p] & BIT[d])) continue;
      const q = stepIndex(p, d, n);
      if (q >= 0 && !seen[q]) {
        seen[q] = 1;
        prev[q] = p;
        how[q] = d;
        queue[tail++] = q;
      }
    }
  }
  const line = [];
  for (let at = to; prev[at] >= 0; at = prev[at]) line.push(DIRS[how[at]]);
  return line.reverse();
}

/** Rows of hex digits, one per cell, as the wire's `passages`. */
export function passageRows(maze) {
  const out = [];
  for (let r = 0; r < maze.n; r++) {
    let s = '';
    for (let c = 0; c < maze.n; c++) s += maze.open[r * maze.n + c].toString(16);
    out.push(s);
  }
  return out;
}

/** {board (Board::public()), answer (Board::answer()), best (shortest), built}. */
export function build(size, seed) {
  const m = buildMaze(size, seed);
  return {
    board: { game: 'maze', size, seed: m.seed, n: m.n, passages: passageRows(m), start: m.start, exit: m.exit },
    answer: { shortest: m.shortest, solution: m.solution },
    best: m.shortest,
    built: m,
  };
}

/** The `reveal` of `results` (server/src/results.rs reveal()). */
export const reveal = (b) => ({ game: 'maze', shortest: b.answer.shortest, solution: b.answer.solution.slice() });
