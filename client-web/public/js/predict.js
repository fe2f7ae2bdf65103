// Prediction: moves applied at once, reconciled with move_result by seq (pure).
// `base` holds only what the server has confirmed; the game shown is base plus
// the actions still in flight. An answer that disagrees with the prediction
// wins: base is rebuilt from the server's view and the actions in flight are
// replayed on top, so a refused move snaps back and nothing else is lost.

import { newGame, apply, view, fromView, copy as clone, resync } from './rules.js';

/** What an answer carries besides the game's view (`move_result`, `rewind_result`). */
const ENVELOPE = new Set(['type', 'seq', 'ok', 'reason']);

/**
 * Whether our view (rules.js view(): exactly the fields the server reports,
 * whatever the game) agrees with the server's answer, field by field, a field
 * on one side only counting as a disagreement.
 */
export function sameView(v, msg) {
  const eq = (a, b) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
  for (const k of new Set([...Object.keys(v), ...Object.keys(msg)])) if (!ENVELOPE.has(k) && !eq(v[k], msg[k])) return false;
  return true;
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
      this.base = resync(this.base, msg, entry && entry.action);
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
