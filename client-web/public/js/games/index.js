// The games, in one table: the only file outside a game's folder to name
// one. Screens ask it (a board's `game` is the key) and never compare with a
// game's name; a game not here is none (its boards unread, its daily boards
// unlisted). Its order is the page's. test/unit/games.test.mjs holds it to
// the server's registry (as test/fixtures/boards.json shows it) and each game to this
// shape. Adding a game (README): a folder js/games/NAME/ whose index.js
// default-exports the shape, and its line here.
//
// name, title, short     the wire's name (a board's `game`); on screens; in a
//   sentence naming the games (format.js PLANS)
// sizes                  [{size, n, label}], smallest first, as protocol/'s
// unit, goal             what a run counts, where it ends (in words)
// rewinds, visited       has a rewind; tints the cells crossed (kept for a resume)
// rules(), draw(), build()  its parts, loaded when wanted (rules.js, render.js,
//   offline/board.js name what each exports)
// howto, demo            home's "How to play" {sub, alt, steps, note}, its
//   picture {board, at, visited}
// legend                 the replay's rows [{of: 'racer' | 'board', swatch (a look
//   of style.css's `.sw`), style? (a look of its own), text}]
// reasons, inTheWay      its refusals in words; those the live region says
// go, after, questions   said at the start; after an action; asked before one
// news(g, was), landmark(b, p)  the live region's news; what stands at p
// hud, hint, controls, runLabel, replayPills, seekMore  the race and replay
//   screens' pills, hint, buttons, racer line, replay words
// lineButton, reveal(rv) the results' best line: its button, its words

import ghost from './ghost/index.js';
import maze from './maze/index.js';

export const GAMES = [ghost, maze];

const BY_NAME = new Map(GAMES.map((g) => [g.name, g]));

/** The game named `name` (a board's `game`), or null. */
export const gameOf = (name) => BY_NAME.get(name) || null;
/** A game's sizes, smallest first ([] for an unknown game). */
export const sizesOf = (name) => (gameOf(name) || { sizes: [] }).sizes;
/** One size of a game ({size, n, label}), or null. */
export const sizeOf = (name, size) => sizesOf(name).find((s) => s.size === size) || null;
/** The game a size belongs to (the protocol's sizes are unique across games), or null. */
export const gameOfSize = (size) => GAMES.find((g) => g.sizes.some((s) => s.size === size)) || null;

/** The daily's boards in its order: every game in the table's order, each game's sizes smallest first. */
export const boardsOfTheDay = () => GAMES.flatMap((g) => g.sizes.map((s) => ({ game: g.name, size: s.size })));

/** The party room a screen makes when it knows no other (tv.js). */
export const PARTY = { game: maze.name, size: 'normal' };

/** Every game's part ('rules', 'draw', 'build'), loaded: a Map from the game's name to the module. */
export const load = (part) => Promise.all(GAMES.map((g) => g[part]())).then((mods) => new Map(GAMES.map((g, i) => [g.name, mods[i]])));
