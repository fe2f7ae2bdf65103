// How a vault looks (render.js draws the rest: the floor, the racers, the
// trail, the name tags, and hands over its `pen`): the grid, the walls, the
// start, the plate, the gate (bars when shut, a dashed frame when open), the
// flag; and each racer's ghost, faint and ringed in dashes in their colour.
// Loaded with the screens that draw a board (games/index.js `draw`).

export function board(pen, b, scene) {
  const { ctx, s, at, PALETTE, roundRect, corner } = pen;
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

/** Below the racers: my ghost (not while the optimal line plays), and the others' (a big screen shows every racer's). */
export function under(pen, scene) {
  const { dot, s, mine } = pen;
  const me = scene.me;
  if (me && me.ghost && !scene.marker) {
    dot(me.ghost, s * 0.32, mine, null, 0, 0.4);
    dot(me.ghost, s * 0.32, null, mine, 1.5, 1, [3, 3]);
  }
  for (const o of (scene.others || []).filter((x) => x.ghost)) {
    dot(o.ghost, s * 0.24, o.colour, null, 0, 0.35);
    dot(o.ghost, s * 0.24, null, o.colour, 1.5, 1, [3, 3]);
  }
}

/** The optimal line's ghost, under its marker. */
export function line(pen, marker) {
  if (marker.ghost) pen.dot(marker.ghost, pen.s * 0.3, pen.PALETTE.line, null, 0, 0.4);
}

/** The ghost walks with me: a dashed halo over my marker keeps it visible. */
export function over(pen, me, p) {
  const g = me.ghost;
  if (g && Math.abs(g[0] - p[0]) < 0.5 && Math.abs(g[1] - p[1]) < 0.5) pen.dot(p, pen.s * 0.45, null, pen.mine, 2, 1, [3, 3]);
}
