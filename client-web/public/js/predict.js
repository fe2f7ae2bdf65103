// Prediction: moves applied at once, reconciled with move_result by seq (pure).
// `base` holds only what the server has confirmed; the game shown is base plus
// the actions still in flight. An answer that disagrees with the prediction
// wins: base is rebuilt from the server's view and the actions in flight are
// replayed on top, so a refused move snaps back and nothing else is lost.

import { newGame, apply, view, fromView } from './rules.js';

const clone = (g) => ({
  ...g,
  pos: g.pos.slice(),
  recording: g.recording.slice(),
  ghost: g.ghost ? g.ghost.slice() : null,
});

/** Whether our view agrees with every field the server sent. */
export function sameView(v, msg) {
  const eq = (a, b) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
  if (!eq(v.pos, msg.pos) || v.steps !== msg.steps || v.status !== msg.status) return false;
  if ('run' in msg && v.run !== msg.run) return false;
  if ('steps_left' in msg && v.steps_left !== msg.steps_left) return false;
  if ('gate_open' in msg && v.gate_open !== msg.gate_open) return false;
  return eq(v.ghost, msg.ghost);
}

export class Predictor {
  constructor(board, game = newGame(board)) {
    this.board = board;
    this.base = game;
    this.pending = []; // [{seq, action}] not yet answered, oldest first
    this.game = clone(game);
  }

  act(action, seq) {
    const r = apply(this.game, action);
    if (r.ok) this.pending.push({ seq, action });
    return r;
  }

  confirm(msg) {
    const shown = JSON.stringify(view(this.game));
    // Answers come in order: anything older was dropped.
    this.pending = this.pending.filter((p) => p.seq >= msg.seq);
    const entry = this.pending[0] && this.pending[0].seq === msg.seq ? this.pending.shift() : null;
    const candidate = clone(this.base);
    const r = entry ? apply(candidate, entry.action) : null;
    const agreed = !!entry && r.ok === msg.ok && sameView(view(candidate), msg);
    if (agreed) {
      this.base = candidate;
    } else {
      const rec = this.base.recording.slice();
      if (msg.ok && entry && entry.action !== 'rewind' && msg.run === 1) rec.push(entry.action);
      this.base = fromView(this.board, msg, rec);
    }
    this.game = clone(this.base);
    for (const p of this.pending) apply(this.game, p.action);
    // What the player sees had to change (a refused or lost move).
    const corrected = JSON.stringify(view(this.game)) !== shown;
    return { agreed, snapBack: !agreed && !msg.ok, corrected };
  }

  /** A resume's snapshot: nothing is in flight any more. */
  reset(v, recording) {
    this.base = fromView(this.board, v, recording);
    this.pending = [];
    this.game = clone(this.base);
  }
}
