// The rules of a board's game, asked of that game's module (js/games/NAME/
// rules.js, its port of protocol/; every game's is loaded before this module
// is ready), and what every game shares: the grid's helpers (grid.js), a
// tap's direction, the distance to the goal. Held to
// test/fixtures/rules.json. Pure. Loaded with the room screens (engine.js),
// not with the home page. A game's rules.js exports what is asked of it
// below: rowsOf, parse, neighbour, newGame, copy, apply, view, fromView,
// resync, marks, progress, canStillWin.

import { load } from './games/index.js';
import { DIRS, samePos, stepPos } from './grid.js';

export { DIRS, samePos, stepPos };

const RULES = await load('rules');

/** The rules of `board`'s game (a parsed board: parseBoard knew its game). */
const rulesOf = (board) => RULES.get(board.game);

/** A board as the server sends it, checked and parsed by its game's rules (`goal` is where a run ends). */
export function parseBoard(pb) {
  if (!pb || typeof pb !== 'object') throw new Error('no board');
  const n = pb.n;
  if (!Number.isInteger(n) || n < 2 || n > 64) throw new Error('bad board size');
  const game = RULES.get(pb.game);
  if (!game) throw new Error('unknown game');
  const rows = game.rowsOf(pb);
  if (!Array.isArray(rows) || rows.length !== n || rows.some((r) => typeof r !== 'string' || r.length !== n)) {
    throw new Error('bad board rows');
  }
  return game.parse({ ...pb, rows });
}

export function readBoard(pb) {
  try {
    return pb ? parseBoard(pb) : null;
  } catch {
    return null;
  }
}

/** Ignoring any gate; null: a wall or the edge. */
export const neighbour = (board, p, dir) => rulesOf(board).neighbour(board, p, dir);

export const newGame = (board) => rulesOf(board).newGame(board);

/** One action ('up'...'right', or a game's own such as 'rewind'): {ok:true}, or {ok:false, reason} changing nothing. */
export const apply = (g, action) => rulesOf(g.board).apply(g, action);

/** The game as `move_result` reports it (nothing more: the fixtures check every field). */
export const view = (g) => rulesOf(g.board).view(g);

/** From the server's view and, for a game that keeps one, `snapshot.recording` (a resume, a correction). */
export const fromView = (board, v, recording = []) => rulesOf(board).fromView(board, v, recording);

/** A game apart from `g`. */
export const copy = (g) => rulesOf(g.board).copy(g);

/** The server's view `msg` adopted over `base`, after `action` (or none) was answered. */
export const resync = (base, msg, action) => rulesOf(base.board).resync(base, msg, action);

/**
 * What the board and the replay show of a racer besides their place (`x`:
 * a game, a replay's frame, another racer's `progress`): fields the game's
 * drawing reads (render.js passes them on as they are).
 */
export const marks = (x, board) => rulesOf(board).marks(x, board);

/** The game's own fields of `progress` (the offline stand-in sends them as the server does). */
export const progressOf = (g) => rulesOf(g.board).progress(g);

/** Whether a game still in play can reach its goal within its budget (found exactly, where a game can be lost early). */
export const canStillWin = (g) => rulesOf(g.board).canStillWin(g);

/** The step from `a` toward `b` along the axis with the larger distance (a tap anywhere on the board), or null at `b`. */
export function dirToward(a, b) {
  const dr = b[0] - a[0],
    dc = b[1] - a[1];
  if (!dr && !dc) return null;
  if (Math.abs(dr) >= Math.abs(dc)) return dr < 0 ? 'up' : 'down';
  return dc < 0 ? 'left' : 'right';
}

export function dirTo(a, b) {
  const dr = b[0] - a[0],
    dc = b[1] - a[1];
  if (Math.abs(dr) + Math.abs(dc) !== 1) return null;
  return dr === -1 ? 'up' : dr === 1 ? 'down' : dc === -1 ? 'left' : 'right';
}

/** From every cell (-1: unreachable), any gate open: board.rs goal_distances(). */
export function distancesToGoal(board, goal = board.goal) {
  const n = board.n;
  const dist = new Array(n * n).fill(-1);
  dist[goal[0] * n + goal[1]] = 0;
  const queue = [goal];
  for (let i = 0; i < queue.length; i++) {
    const p = queue[i];
    for (const d of DIRS) {
      // Moves are symmetric: a step back from the goal is a step towards it.
      const q = neighbour(board, p, d);
      if (q && dist[q[0] * n + q[1]] < 0) {
        dist[q[0] * n + q[1]] = dist[p[0] * n + p[1]] + 1;
        queue.push(q);
      }
    }
  }
  return dist;
}
