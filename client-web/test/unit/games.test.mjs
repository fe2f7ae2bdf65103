// The games' table (public/js/games/index.js) against the server's registry
// (read from test/fixtures/boards.json, which the protocol crate writes with a
// board of every size of every game, in the registry's order): the same
// games in the same order with the same sizes and n. And every game module
// against the shape the table's header sets out, so a game missing its
// drawing, its rules, its builder or its words fails here, not in a browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { GAMES, gameOf, sizeOf, gameOfSize, boardsOfTheDay, load } from '../../public/js/games/index.js';
import { parseBoard, newGame, view, marks } from '../../public/js/rules.js';
import { replayFrames } from '../../public/js/replay.js';
import { buildBoard, reveal } from '../../public/js/offline/board.js';

const BOARDS = JSON.parse(readFileSync(new URL('../fixtures/boards.json', import.meta.url), 'utf8'));
/** The server's registry as its boards show it: each game once, in order, with its sizes and n in order. */
const REGISTRY = { games: [] };
for (const { game, size, n } of BOARDS.boards) {
  let g = REGISTRY.games.find((x) => x.game === game);
  if (!g) REGISTRY.games.push((g = { game, sizes: [] }));
  if (!g.sizes.some((s) => s.size === size)) g.sizes.push({ size, n });
}
const CSS = readFileSync(new URL('../../public/style.css', import.meta.url), 'utf8');

test("the table has the server's games in its order, each with its sizes and n, smallest first", () => {
  assert.deepEqual(
    GAMES.map((g) => ({ game: g.name, sizes: g.sizes.map(({ size, n }) => ({ size, n })) })),
    REGISTRY.games,
  );
});

test("the daily's boards: every game in the table's order, each game's sizes smallest first", () => {
  assert.deepEqual(
    boardsOfTheDay(),
    REGISTRY.games.flatMap((g) => g.sizes.map((s) => ({ game: g.game, size: s.size }))),
  );
});

test('lookups: a game by name, a size of a game, the game of a size; unknown ones are none', () => {
  for (const g of GAMES) {
    assert.equal(gameOf(g.name), g);
    for (const s of g.sizes) {
      assert.equal(sizeOf(g.name, s.size), s);
      assert.equal(gameOfSize(s.size), g, `${s.size} belongs to ${g.name} only`);
    }
  }
  assert.equal(gameOf('chess'), null);
  assert.equal(gameOf('constructor'), null);
  assert.equal(sizeOf(GAMES[0].name, 'huge'), null);
  assert.equal(gameOfSize('huge'), null);
});

const is = {
  string: (v) => typeof v === 'string' && v.length > 0,
  text: (v) => typeof v === 'string',
  bool: (v) => typeof v === 'boolean',
  fn: (v) => typeof v === 'function',
  strings: (v) => Array.isArray(v) && v.every((x) => typeof x === 'string'),
  texts: (v) => !!v && typeof v === 'object' && Object.values(v).every((x) => typeof x === 'string'),
};

/** The shape games/index.js sets out, field by field: what a game lacks or has wrong, as a list. */
function shapeProblems(g) {
  const want = {
    name: is.string,
    title: is.string,
    short: is.string,
    sizes: (v) =>
      Array.isArray(v) &&
      v.length > 0 &&
      v.every((s) => is.string(s.size) && Number.isInteger(s.n) && s.n >= 2 && is.string(s.label)) &&
      v.every((s, i) => i === 0 || s.n > v[i - 1].n),
    unit: is.string,
    goal: is.string,
    rewinds: is.bool,
    visited: is.bool,
    rules: is.fn,
    draw: is.fn,
    build: is.fn,
    howto: (v) =>
      !!v &&
      is.text(v.sub) &&
      is.string(v.alt) &&
      is.string(v.note) &&
      Array.isArray(v.steps) &&
      v.steps.every(
        (parts) => Array.isArray(parts) && parts.every((p) => is.text(p) || (Array.isArray(p) && is.string(p[0]) && is.string(p[1]))),
      ),
    demo: (v) => !!v && !!v.board && Array.isArray(v.at && v.at.pos) && (v.visited === null || is.strings(v.visited)),
    legend: (v) =>
      Array.isArray(v) &&
      v.every(
        (l) =>
          (l.of === 'racer' || l.of === 'board') && is.string(l.swatch) && is.string(l.text) && (l.style == null || is.string(l.style)),
      ),
    reasons: is.texts,
    inTheWay: is.strings,
    go: is.string,
    after: is.texts,
    questions: (v) =>
      !!v &&
      typeof v === 'object' &&
      Object.values(v).every((q) => is.fn(q.ask) && is.string(q.say) && Array.isArray(q.words) && q.words.length === 3),
    landmark: is.fn,
    news: is.fn,
    hud: is.fn,
    hint: is.fn,
    controls: is.fn,
    runLabel: is.fn,
    replayPills: is.fn,
    seekMore: is.fn,
    lineButton: is.string,
    reveal: is.fn,
  };
  const problems = Object.entries(want)
    .filter(([k, ok]) => !ok(g[k]))
    .map(([k]) => k);
  for (const k of Object.keys(g)) if (!(k in want)) problems.push(`unknown field ${k}`);
  return problems;
}

