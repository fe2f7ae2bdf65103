// The big screen's race pane (tv.js): the countdown, the board as large as it
// fits with every racer's marker, and the standings column (`standings`, in
// the server's order: racerRows).

import { $, el } from './dom.js';
import { fit, draw } from './render.js';
import { marks } from './rules.js';
import { gameOf } from './games/index.js';
import { racerRows } from './raceboard.js';
import * as F from './format.js';
import { setText, once, dot, fitRows } from './tvkit.js';

let drawQueued = false;

/**
 * The standings column: finishers by the server's rank (with their time),
 * then those still racing nearest the goal first (`progress.left`, as the
 * race board's racer list has it), then the rest (gave up, out of steps, left).
 */
export function standings(s) {
  const rows = racerRows(s);
  const fin = (r) => s.race.finished.get(r.id);
  const order = (r) => (fin(r) ? 0 : r.status === 'racing' ? 1 : 2);
  return rows
    .map((r, i) => ({ r, i }))
    .sort(
      (a, b) =>
        order(a.r) - order(b.r) ||
        (fin(a.r) && fin(b.r) ? fin(a.r).rank - fin(b.r).rank : 0) ||
        (order(a.r) === 1 ? (a.r.left ?? Infinity) - (b.r.left ?? Infinity) : 0) ||
        a.i - b.i,
    )
    .map(({ r }) => {
      const f = fin(r);
      const b = s.race.board;
      const unit = b ? F.unit(b.game) : 'steps';
      // The game's part first (a run's number, where a game has runs).
      let stat = f ? F.clock(f.time_ms) : `${b ? gameOf(b.game).runLabel(r) : ''}${r.steps} ${unit}`;
      if (!f && r.status !== 'racing') stat = F.statusLabel(r.status);
      return { id: r.id, place: f ? F.ordinal(f.rank) : '', name: r.name, colour: r.colour, stat, away: !r.connected };
    });
}

export function renderRace(s) {
  const b = s.race.board;
  const count = $('tv-count-big');
  count.hidden = !s.race.countdown;
  setText('tv-count-big', s.race.countdown ? String(s.race.countdown) : '');
  $('tv-board').setAttribute('aria-label', b ? `The board, ${b.n} by ${b.n}, with every racer's marker` : 'The board');
  const rows = standings(s);
  once('stand', [rows, innerHeight], () =>
    fitRows(
      $('tv-stand'),
      rows.map((x) =>
        el(
          'li',
          { 'data-id': String(x.id), class: x.place ? 'done' : null },
          el('span', { class: 'pl', text: x.place }),
          dot(x.colour),
          el('span', { class: 'nm', text: x.name, title: x.name }),
          el('span', { class: 'st', text: x.away ? `offline · ${x.stat}` : x.stat }),
        ),
      ),
      (n) => el('li', { class: 'muted', text: `and ${n} more racing` }),
    ),
  );
  if (!drawQueued) {
    drawQueued = true;
    requestAnimationFrame(() => drawBoard(s));
  }
}

/** The board as large as the pane allows beside the standings column, every racer on it in their colour. */
function drawBoard(s) {
  drawQueued = false;
  const b = s.race.board;
  if (!b || s.view !== 'tv' || $('tv-race').hidden) return;
  const stage = $('tv-stage');
  const canvas = $('tv-board');
  const layout = fit(canvas, b.n, stage.clientWidth, stage.clientHeight);
  const rows = racerRows(s);
  const others = rows
    .filter((r) => r.pos && (r.status === 'racing' || r.status === 'out_of_steps'))
    // What the game shows of each racer too, where the server says it stands (`progress`: a racer's ghost in run two).
    .map((r) => ({ pos: r.pos, colour: r.colour, name: r.name, ...marks(s.others.progress.get(r.id) || {}, b) }));
  s.others.markers = others;
  const fs = parseFloat(getComputedStyle($('tv')).fontSize) || 24;
  // Names on the board at the screen's size while they can be told apart; a crowd reads from the column.
  draw(canvas, layout, { board: b, me: null, others, tagPx: others.length <= 12 ? fs : 0 });
}
