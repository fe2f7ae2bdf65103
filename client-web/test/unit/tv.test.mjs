// The party screen's logic without a browser (issue 37): a page becoming a
// screen (its own token, a fixed name, the player's name kept), its joins
// and rejoins always as a screen (a reconnect, a restarted server, a moved
// room), a room gone said on the screen with a new party room like it, the
// race's cues on the screen only and phones quiet while a screen is in, and
// the standings column in the server's order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createState, quiet } from '../../public/js/state.js';
import { handle } from '../../public/js/handlers.js';
import { beScreen, joinMsg } from '../../public/js/actions.js';
import { makeStore, memoryStorage } from '../../public/js/store.js';
import { newPartyRoom } from '../../public/js/tv.js';
import { standings } from '../../public/js/tvrace.js';
import { fakeFx, player, room, welcome, MAZE, seated, raceOn } from './fakes.mjs';

const TOKEN = '0123456789abcdef0123456789abcdef';

/** A page opened on /tv/K7M2Q?k=... (app.js's boot), welcomed. */
function screenOn({ resumed = false } = {}) {
  const s = createState();
  const fx = fakeFx({ path: '/tv/K7M2Q?k=3f9a0c1d5e7b2a64' });
  fx.store.setName('Ann'); // the person who owns the browser
  beScreen(s, fx, joinMsg('K7M2Q', false, '3f9a0c1d5e7b2a64', true), { boot: true });
  assert.equal(fx.connects + fx.reconnects, 0, 'booting: app.js connects once the token is claimed');
  handle(s, welcome({ player_id: 9, name: 'Screen', token: TOKEN, resumed }), fx);
  return { s, fx };
}

test('a screen says hello as "Screen", joins with the key as a screen, keeps the player’s name and leagues out', () => {
  const { s, fx } = screenOn();
  assert.equal(s.me.helloName, 'Screen');
  assert.equal(s.view, 'tv');
  assert.deepEqual(fx.sent, [{ type: 'join_room', code: 'K7M2Q', key: '3f9a0c1d5e7b2a64', screen: true }]);
  assert.equal(fx.store.name(), 'Ann', 'the browser’s player name is not the screen’s');
  handle(s, room([player(1, 'Bob', { colour: 0 })], { host: 1, screens: 1, party: true, key: '3f9a0c1d5e7b2a64' }), fx);
  assert.equal(s.view, 'tv', 'every part of the room shows in the screen’s view');
  assert.equal(fx.path(), '/tv/K7M2Q?k=3f9a0c1d5e7b2a64', 'a reload finds the room as its screen');
  handle(s, { type: 'countdown', seconds: 3, board: MAZE }, fx);
  assert.equal(s.view, 'tv');
});

test('the screen’s token is its own: kept in the tab, never the player’s shared one', async () => {
  const local = memoryStorage();
  const player = makeStore(local, memoryStorage());
  player.setToken('a'.repeat(32));
  const session = memoryStorage();
  const screen = makeStore(local, session);
  assert.equal(screen.asScreen(), true);
  assert.equal(screen.asScreen(), false, 'once');
  assert.equal(await screen.claim(), null, 'a new screen starts as a new member, not as the browser’s player');
  screen.setToken(TOKEN);
  assert.equal(makeStore(local, memoryStorage()).token(), null);
  assert.equal(await makeStore(local, memoryStorage()).claim(), 'a'.repeat(32), 'the shared token stays the player’s');
  // The screen's tab reloaded: it resumes as the screen.
  const again = makeStore(local, session);
  again.asScreen();
  assert.equal(await again.claim(), TOKEN);
});

test('"Host on a TV or projector" from a welcomed page: a fresh connection as the screen, then the party room', () => {
  const { s, fx } = seated([player(1, 'Ann')]);
  handle(s, { type: 'leave_room' }, fx);
  s.room = null;
  const make = { type: 'create_room', game: 'maze', size: 'easy', rank_by: 'time', party: true };
  beScreen(s, fx, make);
  assert.equal(fx.reconnects, 1, 'the player’s connection is not the screen’s');
  assert.deepEqual(s.intent, make);
  assert.equal(fx.store.token(), null, 'the hello names no token: a new member');
  handle(s, welcome({ player_id: 7, name: 'Screen', token: TOKEN }), fx);
  assert.deepEqual(fx.drain(), [make]);
  assert.equal(fx.store.name(), 'Ann');
});

