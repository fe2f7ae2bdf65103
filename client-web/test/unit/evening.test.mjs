// Issue 35 ("a friend's first minute") without a browser: the invitation
// taken up by its room, the offline page that never makes a room for friends
// nor goes back online through a race, the server's reach as the page judges
// it, the lobby's tags for a match whose boards change, the match table's
// caption before any round.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createState, serverDown, noServer } from '../../public/js/state.js';
import { handle } from '../../public/js/handlers.js';
import { request, runIntent, practiceMsg, leave } from '../../public/js/actions.js';
import { roomBoards } from '../../public/js/format.js';
import { tableCaption } from '../../public/js/matchtable.js';
import { Offline } from '../../public/js/offlinemode.js';
import { fakeFx, player, room, welcome } from './fakes.mjs';

const offlineWelcome = { type: 'welcome', player_id: 1, resumed: false, name: 'Ann', offline: true };
const friendsRoom = { type: 'create_room', game: 'maze', size: 'easy', rank_by: 'time', match: { rounds: 3, plan: 'harder' } };
const practice = { type: 'create_room', game: 'maze', size: 'easy' };

test('an invitation is taken up by its room: leaving the room goes home, not back to the invitation', () => {
  const s = createState();
  const fx = fakeFx({ path: '/r/K7M2Q?k=3f9a0c1d5e7b2a64' });
  s.ui.invite = { code: 'K7M2Q', key: '3f9a0c1d5e7b2a64', room: null, failed: null };
  s.me.helloName = 'Bob';
  handle(s, welcome({ name: 'Bob' }), fx);
  assert.deepEqual(fx.drain(), [{ type: 'join_room', code: 'K7M2Q', key: '3f9a0c1d5e7b2a64' }], "the link's room, with its key");
  handle(s, room([player(7, 'Ann'), player(1, 'Bob')], { host: 7 }), fx);
  assert.equal(s.ui.invite, null);
  // Another room's message leaves an invitation alone.
  s.ui.invite = { code: 'ZZZZZ', key: null, room: null, failed: null };
  handle(s, room([player(7, 'Ann'), player(1, 'Bob')], { host: 7 }), fx);
  assert.equal(s.ui.invite.code, 'ZZZZZ');
});

test('offline, a room for friends is never made: asked before going offline or after, it is dropped and said in words', () => {
  assert.equal(practiceMsg(practice), true);
  assert.equal(practiceMsg(friendsRoom), false);
  assert.equal(practiceMsg({ ...practice, daily: true }), false);

  // Make room pressed with the server down: the intent waits for a connection, then the page goes offline.
  const s = createState();
  const fx = fakeFx();
  s.intent = friendsRoom;
  s.conn.offline = true;
  handle(s, offlineWelcome, fx);
  assert.deepEqual(fx.drain(), [], 'no create_room reaches the stand-in: a LOCAL lobby with a link nobody can open');
  assert.equal(s.intent, null);
  assert.match(fx.toasts.at(-1), /^You are offline: a room needs the server/);
  assert.equal(s.room, null);

  // Offline and welcomed by the stand-in: Make room (or Enter in a field) the same; practice goes through.
  assert.equal(request(s, fx, friendsRoom, 'Ann'), false);
  assert.equal(request(s, fx, { type: 'join_room', code: 'K7M2Q' }, 'Ann'), false);
  assert.match(fx.toasts.at(-1), /^You are offline: this needs the server/);
  assert.deepEqual(fx.drain(), []);
  assert.equal(request(s, fx, practice, 'Ann'), true);
  assert.deepEqual(fx.drain(), [practice]);

  // An invite link's path is not joined through the stand-in either (it waits for the server).
  const s2 = createState();
  const fx2 = fakeFx({ path: '/r/K7M2Q' });
  s2.conn.offline = true;
  s2.conn.welcomed = true;
  runIntent(s2, fx2);
  assert.deepEqual(fx2.drain(), []);
});

test("the offline stand-in's room has no address: /r/LOCAL is never put in the address bar", () => {
  const s = createState();
  const fx = fakeFx();
  s.conn.offline = true;
  handle(s, offlineWelcome, fx);
  handle(s, room([player(1, 'Ann')], { code: 'LOCAL' }), fx);
  assert.equal(s.room.code, 'LOCAL');
  assert.equal(fx.path(), '/', 'a reload, a friend or the page back online would look for a room that is nowhere');
  leave(s, fx);
  assert.equal(fx.path(), '/');
});

/** An Offline whose /version.json answers `reachable` (the server back or not), and what it did. */
function offlinePage(s, reachable) {
  const fx = fakeFx();
  const did = { toasts: [], transports: [], renders: 0 };
  globalThis.fetch = async () => (reachable() ? new Response('{"version":"v1"}', { status: 200 }) : Promise.reject(new TypeError('down')));
  class Transport {
    constructor() {
      this.active = false;
    }
    connect() {}
    close() {}
  }
  const off = new Offline({
    s,
    fx,
    useTransport: (T) => did.transports.push(T.name),
    Connection: class Connection extends Transport {},
    render: () => did.renders++,
    toast: (t) => did.toasts.push(t),
  });
  return { off, did, fx };
}

