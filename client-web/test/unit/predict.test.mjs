// Prediction and reconciliation with move_result by seq.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseBoard, newGame, apply, view } from '../../public/js/rules.js';
import { Predictor, sameView } from '../../public/js/predict.js';
import { VAULT as WORKED_EXAMPLE } from './fakes.mjs';

const VAULT = parseBoard(WORKED_EXAMPLE);

/** What the server would answer: its own engine (the same rules) applied in order. */
function server(board) {
  const g = newGame(board);
  return (seq, action) => {
    const r = apply(g, action);
    return { seq, ok: r.ok, ...(r.ok ? {} : { reason: r.reason }), ...view(g) };
  };
}

test('predicted moves show at once and agreeing answers change nothing', () => {
  const p = new Predictor(VAULT);
  const answer = server(VAULT);
  const sent = [];
  let seq = 0;
  for (const a of ['down', 'down', 'down']) {
    seq += 1;
    assert.ok(p.act(a, seq).ok);
    sent.push([seq, a]);
  }
  assert.deepEqual(p.game.pos, [3, 0], 'shown before any answer');
  assert.equal(p.pending.length, 3);
  for (const [s, a] of sent) assert.deepEqual(p.confirm(answer(s, a)), { agreed: true, snapBack: false, corrected: false });
  assert.deepEqual(p.game.pos, [3, 0]);
  assert.deepEqual(p.base.pos, [3, 0]);
  assert.equal(p.pending.length, 0);
});

test('a move the rules refuse is not queued (nothing to wait for)', () => {
  const p = new Predictor(VAULT);
  assert.deepEqual(p.act('up', 1), { ok: false, reason: 'wall' });
  assert.equal(p.pending.length, 0);
  assert.equal(p.game.steps, 0);
});

test('a move the server refuses snaps back, and later moves are replayed on the truth', () => {
  const p = new Predictor(VAULT);
  p.act('down', 1);
  p.act('right', 2);
  assert.deepEqual(p.game.pos, [1, 1]);
  // The server refused seq 1 (say the race had ended for this player) and accepted nothing else yet.
  const r = p.confirm({
    seq: 1,
    ok: false,
    reason: 'game_over',
    pos: [0, 0],
    steps: 0,
    status: 'playing',
    run: 1,
    steps_left: 20,
    gate_open: false,
  });
  assert.deepEqual(r, { agreed: false, snapBack: true, corrected: true });
  assert.deepEqual(p.base.pos, [0, 0]);
  assert.deepEqual(p.game.pos, [0, 1], 'seq 2 (right) replayed from the start');
  assert.deepEqual(p.game.recording, ['right']);
});

test('a server view that disagrees is adopted, keeping the run-one recording', () => {
  const p = new Predictor(VAULT);
  p.act('down', 1);
  // The server says the move went somewhere else (rules drift): believe it.
  const r = p.confirm({ seq: 1, ok: true, pos: [0, 1], steps: 1, status: 'playing', run: 1, steps_left: 19, gate_open: false });
  assert.equal(r.agreed, false);
  assert.equal(r.snapBack, false);
  assert.deepEqual(p.game.pos, [0, 1]);
  assert.deepEqual(p.game.recording, ['down'], 'the accepted move is recorded');
});

test('unanswered older seqs are dropped when a newer answer arrives', () => {
  const p = new Predictor(VAULT);
  const answer = server(VAULT);
  p.act('down', 1); // lost (say rate-limited): the server never applied it
  p.act('right', 2);
  const r = p.confirm(answer(2, 'right'));
  assert.equal(r.agreed, true, 'right from the confirmed state is what the server did');
  assert.equal(r.corrected, true, 'but the shown position had down+right and moves back');
  assert.deepEqual(p.game.pos, [0, 1]);
  assert.equal(p.pending.length, 0);
});

test('rewind is predicted and confirmed; the ghost follows', () => {
  const p = new Predictor(VAULT);
  const answer = server(VAULT);
  const line = ['down', 'down', 'down', 'down', 'down', 'rewind', 'right'];
  line.forEach((a, i) => assert.ok(p.act(a, i + 1).ok));
  assert.deepEqual(p.game.ghost, [1, 0]);
  line.forEach((a, i) => assert.ok(p.confirm(answer(i + 1, a)).agreed));
  assert.equal(p.game.run, 2);
  assert.deepEqual(p.base.ghost, [1, 0]);
});

test('reset from a snapshot rebuilds run two with the ghost mid-replay', () => {
  const p = new Predictor(VAULT);
  p.act('down', 1);
  p.reset({ pos: [0, 2], steps: 7, status: 'playing', run: 2, steps_left: 13, ghost: [2, 0], gate_open: false }, [
    'down',
    'down',
    'down',
    'down',
    'down',
  ]);
  assert.equal(p.pending.length, 0);
  assert.equal(p.game.replayed, 2);
  assert.ok(p.act('down', 9).ok);
  assert.deepEqual(p.game.ghost, [3, 0]);
});

test('sameView compares every field the server sends', () => {
  const v = { pos: [1, 0], steps: 1, status: 'playing', run: 1, steps_left: 19, gate_open: false };
  assert.ok(sameView(v, { ...v, seq: 3, ok: true }));
  assert.ok(!sameView(v, { ...v, gate_open: true }));
  assert.ok(!sameView(v, { ...v, ghost: [0, 0] }));
  assert.ok(!sameView(v, { ...v, steps_left: 18 }));
});
