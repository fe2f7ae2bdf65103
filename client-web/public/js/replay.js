// Actions replayed through rules.js as frames, and the one playback player,
// used for a stored daily run (replayview.js) and for the optimal line in the
// results. Pure: no DOM, no timers; the view drives `tick()`.

import { newGame, apply, marks } from './rules.js';

/**
 * Frames for `actions` on a parsed board: frames[0] is the start, frames[k]
 * the state after k actions ({pos, steps, status, from, ...the game's marks:
 * a run's number, its ghost, the gate}, `from` being the frame this run began at, for
 * the trail). Stops at the first
 * action the rules refuse and reports it as `refused` ({index, action, reason}).
 */
export function replayFrames(board, actions) {
  const g = newGame(board);
  const snap = (from) => ({ pos: g.pos.slice(), steps: g.steps, status: g.status, from, ...marks(g, board) });
  const frames = [snap(0)];
  let refused = null;
  for (const [index, action] of (Array.isArray(actions) ? actions : []).entries()) {
    const r = apply(g, action);
    if (!r.ok) {
      refused = { index, action, reason: r.reason };
      break;
    }
    frames.push(snap(action === 'rewind' ? frames.length : frames[frames.length - 1].from));
  }
  return { frames, refused };
}

export const trailAt = (frames, i) => frames.slice(frames[i].from, i + 1).map((f) => f.pos);

export function visitedAt(frames, i) {
  const set = new Set();
  for (let k = 0; k <= i; k++) set.add(frames[k].pos.join(','));
  return set;
}

export const SPEEDS = [0.5, 1, 2, 4];

export class Playback {
  constructor(count, { speed = 1, at = 0 } = {}) {
    this.last = Math.max(0, count - 1);
    this.i = Math.min(Math.max(0, at), this.last);
    this.playing = false;
    this.speed = SPEEDS.includes(speed) ? speed : 1;
  }

  get atEnd() {
    return this.i === this.last;
  }

  /** Between two moves: 300 ms at 1×. */
  get interval() {
    return 300 / this.speed;
  }

  play() {
    if (this.atEnd) this.i = 0;
    this.playing = this.last > 0;
  }

  pause() {
    this.playing = false;
  }

  toggle() {
    if (this.playing) this.pause();
    else this.play();
  }

  step(d) {
    this.pause();
    this.seek(this.i + d);
  }

  seek(i) {
    this.i = Math.min(Math.max(0, Math.round(Number(i)) || 0), this.last);
  }

  setSpeed(s) {
    if (SPEEDS.includes(s)) this.speed = s;
  }

  tick() {
    if (!this.playing) return false;
    if (this.i < this.last) this.i += 1;
    if (this.atEnd) this.playing = false;
    return true;
  }
}

/**
 * Whether the replayed run ends where the server says it did: the same steps,
 * and finished exactly when the run is 'finished' (a run that ran out of steps
 * or was abandoned ends short of the goal, so "finished" must match the
 * replay's own status).
 */
export function agrees(frames, refused, run) {
  const end = frames[frames.length - 1];
  return !refused && end.steps === run.steps && (end.status === 'won') === (run.state === 'finished');
}