test('the server back mid-race: the race ends offline, its results stay up, and the page goes online only once out of the room', async (t) => {
  const fetchWas = globalThis.fetch;
  t.after(() => (globalThis.fetch = fetchWas));
  const s = createState();
  let back = false;
  const { off, did } = offlinePage(s, () => back);
  off.start();
  clearInterval(off.timer); // the test polls by hand
  assert.equal(s.conn.offline, true);
  s.room = { code: 'LOCAL', phase: 'racing', players: [player(1, 'Ann')] };
  await off.poll();
  assert.equal(s.conn.back, false, 'not back yet');

  back = true;
  await off.poll();
  assert.equal(s.conn.offline, true, 'mid-race: still offline');
  assert.equal(s.conn.back, true, 'the header says the server is back');
  assert.deepEqual(did.toasts, [], 'no toast over the race and its hint');

  // The finish: the results are the stand-in's, on screen, and stay so.
  s.room.phase = 'results';
  await off.poll();
  assert.equal(s.conn.offline, true, 'never through the results: the page is not thrown home');
  assert.ok(s.room, 'the room and its results stay');
  assert.deepEqual(did.toasts, ['The server is back: leave this room to play online again.']);
  await off.poll();
  assert.equal(did.toasts.length, 1, 'said once');

  // Left: now online, with a real connection.
  s.room = null;
  await off.poll();
  assert.equal(s.conn.offline, false);
  assert.deepEqual(did.transports, ['LocalServer', 'Connection']);
});

test('the server back while the offline page is on home: online at once, said', async (t) => {
  const fetchWas = globalThis.fetch;
  t.after(() => (globalThis.fetch = fetchWas));
  const s = createState();
  const { off, did } = offlinePage(s, () => true);
  off.start();
  clearInterval(off.timer);
  await off.poll();
  assert.equal(s.conn.offline, false);
  assert.deepEqual(did.toasts, ['The server is back: rooms and the daily challenge work again.']);
});

test("the server's reach: down once known, between two attempts too, until a welcome; offline, what needs it is held", () => {
  const s = createState();
  assert.equal(serverDown(s), false, 'idle: nothing known');
  s.conn.unreachable = true;
  assert.equal(serverDown(s), true, 'an HTTP request found nobody');
  s.conn.unreachable = false;
  // Never welcomed: the first failed attempt says it, and the next attempt's "connecting" does not hide it.
  s.conn.status = 'waiting';
  s.conn.fails = 1;
  assert.equal(serverDown(s), true);
  s.conn.status = 'connecting';
  assert.equal(serverDown(s), true, 'a retry is no news: no banner flickering with each attempt');
  // Welcomed before: one blip (a restart) is not down, two failures are.
  s.me.id = 1;
  assert.equal(serverDown(s), false);
  s.conn.fails = 2;
  assert.equal(serverDown(s), true);
  const fx = fakeFx();
  handle(s, welcome({ name: 'Ann' }), fx);
  s.conn.status = 'open';
  assert.equal(serverDown(s), false, 'a welcome ends it');
  assert.equal(noServer(s), false);
  s.conn.offline = true;
  assert.equal(serverDown(s), false, 'offline is its own state');
  assert.equal(noServer(s), true, 'offline, rooms and the daily are held');
});

test("the lobby's tags say the boards of a match whose plan changes them, never one size for all", () => {
  const r = { game: 'maze', size: 'easy' };
  assert.deepEqual(roomBoards(r), ['Maze Escape', 'Easy 11×11']);
  assert.deepEqual(roomBoards({ ...r, match: { rounds: 3, plan: 'same' } }), ['Maze Escape', 'Easy 11×11', 'Match of 3 rounds']);
  assert.deepEqual(roomBoards({ ...r, match: { rounds: 3, plan: 'harder' } }), [
    'Maze Escape',
    'Getting harder, small to large',
    'Match of 3 rounds',
  ]);
  assert.deepEqual(roomBoards({ ...r, match: { rounds: 5, plan: 'alternate' } }), ['Ghost and Maze in turn', 'Match of 5 rounds']);
});

test('the match table before any round is "no round played yet", never "after round 0"', () => {
  const line = (rounds) => ({ rank: 1, player_id: 1, name: 'Ann', points: 0, wins: 0, time_ms: 0, rounds });
  assert.equal(tableCaption({ round: 1, lines: [line([]), line([])] }), 'Match table: no round played yet');
  assert.equal(tableCaption({ round: 1, lines: [] }), 'Match table: no round played yet');
  assert.equal(tableCaption({ round: 2, lines: [line([3]), line([1])] }), 'Match table after round 1');
  assert.equal(tableCaption({ round: 3, over: true, lines: [line([3, 1, 2])] }), 'Final table');
});
