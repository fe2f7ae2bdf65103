import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  clock,
  hms,
  ordinal,
  msToUtcMidnight,
  cleanCode,
  codeFromPath,
  sizeLabel,
  keyFrom,
  roomPath,
  lineHiddenUntil,
  entryName,
  shownEntries,
  leaguePath,
  withKey,
  removable,
} from '../../public/js/format.js';

test("a league's link carries its invite key, and lookups bring it when known", () => {
  assert.equal(leaguePath('K7M2QX9P', '3f9a0c1d5e7b2a64'), '/l/K7M2QX9P?k=3f9a0c1d5e7b2a64');
  assert.equal(leaguePath('K7M2QX9P', undefined), '/l/K7M2QX9P');
  assert.deepEqual(withKey({ type: 'join_league', code: 'K' }, 'ab'), { type: 'join_league', code: 'K', key: 'ab' });
  assert.deepEqual(withKey({ type: 'join_league', code: 'K' }, null), { type: 'join_league', code: 'K' });
});

test('the owner may remove every member but themself, nobody else may remove anyone', () => {
  const lines = (ownerIsMe) => [
    { name: 'Ann', member: 'a1', owner: true, you: ownerIsMe },
    { name: 'Bob', member: 'b2', you: !ownerIsMe },
    { name: 'Cy', member: 'c3' },
  ];
  assert.deepEqual(removable({ lines: lines(true) }), ['b2', 'c3']);
  assert.deepEqual(removable({ lines: lines(false) }), []);
  assert.deepEqual(removable(null), [], 'loading');
});

test('a table line paced at the floor is marked, others are not', () => {
  assert.equal(entryName({ name: 'Zed', at_floor: true }), 'Zed (floor pace)');
  assert.equal(entryName({ name: 'Ann', at_floor: false }), 'Ann');
  const lines = [
    { rank: 1, run_id: 7, at_floor: true },
    { rank: 2, run_id: 8 },
    { rank: 3, run_id: 9, at_floor: true },
  ];
  assert.deepEqual(shownEntries(lines, false, 9), lines, 'shown unless asked');
  assert.deepEqual(
    shownEntries(lines, true, 9).map((e) => [e.rank, e.run_id]),
    [
      [2, 8],
      [3, 9],
    ],
    "hidden, but my own line stays, and the ranks stay the server's",
  );
  assert.equal(entryName({ name: 'Bob' }), 'Bob', 'absent: not flagged');
});

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
  assert.deepEqual([1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111].map(ordinal), [
    '1st',
    '2nd',
    '3rd',
    '4th',
    '11th',
    '12th',
    '13th',
    '21st',
    '22nd',
    '101st',
    '111th',
  ]);
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
  assert.equal(codeFromPath('/r/k7m2q?k=3f9a0c1d5e7b2a64'), 'K7M2Q');
  assert.equal(keyFrom('http://x/r/K7M2Q?k=3F9A0C1D5E7B2A64'), '3f9a0c1d5e7b2a64');
  assert.equal(keyFrom('/r/K7M2Q?k=short'), null);
  assert.equal(roomPath('K7M2Q', '3f9a0c1d5e7b2a64'), '/r/K7M2Q?k=3f9a0c1d5e7b2a64');
  assert.equal(roomPath('K7M2Q'), '/r/K7M2Q');
});

test('names are limited in characters as the server counts them, not UTF-16 units', async () => {
  const { NAME_MAX, nameLength, clipName } = await import('../../public/js/format.js');
  assert.equal(NAME_MAX, 24);
  assert.equal(nameLength('Ann'), 3);
  assert.equal(nameLength('🦄'), 1, 'an emoji outside the BMP is one character (two UTF-16 units)');
  assert.equal('🦄'.length, 2);
  assert.equal(nameLength('🧙‍♀️'), 4, 'a ZWJ sequence is four scalar values, as Rust counts them');
  assert.equal(nameLength('e\u0301'), 2, 'a combining accent counts on its own');
  // 24 emoji fit (48 UTF-16 units: maxlength=24 would have cut them to 12).
  const unicorns = '🦄'.repeat(24);
  assert.deepEqual(clipName(unicorns), { value: unicorns, caret: 48 });
  // One more, typed at the end, is cut: the whole emoji, never half a pair.
  assert.deepEqual(clipName(unicorns + '🔥'), { value: unicorns, caret: 48 });
  // Typed in the middle: the new character goes, the rest stays, the caret stays put.
  const w = 'W'.repeat(12) + 'x' + 'W'.repeat(12);
  assert.deepEqual(clipName(w, 13), { value: 'W'.repeat(24), caret: 12 });
  // A paste longer than the room left keeps what fits of it; the text after the caret stays.
  assert.deepEqual(clipName('ab' + '0123456789'.repeat(3) + 'cd', 32), { value: 'ab' + '0123456789'.repeat(2) + 'cd', caret: 22 });
  // Under the limit nothing changes.
  assert.deepEqual(clipName('Ann', 1), { value: 'Ann', caret: 1 });
  // Caret at the very start with too much after it: the tail goes.
  assert.deepEqual(clipName('x'.repeat(30), 0), { value: 'x'.repeat(24), caret: 0 });
});

test("a daily room's withheld line says until when", () => {
  assert.equal(lineHiddenUntil(undefined), '');
  assert.match(lineHiddenUntil('2026-12-01'), /shown once 2026-12-01 is over \(00:00 UTC\)/);
});
