// The rules of both games, ported from protocol/ (RULES.md; held to test/fixtures/rules.json). Pure.

export const DIRS = ['up', 'down', 'left', 'right'];
const DELTA = { up: [-1, 0], down: [1, 0], left: [0, -1], right: [0, 1] };
// Maze passages: one hex digit per cell, bit 1 up, 2 right, 4 down, 8 left.
const BIT = { up: 1, right: 2, down: 4, left: 8 };

export const samePos = (a, b) => !!a && !!b && a[0] === b[0] && a[1] === b[1];

export function stepPos(p, dir, n) {
  const d = DELTA[dir];
  if (!d) return null;
  const r = p[0] + d[0],
    c = p[1] + d[1];
  return r >= 0 && c >= 0 && r < n && c < n ? [r, c] : null;
}

export function parseBoard(pb) {
  if (!pb || typeof pb !== 'object') throw new Error('no board');
  const n = pb.n;
  if (!Number.isInteger(n) || n < 2 || n > 64) throw new Error('bad board size');
  const rows = pb.game === 'ghost' ? pb.cells : pb.game === 'maze' ? pb.passages : null;
  if (!Array.isArray(rows) || rows.length !== n || rows.some((r) => typeof r !== 'string' || r.length !== n)) {
    throw new Error('bad board rows');
  }
  const b = { ...pb, rows };
  if (pb.game === 'ghost') {
    b.wall = (p) => rows[p[0]][p[1]] === '#';
    b.goal = pb.flag;
  } else {
    b.bits = rows.map((r) => Array.from(r, (ch) => parseInt(ch, 16) || 0));
    b.goal = pb.exit;
  }
  return b;
}

export function readBoard(pb) {
  try {
    return pb ? parseBoard(pb) : null;
  } catch {
    return null;
  }
}

/** Ignoring the gate; null: a wall or the edge. */
export function neighbour(board, p, dir) {
  const q = stepPos(p, dir, board.n);
  if (!q) return null;
  if (board.game === 'ghost') return board.wall(q) ? null : q;
  return board.bits[p[0]][p[1]] & BIT[dir] ? q : null;
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

export function gateOpen(g) {
  const b = g.board;
  return b.game === 'ghost' && (samePos(g.pos, b.plate) || samePos(g.ghost, b.plate));
}

/** One action ('up'...'right' or 'rewind'): {ok:true}, or {ok:false, reason} changing nothing. */
export function apply(g, action) {
  const b = g.board;
  if (action === 'rewind') {
    if (b.game !== 'ghost') return { ok: false, reason: 'no_rewind' };
    if (g.status !== 'playing') return { ok: false, reason: 'game_over' };
    if (g.run !== 1) return { ok: false, reason: 'rewind_used' };
    g.run = 2;
    g.pos = b.start.slice();
    g.ghost = b.start.slice();
    g.replayed = 0;
    return { ok: true };
  }
  if (!DELTA[action]) return { ok: false, reason: 'bad_action' };
  if (g.status !== 'playing') return { ok: false, reason: 'game_over' };
  const q = neighbour(b, g.pos, action);
  if (!q) return { ok: false, reason: 'wall' };
  // The gate (a vault's only) is judged before this move (the ghost has not stepped yet).
  if (samePos(q, b.gate) && !gateOpen(g)) return { ok: false, reason: 'gate_closed' };
  g.pos = q;
  g.steps += 1;
  if (b.game === 'maze') {
    if (samePos(q, b.exit)) g.status = 'won';
    return { ok: true };
  }
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

export function view(g) {
  const v = { pos: g.pos.slice(), steps: g.steps, status: g.status };
  if (g.board.game === 'ghost') {
    v.run = g.run;
    v.steps_left = Math.max(0, g.board.allowance - g.steps);
    if (g.ghost) v.ghost = g.ghost.slice();
    v.gate_open = gateOpen(g);
  }
  return v;
}

/** From the server's view and the run-one recording (a resume, a correction). */
export function fromView(board, v, recording = []) {
  const g = newGame(board);
  g.pos = v.pos.slice();
  g.steps = v.steps | 0;
  g.status = v.status || 'playing';
  if (board.game === 'ghost') {
    g.run = v.run === 2 ? 2 : 1;
    g.recording = recording.slice();
    if (g.run === 2) {
      // The ghost has walked a recorded step per step since the rewind.
      g.replayed = Math.min(g.recording.length, Math.max(0, g.steps - g.recording.length));
      g.ghost = v.ghost ? v.ghost.slice() : ghostAt(board, g.recording, g.replayed);
    }
  }
  return g;
}

export function ghostAt(board, recording, k) {
  let p = board.start.slice();
  for (let i = 0; i < k && i < recording.length; i++) p = stepPos(p, recording[i], board.n) || p;
  return p;
}

/**
 * Whether a game still in play can reach its goal within its step budget.
 * Only run two of a vault can be lost before the budget runs out: the ghost
 * walks run one again, so after a rewind off the plate the gate opens only
 * if the player can hold the plate beside it. A breadth-first search over
 * (position, ghost's place in the recording), with apply() as the judge.
 */
export function canStillWin(g) {
  if (g.status !== 'playing') return false;
  if (g.board.game !== 'ghost' || g.run !== 2) return true;
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

/** From every cell (-1: unreachable), the gate open: board.rs goal_distances(). */
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
