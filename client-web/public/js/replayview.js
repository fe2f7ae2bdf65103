// The replay screen: a stored daily run (GET /api/daily/runs/{id}), played
// back. Runs on today's boards belong to their player until tomorrow (the
// server's refusal is shown as text); moves glide unless the player prefers
// reduced motion, and then it opens on the whole run.

import { $, el, announce, pill, pills, auth } from './dom.js';
import { readBoard } from './rules.js';
import { GAMES, gameOf } from './games/index.js';
import { replayFrames, trailAt, visitedAt, Playback, agrees } from './replay.js';
import { fit, draw, still, glideAt } from './render.js';
import * as F from './format.js';

let ctx = null;
let S = null;

// The legend, from the table: the player and what each game shows of them,
// the path, then what each game shows on the board; a game's rows are shown
// under its runs only (describe()). A swatch is one of style.css's looks
// (`.sw.NAME`), or a game's own `style`.
const legendRow = (swatch, text, game, style) => el('li', { 'data-game': game }, el('span', { class: `sw ${swatch}`, style }), text);
const gameRows = (of) => GAMES.flatMap((g) => g.legend.filter((l) => l.of === of).map((l) => legendRow(l.swatch, l.text, g.name, l.style)));
$('rp-legend').replaceChildren(
  legendRow('you', 'the player'),
  ...gameRows('racer'),
  legendRow('path', 'the path walked in this run'),
  ...gameRows('board'),
);

export function init(c) {
  ctx = c;
  S = c.s;
}

/** Drawn on its own clock (`renderRun`), not on the page's renders; stopped once another view is up. */
export function render(s) {
  if (s.view !== 'replay' && S.replay.run) closeReplay();
}

/**
 * Fetches run `id` and shows it, or the reason it cannot be shown. `known`
 * ({name, steps, time_ms, game, size} from a leaderboard row) heads the
 * screen while it loads, and stays when the run is hidden.
 */
export async function watchRun(id, known = null) {
  const mine = openReplay(known || {}, 'Loading the run…');
  const res = await fetch(`/api/daily/runs/${encodeURIComponent(id)}`, { headers: auth(ctx.fx.store.token()) }).catch(() => null);
  const body = res && (await res.json().catch(() => null));
  if (mine !== S.replay.opened) return;
  const board = res && res.ok && body ? readBoard(body.board) : null;
  if (!board) return refused(res, body);
  showRun(board, body);
}

/**
 * A match round's best line (a `match_round`: its game, size, seed),
 * built in the page as offline play builds boards (js/offline/): the board
 * and the optimal line the server would reveal, played back on this screen.
 * The rounds' own runs are not kept by the server, so the best line is what
 * a round can show.
 */
export async function watchLine(round) {
  const known = { kind: `Match round ${round.round} · the best line`, name: 'The best possible line', game: round.game, size: round.size };
  const mine = openReplay(known, 'Building the board…');
  const built = await import('./offline/board.js').then((b) => b.buildBoard(round.size, round.seed)).catch(() => null);
  if (mine !== S.replay.opened) return;
  const board = built && readBoard(built.board);
  if (!board) return refused(null, { error: 'This round’s board could not be built in this page.' });
  const actions = built.answer.solution;
  const steps = built.best;
  showRun(board, { ...known, actions, board: built.board, state: 'finished', steps, time_ms: null });
}

/**
 * The replay screen opened on `known` (what is known of the run before it
 * arrives), saying `note` while it comes; the number of this opening, so a
 * late answer for an earlier one is dropped.
 */
function openReplay(known, note) {
  closeReplay();
  const mine = ++S.replay.opened;
  if (S.view !== 'replay') S.back = S.view;
  S.view = 'replay';
  ctx.render();
  $('replay').classList.remove('blocked');
  $('rp-play').hidden = true;
  $('rp-msg').hidden = true;
  head(known);
  $('rp-note').textContent = note;
  $('rp-note').className = 'note';
  return mine;
}

function showRun(board, body) {
  const { frames, refused: bad } = replayFrames(board, body.actions);
  S.replay.run = {
    run: body,
    board,
    frames,
    refused: bad,
    pb: new Playback(frames.length, { at: still() ? frames.length : 0 }),
    timer: 0,
    glide: null,
  };
  S.replay.run.pb.setSpeed(Number($('rp-speed').value));
  $('rp-play').hidden = false;
  describe();
  $('rp-h').focus({ preventScroll: true });
  if (!still()) S.replay.run.pb.play();
  renderRun();
  schedule();
}

