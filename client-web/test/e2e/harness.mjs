// Shared by the browser tests: the real server on 127.0.0.1:0 with a fresh
// data directory, Debian's Chromium through playwright-core, and waits on real
// events (WebSocket frames, selectors), never on fixed sleeps.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { before, after } from 'node:test';
import { chromium } from 'playwright-core';
import { route } from '../route.mjs';

const HERE = new URL('.', import.meta.url).pathname;
const REPO = resolve(HERE, '../../..');
export const SHOTS = resolve(REPO, 'test-output/screenshots');

export const LAPTOP = { viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 };
export const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true };
/** A big screen (tv.js): a TV at 1920x1080; TV_SIZES also a 720p TV and a 4:3 projector. */
export const TV_SIZES = [
  { width: 1920, height: 1080 },
  { width: 1280, height: 720 },
  { width: 1024, height: 768 },
];
export const TV = { viewport: TV_SIZES[0], deviceScaleFactor: 1 };

/**
 * Starts `mazerace serve` (on `port`, or a free one); resolves to {url, stop}.
 * Builds the binary when it is missing.
 */
export async function startServer({ port = 0, args = [] } = {}) {
  const bin = process.env.MAZERACE_BIN || resolve(REPO, 'target/debug/mazerace');
  if (!existsSync(bin)) {
    const b = spawnSync('cargo', ['build', '-p', 'mazerace-server'], { cwd: REPO, stdio: 'inherit' });
    if (b.status !== 0) throw new Error('cargo build -p mazerace-server failed');
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'mazerace-e2e-'));
  const proc = spawn(bin, ['serve', '--bind', `127.0.0.1:${port}`, '--data-dir', dataDir, '--metrics-bind', '', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, RUST_LOG: process.env.RUST_LOG || 'warn' },
  });
  let stderr = '';
  proc.stderr.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
  const lines = createInterface({ input: proc.stdout });
  const url = await new Promise((ok, fail) => {
    proc.once('exit', (code) => fail(new Error(`server exited (${code}) before listening:\n${stderr}`)));
    lines.once('line', (line) => {
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(line);
      if (m) ok(m[1]);
      else fail(new Error(`unexpected first line from the server: ${line}`));
    });
  });
  lines.on('line', () => {}); // keep draining stdout
  return {
    url,
    dataDir,
    stop: async () => {
      if (proc.exitCode == null) {
        const gone = new Promise((r) => proc.once('exit', r));
        proc.kill('SIGTERM');
        await gone;
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function launch() {
  const executablePath = process.env.CHROMIUM || '/usr/bin/chromium';
  if (!existsSync(executablePath)) {
    throw new Error(`${executablePath} is missing: apt-get install -y chromium (./test.sh does it)`);
  }
  // playwright-core gives every launch a fresh temporary user-data-dir.
  return chromium.launch({
    executablePath,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * A page that records every WebSocket frame it receives, fails the test on a
 * page error or a dialog (an alert() from injected markup would be one), and
 * can wait for a frame matching a predicate.
 */
export async function openPage(browser, device, url) {
  const context = await browser.newContext(device);
  await watchSockets(context);
  return recordPage(context, url);
}

/** Every page of `context` keeps a handle on its sockets and records the live region. */
async function watchSockets(context) {
  // Keep a handle on the page's sockets so a test can cut one like a network drop would.
  await context.addInitScript(() => {
    const Native = window.WebSocket;
    window.__sockets = [];
    window.WebSocket = class extends Native {
      constructor(...args) {
        super(...args);
        window.__sockets.push(this);
      }
    };
    // Everything the ARIA live region said, in order.
    window.__announced = [];
    document.addEventListener('DOMContentLoaded', () => {
      const live = document.getElementById('announce');
      if (live) {
        new MutationObserver(() => window.__announced.push(live.textContent.trim())).observe(live, {
          childList: true,
          characterData: true,
          subtree: true,
        });
      }
    });
  });
}

/**
 * A new tab in `context` (opened on `url`), recording its frames as
 * openPage's do: with the context's storage, the way a player closes a tab
 * and opens the game again.
 */
export async function recordPage(context, url) {
  const page = await context.newPage();
  const frames = [];
  const waiters = [];
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message} ${(e.stack || '').split('\n').slice(1, 3).join(' ')}`));
  page.on('console', (m) => m.type() === 'error' && !/favicon|404/.test(m.text()) && problems.push(`console: ${m.text()}`));
  page.on('dialog', (d) => {
    problems.push(`dialog opened: ${d.message()}`);
    d.dismiss().catch(() => {});
  });
  const sent = [];
  page.on('websocket', (ws) => {
    ws.on('framesent', (f) => {
      try {
        sent.push(JSON.parse(f.payload));
      } catch {
        // not a message of ours
      }
    });
    ws.on('framereceived', (f) => {
      let msg;
      try {
        msg = JSON.parse(f.payload);
      } catch {
        return;
      }
      frames.push(msg);
      for (const w of [...waiters]) {
        if (w.pred(msg)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.ok(msg);
        }
      }
    });
  });
  if (url) await page.goto(url);
  return {
    context,
    page,
    frames,
    /** The messages the page sent, in order. */
    sent,
    problems,
    /** The next frame (after `from`, an index into frames) that matches. */
    frame(pred, { from = 0, timeout = 15000, what = 'frame' } = {}) {
      const seen = frames.slice(from).find(pred);
      if (seen) return Promise.resolve(seen);
      return new Promise((ok, fail) => {
        const w = { pred, ok };
        waiters.push(w);
        setTimeout(() => {
          const i = waiters.indexOf(w);
          if (i >= 0) {
            waiters.splice(i, 1);
            fail(new Error(`timed out waiting for ${what}; last frames: ${JSON.stringify(frames.slice(-5))}`));
          }
        }, timeout);
      });
    },
  };
}

export async function screenshot(page, name, { racing = false } = {}) {
  // Mid-race shots wait for the "Go!" flash to go, so they show the board as played.
  if (racing) await page.waitForSelector('#overlay', { state: 'hidden' });
  mkdirSync(SHOTS, { recursive: true });
  const path = join(SHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: false });
  return path;
}

/**
 * Waits for race_start on every page (after each one's index in `froms`) and, on the pages in `ready`
 * (all of them unless said: a TV has no game), the game ready to move; the board.
 */
export async function raceStarts(pages, froms, { ready = pages } = {}) {
  const starts = await Promise.all(
    pages.map((p, i) => p.frame((m) => m.type === 'race_start', { from: froms[i], timeout: 30000, what: 'race_start' })),
  );
  await Promise.all(ready.map((p) => p.page.waitForFunction(() => window.__mazerace.game && window.__mazerace.game.steps === 0)));
  return starts[0].board;
}

/** Presses the keys for `actions`, waiting for the server's answer to each. */
export async function play(p, actions, { until = actions.length, from } = {}) {
  const { page } = p;
  for (let i = 0; i < until; i++) {
    const a = actions[i];
    const start = p.frames.length;
    if (a === 'rewind') {
      await page.focus('#rewind');
      await page.keyboard.press('Enter');
    } else {
      await page.keyboard.press({ up: 'ArrowUp', down: 'ArrowDown', left: 'ArrowLeft', right: 'ArrowRight' }[a]);
    }
    const type = a === 'rewind' ? 'rewind_result' : 'move_result';
    const r = await p.frame((m) => m.type === type, { from: start, what: `${type} for action ${i} (${a})` });
    if (!r.ok) throw new Error(`the server refused action ${i} (${a}): ${JSON.stringify(r)}`);
  }
  return from;
}

const BACK = { up: 'down', down: 'up', left: 'right', right: 'left' };

/**
 * Plays today's easy maze from the home panel: the shortest route, or with
 * `detour` one step there and back first. Resolves to its `daily_result`.
 */
export async function playDailyMaze(p, { detour = false } = {}) {
  const from = p.frames.length;
  await p.page.click(`button[aria-label="Play today's Maze Escape · Easy 11×11"]`);
  const rs = await p.frame((m) => m.type === 'race_start', { from, what: 'race_start' });
  await p.page.waitForFunction(() => window.__mazerace.game && window.__mazerace.game.steps === 0);
  const line = route(rs.board);
  await play(p, detour ? [line[0], BACK[line[0]], ...line] : line);
  return p.frame((m) => m.type === 'daily_result', { from, what: 'daily_result' });
}

/**
 * One real server and one browser for a whole test file: registers the
 * file's `before`/`after` hooks and hands both to `use` once they are up.
 */
export function serverAndBrowser(use) {
  let srv, browser;
  before(async () => {
    srv = await startServer();
    browser = await launch();
    use(srv, browser);
  });
  after(async () => {
    await browser?.close();
    await srv?.stop();
    console.log(`screenshots: ${SHOTS}`);
  });
}

const AXE = resolve(HERE, '../../node_modules/axe-core/axe.min.js');

/**
 * axe-core's WCAG 2.x A/AA rules, best practices and its experimental rules
 * (label-content-name-mismatch is one) on the page as it is now; resolves
 * to the violations (id, help, the first nodes' selectors).
 */
export async function axe(page) {
  if (!(await page.evaluate(() => !!window.axe))) await page.addScriptTag({ path: AXE });
  const tags = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice', 'experimental'];
  const r = await page.evaluate(
    (values) => window.axe.run(document, { runOnly: { type: 'tag', values }, resultTypes: ['violations'] }),
    tags,
  );
  return r.violations.map((v) => ({ id: v.id, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
}
