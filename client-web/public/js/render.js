// Draws a board on a canvas, crisp at any devicePixelRatio: the backing store
// is the CSS size times the ratio (see `fit`). The Okabe-Ito palette stays
// distinct for colour-blind players, and every landmark also has a shape and
// a letter: nothing is told by colour alone.

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
/**
 * Racers' colours, by the index the server gives each racer (`room.players[].colour`):
 * the same racer is the same colour on every screen. Okabe-Ito first, the most distinct;
 * past eight they repeat, the names telling them apart.
 */
export const RACER_COLOURS = ['#0072B2', '#E69F00', '#CC79A7', '#009E73', '#D55E00', '#56B4E9', '#8c6bb1', '#b8860b'];

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
 * scene: {board, me: {pos (fractional while moving), ghost?, gateOpen, colour?}, visited?, others? ([{pos, colour, name, ghost?}]), trail?, marker? (the optimal line), tagPx?}.
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
  if (b.game === 'ghost') drawVault(ctx, b, s, at, scene);
  else drawMaze(ctx, b, s, at);

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

  const dot = (p, r, fill, stroke, lw, alpha = 1, dash = []) => {
    const [x, y] = at(p);
    ctx.globalAlpha = alpha;
    disc(ctx, x + s / 2, y + s / 2, r, fill, stroke, lw, dash);
    ctx.globalAlpha = 1;
  };
  const mine = (scene.me && scene.me.colour) || PALETTE.you;
  if (scene.me && scene.me.ghost) {
    dot(scene.me.ghost, s * 0.32, mine, null, 0, 0.4);
    dot(scene.me.ghost, s * 0.32, null, mine, 1.5, 1, [3, 3]);
  }

  // Other racers first, fanned out when they share a cell (with me too), so mine goes on top.
  const others = scene.others || [];
  // Others' ghosts (a big screen shows every racer's): faint, ringed, in their colour.
  for (const o of others.filter((x) => x.ghost)) {
    dot(o.ghost, s * 0.24, o.colour, null, 0, 0.35);
    dot(o.ghost, s * 0.24, null, o.colour, 1.5, 1, [3, 3]);
  }
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
    if (scene.marker.ghost) dot(scene.marker.ghost, s * 0.3, PALETTE.line, null, 0, 0.4);
    dot(scene.marker.pos, s * 0.3, PALETTE.line, '#ffffff', 2);
  } else if (scene.me) {
    const p = scene.me.pos;
    // Mine: an ink ring around a white one around my colour, over everyone.
    dot(p, Math.max(4, s * 0.38), PALETTE.wall, null, 0);
    dot(p, Math.max(3, s * 0.34), mine, '#ffffff', Math.max(1.5, s * 0.06));
    const g = scene.me.ghost;
    // The ghost walks with me: a dashed halo keeps it visible.
    if (g && Math.abs(g[0] - p[0]) < 0.5 && Math.abs(g[1] - p[1]) < 0.5) dot(p, s * 0.45, null, mine, 2, 1, [3, 3]);
  }

  // Name tags last, over every marker, never cut off by the board's edges; `tagPx` (a big screen's size, 0: none) overrides.
  const size = scene.tagPx ?? Math.max(9, Math.min(12, s * 0.3));
  if (size) for (const [name, x, y, colour] of tags) label(ctx, name, x + s / 2, y, s, size, colour, css);
}

