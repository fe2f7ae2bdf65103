// A match's messages through the handlers (intermission, match_over, a
// match's `room`) and the host's match actions (set_match, hold once per
// intermission, next_round, another match), on the fake fx.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createState } from '../../public/js/state.js';
import { handle } from '../../public/js/handlers.js';
import { chooseMatch, hold, nextRound, anotherMatch, matchOn, roundLabel, roundsOver } from '../../public/js/matches.js';
import { fakeFx, player, room, welcome } from './fakes.mjs';

const standings = (extra = {}) => ({
  round: 1,
  boards: [{ game: 'ghost', size: 'small', seed: '7' }],
  lines: [
    { rank: 1, player_id: 1, name: 'Ann', points: 2, wins: 1, time_ms: 4000, rounds: [2] },
    { rank: 2, player_id: 2, name: 'Bob', points: 1, wins: 0, time_ms: 5000, rounds: [1] },
  ],
  ...extra,
});

function inMatch(me = 1, phase = 'intermission') {
  const s = createState();
  const fx = fakeFx({ path: '/r/K7M2Q' });
  handle(s, welcome({ player_id: me }), fx);
  handle(s, room([player(1, 'Ann'), player(2, 'Bob')], { phase, match: { rounds: 3, plan: 'same' }, standings: standings() }), fx);
  fx.drain();
  return { s, fx };
}

test('the intermission is drawn from the server’s seconds, a hold has none, the countdown ends it', () => {
  const { s, fx } = inMatch();
  handle(s, { type: 'intermission', round: 2, seconds: 10 }, fx);
  assert.deepEqual(s.match.intermission, { round: 2, seconds: 10, held: false });
  assert.equal(s.view, 'play');
  assert.match(fx.said.at(-1), /Round 2 starts in 10 seconds/);
  handle(s, { type: 'intermission', round: 2, seconds: 9 }, fx);
  assert.equal(s.match.intermission.seconds, 9);
  assert.equal(fx.said.length, 1, 'the countdown is said once, not every second');
  handle(s, { type: 'intermission', round: 2, held: true }, fx);
  assert.deepEqual(s.match.intermission, { round: 2, seconds: null, held: true });
  assert.match(fx.said.at(-1), /holds the match/);
  handle(s, { type: 'countdown', seconds: 3 }, fx);
  assert.equal(s.match.intermission, null);
  assert.ok(matchOn(s));
  assert.equal(roundLabel(s), 'Round 1 of 3');
});

test('the host holds once per intermission and may start the next round, held or not; others send nothing', () => {
  const host = inMatch(1);
  handle(host.s, { type: 'intermission', round: 2, seconds: 10 }, host.fx);
  hold(host.s, host.fx);
  handle(host.s, { type: 'intermission', round: 2, held: true }, host.fx);
  hold(host.s, host.fx);
  handle(host.s, { type: 'intermission', round: 2, seconds: 10 }, host.fx); // the host came back: it runs again
  hold(host.s, host.fx);
  nextRound(host.s, host.fx);
  assert.deepEqual(host.fx.drain(), [{ type: 'hold' }, { type: 'next_round' }]);
  const guest = inMatch(2);
  handle(guest.s, { type: 'intermission', round: 2, seconds: 10 }, guest.fx);
  hold(guest.s, guest.fx);
  nextRound(guest.s, guest.fx);
  assert.deepEqual(guest.fx.drain(), []);
});

test('the host chooses a match or single races in the lobby only, never in a daily room', () => {
  const { s, fx } = inMatch(1, 'lobby');
  chooseMatch(s, fx, 5, 'alternate');
  chooseMatch(s, fx, 0);
  assert.deepEqual(fx.drain(), [{ type: 'set_match', match: { rounds: 5, plan: 'alternate' } }, { type: 'set_match' }]);
  s.room.phase = 'racing';
  chooseMatch(s, fx, 3, 'same');
  s.room.phase = 'lobby';
  s.room.daily = true;
  chooseMatch(s, fx, 3, 'same');
  assert.deepEqual(fx.drain(), []);
});

/** The room at a match's podium: its results, the table over. */
const overRoom = () =>
  room([player(1, 'Ann'), player(2, 'Bob')], {
    phase: 'results',
    match: { rounds: 3, plan: 'same' },
    standings: standings({ over: true }),
  });

test('match_over is kept until the table is gone; "Play another match" is the host’s rematch', () => {
  const { s, fx } = inMatch(1, 'results');
  const over = {
    type: 'match_over',
    seed: '9',
    played: 3,
    lines: standings().lines,
    winners: [1],
    share: 'mazerace match - 3 rounds, same board - #1 Ann 2 pts - #2 Bob 1 pts',
  };
  handle(s, overRoom(), fx);
  handle(s, over, fx);
  assert.equal(s.match.over, over);
  assert.match(fx.said.at(-1), /Ann wins the match\. You are 1st with 2 points\./);
  anotherMatch(s, fx);
  assert.deepEqual(fx.drain(), [{ type: 'rematch' }]);
  handle(
    s,
    room([player(1, 'Ann'), player(2, 'Bob')], {
      phase: 'lobby',
      match: { rounds: 3, plan: 'same' },
      tally: [{ player_id: 1, name: 'Ann', wins: 1 }],
    }),
    fx,
  );
  assert.equal(s.match.over, null);
  assert.equal(matchOn(s), false);
});

test('match_round keeps each round as the server scored it, round 1 begins a list, match_over takes the first it played', () => {
  const { s, fx } = inMatch(1, 'results');
  const scored = (round) => ({ type: 'match_round', round, game: 'maze', size: 'easy', seed: String(round), rankings: [], scores: [] });
  for (const k of [1, 2, 3]) handle(s, scored(k), fx);
  // A resume sends every round again, in order: the list is the same.
  for (const k of [1, 2, 3]) handle(s, scored(k), fx);
  assert.deepEqual(
    s.match.rounds.map((r) => r.seed),
    ['1', '2', '3'],
  );
  assert.deepEqual(
    roundsOver(s, { played: 3 }).map((r) => r.round),
    [1, 2, 3],
  );
  // The next match ended before its first round: none of the last one's rounds are its.
  assert.deepEqual(roundsOver(s, { played: 0 }), []);
  handle(s, scored(1), fx);
  assert.deepEqual(
    s.match.rounds.map((r) => r.round),
    [1],
    'a new match begins a new list',
  );
  assert.deepEqual(fx.drain(), [], 'nothing is sent for it');
});

test('another match is counted down from the podium: a new table, round 1 to come, the podium gone', () => {
  const { s, fx } = inMatch(1, 'results');
  handle(s, overRoom(), fx);
  handle(s, { type: 'match_over', seed: '9', played: 3, lines: standings().lines, winners: [1], share: 'x' }, fx);
  anotherMatch(s, fx);
  assert.deepEqual(fx.drain(), [{ type: 'rematch' }]);
  const fresh = { round: 0, boards: [], lines: [] };
  handle(
    s,
    room([player(1, 'Ann'), player(2, 'Bob')], { phase: 'intermission', match: { rounds: 3, plan: 'same' }, standings: fresh }),
    fx,
  );
  handle(s, { type: 'intermission', round: 1, seconds: 10 }, fx);
  assert.equal(s.match.over, null, 'the podium is gone');
  assert.equal(roundLabel(s), 'A new match of 3 rounds');
  assert.deepEqual(s.match.intermission, { round: 1, seconds: 10, held: false });
  assert.equal(matchOn(s), true);
});
