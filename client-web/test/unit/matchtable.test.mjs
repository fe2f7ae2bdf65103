// The match screens against the server's own numbers: every whole match and
// every round of test/fixtures/match.json (made by protocol/'s matches
// module) laid out by matchtable.js must show exactly the points, ranks,
// wins, podium, winners and left marks the server sends; the page computes
// none of them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { tableRows, podium, roundRows, roundWinners, tallyRows } from '../../public/js/matchtable.js';
import { winnersWords } from '../../public/js/matches.js';

const FIX = JSON.parse(readFileSync(new URL('../fixtures/match.json', import.meta.url), 'utf8'));
const dash = (v) => (v == null ? '–' : String(v));

test('the fixture has whole matches with leavers, shared ranks and rounds not raced', () => {
  assert.ok(FIX.matches.length >= 20);
  assert.ok(
    FIX.matches.some((m) => m.lines.some((l) => l.left)),
    'a match with a leaver',
  );
  assert.ok(
    FIX.matches.some((m) => new Set(m.lines.map((l) => l.rank)).size < m.lines.length),
    'a shared rank',
  );
  assert.ok(
    FIX.matches.some((m) => m.lines.some((l) => l.rounds.includes(null))),
    'a round not raced',
  );
});

test('the match table shows each line as the server sends it: order, rank, points, wins, rounds, left', () => {
  for (const [i, m] of FIX.matches.entries()) {
    const rows = tableRows(m.lines, { me: m.lines[0].player_id });
    assert.deepEqual(
      rows.map((r) => [r.id, r.rank, r.name, r.points, r.wins, r.rounds, r.left]),
      m.lines.map((l) => [l.player_id, String(l.rank), l.name, String(l.points), String(l.wins), l.rounds.map(dash), !!l.left]),
      `match ${i}`,
    );
    assert.deepEqual(
      rows.map((r) => r.me),
      m.lines.map((_, k) => k === 0),
    );
  }
});

test('a member whose connection dropped is marked away, a leaver only left', () => {
  const m = FIX.matches.find((x) => x.lines.some((l) => l.left) && x.lines.length > 2);
  const leaver = m.lines.find((l) => l.left);
  const other = m.lines.find((l) => !l.left);
  const players = m.lines.map((l) => ({ id: l.player_id, connected: l.player_id !== other.player_id && l.player_id !== leaver.player_id }));
  const rows = tableRows(m.lines, { players });
  const by = (id) => rows.find((r) => r.id === id);
  assert.deepEqual([by(other.player_id).away, by(other.player_id).left], [true, false]);
  assert.deepEqual([by(leaver.player_id).away, by(leaver.player_id).left], [false, true]);
});

test('the podium is the final table’s ranks 1 to 3 as sent, shared places shown for each, leavers marked', () => {
  for (const [i, m] of FIX.matches.entries()) {
    const top = m.lines.filter((l) => l.rank <= 3);
    assert.deepEqual(
      podium(m.lines).map((p) => [p.id, p.rank, p.name, p.points, p.left]),
      top.map((l) => [l.player_id, l.rank, l.name, `${l.points} point${l.points === 1 ? '' : 's'}`, !!l.left]),
      `match ${i}`,
    );
  }
  const shared = FIX.matches.find((m) => m.lines.filter((l) => l.rank === 1).length > 1);
  assert.deepEqual(
    podium(shared.lines)
      .filter((p) => p.rank === 1)
      .map((p) => p.place),
    shared.lines.filter((l) => l.rank === 1).map(() => '1st'),
  );
});

test('the winners named are the server’s `winners`, none when it names none', () => {
  for (const [i, m] of FIX.matches.entries()) {
    const words = winnersWords(m, m.match.rounds);
    assert.equal(m.played, m.rounds.length, `match ${i}`);
    const names = m.winners.map((id) => m.lines.find((l) => l.player_id === id).name);
    for (const n of names) assert.ok(words.includes(n), `match ${i}: ${words}`);
    for (const l of m.lines) if (!m.winners.includes(l.player_id)) assert.ok(!words.includes(`${l.name} `), `match ${i}: ${words}`);
    if (!names.length) assert.match(words, /nobody wins/);
  }
});

test('each round’s rows carry the points the server gave in its scores, a rival none', () => {
  for (const [i, r] of FIX.rounds.entries()) {
    // A round of match_over: its rankings (here the fixture's entries) and scores.
    const round = { round: 1, rankings: r.entries.map((e) => ({ ...e, player_id: e.id })), scores: r.scores };
    const rows = roundRows(round);
    assert.deepEqual(
      rows.map((x) => [x.id, x.points]),
      r.entries.map((e) => [e.id, String(r.scores.find((sc) => sc.player_id === e.id).points)]),
      `round ${i}`,
    );
    assert.deepEqual(
      roundWinners(round),
      r.scores.filter((sc) => sc.place === 1).map((sc) => r.entries.find((e) => e.id === sc.player_id).name),
    );
  }
  const withRival = FIX.matches[0].rounds[0];
  const rival = roundRows({ ...withRival, scores: [] }).find((x) => x.rival);
  assert.equal(rival.points, '–');
});

test('the tally is listed as sent', () => {
  assert.deepEqual(
    tallyRows([
      { player_id: 1, name: 'Ann', wins: 2 },
      { player_id: 2, name: 'Bob', wins: 1 },
    ]),
    [
      { id: 1, name: 'Ann', wins: '2' },
      { id: 2, name: 'Bob', wins: '1' },
    ],
  );
  assert.deepEqual(tallyRows(undefined), []);
});