export function closeReplay() {
  if (S.replay.run) clearTimeout(S.replay.run.timer);
  S.replay.run = null;
  S.replay.opened++;
}

export function replayState() {
  if (!S.replay.run) return { error: $('rp-msg').hidden ? null : $('rp-err').textContent };
  const { pb, frames, run } = S.replay.run;
  return {
    i: pb.i,
    last: pb.last,
    playing: pb.playing,
    speed: pb.speed,
    frame: structuredClone(frames[pb.i]),
    steps: run.steps,
    state: run.state,
    refused: S.replay.run.refused,
  };
}

const { unit } = F;

function head(run) {
  const u = unit(run.game);
  $('rp-kind').textContent = run.kind || (run.date ? `Daily replay · ${run.date} (UTC)` : 'Daily replay');
  $('rp-h').textContent = run.game ? F.label(run.game, run.size) : 'Replay';
  $('rp-who').textContent = run.name || '';
  $('rp-who').title = run.name || '';
  const chips = [];
  if (run.ranked != null) chips.push([run.ranked ? 'Ranked' : 'Practice', run.ranked ? 'open' : 'low']);
  if (run.state === 'playing') chips.push(['Still playing']);
  else if (run.state && run.state !== 'finished') chips.push(['Not finished'], [`${run.steps} ${u}`]);
  else if (Number.isFinite(run.steps)) chips.push([`${run.steps} ${u}`], ...(run.time_ms != null ? [[F.clock(run.time_ms)]] : []));
  $('rp-chips').replaceChildren(...pills(chips));
}

/** The head, the legend, whether the replay agrees with the stored result. */
function describe() {
  const { run, board, frames, refused: bad } = S.replay.run;
  const u = unit(board.game);
  const end = frames[frames.length - 1];
  head({ ...run, game: board.game, size: board.size });
  for (const li of $('rp-legend').querySelectorAll('[data-game]')) li.hidden = li.dataset.game !== board.game;
  const goal = `the ${F.goal(board.game)}`;
  let note;
  if (run.state === 'playing') note = 'This run is still being played: its moves are kept when it ends.';
  else if (agrees(frames, bad, run)) {
    note =
      run.state === 'finished'
        ? `Replayed with the game's rules: it reaches ${goal} in ${end.steps} ${u}, as recorded.`
        : `Replayed with the game's rules: ${end.steps} ${u}, as recorded, without reaching ${goal}.`;
  } else if (bad) note = `Move ${bad.index + 1} (${bad.action}) is not allowed by the rules here: the replay stops before it.`;
  else note = `This replay ends after ${end.steps} ${u}, but the run was recorded with ${run.steps}.`;
  $('rp-note').textContent = note;
  $('rp-note').className = `small ${run.state === 'playing' || agrees(frames, bad, run) ? 'muted' : 'warn'}`;
  $('rp-seek').max = String(S.replay.run.pb.last);
}

/** A 403 (today's board, not yours), a 404, a failure: the server's words. */
function refused(res, body) {
  const status = res ? res.status : 0;
  const msg = body && typeof body.error === 'string' ? body.error : 'The run could not be loaded. Check the connection and try again.';
  $('replay').classList.add('blocked');
  $('rp-note').textContent = '';
  $('rp-err-h').textContent = status === 403 ? 'Come back tomorrow' : status === 404 ? 'No such run' : 'The run could not be loaded';
  $('rp-err').textContent = msg;
  $('rp-msg').hidden = false;
  announce(msg);
}

function schedule() {
  const R = S.replay.run;
  clearTimeout(R.timer);
  if (!R.pb.playing) return;
  R.timer = setTimeout(() => {
    if (S.replay.run !== R) return;
    const from = R.frames[R.pb.i].pos;
    R.pb.tick();
    glide(from);
    renderRun();
    if (R.pb.atEnd && !R.pb.playing) announce(`End of the run: ${R.frames[R.pb.i].steps} ${unit(R.board.game)}.`);
    schedule();
  }, R.pb.interval);
}

/** Not under reduced motion, nor across a rewind. */
function glide(from) {
  const R = S.replay.run;
  const f = R.frames[R.pb.i];
  const near = Math.abs(from[0] - f.pos[0]) + Math.abs(from[1] - f.pos[1]) === 1;
  R.glide = near && !still() ? { from, t: performance.now(), ms: Math.min(140, R.pb.interval * 0.8) } : null;
}

