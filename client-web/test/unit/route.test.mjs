// The tests' own route finder (used by the browser tests) wins on real boards.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseBoard, newGame, apply } from '../../public/js/rules.js';
import { route } from '../route.mjs';
import { VAULT } from './fakes.mjs';

const FIXTURES = new URL('../fixtures/rules.json', import.meta.url);

test('route wins the worked example in 16 steps', () => {
  const board = VAULT;
  const line = route(board);
  const g = newGame(parseBoard(board));
  for (const a of line) assert.ok(apply(g, a).ok, a);
  assert.equal(g.status, 'won');
  assert.equal(g.steps, 16);
});

test('route wins every fixture board within its allowance', () => {
  const seen = new Set();
  for (const c of JSON.parse(readFileSync(FIXTURES, 'utf8'))) {
    const id = `${c.board.game}/${c.board.size}/${c.board.seed}`;
    if (seen.has(id) || c.board.fallback) continue;
    seen.add(id);
    const line = route(c.board);
    assert.ok(line, `no route on ${id}`);
    const g = newGame(parseBoard(c.board));
    for (const a of line) assert.ok(apply(g, a).ok, `${id}: ${a}`);
    assert.equal(g.status, 'won', id);
  }
  assert.ok(seen.size >= 10);
});