test('a screen that reconnects to a restarted server asks for its room as a screen; the room gone, it says so and offers a new one', () => {
  const { s, fx } = screenOn();
  const info = room([player(1, 'Bob')], { game: 'maze', size: 'easy', rank_by: 'steps', match: { rounds: 3, plan: 'same' } });
  handle(s, { ...info, key: '3f9a0c1d5e7b2a64', party: true, screens: 1 }, fx);
  fx.drain();
  handle(s, welcome({ player_id: 10, token: TOKEN, resumed: false }), fx);
  assert.deepEqual(fx.drain(), [{ type: 'join_room', code: 'K7M2Q', key: '3f9a0c1d5e7b2a64', screen: true }]);
  handle(s, { type: 'error', code: 'room_not_found', message: 'no such room' }, fx);
  assert.equal(s.view, 'tv', 'the screen stays the screen');
  assert.match(s.tv.closed, /This room has closed/);
  assert.equal(s.ui.lost, null, 'no banner: the screen says it');
  assert.deepEqual(fx.toasts, [], 'nobody is at a keyboard to read a toast');
  // Its button: a new party room like it.
  beScreen(s, fx, { type: 'create_room', game: s.tv.last.game, size: s.tv.last.size, party: true });
  assert.deepEqual(fx.drain(), [{ type: 'create_room', game: 'maze', size: 'easy', party: true }]);
  handle(s, { ...info, code: 'NEW22', key: 'ab'.repeat(8), players: [], party: true }, fx);
  assert.equal(s.tv.closed, '');
  assert.equal(fx.path(), `/tv/NEW22?k=${'ab'.repeat(8)}`);
});

test('a room holding only screens closes: the server’s sentence on the screen', () => {
  const { s, fx } = screenOn();
  handle(s, room([], { party: true, screens: 1 }), fx);
  handle(s, { type: 'error', code: 'screen', message: 'this room closed: nobody played in it for 60 minutes' }, fx);
  assert.equal(s.tv.closed, 'This room closed: nobody played in it for 60 minutes.');
  assert.equal(s.room, null);
});

test('a screen follows its room to another node as a screen (room_moved)', () => {
  const { s, fx } = screenOn();
  // Before its room came: the join is asked again on the new node, as a screen.
  s.lastIntent = joinMsg('K7M2Q', false, '3f9a0c1d5e7b2a64', true);
  handle(s, { type: 'room_moved', code: 'BZZZZ', key: 'cd'.repeat(8) }, fx);
  assert.deepEqual(s.intent, { type: 'join_room', code: 'BZZZZ', key: 'cd'.repeat(8), screen: true });
  assert.equal(fx.reconnects, 1);
});

test('the race’s cues sound on the screen only; a phone is quiet while a screen shows its room unless its player turned sound on', () => {
  const tv = screenOn();
  handle(tv.s, room([player(1, 'Bob')], { party: true, screens: 1 }), tv.fx);
  handle(tv.s, { type: 'countdown', seconds: 3, board: MAZE }, tv.fx);
  handle(tv.s, { type: 'race_start', board: MAZE, clock: 'start' }, tv.fx);
  handle(tv.s, { type: 'finished', player_id: 1, rank: 1, time_ms: 4000, steps: 8 }, tv.fx);
  assert.deepEqual(tv.fx.cues, ['count', 'go', 'finish']);
  tv.fx.store.setMuted(true);
  handle(tv.s, { type: 'countdown', seconds: 2, board: MAZE }, tv.fx);
  assert.equal(tv.fx.cues.length, 3, 'a muted screen is quiet');

  const { s, fx } = seated([player(1, 'Ann')], { screens: 0 });
  handle(s, { type: 'countdown', seconds: 3, board: MAZE }, fx);
  assert.deepEqual(fx.cues, [], 'a phone plays no cue');
  assert.equal(quiet(s, fx.store), false, 'no screen: the buzz as ever');
  handle(s, room(s.room.players, { screens: 1 }), fx);
  assert.equal(quiet(s, fx.store), true, 'a screen in the room: quiet');
  fx.store.setMuted(false); // "Sound off" pressed: the player wants it
  assert.equal(quiet(s, fx.store), false);
  fx.store.setMuted(true);
  assert.equal(quiet(s, fx.store), true);
});

