// Ghost's rules, ported from protocol/src/ghost/play.rs (RULES.md, "Ghost:
// playing"; held to test/fixtures/rules.json through js/rules.js): the vault's
// walls, the plate and the gate, run one recorded, the rewind, the ghost
// replaying run one in run two, the step budget. Also what the page reads of
// a racer's game that only Ghost has (its run, its ghost, the gate) and
// whether a run two can still win. Pure.

import { DIRS, samePos, stepPos } from '../../grid.js';

/** The board's rows (`cells`: '#' a wall, '.' open) and what a parsed vault answers. */
export const rowsOf = (pb) => pb.cells;
export function parse(b) {
  b.wall = (p) => b.rows[p[0]][p[1]] === '#';
  b.goal = b.flag;
  return b;
}

/** Ignoring the gate; null: a wall or the edge. */
export function neighbour(board, p, dir) {
  const q = stepPos(p, dir, board.n);
  return q && !board.wall(q) ? q : null;
}

export function newGame(board) {
  return {
    board,
    pos: board.start.slice(),
    steps: 0,
    status: 'playing',
    run: 1,
    recording: [],
    ghost: null, // run two
    replayed: 0, // run two: of the recording
  };
}

/** A game apart from `g` (prediction keeps the server's and the shown one). */
export const copy = (g) => ({ ...g, pos: g.pos.slice(), recording: g.recording.slice(), ghost: g.ghost ? g.ghost.slice() : null });

export const onPlate = (b, p) => samePos(p, b.plate);
/** Someone stands on the plate: the player, or their ghost (`x`: a game, a replay's frame, a `progress` entry). */
export const gateOpenAt = (b, x) => samePos(x.pos, b.plate) || samePos(x.ghost, b.plate);
export const gateOpen = (g) => gateOpenAt(g.board, g);

/** One action ('up'...'right' or 'rewind'): {ok:true}, or {ok:false, reason} changing nothing. */
export function apply(g, action) {
  const b = g.board;
  if (action === 'rewind') {
    if (g.status !== 'playing') return { ok: false, reason: 'game_over' };
    if (g.run !== 1) return { ok: false, reason: 'rewind_used' };
    g.run = 2;
    g.pos = b.start.slice();
    g.ghost = b.start.slice();
    g.replayed = 0;
    return { ok: true };
  }
  if (!DIRS.includes(action)) return { ok: false, reason: 'bad_action' };
  if (g.status !== 'playing') return { ok: false, reason: 'game_over' };
  const q = neighbour(b, g.pos, action);
  if (!q) return { ok: false, reason: 'wall' };
  // The gate is judged before this move (the ghost has not stepped yet).
  if (samePos(q, b.gate) && !gateOpen(g)) return { ok: false, reason: 'gate_closed' };
  g.pos = q;
  g.steps += 1;
  if (g.run === 1) {
    g.recording.push(action);
  } else if (g.ghost && g.replayed < g.recording.length) {
    g.ghost = stepPos(g.ghost, g.recording[g.replayed], b.n) || g.ghost;
    g.replayed += 1;
  }
  // Before the budget: step 20 of 20 on the flag wins.
  if (samePos(q, b.flag)) g.status = 'won';
  else if (g.steps >= b.allowance) g.status = 'out_of_steps';
  return { ok: true };
}

/** As `move_result` reports it (protocol/src/play.rs GameView with its GhostView). */
export function view(g) {
  const v = { pos: g.pos.slice(), steps: g.steps, status: g.status };
  v.run = g.run;
  v.steps_left = Math.max(0, g.board.allowance - g.steps);
  if (g.ghost) v.ghost = g.ghost.slice();
  v.gate_open = gateOpen(g);
  return v;
}

/** From the server's view and the run-one recording (a resume, a correction). */
export function fromView(board, v, recording = []) {
  const g = newGame(board);
  g.pos = v.pos.slice();
  g.steps = v.steps | 0;
  g.status = v.status || 'playing';
  g.run = v.run === 2 ? 2 : 1;
  g.recording = recording.slice();
  if (g.run === 2) {
    // The ghost has walked a recorded step per step since the rewind.
    g.replayed = Math.min(g.recording.length, Math.max(0, g.steps - g.recording.length));
    g.ghost = v.ghost ? v.ghost.slice() : ghostAt(board, g.recording, g.replayed);
  }
  return g;
}

/**
 * The server's view adopted where it disagrees with `base`, keeping what a
 * view does not say: the recording, with `action` added when the server
 * accepted it in run one.
 */
export function resync(base, msg, action) {
  const rec = base.recording.slice();
  if (msg.ok && action && action !== 'rewind' && msg.run === 1) rec.push(action);
  return fromView(base.board, msg, rec);
}

export function ghostAt(board, recording, k) {
  let p = board.start.slice();
  for (let i = 0; i < k && i < recording.length; i++) p = stepPos(p, recording[i], board.n) || p;
  return p;
}

/**
 * What the board and the replay show of a racer besides their place (`x`: a
 * game, a replay's frame, another racer's `progress`): the run, the ghost,
 * the gate.
 */
export const marks = (x, board) => ({ ghost: x.ghost ? x.ghost.slice() : null, run: x.run, gateOpen: gateOpenAt(board, x) });

/** `progress`'s fields of this game, for the offline stand-in (server/src/rooms: the racer's run). */
export const progress = (g) => ({ run: g.run });

/**
 * Whether a game still in play can reach its goal within its step budget.
 * Only run two can be lost before the budget runs out: the ghost walks run
 * one again, so after a rewind off the plate the gate opens only if the
 * player can hold the plate beside it. A breadth-first search over
 * (position, ghost's place in the recording), with apply() as the judge.
 */
export function canStillWin(g) {
  if (g.status !== 'playing') return false;
  if (g.run !== 2) return true;
  const key = (x) => `${x.pos}|${x.replayed}`;
  const seen = new Set([key(g)]);
  for (let frontier = [g]; frontier.length;) {
    const next = [];
    for (const x of frontier) {
      for (const d of DIRS) {
        const y = { ...x, pos: x.pos.slice(), ghost: x.ghost && x.ghost.slice() };
        if (!apply(y, d).ok) continue;
        if (y.status === 'won') return true;
        if (y.status !== 'playing' || seen.has(key(y))) continue;
        seen.add(key(y));
        next.push(y);
      }
    }
    frontier = next;
  }
  return false;
}