function renderRun() {
  if (!S.replay.run) return;
  const { board, frames, pb } = S.replay.run;
  const f = frames[pb.i];
  const last = frames[frames.length - 1];
  const u = unit(board.game);
  const game = gameOf(board.game);
  ['rp-move', 'rp-run', 'rp-gate'].forEach((id, i) => pill(id, ...[].concat(game.replayPills(f, last)[i])));
  const seek = $('rp-seek');
  seek.value = String(pb.i);
  seek.setAttribute('aria-valuetext', `${f.steps} of ${last.steps} ${u}${game.seekMore(f)}`);
  $('rp-toggle').textContent = pb.playing ? 'Pause' : pb.atEnd && pb.last ? 'Play again' : 'Play';
  $('rp-first').disabled = $('rp-prev').disabled = pb.i === 0;
  $('rp-next').disabled = $('rp-last').disabled = pb.atEnd;
  $('rp-toggle').disabled = !pb.last;
  const where = `row ${f.pos[0] + 1}, column ${f.pos[1] + 1}`;
  const state = f.status === 'won' ? `, on the ${F.goal(board.game)}` : f.status === 'out_of_steps' ? ', out of steps' : '';
  $('rp-board').setAttribute('aria-label', `Replay board, ${board.n} by ${board.n}, after ${f.steps} ${u}: at ${where}${state}.`);
  queuePaint();
}

let paintQueued = false;
function queuePaint() {
  if (paintQueued) return;
  paintQueued = true;
  requestAnimationFrame(paint);
}

function paint() {
  paintQueued = false;
  // Listening from the module's load: a key before init() (the room screens still loading) is not ours.
  if (!S || !S.replay.run || $('replay').hidden) return;
  const { board, frames, pb } = S.replay.run;
  const f = frames[pb.i];
  const g = S.replay.run.glide;
  const pos = g && glideAt(g.from, f.pos, g.t, g.ms);
  if (pos) queuePaint();
  else S.replay.run.glide = null;
  const canvas = $('rp-board');
  const col = $('rp-play');
  const maxH = Math.max(220, innerHeight - 250);
  const layout = fit(canvas, board.n, col.clientWidth, maxH);
  col.style.setProperty('--bw', `${layout.css}px`); // the seek bar's width
  draw(canvas, layout, {
    board,
    me: { ...f, pos: pos || f.pos },
    visited: gameOf(board.game).visited ? visitedAt(frames, pb.i) : null,
    trail: trailAt(frames, pb.i),
  });
}

function control(fn) {
  if (!S.replay.run) return;
  const from = S.replay.run.frames[S.replay.run.pb.i].pos;
  fn(S.replay.run.pb);
  glide(from);
  renderRun();
  schedule();
}

// Each control and its key: arrows step, Home and End jump, space plays.
const KEYS = {};
for (const [id, key, fn] of [
  ['rp-toggle', ' ', (pb) => pb.toggle()],
  ['rp-prev', 'ArrowLeft', (pb) => pb.step(-1)],
  ['rp-next', 'ArrowRight', (pb) => pb.step(1)],
  ['rp-first', 'Home', (pb) => pb.step(-pb.last)],
  ['rp-last', 'End', (pb) => pb.step(pb.last)],
]) {
  $(id).addEventListener('click', () => control(fn));
  KEYS[key] = fn;
}
$('rp-seek').addEventListener('input', (e) => control((pb) => (pb.pause(), pb.seek(e.target.value))));
$('rp-speed').addEventListener('change', (e) => control((pb) => pb.setSpeed(Number(e.target.value))));
$('rp-back').addEventListener('click', () => {
  closeReplay();
  S.view = S.back || 'home';
  ctx.render();
});
addEventListener('resize', () => S.replay.run && queuePaint());

// A focused control keeps its own keys (the seek bar's arrows, a button's space).
document.addEventListener('keydown', (e) => {
  // Listening from the module's load: a key before init() (the room screens still loading) is not ours.
  if (!S || !S.replay.run || $('replay').hidden || e.ctrlKey || e.altKey || e.metaKey) return;
  const t = e.target;
  if (t && /^(INPUT|SELECT|TEXTAREA|BUTTON)$/.test(t.tagName) && !(t.tagName === 'BUTTON' && e.key.startsWith('Arrow'))) return;
  const act = KEYS[e.key];
  if (!act) return;
  e.preventDefault();
  control(act);
});
