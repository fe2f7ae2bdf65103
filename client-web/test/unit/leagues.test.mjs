// Leagues without a browser (issue 15): the messages through handlers.js,
// the league actions, and the pure formats (today's standing, the places of
// a daily result, standings cells, codes, why a try is practice).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createState } from '../../public/js/state.js';
import { handle } from '../../public/js/handlers.js';
import { leagueAct, openLeague } from '../../public/js/actions.js';
import * as F from '../../public/js/format.js';
import { fakeFx, welcome } from './fakes.mjs';

const BOARDS = [
  { game: 'maze', size: 'easy' },
  { game: 'ghost', size: 'small' },
];

function welcomed(path = '/') {
  const s = createState();
  const fx = fakeFx({ path });
  s.daily.boards = BOARDS;
  handle(s, welcome({ name: 'Ann' }), fx);
  return { s, fx };
}

test('welcome asks for my leagues (not offline); the answer fills the home list', () => {
  const { s, fx } = welcomed();
  assert.deepEqual(
    fx.sent.filter((m) => m.type === 'my_leagues'),
    [{ type: 'my_leagues' }],
  );
  assert.equal(s.leagues.mine, null);
  handle(
    s,
    { type: 'leagues', leagues: [{ code: 'K7M2QX9P', name: '<b>Club</b>', members: 3, today: { rank: 1, points: 5, played: 2 } }] },
    fx,
  );
  assert.equal(s.leagues.mine[0].name, '<b>Club</b>', 'kept as data');
  assert.equal(s.leagues.pending, null);
  const off = createState();
  const ofx = fakeFx();
  handle(off, welcome({ offline: true }), ofx);
  assert.deepEqual(
    ofx.sent.filter((m) => m.type === 'my_leagues'),
    [],
    'the offline stand-in has no leagues',
  );
});

test('create: the answer opens the league view with its standings and a table per board of today', () => {
  const { s, fx } = welcomed();
  handle(s, { type: 'leagues', leagues: [] }, fx);
  fx.sent.length = 0;
  assert.equal(leagueAct(s, fx, { type: 'create_league', name: 'Friday club' }, 'Ann'), true);
  assert.deepEqual(fx.sent, [{ type: 'create_league', name: 'Friday club' }]);
  fx.sent.length = 0;
  handle(s, { type: 'league', code: 'K7M2QX9P', name: 'Friday club', members: 1 }, fx);
  assert.equal(s.view, 'league');
  assert.equal(fx.path(), '/l/K7M2QX9P');
  assert.deepEqual(fx.sent, [
    { type: 'my_leagues' },
    { type: 'league_standings', code: 'K7M2QX9P', days: 7 },
    { type: 'league_board', code: 'K7M2QX9P', game: 'maze', size: 'easy' },
    { type: 'league_board', code: 'K7M2QX9P', game: 'ghost', size: 'small' },
  ]);
  assert.deepEqual(
    s.leagues.mine.map((l) => l.code),
    ['K7M2QX9P'],
  );
  handle(s, { type: 'league_board', code: 'K7M2QX9P', game: 'maze', size: 'easy', entries: [] }, fx);
  handle(s, { type: 'league_board', code: 'OTHER', game: 'ghost', size: 'small', entries: [] }, fx);
  assert.deepEqual([...s.leagues.boards.keys()], ['maze.easy'], "only the open league's tables");
  handle(s, { type: 'league_standings', code: 'K7M2QX9P', days: 7, lines: [] }, fx);
  assert.equal(s.leagues.standings.days, 7);
  // The 30-day window asks again.
  fx.sent.length = 0;
  s.leagues.days = 30;
  openLeague(s, fx, 'K7M2QX9P');
  assert.deepEqual(fx.sent[0], { type: 'league_standings', code: 'K7M2QX9P', days: 30 });
  assert.deepEqual([...s.leagues.boards.keys()], ['maze.easy'], 'the same league keeps its tables while they reload');
});

test('a removed member: the open league asks for its standings again', () => {
  const { s, fx } = welcomed();
  s.leagues.open = 'K7M2QX9P';
  s.view = 'league';
  fx.sent.length = 0;
  handle(s, { type: 'member_removed', code: 'K7M2QX9P', member: 'c3f86d12e05a', removed: true }, fx);
  assert.ok(
    fx.sent.some((m) => m.type === 'league_standings' && m.code === 'K7M2QX9P'),
    JSON.stringify(fx.sent),
  );
});

