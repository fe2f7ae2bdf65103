// The race screen: HUD, overlay, hint, rewind / give up / leave, input.

import { $, el, pill } from './dom.js';
import { cellAt } from './render.js';
import { dirToward } from './rules.js';
import { canMove, elapsed, myGame, solo, racing, alone } from './state.js';
import { gameOf } from './games/index.js';
import { act, giveUp, leave, whereWords, dailyAtStake } from './actions.js';
import { initBoard, requestDraw, renderRacers, boardLayout } from './raceboard.js';
import * as F from './format.js';

let ctx = null;

/** A press that travels this far (CSS px) is a swipe, not a tap. */
const SWIPE_PX = 24;

const KEYS = { ArrowUp: 'up', ArrowDown: 'down', ArrowLeft: 'left', ArrowRight: 'right', w: 'up', s: 'down', a: 'left', d: 'right' };

export function init(c) {
  ctx = c;
  const { s, fx } = c;
  initBoard(s);
  const run =
    (fn) =>
    (...a) => (fn(...a), c.render());
  document.addEventListener('keydown', (e) => {
    if (e.ctrlKey || e.altKey || e.metaKey) return; // shortcuts stay the browser's
    const dir = KEYS[e.key.length === 1 ? e.key.toLowerCase() : e.key];
    if (!dir || s.view !== 'play' || s.race.results) return;
    const t = e.target;
    if (t && (/^(INPUT|SELECT|TEXTAREA)$/.test(t.tagName) || t.isContentEditable)) return;
    if (!s.game.pred && !s.race.countdown) return;
    e.preventDefault(); // no scrolling mid-race
    run(act)(s, fx, dir);
  });
  $('overlay').addEventListener('click', () => s.conn.taken && fx.connect());
  // On the board: a swipe moves one step its way; a tap (or click) moves one
  // step toward the square tapped, along the axis it is farther on, so a
  // 23x23 maze on a phone never needs a 16-pixel target.
  const board = $('board');
  let press = null;
  board.addEventListener('pointerdown', (e) => {
    if (!myGame(s) || !s.race.board) return;
    press = { x: e.clientX, y: e.clientY, id: e.pointerId };
    e.preventDefault();
  });
  board.addEventListener('pointercancel', () => (press = null));
  board.addEventListener('pointerup', (e) => {
    const p = press;
    press = null;
    const g = myGame(s);
    const layout = boardLayout();
    if (!p || p.id !== e.pointerId || !g || !layout) return;
    const dx = e.clientX - p.x,
      dy = e.clientY - p.y;
    let dir;
    if (Math.max(Math.abs(dx), Math.abs(dy)) >= SWIPE_PX)
      dir = Math.abs(dx) > Math.abs(dy) ? (dx < 0 ? 'left' : 'right') : dy < 0 ? 'up' : 'down';
    else {
      const cell = cellAt(board, layout, p.x, p.y);
      dir = cell && dirToward(g.pos, cell);
    }
    if (dir) run(act)(s, fx, dir);
  });
  c.on('pad', 'click', (e) => {
    const b = e.target.closest('[data-dir]');
    if (b) act(s, fx, b.dataset.dir);
  });
  c.on('rewind', 'click', () => act(s, fx, 'rewind'));
  c.on('giveup', 'click', () => giveUp(s, fx));
  c.on('again-now', 'click', () => giveUp(s, fx, { again: true }));
  c.on('leave-race', 'click', () => leave(s, fx));
  // The stage takes the focus back either way.
  const answer = (yes) => {
    const q = s.game.confirm;
    s.game.confirm = null;
    // Leave, or the action the game asked about (games/ `questions`).
    if (yes && q === 'leave') leave(s, fx, { force: true });
    else if (yes && q) act(s, fx, q, { force: true });
    $('stage').focus({ preventScroll: true });
  };
  c.on('confirm-yes', 'click', () => answer(true));
  c.on('confirm-no', 'click', () => answer(false));
  setInterval(() => {
    if (s.view === 'play' && s.race.board && !s.race.results) $('hud-time').textContent = F.clock(elapsed(s, fx.now()));
  }, 100);
}

export function render(s) {
  if (s.view !== 'play') return;
  const now = ctx.fx.now();
  renderMini(s);
  renderHud(s, now);
  renderControls(s);
  renderOverlay(s, now);
  renderRacers(s);
  $('pad').classList.toggle('on', !!s.game.pred && !s.race.results);
  $('stage').classList.toggle('live', canMove(s));
  requestDraw();
}

function renderMini(s) {
  const game = s.race.board ? s.race.board.game : s.room && s.room.game;
  const body = $('mini-body');
  if (!gameOf(game) || body.dataset.game === game) return;
  body.dataset.game = game;
  const src = document.querySelector(`#home [data-howto="${game}"]`);
  $('mini-title').textContent = `How to play ${F.gameLabel(game)}`;
  body.replaceChildren(src.cloneNode(true));
  $('mini').open = innerWidth > 880;
}

