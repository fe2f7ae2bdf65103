// racerules.js against the Rust-made race fixtures (protocol/tests/race_fixtures.rs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { clockFor, efficiency, rank, rankAmong } from '../../public/js/racerules.js';

const FX = JSON.parse(readFileSync(new URL('../fixtures/race.json', import.meta.url)));

test('the clock rule matches the server', () => {
  for (const c of FX.clock) assert.equal(clockFor(c.daily, c.racers), c.clock, JSON.stringify(c));
});

test('efficiency matches the server, never 100 for a longer run', () => {
  for (const c of FX.efficiency) assert.equal(efficiency(c.best, c.steps), c.efficiency, JSON.stringify(c));
});

test('every ranking case matches the server line for line', () => {
  assert.ok(FX.rankings.length >= 100);
  for (const c of FX.rankings) {
    const entries = c.entries.map((e) => ({ time_ms: null, ...e }));
    assert.deepEqual(rank(entries, c.rank_by, c.best), c.rankings, JSON.stringify(c));
    for (const a of c.rank_among) {
      const me = entries.find((e) => e.id === a.id);
      assert.equal(rankAmong(me, entries, c.rank_by), a.rank, JSON.stringify(c));
    }
  }
});
