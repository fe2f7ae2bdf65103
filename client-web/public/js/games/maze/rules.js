// Maze Escape's rules, ported from protocol/src/maze/play.rs (RULES.md, "Maze
// Escape: playing"; held to test/fixtures/rules.json through js/rules.js):
// passages one hex digit per cell, a wall refuses a move without counting it,
// the exit finishes, there is no rewind and no step budget. Pure.

import { DIRS, samePos, stepPos } from '../../grid.js';

// One hex digit per cell: bit 1 up, 2 right, 4 down, 8 left.
const BIT = { up: 1, right: 2, down: 4, left: 8 };

/** The board's rows (`passages`) and what a parsed maze answers. */
export const rowsOf = (pb) => pb.passages;
export function parse(b) {
  b.bits = b.rows.map((r) => Array.from(r, (ch) => parseInt(ch, 16) || 0));
  b.goal = b.exit;
  return b;
}

/** Null: a wall or the edge. */
export function neighbour(board, p, dir) {
  const q = stepPos(p, dir, board.n);
  return q && board.bits[p[0]][p[1]] & BIT[dir] ? q : null;
}

export const newGame = (board) => ({ board, pos: board.start.slice(), steps: 0, status: 'playing' });

export const copy = (g) => ({ ...g, pos: g.pos.slice() });

/** One action: {ok:true}, or {ok:false, reason} changing nothing. */
export function apply(g, action) {
  if (action === 'rewind') return { ok: false, reason: 'no_rewind' };
  if (!DIRS.includes(action)) return { ok: false, reason: 'bad_action' };
  if (g.status !== 'playing') return { ok: false, reason: 'game_over' };
  const q = neighbour(g.board, g.pos, action);
  if (!q) return { ok: false, reason: 'wall' };
  g.pos = q;
  g.steps += 1;
  if (samePos(q, g.board.exit)) g.status = 'won';
  return { ok: true };
}

/** As `move_result` reports it: a maze's view has nothing of its own. */
export const view = (g) => ({ pos: g.pos.slice(), steps: g.steps, status: g.status });

export function fromView(board, v) {
  const g = newGame(board);
  g.pos = v.pos.slice();
  g.steps = v.steps | 0;
  g.status = v.status || 'playing';
  return g;
}

export const resync = (base, msg) => fromView(base.board, msg);

/** Nothing but the racer's place is drawn or replayed. */
export const marks = () => ({});
export const progress = () => ({});

/** A maze is lost only by running out of time: a game in play can always still win. */
export const canStillWin = (g) => g.status === 'playing';
