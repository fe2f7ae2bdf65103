// Draws a board on a canvas, crisp at any devicePixelRatio: the backing store
// is the CSS size times the ratio (see `fit`). The Okabe-Ito palette stays
// distinct for colour-blind players, and every landmark also has a shape and
// a letter: nothing is told by colour alone. What a board looks like is its
// game's (js/games/NAME/draw.js, every game's loaded before this module is
// ready); here are the frame, the racers, the trail and the name tags. A
// game's draw.js exports board(pen, b, scene) and, for layers of its own,
// any of under(pen, scene) (below the racers), line(pen, marker) (below the
// optimal line's marker), over(pen, me, p) (over my marker); `pen` is
// {ctx, s (a cell's side), at (a cell's corner), dot, mine, PALETTE, disc,
// roundRect, corner}.

import { load } from './games/index.js';

const DRAW = await load('draw');

export const PALETTE = {
  you: '#0072B2',
  start: '#009E73',
  exit: '#D55E00',
  plate: '#F0E442',
  gate: '#E69F00',
  wall: '#2b3240',
  floor: '#ffffff',
  grid: '#e4e7ec',
  visited: '#cfe4f5',
  line: '#CC79A7', // reddish purple: the revealed optimal line
};
// Kept beside the palette for whoever draws: the state owns them (colourOf).
export { RACER_COLOURS } from './state.js';

const motion = globalThis.matchMedia && matchMedia('(prefers-reduced-motion: reduce)');
/** Under reduced motion nothing glides or plays by itself. */
export const still = () => !!motion && motion.matches;

/** `from` gliding to `to` since `t` over `ms`, or null once there. */
export function glideAt(from, to, t, ms) {
  const k = (performance.now() - t) / ms;
  return k < 1 ? to.map((v, i) => from[i] + (v - from[i]) * k) : null;
}

/**
 * The board's size: the backing store is the CSS size times the device
 * pixel ratio, and every cell a whole number of DEVICE pixels (crisp at any
 * ratio), so a 23x23 maze fills a 390-pixel phone (16.7 CSS px a cell at a
 * ratio of 3) instead of stopping at the last whole CSS pixel.
 */
export function fit(canvas, n, maxW, maxH) {
  const dpr = Math.max(1, Math.min(4, globalThis.devicePixelRatio || 1));
  const avail = Math.max(120, Math.min(maxW, maxH || Infinity));
  const cell = Math.max(4 * dpr, Math.floor((avail * dpr) / n)) / dpr;
  const css = cell * n;
  // Compared as set (a style reads back rounded): a resize clears the canvas.
  if (canvas.width !== Math.round(css * dpr) || canvas.dataset.css !== String(css)) {
    canvas.dataset.css = String(css);
    canvas.style.width = canvas.style.height = css + 'px';
    canvas.width = canvas.height = Math.round(css * dpr);
  }
  return { dpr, cell, css, n };
}

export function cellAt(canvas, layout, clientX, clientY) {
  const r = canvas.getBoundingClientRect();
  const row = Math.floor(((clientY - r.top) / r.height) * layout.n);
  const col = Math.floor(((clientX - r.left) / r.width) * layout.n);
  return row >= 0 && col >= 0 && row < layout.n && col < layout.n ? [row, col] : null;
}

/**
 * scene: {board, me: {pos (fractional while moving), colour?, ...the game's marks}, visited?, others? ([{pos, colour, name, ...marks}]),
 * trail?, marker? (the optimal line: {pos, ...marks}), tagPx?}. A racer's marks (rules.js `marks`) are for the game's drawing.
 * My marker is in my room colour (blue by default, alone) and is told from the others by its shape, not
 * its colour: larger, ringed in ink, drawn over everyone else's so it is never hidden at the start.
 */