test('the standings column: finishers by the server’s rank with their time, then the nearest the goal, then the rest', () => {
  const { s, fx } = screenOn();
  const racers = [player(1, 'Ann', { colour: 0 }), player(2, 'Bob', { colour: 1 }), player(3, 'Cat', { colour: 2 }), player(4, 'Dan')];
  handle(s, room(racers, { party: true, screens: 1, phase: 'racing', game: 'maze', size: 'easy' }), fx);
  raceOn(s, fx, MAZE, { clock: 'start' });
  handle(
    s,
    {
      type: 'progress',
      players: [
        { id: 1, pos: [0, 1], steps: 1, status: 'racing', left: 7 },
        { id: 2, pos: [4, 4], steps: 9, status: 'won', left: 0 },
        { id: 3, pos: [2, 2], steps: 5, status: 'racing', left: 3 },
        { id: 4, pos: [0, 0], steps: 2, status: 'gave_up', left: 8 },
      ],
    },
    fx,
  );
  handle(s, { type: 'finished', player_id: 2, rank: 1, time_ms: 61234, steps: 9 }, fx);
  const rows = standings(s);
  assert.deepEqual(
    rows.map((r) => [r.name, r.place, r.stat]),
    [
      ['Bob', '1st', '1:01.2'],
      ['Cat', '', '5 moves'],
      ['Ann', '', '1 moves'],
      ['Dan', '', 'gave up'],
    ],
  );
  assert.equal(rows[0].colour, '#E69F00', 'the server’s colour');
  assert.equal(s.game.pred, null, 'the screen never races');
});

test('a Ghost racer’s ghost is on the screen where the server says it stands', async () => {
  const { handle } = await import('../../public/js/handlers.js');
  const { createState } = await import('../../public/js/state.js');
  const { fakeFx, player, room, welcome } = await import('./fakes.mjs');
  const s = createState();
  const fx = fakeFx({ path: '/r/K7M2Q' });
  handle(s, welcome({ player_id: 9 }), fx);
  handle(s, room([player(1, 'Ann', { colour: 0 })], { phase: 'racing' }), fx);
  handle(s, { type: 'progress', players: [{ id: 1, pos: [2, 2], steps: 7, run: 2, ghost: [0, 1], status: 'racing', left: 5 }] }, fx);
  assert.deepEqual(s.others.progress.get(1).ghost, [0, 1], 'kept as sent, for the board to draw');
});

test('a closed party room is made again naming the lost one, so the phones’ "same settings" joins it', () => {
  const shown = {
    code: 'K7M2Q',
    key: '3f9a0c1d5e7b2a64',
    game: 'maze',
    size: 'hard',
    rank_by: 'time',
    match: { rounds: 3, plan: 'harder' },
  };
  assert.deepEqual(newPartyRoom(shown), {
    type: 'create_room',
    game: 'maze',
    size: 'hard',
    party: true,
    rank_by: 'time',
    match: { rounds: 3, plan: 'harder' },
    replaces: { code: 'K7M2Q', key: '3f9a0c1d5e7b2a64' },
  });
  // The create_room a reconnect was asking for again names the lost room already.
  const asked = { type: 'create_room', game: 'ghost', size: 'small', replaces: { code: 'AB123', key: 'k' } };
  assert.deepEqual(newPartyRoom(asked).replaces, { code: 'AB123', key: 'k' });
  assert.equal(newPartyRoom(null).replaces, undefined, 'nothing known: a room of its own');
});
