// The JS rules against the Rust engines' fixtures, and the seed's worked example by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, existsSync } from 'node:fs';
import { parseBoard, newGame, apply, view, fromView } from '../../public/js/rules.js';
import { ghostAt } from '../../public/js/games/ghost/rules.js';
import { GAMES } from '../../public/js/games/index.js';
import { distances } from '../route.mjs';
import { VAULT } from './fakes.mjs';

const FIXTURES = new URL('../fixtures/rules.json', import.meta.url);

test('rules fixtures present', () => {
  assert.ok(existsSync(FIXTURES), `missing ${FIXTURES.pathname} (the lead's Rust-generated fixtures)`);
  const cases = JSON.parse(readFileSync(FIXTURES, 'utf8'));
  assert.ok(Array.isArray(cases) && cases.length > 0, 'fixtures are a non-empty array');
  for (const g of GAMES)
    assert.ok(
      cases.some((c) => c.board.game === g.name),
      `has ${g.title} cases`,
    );
});

if (existsSync(FIXTURES)) {
  const cases = JSON.parse(readFileSync(FIXTURES, 'utf8'));
  cases.forEach((c, i) => {
    const b = c.board;
    test(`fixture ${i}: ${b.game} ${b.size} seed ${b.seed}, ${c.actions.length} actions`, () => {
      assert.equal(c.actions.length, c.expect.length);
      const g = newGame(parseBoard(b));
      c.actions.forEach((action, k) => {
        const r = apply(g, action);
        const got = { ...view(g), ok: r.ok };
        if (!r.ok) got.reason = r.reason;
        const want = c.expect[k];
        for (const field of Object.keys(want)) {
          assert.deepEqual(got[field], want[field], `action ${k} (${action}): field ${field}`);
        }
        // And nothing extra: the client must not invent fields the server does not send.
        for (const field of Object.keys(got)) {
          assert.ok(field in want, `action ${k} (${action}): unexpected field ${field}`);
        }
      });
    });
  });

  test('fromView rebuilds every fixture state exactly (resume from a snapshot)', () => {
    for (const c of cases) {
      const board = parseBoard(c.board);
      const g = newGame(board);
      for (const action of c.actions) {
        apply(g, action);
        const again = fromView(board, view(g), g.recording);
        assert.deepEqual(view(again), view(g));
        assert.equal(again.replayed, g.replayed);
      }
    }
  });
}

// The seed's worked example: column index 3 walled except row 2 (the gate): fakes.mjs's VAULT.
const words = (s) => s.split(/\s+/).filter(Boolean);
function play(line) {
  const g = newGame(parseBoard(VAULT));
  const results = words(line).map((a) => apply(g, a));
  return { g, results };
}
const RUN_ONE = 'down down down down down rewind';

test('worked example: the 14-step line is refused at the gate on move 5 of run two', () => {
  const { g, results } = play(`${RUN_ONE} right right down down right`);
  assert.deepEqual(
    results.slice(0, 10).map((r) => r.ok),
    Array(10).fill(true),
  );
  assert.deepEqual(results[10], { ok: false, reason: 'gate_closed' });
  assert.equal(g.steps, 9, 'the refused move used no step');
  assert.deepEqual(g.pos, [2, 2]);
  assert.deepEqual(g.ghost, [4, 0], 'the ghost is one step short of the plate');
  assert.equal(view(g).gate_open, false);
});

test('worked example: the 16-step line wins (burn one step, gate on move 7)', () => {
  const { g, results } = play(`${RUN_ONE} right right down down left right right right up up right`);
  assert.ok(results.every((r) => r.ok));
  assert.equal(g.status, 'won');
  assert.equal(g.steps, 16);
  assert.deepEqual(g.pos, [0, 5]);
});

test('worked example: spending step 20 on the flag wins', () => {
  const { g, results } = play(`${RUN_ONE} right right down down left right left right left right right right up up right`);
  assert.ok(results.every((r) => r.ok));
  assert.equal(g.steps, 20);
  assert.equal(g.status, 'won');
  assert.equal(view(g).steps_left, 0);
});

test('worked example: ending step 20 anywhere else is out of steps, and the game is over', () => {
  const { g, results } = play(`${RUN_ONE} right right down down left right left right left right right right up up down`);
  assert.ok(results.every((r) => r.ok));
  assert.equal(g.steps, 20);
  assert.equal(g.status, 'out_of_steps');
  assert.deepEqual(apply(g, 'up'), { ok: false, reason: 'game_over' });
  assert.deepEqual(apply(g, 'rewind'), { ok: false, reason: 'game_over' });
  assert.equal(g.steps, 20);
});

