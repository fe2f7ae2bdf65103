// How a maze looks (render.js draws the rest: the floor and the cells
// visited, the racers, the trail, the name tags, and hands over its `pen`):
// the start and the exit, lettered, and every closed side once. Loaded with
// the screens that draw a board (games/index.js `draw`).

export function board(pen, b) {
  const { ctx, s, at, PALETTE, corner } = pen;
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
