// Draws the app's icons (public/icons/*.png) from public/icons/icon.svg with
// Debian's Chromium, the one the browser tests use: the manifest's 192 and
// 512 px icons, a maskable 512 (the mark inside the central 80 % a phone's
// mask keeps, on a square of the background) and the 180 px
// apple-touch-icon. Run after changing the SVG:
//   node tools/icons.mjs
import { readFileSync } from 'node:fs';
import { chromium } from 'playwright-core';

const HERE = new URL('../public/icons/', import.meta.url);
const svg = readFileSync(new URL('icon.svg', HERE), 'utf8');
const BG = '#2b3240';

/** `name`.png, `px` square: the SVG at full size, or (`maskable`) scaled into the safe zone on the background. */
const ICONS = [
  ['icon-192', 192, false],
  ['icon-512', 512, false],
  ['maskable-512', 512, true],
  ['apple-touch-icon', 180, true],
];

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox'] });
try {
  const page = await browser.newPage({ deviceScaleFactor: 1 });
  for (const [name, px, maskable] of ICONS) {
    await page.setViewportSize({ width: px, height: px });
    // A full-bleed square (the mask or iOS rounds it) with the mark at 70 %: inside the 80 % safe circle.
    const mark = maskable
      ? `<div style="width:${px}px;height:${px}px;background:${BG};display:grid;place-items:center">${svg.replace('<svg ', `<svg width="${Math.round(px * 0.7)}" height="${Math.round(px * 0.7)}" `)}</div>`
      : svg.replace('<svg ', `<svg width="${px}" height="${px}" `);
    await page.setContent(`<!doctype html><style>*{margin:0}svg{display:block}</style>${mark}`);
    await page.screenshot({
      path: new URL(`${name}.png`, HERE).pathname,
      omitBackground: !maskable,
      clip: { x: 0, y: 0, width: px, height: px },
    });
    console.log(`${name}.png ${px}x${px}`);
  }
} finally {
  await browser.close();
}