test('every game has every field of the shape', () => {
  for (const g of GAMES) assert.deepEqual(shapeProblems(g), [], g.name);
  assert.equal(new Set(GAMES.map((g) => g.name)).size, GAMES.length, 'names are unique');
  assert.equal(new Set(GAMES.map((g) => g.title)).size, GAMES.length, 'titles are unique');
});

test('a game without its drawing or its words is caught (the check above checks)', () => {
  const { draw: _d, ...noDrawing } = GAMES[0];
  assert.deepEqual(shapeProblems(noDrawing), ['draw']);
  assert.deepEqual(shapeProblems({ ...GAMES[0], title: '', hint: 'not a function' }), ['title', 'hint']);
});

test("each game's parts load and export what their callers ask for", async () => {
  const parts = {
    rules: ['rowsOf', 'parse', 'neighbour', 'newGame', 'copy', 'apply', 'view', 'fromView', 'resync', 'marks', 'progress', 'canStillWin'],
    draw: ['board'],
    build: ['build', 'reveal'],
  };
  for (const [part, names] of Object.entries(parts)) {
    const mods = await load(part);
    for (const g of GAMES) {
      for (const name of names) assert.equal(typeof mods.get(g.name)[name], 'function', `${g.name}'s ${part} exports ${name}`);
      // The optional layers of a drawing are functions where they exist.
      if (part === 'draw')
        for (const k of ['under', 'line', 'over']) assert.ok(['undefined', 'function'].includes(typeof mods.get(g.name)[k]));
    }
  }
});

test("each game's builder builds its own sizes at the table's n", () => {
  for (const g of GAMES) {
    for (const s of g.sizes) {
      const seed = BOARDS.boards.find((b) => b.size === s.size).seed;
      const built = buildBoard(s.size, seed);
      assert.equal(built.game, g.name);
      assert.equal(built.board.game, g.name);
      assert.equal(built.board.n, s.n, `${g.name} ${s.size}`);
    }
  }
});

test("each game's words answer for a game in play, a replay's frames and a result", () => {
  for (const g of GAMES) {
    const built = buildBoard(g.sizes[0].size, BOARDS.boards.find((b) => b.size === g.sizes[0].size).seed);
    const board = parseBoard(built.board);
    const game = newGame(board);
    assert.equal(g.hud(game).length, 3, `${g.name} hud`);
    for (const alone of [true, false]) assert.ok(is.string(g.hint(game, { alone })), `${g.name} hint`);
    assert.deepEqual(Object.keys(g.controls(game, { alone: true })).sort(), ['again', 'giveUp', 'rewind']);
    const news = g.news(game, false);
    assert.ok('now' in news && is.text(news.say));
    assert.ok(is.text(g.landmark(board, board.start)));
    assert.ok(is.text(g.runLabel({ ...view(game), status: 'racing' })));
    const { frames } = replayFrames(board, built.answer.solution);
    const last = frames[frames.length - 1];
    assert.equal(last.status, 'won', `${g.name}: the builder's line wins under the game's rules`);
    assert.equal(g.replayPills(frames[0], last).length, 3);
    assert.ok(is.text(g.seekMore(last)));
    const said = g.reveal(reveal(built));
    assert.ok(is.string(said.text) && is.text(said.why) && is.text(said.ask), `${g.name} reveal`);
    // The how-to's picture is a board of the game, its player where `marks` reads them.
    const demo = parseBoard(g.demo.board);
    assert.equal(demo.game, g.name);
    assert.equal(typeof marks(g.demo.at, demo), 'object');
    for (const l of g.legend) assert.ok(l.style || new RegExp(`\\.sw\\.${l.swatch} \\{`).test(CSS), `the swatch ${l.swatch} has a look`);
  }
});