function renderHud(s, now) {
  const b = s.race.board;
  const g = myGame(s);
  if (!b || (!s.race.live && !s.race.results)) {
    pills3('', '', '');
    pill('hud-time', s.race.countdown ? 'Get ready' : '');
    const on = b && b.size ? b : s.room; // a match's round may be on another game or size
    setHint(s.room ? `${F.label(on.game, on.size, ' · ')}${b ? ': study the board' : ''}` : '', false);
    $('where').textContent = '';
    return;
  }
  const game = gameOf(b.game);
  if (!g) pills3('Watching', '', '');
  else pills3(...game.hud(g));
  pill('hud-time', F.clock(elapsed(s, now)));
  const where = whereWords(s);
  $('where').textContent = where;
  $('stage').setAttribute(
    'aria-label',
    `Board, ${b.n} by ${b.n}.` + (g ? ` You are at ${where} Move with the arrow keys or W A S D.` : ''),
  );
  const playing = g && g.status === 'playing' && !s.game.givenUp && !s.race.results;
  // A warning stays a moment, never past the finish.
  if (playing && s.ui.hintWarn && s.timers.hintUntil > now) return setHint(s.ui.hint, true);
  let h = '';
  if (playing) h = game.hint(g, { alone: alone(s) });
  else if (!g && !s.race.results) {
    // Joined mid-race: a spectator until the next race.
    const asked = s.lastIntent && s.lastIntent.type === 'join_room' && !s.lastIntent.spectate;
    h = asked ? 'The race had already started: you are watching, and you race in the next one.' : 'You are watching this race.';
  } else if (s.ui.hint && !s.ui.hintWarn) h = s.ui.hint;
  setHint(h, false);
}

const pills3 = (...p) => ['hud-run', 'hud-gate', 'hud-steps'].forEach((id, i) => pill(id, ...[].concat(p[i])));

function setHint(text, warn) {
  const h = $('hint');
  h.textContent = text;
  h.classList.toggle('warn', !!warn);
}

function renderControls(s) {
  const b = s.race.board;
  const g = myGame(s);
  const playing = !!g && g.status === 'playing' && !s.game.givenUp && racing(s);
  // The game's own buttons while my run is on (a rewind, Give up, Try this board again).
  const shown = playing ? gameOf(b.game).controls(g, { alone: alone(s) }) : {};
  const rw = $('rewind');
  rw.hidden = !shown.rewind;
  rw.disabled = !canMove(s);
  $('giveup').hidden = !shown.giveUp;
  $('again-now').hidden = !shown.again;
  $('leave-race').hidden = !(s.room && !s.race.results && (s.race.live || s.race.countdown));
  const q = s.game.confirm;
  const box = $('confirm');
  const opening = !!q && box.hidden;
  box.hidden = !q;
  const asked = q && q !== 'leave' && b && gameOf(b.game).questions[q];
  const words = asked
    ? asked.words
    : q === 'leave'
      ? dailyAtStake(s)
        ? [
            'This is your ranked try for today. Leaving now uses it: it counts as not finished. Leave anyway?',
            'Leave and use my try',
            'Keep playing',
          ]
        : ['Leave the race? Your run ends here and counts as not finished.', 'Leave the race', 'Keep playing']
      : null;
  if (words) ['confirm-text', 'confirm-yes', 'confirm-no'].forEach((id, i) => ($(id).textContent = words[i]));
  // The safe answer has the focus.
  if (opening) $('confirm-no').focus({ preventScroll: true });
  const note = $('practice-note');
  const practice = s.room && s.room.daily && s.daily.ranked === false;
  note.hidden = !practice || !!s.race.results;
  if (practice) note.textContent = F.practiceWhy(s.daily.practice, s.daily.rankedAt);
  $('leave-race').textContent = dailyAtStake(s) ? 'Leave (uses your try)' : 'Leave';
}

function renderOverlay(s, now) {
  const o = $('overlay');
  const g = myGame(s);
  let big = '',
    small = '';
  const seat = Math.round(s.limits.resume_window_ms / 1000);
  if (s.room && s.conn.taken) small = 'This game continued in another tab. Click here to play in this one.';
  else if (s.room && !s.conn.welcomed) small = `Connection lost. Reconnecting… (your seat is kept for ${seat} s)`;
  else if (s.race.countdown) {
    big = String(s.race.countdown);
    small = s.race.board ? 'Get ready: study the board' : 'Get ready';
  } else if (s.race.results || s.replay.line) small = '';
  else if (g && s.race.board && g.status === 'won') {
    const f = s.race.finished.get(s.me.id);
    big = f ? F.ordinal(f.rank) : '✓';
    small = `Finished in ${g.steps} ${F.unit(s.race.board.game)}${solo(s) ? '' : '. Waiting for the others…'}`;
  } else if (g && g.status === 'out_of_steps') small = 'Out of steps. Waiting for the results…';
  else if (g && s.game.givenUp) small = 'You gave up this run. Waiting for the results…';
  // The start's flash never lingers over a finish.
  const flash = !big && !small && !s.race.results && !(g && g.status !== 'playing') && s.ui.flash && s.timers.flashUntil > now;
  if (flash) big = s.ui.flash;
  o.classList.toggle('flash', !!flash);
  // During the countdown the board shows through.
  o.classList.toggle('study', !!(s.race.countdown && s.race.board));
  o.hidden = !big && !small;
  o.replaceChildren(...[big && el('b', { text: big }), small && el('span', { text: small })].filter(Boolean));
}
