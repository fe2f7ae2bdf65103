// Replay stepping: frames built through the rules, the trail and the tint,
// the playback position (play, pause, step, seek, speed), and the check that a
// stored run ends where the server says it did.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseBoard } from '../../public/js/rules.js';
import { replayFrames, trailAt, visitedAt, Playback, agrees, SPEEDS } from '../../public/js/replay.js';
import { route } from '../route.mjs';

// The seed's worked example (RULES.md): start [0,0], plate [5,0], gate [2,3], flag [0,5].
const VAULT = {
  game: 'ghost',
  size: 'small',
  seed: '0',
  n: 6,
  cells: ['...#..', '...#..', '......', '...#..', '...#..', '...#..'],
  start: [0, 0],
  flag: [0, 5],
  plate: [5, 0],
  gate: [2, 3],
  par: 14,
  allowance: 20,
};
const MAZE = { game: 'maze', size: 'easy', seed: '1', n: 3, passages: ['2ac', '6a9', '3a8'], start: [0, 0], exit: [2, 2] };
const words = (s) => s.split(' ');

test('a vault run: frame k is the state after k actions, through the rewind to the flag', () => {
  const b = parseBoard(VAULT);
  const line = route(VAULT);
  const { frames, refused } = replayFrames(b, line);
  assert.equal(refused, null);
  assert.equal(frames.length, line.length + 1);
  assert.deepEqual(frames[0], { pos: [0, 0], ghost: null, run: 1, steps: 0, status: 'playing', gateOpen: false, from: 0 });
  const rw = line.indexOf('rewind');
  // On the plate at the end of run one: the gate is open for the player.
  assert.deepEqual(frames[rw].pos, VAULT.plate);
  assert.equal(frames[rw].gateOpen, true);
  // The rewind: back to the start, run two, the ghost appears, steps kept.
  const after = frames[rw + 1];
  assert.deepEqual([after.pos, after.ghost, after.run, after.steps], [[0, 0], [0, 0], 2, rw]);
  assert.equal(after.from, rw + 1, 'a new run begins its own trail');
  const end = frames.at(-1);
  assert.equal(end.status, 'won');
  assert.deepEqual(end.pos, VAULT.flag);
  assert.equal(end.steps, line.length - 1, 'every move counts, the rewind does not');
  assert.ok(
    frames.some((f) => f.run === 2 && f.gateOpen && !f.pos.every((x, i) => x === VAULT.plate[i])),
    'the ghost holds the gate open',
  );
  // Frames are copies: changing one does not change another.
  frames[1].pos[0] = 99;
  assert.notEqual(frames[2].pos[0], 99);
});

test('the trail is the current run only; the tint is every cell so far', () => {
  const b = parseBoard(VAULT);
  const line = words('down down down down down rewind right right');
  const { frames } = replayFrames(b, line);
  assert.deepEqual(trailAt(frames, 2), [
    [0, 0],
    [1, 0],
    [2, 0],
  ]);
  assert.deepEqual(trailAt(frames, 5), [
    [0, 0],
    [1, 0],
    [2, 0],
    [3, 0],
    [4, 0],
    [5, 0],
  ]);
  assert.deepEqual(trailAt(frames, 6), [[0, 0]], 'after the rewind the trail starts again');
  assert.deepEqual(trailAt(frames, 8), [
    [0, 0],
    [0, 1],
    [0, 2],
  ]);
  const m = parseBoard(MAZE);
  const mf = replayFrames(m, words('right right down left')).frames;
  assert.deepEqual([...visitedAt(mf, 4)].sort(), ['0,0', '0,1', '0,2', '1,1', '1,2']);
  assert.deepEqual([...visitedAt(mf, 0)], ['0,0']);
});

test('a refused action stops the replay and says which', () => {
  const b = parseBoard(MAZE);
  const { frames, refused } = replayFrames(b, words('right down right'));
  assert.deepEqual(refused, { index: 1, action: 'down', reason: 'wall' });
  assert.equal(frames.length, 2);
  assert.deepEqual(replayFrames(parseBoard(VAULT), words('right right right')).refused, { index: 2, action: 'right', reason: 'wall' });
  assert.deepEqual(replayFrames(b, null), { frames: [replayFrames(b, []).frames[0]], refused: null }, 'no actions: the start alone');
});

test('the replay agrees with the stored run only when steps and outcome match', () => {
  const b = parseBoard(MAZE);
  const { frames, refused } = replayFrames(b, words('right right down left left down right right'));
  assert.equal(frames.at(-1).status, 'won');
  assert.equal(agrees(frames, refused, { steps: 8, state: 'finished' }), true);
  assert.equal(agrees(frames, refused, { steps: 9, state: 'finished' }), false, 'steps differ');
  assert.equal(agrees(frames, refused, { steps: 8, state: 'not_finished' }), false, 'outcome differs');
  const short = replayFrames(b, words('right right'));
  assert.equal(agrees(short.frames, short.refused, { steps: 2, state: 'not_finished' }), true);
  const bad = replayFrames(b, words('right down'));
  assert.equal(agrees(bad.frames, bad.refused, { steps: 1, state: 'not_finished' }), false, 'a refused move never agrees');
});

test('playback: play to the end and stop there, pause, step, seek, speed', () => {
  const pb = new Playback(4); // frames 0..3
  assert.deepEqual([pb.i, pb.playing, pb.atEnd, pb.speed], [0, false, false, 1]);
  assert.equal(pb.tick(), false, 'paused: a tick does nothing');
  pb.play();
  assert.equal(pb.playing, true);
  assert.equal(pb.tick(), true);
  assert.equal(pb.i, 1);
  pb.tick();
  pb.tick();
  assert.deepEqual([pb.i, pb.atEnd, pb.playing], [3, true, false], 'stops on the last frame');
  assert.equal(pb.tick(), false);
  pb.play();
  assert.deepEqual([pb.i, pb.playing], [0, true], 'play at the end starts over');
  pb.step(1);
  assert.deepEqual([pb.i, pb.playing], [1, false], 'a step pauses');
  pb.step(-5);
  assert.equal(pb.i, 0, 'never before the start');
  pb.step(9);
  assert.equal(pb.i, 3, 'never past the end');
  pb.seek('2');
  assert.equal(pb.i, 2, 'a range input hands over a string');
  pb.seek(NaN);
  assert.equal(pb.i, 0);
  pb.toggle();
  assert.equal(pb.playing, true);
  pb.toggle();
  assert.equal(pb.playing, false);
  assert.equal(pb.interval, 300);
  pb.setSpeed(4);
  assert.equal(pb.interval, 75);
  pb.setSpeed(3);
  assert.equal(pb.speed, 4, 'only the offered speeds');
  assert.deepEqual(SPEEDS, [0.5, 1, 2, 4]);
  assert.equal(new Playback(10, { at: 99 }).i, 9, 'open at the end (reduced motion)');
  const one = new Playback(1);
  one.play();
  assert.equal(one.playing, false, 'a run with no moves has nothing to play');
});