test('ghost: walls and edges refuse without a step; one rewind, in run one only', () => {
  const g = newGame(parseBoard(VAULT));
  assert.deepEqual(apply(g, 'up'), { ok: false, reason: 'wall' });
  assert.deepEqual(apply(g, 'left'), { ok: false, reason: 'wall' });
  assert.equal(g.steps, 0);
  apply(g, 'right');
  apply(g, 'right');
  assert.deepEqual(apply(g, 'right'), { ok: false, reason: 'wall' }, 'column 3 is walled at row 0');
  assert.deepEqual(g.recording, ['right', 'right']);
  assert.deepEqual(apply(g, 'rewind'), { ok: true });
  assert.equal(g.run, 2);
  assert.deepEqual(g.pos, [0, 0]);
  assert.deepEqual(apply(g, 'rewind'), { ok: false, reason: 'rewind_used' });
  // The ghost replays the two rights, then stands still.
  apply(g, 'down');
  apply(g, 'down');
  apply(g, 'up');
  assert.deepEqual(g.ghost, [0, 2]);
  assert.equal(g.replayed, 2);
});

test('ghost: holding the plate opens the gate for yourself in run one', () => {
  const v = { ...VAULT, cells: ['...#..', '...#..', '......', '...#..', '...#..', '...#..'], plate: [2, 2] };
  const g = newGame(parseBoard(v));
  const shut = newGame(parseBoard(VAULT));
  for (const d of words('right right down down')) assert.ok(apply(shut, d).ok);
  assert.deepEqual(apply(shut, 'right'), { ok: false, reason: 'gate_closed' }, 'nobody on the plate');
  for (const d of words('right right down')) assert.ok(apply(g, d).ok);
  assert.equal(view(g).gate_open, false);
  assert.ok(apply(g, 'down').ok);
  assert.equal(view(g).gate_open, true);
  assert.ok(apply(g, 'right').ok, 'step from the plate straight through the gate');
  for (const d of words('right up up')) assert.ok(apply(g, d).ok);
  assert.equal(g.status, 'playing');
  apply(g, 'right');
  assert.equal(g.status, 'won');
  assert.equal(g.run, 1);
});

test('ghostAt follows the recording and stops at its end', () => {
  const b = parseBoard(VAULT);
  assert.deepEqual(ghostAt(b, ['down', 'down', 'right'], 2), [2, 0]);
  assert.deepEqual(ghostAt(b, ['down', 'down', 'right'], 9), [2, 1]);
});

// A 3x3 maze: a snake from [0,0] right, down, left, down, right to the exit [2,2].
//  row 0: [0,0] right(2)  [0,1] left|right (8|2=a)  [0,2] left|down (8|4=c)
//  row 1: [1,0] right|down (2|4=6)  [1,1] left|right (a)  [1,2] up|left (1|8=9)
//  row 2: [2,0] up|right (1|2=3)  [2,1] left|right (a)  [2,2] left (8)
const MAZE = { game: 'maze', size: 'easy', seed: '1', n: 3, passages: ['2ac', '6a9', '3a8'], start: [0, 0], exit: [2, 2] };

test('maze: passages by bit, walls refused and not counted, the exit finishes', () => {
  const b = parseBoard(MAZE);
  const g = newGame(b);
  assert.deepEqual(apply(g, 'down'), { ok: false, reason: 'wall' });
  assert.deepEqual(apply(g, 'rewind'), { ok: false, reason: 'no_rewind' });
  assert.equal(g.steps, 0);
  for (const d of words('right right down left left down right')) assert.ok(apply(g, d).ok, d);
  assert.equal(g.steps, 7);
  assert.equal(g.status, 'playing');
  assert.ok(apply(g, 'right').ok);
  assert.equal(g.status, 'won');
  assert.equal(g.steps, 8);
  assert.deepEqual(view(g), { pos: [2, 2], steps: 8, status: 'won' }, 'a maze view has no ghost fields');
  assert.deepEqual(apply(g, 'left'), { ok: false, reason: 'game_over' });
  assert.equal(distances(b, b.start)[2 * 3 + 2], 8);
});

test('parseBoard refuses malformed boards', () => {
  assert.throws(() => parseBoard(null));
  assert.throws(() => parseBoard({ ...MAZE, n: 4 }));
  assert.throws(() => parseBoard({ ...VAULT, cells: ['...'] }));
  assert.throws(() => parseBoard({ ...MAZE, game: 'chess' }));
});