function drawVault(ctx, b, s, at, scene) {
  const lines = (segs, colour, lw) => {
    ctx.strokeStyle = colour;
    ctx.lineWidth = lw;
    ctx.beginPath();
    for (const [x1, y1, x2, y2] of segs) (ctx.moveTo(x1, y1), ctx.lineTo(x2, y2));
    ctx.stroke();
  };
  for (let i = 1; i < b.n; i++)
    lines(
      [
        [i * s + 0.5, 0, i * s + 0.5, b.n * s],
        [0, i * s + 0.5, b.n * s, i * s + 0.5],
      ],
      PALETTE.grid,
      1,
    );
  const pad = Math.max(1, Math.round(s * 0.04));
  // A cell's square inset by `k` of a side, outlined.
  const frame = (k, colour, lw) => {
    ctx.strokeStyle = colour;
    ctx.lineWidth = lw;
    ctx.strokeRect(x + s * k, y + s * k, s * (1 - 2 * k), s * (1 - 2 * k));
  };
  const tint = (fill) => ((ctx.fillStyle = fill), ctx.fillRect(x + pad, y + pad, s - 2 * pad, s - 2 * pad));
  for (let r = 0; r < b.n; r++) {
    for (let c = 0; c < b.n; c++) {
      if (b.wall([r, c])) roundRect(ctx, c * s + pad, r * s + pad, s - 2 * pad, s - 2 * pad, s * 0.12, PALETTE.wall);
    }
  }
  let [x, y] = at(b.start);
  tint('rgba(0,158,115,0.18)');
  frame(0.08, PALETTE.start, Math.max(2, s * 0.05));
  corner(ctx, 'S', x, y, s, PALETTE.start, 0.5);
  [x, y] = at(b.plate);
  roundRect(ctx, x + s * 0.14, y + s * 0.14, s * 0.72, s * 0.72, s * 0.08, PALETTE.plate);
  frame(0.14, '#6b5d00', Math.max(1.5, s * 0.04));
  corner(ctx, 'P', x, y, s, '#6b5d00', 0.55);
  // Bars when shut, a dashed frame when open.
  [x, y] = at(b.gate);
  const open = scene.me && scene.me.gateOpen;
  const [lo, hi] = [x + s * 0.12, x + s * 0.88];
  if (open) {
    ctx.setLineDash([s * 0.12, s * 0.1]);
    frame(0.12, PALETTE.gate, Math.max(2, s * 0.07));
    ctx.setLineDash([]);
  } else {
    tint('rgba(230,159,0,0.18)');
    const bars = [1, 2, 3].map((i) => [x + (s * i) / 4, y + s * 0.12, x + (s * i) / 4, y + s * 0.88]);
    lines([...bars, [lo, y + s * 0.12, hi, y + s * 0.12], [lo, y + s * 0.88, hi, y + s * 0.88]], PALETTE.gate, Math.max(2, s * 0.07));
  }
  corner(ctx, 'G', x, y, s, '#8a5a00', open ? 0.8 : 0.55);
  [x, y] = at(b.flag);
  lines([[x + s * 0.32, y + s * 0.16, x + s * 0.32, y + s * 0.86]], PALETTE.wall, Math.max(1.5, s * 0.05));
  ctx.fillStyle = PALETTE.exit;
  ctx.beginPath();
  ctx.moveTo(x + s * 0.34, y + s * 0.16);
  ctx.lineTo(x + s * 0.8, y + s * 0.32);
  ctx.lineTo(x + s * 0.34, y + s * 0.48);
  ctx.fill();
}

function drawMaze(ctx, b, s, at) {
  const pad = Math.max(1, Math.round(s * 0.1));
  for (const [pos, colour, letter] of [
    [b.start, PALETTE.start, 'S'],
    [b.exit, PALETTE.exit, 'E'],
  ]) {
    const [x, y] = at(pos);
    ctx.fillStyle = colour;
    ctx.fillRect(x + pad, y + pad, s - 2 * pad, s - 2 * pad);
    if (s >= 16) corner(ctx, letter, x, y, s, '#ffffff');
  }
  // Every closed side once: up and left of each cell, plus the outer edge.
  const w = Math.max(2, Math.round(s * 0.1));
  ctx.fillStyle = PALETTE.wall;
  const n = b.n;
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < n; c++) {
      const bits = b.bits[r][c];
      if (!(bits & 1)) ctx.fillRect(c * s - w / 2, r * s - w / 2, s + w, w);
      if (!(bits & 8)) ctx.fillRect(c * s - w / 2, r * s - w / 2, w, s + w);
    }
  }
  ctx.fillRect(n * s - w / 2, 0, w, n * s);
  ctx.fillRect(0, n * s - w / 2, n * s, w);
  ctx.fillRect(0, 0, w / 2, n * s);
  ctx.fillRect(0, 0, n * s, w / 2);
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
