import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clock, hms, ordinal, msToUtcMidnight, cleanCode, codeFromPath, sizeLabel } from '../../public/js/format.js';

test('clock and countdown formats', () => {
  assert.equal(clock(0), '0:00.0');
  assert.equal(clock(42_345), '0:42.3');
  assert.equal(clock(61_000), '1:01.0');
  assert.equal(clock(null), '–');
  assert.equal(hms(3_723_000), '1:02:03');
  assert.equal(hms(500), '0:00:01');
  assert.equal(hms(-5), '0:00:00');
});

test('ordinals', () => {
  assert.deepEqual([1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111].map(ordinal),
    ['1st', '2nd', '3rd', '4th', '11th', '12th', '13th', '21st', '22nd', '101st', '111th']);
});

test('time to the next UTC midnight', () => {
  assert.equal(msToUtcMidnight(Date.UTC(2026, 11, 1, 23, 59, 0)), 60_000);
  assert.equal(msToUtcMidnight(Date.UTC(2026, 11, 31, 0, 0, 0)), 86_400_000);
});

test('room codes from typing, links and paths', () => {
  assert.equal(cleanCode(' k7m2q '), 'K7M2Q');
  assert.equal(cleanCode('http://192.168.1.5:7878/r/K7M2Q'), 'K7M2Q');
  assert.equal(cleanCode('<b>'), 'B');
  assert.equal(codeFromPath('/r/k7m2q'), 'K7M2Q');
  assert.equal(codeFromPath('/r/'), null);
  assert.equal(codeFromPath('/'), null);
  assert.equal(sizeLabel('maze', 'hard'), 'Hard 23×23');
});