export function draw(canvas, layout, scene) {
  const { dpr, cell: s, css } = layout;
  const ctx = canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, css, css);
  const b = scene.board;
  const at = (p) => [p[1] * s, p[0] * s];
  ctx.fillStyle = PALETTE.floor;
  ctx.fillRect(0, 0, css, css);

  if (scene.visited) {
    ctx.fillStyle = PALETTE.visited;
    for (const key of scene.visited) {
      const [r, c] = key.split(',').map(Number);
      ctx.fillRect(c * s, r * s, s, s);
    }
  }
  const dot = (p, r, fill, stroke, lw, alpha = 1, dash = []) => {
    const [x, y] = at(p);
    ctx.globalAlpha = alpha;
    disc(ctx, x + s / 2, y + s / 2, r, fill, stroke, lw, dash);
    ctx.globalAlpha = 1;
  };
  const mine = (scene.me && scene.me.colour) || PALETTE.you;
  // The game's own drawing (js/games/NAME/draw.js): its walls and landmarks, and its layers below.
  const game = DRAW.get(b.game);
  const pen = { ctx, s, at, dot, mine, PALETTE, disc, roundRect, corner };
  game.board(pen, b, scene);

  if (scene.trail && scene.trail.length > 1) {
    ctx.strokeStyle = PALETTE.line;
    ctx.lineWidth = Math.max(2, s * 0.12);
    ctx.lineJoin = ctx.lineCap = 'round';
    ctx.beginPath();
    scene.trail.forEach((p, i) => {
      const [x, y] = at(p);
      ctx[i ? 'lineTo' : 'moveTo'](x + s / 2, y + s / 2);
    });
    ctx.stroke();
  }

  // Below every racer: what the game draws of them besides their place.
  if (game.under) game.under(pen, scene);

  // Other racers first, fanned out when they share a cell (with me too), so mine goes on top.
  const others = scene.others || [];
  const shared = new Map();
  // My own cell is taken: a racer with me is drawn beside me.
  if (scene.me && !scene.marker) shared.set(scene.me.pos.map(Math.round).join(','), 1);
  const crowd = new Map(); // cell -> racers there
  for (const o of others) {
    const k = o.pos.join(',');
    crowd.set(k, [...(crowd.get(k) || []), o]);
  }
  const tags = [];
  for (const [k, group] of crowd) {
    const base = shared.get(k) || 0;
    const [x, y] = at(group[0].pos);
    group.forEach((o, j) => {
      const i = base + j;
      // Around the cell's centre, a ring per eight: a crowd at the start stays countable.
      const ring = Math.floor(i / 8);
      const off = i ? s * (0.3 + 0.12 * ring) : 0;
      const cx = x + s / 2 + Math.cos(i * 0.785 + ring * 0.39) * off,
        cy = y + s / 2 + Math.sin(i * 0.785 + ring * 0.39) * off;
      ctx.globalAlpha = 0.85;
      disc(ctx, cx, cy, Math.max(3, s * 0.2), o.colour, '#ffffff', 1.5);
      ctx.globalAlpha = 1;
    });
    const first = Array.from(group[0].name); // whole code points: never split an emoji
    const short = first.length > 12 ? first.slice(0, 11).join('') + '…' : group[0].name;
    // First-strong isolates keep a right-to-left name from swallowing the "+2".
    const name = `\u2068${short}\u2069` + (group.length > 1 ? ` +${group.length - 1}` : '');
    if (s >= 14 && group[0].name) tags.push([name, x, y, group[0].colour]);
  }

  if (scene.marker) {
    if (game.line) game.line(pen, scene.marker);
    dot(scene.marker.pos, s * 0.3, PALETTE.line, '#ffffff', 2);
  } else if (scene.me) {
    const p = scene.me.pos;
    // Mine: an ink ring around a white one around my colour, over everyone.
    dot(p, Math.max(4, s * 0.38), PALETTE.wall, null, 0);
    dot(p, Math.max(3, s * 0.34), mine, '#ffffff', Math.max(1.5, s * 0.06));
    if (game.over) game.over(pen, scene.me, p);
  }

  // Name tags last, over every marker, never cut off by the board's edges; `tagPx` (a big screen's size, 0: none) overrides.
  const size = scene.tagPx ?? Math.max(9, Math.min(12, s * 0.3));
  if (size) for (const [name, x, y, colour] of tags) label(ctx, name, x + s / 2, y, s, size, colour, css);
}

function disc(ctx, x, y, r, fill, stroke, lw = 2, dash = []) {
  ctx.beginPath();
  ctx.arc(x, y, r, 0, Math.PI * 2);
  if (fill) {
    ctx.fillStyle = fill;
    ctx.fill();
  }
  if (stroke) {
    ctx.setLineDash(dash);
    ctx.strokeStyle = stroke;
    ctx.lineWidth = lw;
    ctx.stroke();
    ctx.setLineDash([]);
  }
}

function roundRect(ctx, x, y, w, h, r, fill) {
  ctx.beginPath();
  if (ctx.roundRect) ctx.roundRect(x, y, w, h, r);
  else ctx.rect(x, y, w, h);
  ctx.fillStyle = fill;
  ctx.fill();
}

/** The landmark's letter: it reads without colour. */
function corner(ctx, text, x, y, s, colour, alpha = 1) {
  ctx.font = `700 ${Math.round(s * 0.5)}px system-ui, sans-serif`;
  ctx.fillStyle = colour;
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  ctx.globalAlpha = alpha;
  ctx.fillText(text, x + s / 2, y + s / 2 + 1);
  ctx.globalAlpha = 1;
}

/** A name tag over the cell at `top` (of size `s`), or under it on the top row, where above would be cut off. */
function label(ctx, text, x, top, s, size, colour, width) {
  ctx.font = `600 ${Math.round(size)}px system-ui, sans-serif`;
  const half = ctx.measureText(text).width / 2 + 2;
  x = Math.max(half, Math.min(width - half, x)); // never cut off at the side
  const above = top + s * 0.2 - size >= 0;
  ctx.textAlign = 'center';
  ctx.textBaseline = above ? 'bottom' : 'top';
  const y = above ? top + s * 0.2 : Math.min(top + s * 0.8, width - size - 1);
  ctx.lineWidth = 3;
  ctx.strokeStyle = 'rgba(255,255,255,0.9)';
  // Canvas text is never parsed as HTML: a name with markup draws as typed.
  ctx.strokeText(text, x, y);
  ctx.fillStyle = colour === PALETTE.plate ? '#6b5d00' : shade(colour);
  ctx.fillText(text, x, y);
}

const shade = (hex) => {
  const v = parseInt(hex.slice(1), 16);
  const f = (k) => Math.round(((v >> k) & 255) * 0.7);
  return `rgb(${f(16)},${f(8)},${f(0)})`;
};
