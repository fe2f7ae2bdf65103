// Finds a winning line for a board from the board alone (tests use it to
// play like a person who read the board): the maze's shortest route, or for
// Ghost the shortest walk to the plate, a rewind, and the shortest run two
// given that recording, searched with the client's own rules.
import { parseBoard, newGame, apply, neighbour, samePos, DIRS, distancesToGoal } from '../public/js/rules.js';
import { ghostAt } from '../public/js/games/ghost/rules.js';

/** Shortest list of directions from `from` to `to`, never entering `avoid`. */
export function bfsPath(board, from, to, avoid = null) {
  const n = board.n;
  const key = (p) => p[0] * n + p[1];
  const prev = new Map([[key(from), null]]);
  const queue = [from];
  for (let i = 0; i < queue.length; i++) {
    const p = queue[i];
    if (samePos(p, to)) {
      const path = [];
      for (let k = key(p); prev.get(k); k = prev.get(k).k) path.unshift(prev.get(k).d);
      return path;
    }
    for (const d of DIRS) {
      const q = neighbour(board, p, d);
      if (!q || (avoid && samePos(q, avoid)) || prev.has(key(q))) continue;
      prev.set(key(q), { k: key(p), d });
      queue.push(q);
    }
  }
  return null;
}

/** A winning action list for a PublicBoard, or null. */
export function route(publicBoard) {
  const b = parseBoard(publicBoard);
  if (b.game === 'maze') return bfsPath(b, b.start, b.exit);
  const runOne = bfsPath(b, b.start, b.plate, b.gate);
  if (!runOne) return null;
  const L = runOne.length;
  // Run two: states (cell, ghost steps replayed up to L); the ghost is fully determined by the count.
  const n = b.n;
  const key = (p, k) => (p[0] * n + p[1]) * (L + 1) + k;
  const start = { pos: b.start, k: 0 };
  const prev = new Map([[key(b.start, 0), null]]);
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const s = queue[i];
    const depth = depthOf(prev, key(s.pos, s.k));
    if (L + depth >= b.allowance) continue;
    for (const d of DIRS) {
      const g = newGame(b);
      Object.assign(g, {
        run: 2,
        pos: s.pos.slice(),
        steps: L + depth,
        recording: runOne.slice(),
        replayed: s.k,
        ghost: ghostAt(b, runOne, s.k),
      });
      if (!apply(g, d).ok) continue;
      const k2 = Math.min(L, s.k + 1);
      const kk = key(g.pos, k2);
      if (prev.has(kk)) continue;
      prev.set(kk, { from: key(s.pos, s.k), d });
      if (g.status === 'won') {
        const two = [];
        for (let c = kk; prev.get(c); c = prev.get(c).from) two.unshift(prev.get(c).d);
        return [...runOne, 'rewind', ...two];
      }
      queue.push({ pos: g.pos, k: k2 });
    }
  }
  return null;
}

function depthOf(prev, k) {
  let d = 0;
  for (let c = k; prev.get(c); c = prev.get(c).from) d++;
  return d;
}

/** BFS distances from `from` over open moves (gate treated as open): rules.js's one BFS. */
export const distances = (board, from) => distancesToGoal(board, from);
