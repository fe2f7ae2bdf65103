// The offline builder (public/js/offline/) against the protocol crate's own
// output (test/fixtures/boards.json, made by protocol/tests/board_fixtures.rs):
// the RNG's raw words and samplings, and every field of hundreds of boards per
// size, byte for byte in the wire's field order, plus fallback vaults reached
// through the attempt-limit seam and seeds where no attempt chose a gate.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ChaCha8 } from '../../public/js/offline/chacha.js';
import { BoardRng } from '../../public/js/offline/rng.js';
import { buildBoard, genLine, parseSeed, randomSeed, reveal } from '../../public/js/offline/board.js';
import { solve } from '../../public/js/games/ghost/solve.js';
import { builderPar, NoGateError } from '../../public/js/games/ghost/vault.js';
import { Cells } from '../../public/js/games/ghost/cells.js';
import { GAMES } from '../../public/js/games/index.js';

const F = JSON.parse(readFileSync(new URL('../fixtures/boards.json', import.meta.url), 'utf8'));
const LETTER = { u: 'up', d: 'down', l: 'left', r: 'right', x: 'rewind' };
const unpack = (s) => Array.from(s, (ch) => LETTER[ch]);
/** A fixture line with its packed solution unpacked: the exact `mazerace gen` line. */
function genOf(fx) {
  const { max_attempts: _, ...line } = fx;
  return JSON.stringify({ ...line, solution: unpack(line.solution) });
}

test('ChaCha8 raw u32 words (three refills of 64 words)', () => {
  for (const v of F.rng.u32) {
    const c = new ChaCha8(v.seed);
    assert.deepEqual(
      Array.from({ length: v.words.length }, () => c.nextU32()),
      v.words,
      `seed ${v.seed}`,
    );
  }
});

test('next_u64', () => {
  for (const v of F.rng.u64) {
    const r = new BoardRng(v.seed);
    assert.deepEqual(
      v.values.map(() => r.nextU64().toString()),
      v.values,
      `seed ${v.seed}`,
    );
  }
});

test('next_u64 after an odd u32 read straddles the refills as BlockRng does', () => {
  const m = F.rng.mixed;
  const c = new ChaCha8(m.seed);
  assert.equal(c.nextU32(), m.first_u32);
  assert.deepEqual(
    m.u64s.map(() => c.nextU64().toString()),
    m.u64s,
  );
});

test('below(n), small n in doubles and large n in BigInt', () => {
  for (const v of F.rng.below) {
    const r = new BoardRng(v.seed);
    const n = BigInt(v.n) < 1n << 53n ? Number(v.n) : BigInt(v.n);
    assert.deepEqual(
      v.values.map(() => String(r.below(n))),
      v.values,
      `n ${v.n}`,
    );
  }
});

test('unit()', () => {
  for (const v of F.rng.unit) {
    const r = new BoardRng(v.seed);
    assert.deepEqual(
      v.values.map(() => r.unit()),
      v.values,
      `seed ${v.seed}`,
    );
  }
});

test('shuffle()', () => {
  for (const v of F.rng.shuffle) {
    const r = new BoardRng(v.seed);
    assert.deepEqual(r.shuffle(Array.from({ length: v.len }, (_, i) => i)), v.out, `seed ${v.seed} len ${v.len}`);
  }
});

// Every size of every game in the table.
for (const { size } of GAMES.flatMap((g) => g.sizes)) {
  const boards = F.boards.filter((b) => b.size === size);
  test(`${size}: ${boards.length} boards equal the Rust builder's, field by field and in order`, () => {
    assert.ok(boards.length >= 100);
    for (const fx of boards) {
      assert.equal(JSON.stringify(genLine(size, fx.seed)), genOf(fx), `${size} seed ${fx.seed}`);
    }
  });
}

test('fallback vaults through the attempt-limit seam (solvable and not)', () => {
  assert.ok(F.fallbacks.some((f) => f.true_par === null) && F.fallbacks.some((f) => f.true_par !== null));
  for (const fx of F.fallbacks) {
    const got = genLine(fx.size, fx.seed, { maxAttempts: fx.max_attempts });
    assert.equal(got.fallback, true);
    assert.equal(JSON.stringify(got), genOf(fx), `${fx.size} seed ${fx.seed} limit ${fx.max_attempts}`);
  }
});

test('no gate within the limit is an error, as in Rust', () => {
  assert.ok(F.no_gate.length > 0);
  for (const fx of F.no_gate) {
    assert.throws(() => buildBoard(fx.size, fx.seed, { maxAttempts: fx.max_attempts }), NoGateError);
  }
});

test("the seed's worked example: L 5, par 14, true best 16, the same line", () => {
  const fx = F.worked_example;
  const walls = Uint8Array.from(fx.cells.join(''), (ch) => (ch === '#' ? 1 : 0));
  const at = ([r, c]) => r * fx.n + c;
  const layout = { cells: new Cells(fx.n, walls), start: at(fx.start), flag: at(fx.flag), plate: at(fx.plate), gate: at(fx.gate) };
  assert.deepEqual(builderPar(layout), { l: 5, par: 14 });
  const line = solve(layout, 20);
  assert.deepEqual(line, unpack(fx.solution));
  assert.equal(line.length - 1, 16);
});

test('seeds: canonical decimal u64 strings only; random seeds are in range', () => {
  assert.equal(parseSeed('007'), '7');
  assert.equal(parseSeed('18446744073709551615'), '18446744073709551615');
  for (const bad of ['', '-1', '1.5', '18446744073709551616', ' 1', 12]) assert.equal(parseSeed(bad), null);
  assert.throws(() => buildBoard('small', 'x'));
  assert.throws(() => buildBoard('tiny', '1'));
  for (let i = 0; i < 20; i++) assert.equal(parseSeed(randomSeed()) !== null, true);
});

test('reveal() is the results message shape', () => {
  const g = buildBoard('small', '1');
  assert.equal(JSON.stringify(reveal(g)), JSON.stringify({ game: 'ghost', par: 11, true_par: 11, solution: g.answer.solution }));
  const m = buildBoard('easy', '42');
  assert.deepEqual(Object.keys(reveal(m)), ['game', 'shortest', 'solution']);
});
