// The racer list (raceboard.js racerRows) from the messages: a racer who
// left stays on it, marked left, during the race and after it, also when
// this page only learns of the race from a resume's snapshot.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createState, watching, colourOf } from '../../public/js/state.js';
import { handle } from '../../public/js/handlers.js';
import { racerRows } from '../../public/js/raceboard.js';
import { fakeFx, MAZE, player, room, welcome } from './fakes.mjs';

const rows = (s) => racerRows(s).map((r) => [r.name, r.status]);
const results = {
  type: 'results',
  rankings: [
    { rank: 1, player_id: 1, name: 'Ann', status: 'finished', steps: 8, time_ms: 4000, efficiency: 100 },
    { player_id: 2, name: 'Bob', status: 'left', steps: 3 },
  ],
  reveal: { game: 'maze', shortest: 8, solution: [] },
};

function resumedInto(players) {
  const s = createState();
  const fx = fakeFx({ path: '/r/K7M2Q' });
  handle(s, welcome({ resumed: true }), fx);
  const { type: _, ...info } = room([player(1, 'Ann'), player(3, 'Cy')], { phase: 'racing' });
  handle(s, { type: 'snapshot', room: info, board: MAZE, you: { pos: [0, 0], steps: 0, status: 'playing' }, players, elapsed_ms: 900 }, fx);
  return { s, fx };
}

test('a resume mid-race keeps a racer who left on the list, marked left, until and after the results', () => {
  const { s, fx } = resumedInto([
    { id: 1, pos: [0, 0], steps: 0, status: 'racing', left: 8, name: 'Ann' },
    { id: 2, pos: [1, 0], steps: 3, status: 'left', left: 7, name: 'Bob' },
    { id: 3, pos: [0, 1], steps: 1, status: 'racing', left: 7, name: 'Cy' },
  ]);
  assert.deepEqual(rows(s), [
    ['Ann', 'racing'],
    ['Cy', 'racing'],
    ['Bob', 'left'],
  ]);
  handle(s, { type: 'progress', players: [{ id: 3, pos: [0, 2], steps: 2, status: 'racing', left: 6 }] }, fx);
  assert.deepEqual(rows(s)[2], ['Bob', 'left'], 'through later progress');
  handle(s, results, fx);
  assert.deepEqual(rows(s)[2], ['Bob', 'left'], 'after the results');
});

test("a leaver's name from the match table when a snapshot names nobody (an older server)", () => {
  const { s } = resumedInto([{ id: 2, pos: [1, 0], steps: 3, status: 'left', left: 7 }]);
  assert.deepEqual(rows(s)[2], ['Player 2', 'left']);
  const m = createState();
  const fx = fakeFx({ path: '/r/K7M2Q' });
  handle(m, welcome({ resumed: true }), fx);
  const standings = {
    round: 1,
    boards: [],
    lines: [{ rank: 1, player_id: 2, name: 'Bob', points: 0, wins: 0, time_ms: 0, rounds: [null] }],
  };
  const { type: _, ...info } = room([player(1, 'Ann')], { phase: 'racing', match: { rounds: 3, plan: 'same' }, standings });
  handle(m, { type: 'snapshot', room: info, board: MAZE, players: [{ id: 2, pos: [1, 0], steps: 3, status: 'left', left: 7 }] }, fx);
  assert.deepEqual(rows(m), [
    ['Ann', 'racing'],
    ['Bob', 'left'],
  ]);
});

test('someone leaving while I watch stays on the list as left (the room update that drops them)', () => {
  const s = createState();
  const fx = fakeFx();
  handle(s, welcome(), fx);
  handle(s, room([player(1, 'Ann'), player(2, 'Bob')]), fx);
  handle(s, room([player(1, 'Ann'), player(2, 'Bob')], { phase: 'racing' }), fx);
  handle(s, { type: 'race_start', board: MAZE, time_limit_ms: 600000, clock: 'start' }, fx);
  handle(s, room([player(1, 'Ann')], { phase: 'racing' }), fx);
  assert.deepEqual(rows(s), [
    ['Ann', 'racing'],
    ['Bob', 'left'],
  ]);
  assert.ok(fx.toasts.includes('Bob left the race.'));
});

test('the audience counts those the room only counts (more_spectators) beside those it names', () => {
  const named = [player(1, 'Ann'), { ...player(2, 'Fan'), spectator: true }, { ...player(3, 'Gus'), spectator: true }];
  assert.equal(watching({ players: named }), 2, 'absent: none beyond those named');
  assert.equal(watching({ players: named, more_spectators: 38 }), 40);
  assert.equal(watching(null), 0);
});

test('every racer is drawn in the colour the server gives them, mine too, the same whoever watches; one who left keeps theirs', async () => {
  const { RACER_COLOURS, PALETTE } = await import('../../public/js/render.js');
  const info = room([player(1, 'Ann', { colour: 0 }), player(2, 'Bea', { colour: 1 }), player(3, 'Cy', { colour: 2 })], {
    phase: 'racing',
  });
  const seen = {};
  for (const me of [1, 2]) {
    const s = createState();
    const fx = fakeFx({ path: '/r/K7M2Q' });
    handle(s, welcome({ player_id: me }), fx);
    handle(s, info, fx);
    seen[me] = Object.fromEntries(racerRows(s).map((r) => [r.name, r.colour]));
    // Bea leaves: she keeps her colour on the list.
    handle(s, room([player(1, 'Ann', { colour: 0 }), player(3, 'Cy', { colour: 2 })], { phase: 'racing' }), fx);
    assert.equal(colourOf(s, 2), RACER_COLOURS[1], 'kept once seen');
  }
  assert.deepEqual(seen[1], { Ann: RACER_COLOURS[0], Bea: RACER_COLOURS[1], Cy: RACER_COLOURS[2] });
  assert.deepEqual(seen[1], seen[2], 'Bea is the same colour on Ann’s screen and on her own');
  // An offline stand-in's room has no colours: my own marker is the default blue.
  const s = createState();
  const fx = fakeFx({ path: '/r/K7M2Q' });
  handle(s, welcome({ player_id: 1 }), fx);
  handle(s, room([player(1, 'Ann')], { phase: 'racing' }), fx);
  assert.equal(racerRows(s)[0].colour, PALETTE.you);
});