test('a new league code (issue 34): the open league moves to it, with its new key, and says why', () => {
  const { s, fx } = welcomed();
  handle(s, { type: 'leagues', leagues: [{ code: 'K7M2QX9P', name: 'Club', members: 3, key: '3f9a0c1d5e7b2a64' }] }, fx);
  s.leagues.open = 'K7M2QX9P';
  s.view = 'league';
  fx.sent.length = 0;
  const league = { code: 'R4TW8NCE', name: 'Club', members: 3, key: '7c20e9b14fa3d658' };
  handle(s, { type: 'league_code_changed', old_code: 'K7M2QX9P', league }, fx);
  assert.equal(s.leagues.open, 'R4TW8NCE');
  assert.equal(fx.path(), '/l/R4TW8NCE');
  assert.deepEqual(
    s.leagues.mine.map((l) => [l.code, l.key]),
    [['R4TW8NCE', '7c20e9b14fa3d658']],
  );
  const lookups = fx.sent.filter((m) => m.type === 'league_standings' || m.type === 'league_board');
  assert.ok(lookups.length && lookups.every((m) => m.code === 'R4TW8NCE' && m.key === '7c20e9b14fa3d658'), JSON.stringify(lookups));
  assert.match(fx.toasts.at(-1), /old ones no longer work/);
  // Only the owner is offered the button.
  assert.equal(F.owns({ lines: [{ you: true, owner: true }] }), true);
  assert.equal(F.owns({ lines: [{ you: true }, { owner: true }] }), false);
  assert.equal(F.owns(null), false);
});

test("a member's lookups carry the league's invite key, so a spent address budget cannot lock them out", () => {
  const { s, fx } = welcomed();
  handle(s, { type: 'leagues', leagues: [] }, fx);
  fx.sent.length = 0;
  handle(s, { type: 'league', code: 'K7M2QX9P', name: 'Friday club', members: 1, key: '3f9a0c1d5e7b2a64' }, fx);
  const lookups = fx.sent.filter((m) => m.type !== 'my_leagues');
  assert.equal(lookups.length, 3);
  assert.ok(
    lookups.every((m) => m.key === '3f9a0c1d5e7b2a64'),
    JSON.stringify(lookups),
  );
});

test('a /l/CODE link to a league I am already in opens it; leaving goes home', () => {
  const { s, fx } = welcomed('/l/K7M2QX9P');
  s.leagues.invite = { code: 'K7M2QX9P' };
  handle(s, { type: 'leagues', leagues: [{ code: 'K7M2QX9P', name: 'Club', members: 2 }] }, fx);
  assert.equal(s.leagues.invite, null);
  assert.equal(s.view, 'league');
  assert.equal(s.leagues.open, 'K7M2QX9P');
  handle(s, { type: 'league_left', code: 'K7M2QX9P', left: true }, fx);
  assert.equal(s.view, 'home');
  assert.equal(fx.path(), '/');
  assert.deepEqual(s.leagues.mine, []);
  assert.deepEqual(fx.toasts, ['You left the league.']);
});

test("a league's refusal goes to the leagues card, not the name field or a room error", () => {
  const { s, fx } = welcomed();
  handle(s, { type: 'leagues', leagues: [] }, fx);
  leagueAct(s, fx, { type: 'join_league', code: 'NOPE2345' }, 'Ann');
  handle(s, { type: 'error', code: 'league_not_found', message: 'no league has that code' }, fx);
  assert.equal(s.leagues.error, 'no league has that code');
  assert.equal(s.leagues.pending, null);
  leagueAct(s, fx, { type: 'create_league', name: '' }, 'Ann');
  handle(s, { type: 'error', code: 'bad_name', message: 'names are 1 to 24 characters' }, fx);
  assert.equal(s.leagues.error, 'names are 1 to 24 characters');
  assert.equal(s.ui.nameError, '', 'the player name is fine');
  assert.deepEqual(fx.toasts, []);
  // Nothing pending: a bad_name is the player's name again.
  handle(s, { type: 'error', code: 'bad_name', message: 'no' }, fx);
  assert.equal(s.ui.nameError, 'no');
  // An invalid player name stops a league message before it is sent.
  fx.sent.length = 0;
  assert.equal(leagueAct(s, fx, { type: 'create_league', name: 'X' }, ''), false);
  assert.deepEqual(fx.sent, []);
});

