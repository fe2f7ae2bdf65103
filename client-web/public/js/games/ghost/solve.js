// true_par and one optimal line, exactly as protocol/src/ghost/solve.rs finds
// them (same search, same tie-breaks, so the same line): the best of
// "win in run one" (a BFS through the gate only from the plate) and "win in
// run two", a Dijkstra over (ghost cell, player cell, recording ended?) with
// one LIFO bucket per cost. A joint move costs 1 for the player plus 1 if the
// still-recording ghost steps too; ending the recording costs nothing. The
// gate test reads the ghost's cell before the joint move, as the engine does.
// A layout is {cells: Cells, start, flag, plate, gate} with cell indices.

import { DIRS } from './cells.js';

/** A run-one step (a lone player, or the ghost's recording): through the gate only from the plate. */
function runOneStep(layout, from, d) {
  const q = layout.cells.neighbour(from, d);
  return q >= 0 && (q !== layout.gate || from === layout.plate) ? q : -1;
}

/** Shortest walk to the flag without a rewind, as a list of action names, or null. */
function winInRunOne(layout) {
  const len = layout.cells.n * layout.cells.n;
  const prev = new Int32Array(len).fill(-1);
  const how = new Int8Array(len);
  const seen = new Uint8Array(len);
  const queue = new Int32Array(len);
  let head = 0,
    tail = 0;
  queue[tail++] = layout.start;
  seen[layout.start] = 1;
  while (head < tail) {
    const p = queue[head++];
    if (p === layout.flag) {
      const line = [];
      for (let at = p; prev[at] >= 0; at = prev[at]) line.push(DIRS[how[at]]);
      return line.reverse();
    }
    for (let d = 0; d < 4; d++) {
      const q = runOneStep(layout, p, d);
      if (q >= 0 && !seen[q]) {
        seen[q] = 1;
        prev[q] = p;
        how[q] = d;
        queue[tail++] = q;
      }
    }
  }
  return null;
}

// Scratch space for the run-two search, reused by every solve (a vault is
// at most 8 by 8: 64 * 64 * 2 states). Reuse keeps the garbage collector,
// and its pauses, out of a build.
const STATES = 64 * 64 * 2;
const DIST = new Uint32Array(STATES);
const PREV = new Int32Array(STATES);
const EDGE_PLAYER = new Int8Array(STATES);
const EDGE_GHOST = new Int8Array(STATES);
// The buckets: one LIFO stack per cost, as linked lists in a node pool (a
// Vec per cost in Rust; pushes and pops in the same order, no garbage).
let HEAD = new Int32Array(64);
let NODE_STATE = new Int32Array(1 << 15);
let NODE_NEXT = new Int32Array(1 << 15);

function growPool() {
  const state = new Int32Array(NODE_STATE.length * 2),
    next = new Int32Array(NODE_NEXT.length * 2);
  state.set(NODE_STATE);
  next.set(NODE_NEXT);
  NODE_STATE = state;
  NODE_NEXT = next;
}

/** The cheapest win with a rewind within `allowance`: {line, cost} or null. */
function winInRunTwo(layout, allowance) {
  const cells = layout.cells;
  const len = cells.n * cells.n;
  const total = len * len * 2;
  const id = (ghost, player, ended) => (ghost * len + player) * 2 + ended;
  const dist = DIST.fill(0xffffffff, 0, total);
  const prev = PREV.fill(-1, 0, total);
  const edgePlayer = EDGE_PLAYER; // -1: the recording ended here
  const edgeGhost = EDGE_GHOST; // -1: the ghost did not step
  if (HEAD.length <= allowance) HEAD = new Int32Array(allowance + 1);
  HEAD.fill(-1, 0, allowance + 1);
  let nodes = 0;
  const push = (c, state) => {
    if (nodes === NODE_STATE.length) growPool();
    NODE_STATE[nodes] = state;
    NODE_NEXT[nodes] = HEAD[c];
    HEAD[c] = nodes++;
  };
  const origin = id(layout.start, layout.start, 0);
  dist[origin] = 0;
  push(0, origin);
  let s = 0;
  const relax = (next, c, pd, gd) => {
    if (c <= allowance && c < dist[next]) {
      dist[next] = c;
      prev[next] = s;
      edgePlayer[next] = pd;
      edgeGhost[next] = gd;
      push(c, next);
    }
  };
  let cost = 0;
  for (;;) {
    if (cost > allowance) return null;
    const top = HEAD[cost];
    if (top < 0) {
      cost++;
      continue;
    }
    HEAD[cost] = NODE_NEXT[top];
    s = NODE_STATE[top];
    if (cost > dist[s]) continue;
    const ended = s & 1;
    const rest = s >> 1;
    const ghost = Math.floor(rest / len),
      player = rest % len;
    if (player === layout.flag) return { line: lineTo(s, prev, edgePlayer, edgeGhost), cost };
    if (!ended) relax(id(ghost, player, 1), cost, -1, -1);
    const gateOpen = player === layout.plate || ghost === layout.plate;
    for (let pd = 0; pd < 4; pd++) {
      const p2 = cells.neighbour(player, pd);
      if (p2 < 0 || (p2 === layout.gate && !gateOpen)) continue;
      if (ended) {
        relax(id(ghost, p2, 1), cost + 1, pd, -1);
        continue;
      }
      for (let gd = 0; gd < 4; gd++) {
        const g2 = runOneStep(layout, ghost, gd);
        if (g2 < 0 || g2 === layout.flag) continue;
        relax(id(g2, p2, 0), cost + 2, pd, gd);
      }
    }
  }
}

/** Unwind the search: the ghost's steps are run one, the player's run two. */
function lineTo(end, prev, edgePlayer, edgeGhost) {
  const runOne = [],
    runTwo = [];
  for (let at = end; prev[at] >= 0; at = prev[at]) {
    if (edgePlayer[at] >= 0) {
      runTwo.push(DIRS[edgePlayer[at]]);
      if (edgeGhost[at] >= 0) runOne.push(DIRS[edgeGhost[at]]);
    }
  }
  runOne.reverse();
  runTwo.reverse();
  return [...runOne, 'rewind', ...runTwo];
}

/** One optimal winning line (moves, 'rewind', moves), or null when nothing wins within `allowance`. */
export function solve(layout, allowance) {
  let one = winInRunOne(layout);
  if (one && one.length > allowance) one = null;
  const two = winInRunTwo(layout, allowance);
  if (one && two) return one.length <= two.cost ? one : two.line;
  return one || (two && two.line) || null;
}
