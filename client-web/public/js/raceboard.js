// The race board and the racer list: every racer from the start, with a
// progress bar. Finishers leave the board so the goal stays in sight; the
// results' optimal line is drawn from replay.js's frames.

import { $, el, badge } from './dom.js';
import { fit, draw, PALETTE, still, glideAt } from './render.js';
import { distancesToGoal, marks } from './rules.js';
import { trailAt } from './replay.js';
import { racers, watching, colourOf, nameOf } from './state.js';
import { gameOf } from './games/index.js';
import * as F from './format.js';
import { mark } from './rival.js';

let layout = null; // as last drawn (for taps)
let queued = false;
let S = null;
let distCache = { board: null, dist: null };

export const boardLayout = () => layout;

export function initBoard(state) {
  S = state;
  addEventListener('resize', requestDraw);
  if (globalThis.ResizeObserver) new ResizeObserver(requestDraw).observe($('stage'));
}

export function requestDraw() {
  if (queued) return;
  queued = true;
  requestAnimationFrame(drawNow);
}

function stepsLeft(board, pos) {
  if (distCache.board !== board) distCache = { board, dist: distancesToGoal(board) };
  const d = distCache.dist[pos[0] * board.n + pos[1]];
  return d >= 0 ? d : null;
}

export function racerRows(s) {
  const b = s.race.board;
  const here = racers(s);
  const gone = [...s.race.gone.values()].filter((g) => !here.some((p) => p.id === g.id));
  return [...here, ...gone].map((p) => {
    const mine = p.id === s.me.id;
    const pr = s.others.progress.get(p.id);
    const g = mine && s.game.pred ? s.game.pred.game : null;
    const pos = g ? g.pos : pr ? pr.pos : b ? b.start : null;
    let status = g ? (g.status === 'won' ? 'finished' : g.status === 'playing' ? 'racing' : g.status) : pr ? pr.status : 'racing';
    if (mine && s.game.givenUp && status === 'racing') status = 'gave_up';
    if (s.race.finished.has(p.id)) status = 'finished';
    else if (s.race.gone.has(p.id)) status = 'left';
    const left = status === 'finished' ? 0 : pr && Number.isFinite(pr.left) && !g ? pr.left : b && pos ? stepsLeft(b, pos) : null;
    return {
      id: p.id,
      name: p.name,
      connected: p.connected,
      me: mine,
      pos,
      status,
      left,
      rival: p.rival,
      steps: g ? g.steps : pr ? pr.steps : 0,
      run: g ? g.run : pr && pr.run,
      colour: colourOf(s, p.id, mine ? PALETTE.you : undefined),
    };
  });
}

export function renderRacers(s) {
  if (!s.room) return;
  const b = s.race.board;
  const unit = b && F.unit(b.game);
  const full = b ? stepsLeft(b, b.start) || 1 : 1;
  const rows = racerRows(s).map((r) => {
    const fin = s.race.finished.get(r.id);
    // The game's part first (a run's number, where a game has runs).
    let stat = b ? `${gameOf(b.game).runLabel(r)}${r.steps} ${unit}` : '';
    if (fin) stat = `${F.ordinal(fin.rank)} · ${F.clock(fin.time_ms)}`;
    else if (r.status !== 'racing') stat = `${F.statusLabel(r.status)} · ${stat}`;
    if (!r.connected) stat = `offline · ${stat}`;
    const done = r.left == null ? 0 : Math.max(0, Math.min(1, 1 - r.left / full));
    const pct = Math.round(done * 100);
    const far = r.left == null ? 'distance unknown' : r.left === 0 ? 'at the goal' : `${r.left} ${unit} from the goal`;
    return el(
      'li',
      { class: r.me ? 'me' : '', 'data-id': String(r.id) },
      el('span', { class: 'dot', style: `background:${r.colour}`, 'aria-hidden': 'true' }),
      el('span', { class: 'who' }, el('span', { class: 'name', text: r.name, title: r.name }), r.me ? badge('you') : mark(r)),
      el('span', { class: 'stat', text: stat }),
      b &&
        el(
          'span',
          {
            class: 'bar',
            role: 'meter',
            'aria-valuemin': '0',
            'aria-valuemax': '100',
            'aria-valuenow': String(pct),
            'aria-label': `${r.name}: ${far}`,
          },
          el('i', { style: `width:${pct}%;background:${r.colour}` }),
        ),
    );
  });
  const watchers = watching(s.room);
  if (watchers) rows.push(el('li', {}, el('span'), el('span', { class: 'muted', text: `${watchers} watching` })));
  $('racers').replaceChildren(...rows);
}

function drawNow() {
  queued = false;
  const s = S;
  if (s.view !== 'play') return;
  const canvas = $('board');
  const stage = $('stage');
  const padOn = !!(s.game.pred && !s.race.results && $('pad').offsetParent);
  const land = innerWidth > innerHeight && innerHeight < 560;
  // Room for the header, HUD, hint and buttons (or pad; beside the board in a phone's landscape).
  const maxH = Math.max(200, innerHeight - (land ? 70 : 120 + (padOn ? 200 : 80)));
  const maxW = stage.parentElement.clientWidth;
  const b = s.race.board;
  if (!b) {
    const l = fit(canvas, 10, maxW, maxH);
    const ctx = canvas.getContext('2d');
    ctx.setTransform(l.dpr, 0, 0, l.dpr, 0, 0);
    ctx.fillStyle = '#e6e9ef';
    ctx.fillRect(0, 0, l.css, l.css);
    return;
  }
  layout = fit(canvas, b.n, maxW, maxH);
  let me;
  const g = s.game.pred && s.game.pred.game;
  if (g) {
    const a = s.game.anim;
    const pos = a && !still() && glideAt(a.from, g.pos, a.t, 90);
    if (pos) requestDraw();
    me = { pos: pos || g.pos, ...marks(g, b), colour: colourOf(s, s.me.id, PALETTE.you) };
  }
  // Everyone racing (during the countdown, at the start); a finisher leaves the board.
  const others = racerRows(s)
    .filter((r) => !r.me && r.pos && (r.status === 'racing' || r.status === 'out_of_steps'))
    .map((r) => ({ pos: r.pos, colour: r.colour, name: nameOf(s, r.id) }));
  s.others.markers = others;
  const line = s.replay.line;
  const f = line && line.frames[line.pb.i];
  // On the optimal line, its frame (replay.js: a place and the game's marks) is the marker and sets the board (a gate).
  draw(canvas, layout, {
    board: b,
    me: f || me || null,
    visited: gameOf(b.game).visited && !f ? s.game.visited : null,
    others: f ? [] : others,
    trail: f ? trailAt(line.frames, line.pb.i) : null,
    marker: f || null,
  });
}