test('a daily result in leagues asks for the new standing; a daily room says why it is practice', () => {
  const { s, fx } = welcomed();
  handle(s, { type: 'leagues', leagues: [] }, fx);
  fx.sent.length = 0;
  const dr = {
    type: 'daily_result',
    date: '2026-12-01',
    game: 'maze',
    size: 'easy',
    ranked: true,
    finished: true,
    steps: 36,
    time_ms: 20110,
    rank: 1,
    entrants: 9,
    streak: 3,
    share: 's',
    run_id: 40,
    puzzle: 3,
  };
  handle(s, dr, fx);
  assert.equal(
    fx.sent.some((m) => m.type === 'my_leagues'),
    false,
    'in no league: nothing to refresh',
  );
  handle(s, { ...dr, leagues: [{ code: 'K7M2QX9P', name: 'Club', rank: 1, entrants: 3, share: 'l' }] }, fx);
  assert.equal(
    fx.sent.some((m) => m.type === 'my_leagues'),
    true,
  );
  handle(
    s,
    {
      type: 'room',
      code: 'P3XQ9',
      host: 1,
      game: 'maze',
      size: 'easy',
      phase: 'lobby',
      rank_by: 'steps',
      max_players: 1,
      daily: true,
      ranked: false,
      practice: 'address_cap',
      players: [{ id: 1, name: 'Ann', ready: false, spectator: false, connected: true }],
    },
    fx,
  );
  assert.equal(s.daily.ranked, false);
  assert.equal(s.daily.practice, 'address_cap');
});

test('formats: today in a league, the places of a result, standings cells, codes, practice', () => {
  assert.equal(F.leagueToday({ rank: 1, points: 5, played: 2 }), '#1 of 2 today · 5 points');
  assert.equal(F.leagueToday({ rank: 2, points: 1, played: 2 }), '#2 of 2 today · 1 point');
  assert.equal(F.leagueToday({ rank: 1, points: 0, played: 0 }), 'Nobody has played today', 'a new league: no "#1 of 0"');
  assert.equal(F.leagueToday({ rank: 3, points: 0, played: 2 }), 'Not played today · 2 played');
  assert.equal(F.leagueToday(undefined), 'Not played today');
  const d = {
    ranked: true,
    finished: true,
    rank: 3,
    entrants: 57,
    leagues: [
      { name: '<i>Club</i>', rank: 1, entrants: 3, share: 'mazerace daily #3 - <i>Club</i> - Maze easy - #1 of 3' },
      { name: 'Work', entrants: 4 },
    ],
  };
  assert.deepEqual(F.places(d), [
    { label: 'Everyone', text: '#3 of 57' },
    { label: '<i>Club</i>', text: '#1 of 3', share: 'mazerace daily #3 - <i>Club</i> - Maze easy - #1 of 3' },
    { label: 'Work', text: 'not finished', share: '' },
  ]);
  assert.deepEqual(F.places({ ranked: true, finished: false, rank: 2, entrants: 5 }), [{ label: 'Everyone', text: 'not finished' }]);
  assert.deepEqual(F.places({ ranked: false }), [], 'practice has no places');
  assert.deepEqual(F.standingCells({ rank: 1, name: 'Ann', points: 9, wins: 3, days: 3, streak: 3 }), ['1', 'Ann', '9', '3', '3', '3']);
  assert.deepEqual(F.standingCells({ rank: 3, name: 'Cy', points: 2, wins: 0, days: 2 }), ['3', 'Cy', '2', '0', '2', '0']);
  assert.equal(F.leagueCode(' k7m2-qx9p '), 'K7M2QX9P');
  assert.equal(F.leagueCode('https://race.example/l/K7M2QX9P'), 'K7M2QX9P');
  assert.equal(F.leagueFromPath('/l/k7m2qx9p'), 'K7M2QX9P');
  assert.equal(F.leagueFromPath('/r/K7M2Q'), null);
  assert.equal(F.codeFromPath('/l/K7M2QX9P'), null, 'a league link is no room link');
  assert.match(F.practiceWhy('address_cap'), /network address/);
  assert.match(F.practiceWhy('played', '2026-12-01T09:12:31Z'), /your ranked try today was at \d\d:\d\d/);
  assert.match(F.practiceWhy('played', null), /you used your ranked try today/);
});

test('a join kept for after welcome keeps its refusal on the leagues card', () => {
  const s = createState();
  const fx = fakeFx({ path: '/l/K7M2QX9P' });
  fx.open = false;
  leagueAct(s, fx, { type: 'join_league', code: 'K7M2QX9P' }, 'Bob');
  fx.open = true;
  handle(s, welcome({ name: 'Bob' }), fx);
  assert.deepEqual(fx.sent, [{ type: 'my_leagues' }, { type: 'join_league', code: 'K7M2QX9P' }]);
  handle(s, { type: 'leagues', leagues: [] }, fx);
  handle(s, { type: 'error', code: 'league_full', message: 'that league is full' }, fx);
  assert.equal(s.leagues.error, 'that league is full');
  assert.deepEqual(fx.toasts, []);
});
