// Screen: the room on a big screen (a TV or projector; the phones are the
// controllers). Loaded only on a page that is a screen (app.js): home's
// "Host on a TV or projector" (a party room) or a lobby's "Show on a big
// screen" (`/tv/CODE?k=KEY`). It owns the screen's view, laid out for
// 1920x1080, 1280x720 and 1024x768 with no scrolling and no text under 24 px
// (tv.css): the lobby (code, link, QR, settings, who is in and ready, what
// comes next), the countdown and the race (the board as large as it fits,
// every racer's marker, a standings column, the clock), the results, the
// intermission, the match table and the podium, and a room that closed.
// It shows what the server sent (racerRows, matchtable.js) and computes no
// rank, score or time; a list that does not fit ends in "and N more".

import { $, el, badge, tags, siteUrl } from './dom.js';
import { fit, draw } from './render.js';
import { racers, colourOf, nameOf, elapsed } from './state.js';
import { marks } from './rules.js';
import { gameOf, PARTY } from './games/index.js';
import { racerRows } from './raceboard.js';
import { standingsOf, matchOf, roundLabel, winnersWords } from './matches.js';
import { tableRows, podium } from './matchtable.js';
import { beScreen } from './actions.js';
import { unlock, audible, tone } from './audio.js';
import * as F from './format.js';

let ctx = null;
let drawQueued = false;
/** What each part was last built from: an unchanged part is not rebuilt (nor measured again). */
const built = {};

const PANES = ['tv-lobby', 'tv-race', 'tv-after', 'tv-closed', 'tv-wait'];

export function init(c) {
  ctx = c;
  const { s, fx } = c;
  // Its own stylesheet (home's stays small: README, "Size"); laid out and measured once it is here.
  const css = el('link', { rel: 'stylesheet', href: '/tv.css' });
  const styled = new Promise((ok) => (css.onload = css.onerror = ok));
  document.head.append(css);
  const list = (id, label) => el('ol', { id, class: 'tv-list', 'aria-label': label });
  $('tv').replaceChildren(
    el(
      'div',
      { class: 'tv-bar' },
      el('h1', { id: 'tv-h', tabindex: '-1' }),
      el('p', { id: 'tv-tags', class: 'tags' }),
      el('p', { id: 'tv-clock', class: 'tv-clock', role: 'timer', 'aria-label': 'Race clock' }),
    ),
    el('p', { id: 'tv-conn', class: 'tv-conn', role: 'status' }),
    el(
      'div',
      { id: 'tv-lobby', class: 'tv-pane tv-lobby', hidden: true },
      el(
        'div',
        { class: 'tv-join' },
        el('p', { class: 'tv-kicker', text: 'Scan to join' }),
        el('img', { id: 'tv-qr', class: 'tv-qr', alt: 'QR code of the room link' }),
        el('p', { class: 'tv-kicker', text: 'or open' }),
        el('p', { id: 'tv-url', class: 'tv-url' }),
        el('p', { class: 'tv-kicker', text: 'Room code' }),
        el('p', { id: 'tv-code', class: 'tv-code' }),
      ),
      el(
        'div',
        { class: 'tv-col' },
        el('h2', {}, 'Players ', el('span', { id: 'tv-count', class: 'muted' })),
        el('ul', { id: 'tv-people', class: 'tv-list tv-people', 'aria-label': 'Players' }),
        el('p', { id: 'tv-next', class: 'tv-next' }),
      ),
    ),
    el(
      'div',
      { id: 'tv-race', class: 'tv-pane tv-race', hidden: true },
      el(
        'div',
        { id: 'tv-stage', class: 'tv-stage' },
        el('canvas', { id: 'tv-board', role: 'img', 'aria-label': 'The board' }),
        el('p', { id: 'tv-count-big', class: 'tv-big', hidden: true }),
      ),
      el('div', { class: 'tv-col' }, el('h2', { text: 'Standings' }), list('tv-stand', 'Standings')),
    ),
    el(
      'div',
      { id: 'tv-after', class: 'tv-pane tv-after', hidden: true },
      el(
        'div',
        { class: 'tv-col' },
        el('p', { id: 'tv-status', class: 'tv-next' }),
        el('ol', { id: 'tv-podium', class: 'tv-podium', 'aria-label': 'Podium', hidden: true }),
        el('div', { id: 'tv-res-box', class: 'tv-box' }, el('table', { id: 'tv-results', class: 'tv-table' })),
      ),
      el('div', { id: 'tv-match-box', class: 'tv-col tv-box' }, el('table', { id: 'tv-match', class: 'tv-table' })),
    ),
    el(
      'div',
      { id: 'tv-closed', class: 'tv-pane tv-closed', hidden: true },
      el('p', { id: 'tv-why' }),
      el('p', {}, el('button', { id: 'tv-new', class: 'primary', type: 'button', text: 'Make a new party room' })),
      el('p', {}, el('a', { href: '/', text: 'Go to the home page' })),
    ),
    el('div', { id: 'tv-wait', class: 'tv-pane tv-closed', hidden: true }, el('p', { id: 'tv-wait-p' })),
    el('p', {
      id: 'tv-sound',
      class: 'tv-sound',
      hidden: true,
      text: 'Sound is off: press a key or click on this screen to hear the race.',
    }),
  );
  // A new party room like the one that closed (its game, size and match).
  c.on('tv-new', 'click', () => {
    unlock();
    beScreen(s, fx, newPartyRoom(s.tv.last));
  });
  // Browsers let a page sound only after a press on it: a TV's remote or a click on it will do.
  for (const type of ['keydown', 'pointerdown'])
    addEventListener(type, () => {
      if (s.view === 'tv') (unlock(), c.render());
    });
  // A box that changes size (the window, a line above it coming or going) has its rows fitted again.
  const refit = () => {
    for (const k of Object.keys(built)) built[k] = null;
    c.render();
  };
  if (globalThis.ResizeObserver) {
    const seen = new ResizeObserver(refit);
    for (const id of ['tv-people', 'tv-stand', 'tv-res-box', 'tv-match-box', 'tv-stage']) seen.observe($(id));
  } else addEventListener('resize', refit);
  setInterval(() => {
    if (s.view === 'tv' && s.race.live && !s.race.results) $('tv-clock').textContent = clockText(s);
  }, 100);
  return styled;
}

/**
 * A race's cue (handlers.js asks for it on a screen only: the room hears one
 * TV, not every phone at once): each second of the countdown, the start, a
 * racer in.
 */
/**
 * The party room a screen makes again after its room closed: `last` (the room it showed, or the
 * `create_room` a reconnect was asking for again) its game, size and match. It names the lost room
 * (`replaces`) as the phones' "New room, same settings" does, so after a server restart the TV and
 * the phones end up in one room again: the first to ask makes it, the others are put in it (the TV
 * as its screen, the phones as players).
 */
export function newPartyRoom(last) {
  const r = last || {};
  const msg = { type: 'create_room', game: r.game || PARTY.game, size: r.size || PARTY.size, party: true };
  if (r.rank_by) msg.rank_by = r.rank_by;
  if (r.match) msg.match = { rounds: r.match.rounds, plan: r.match.plan };
  const lost = r.replaces || (r.code && r.key ? { code: r.code, key: r.key } : null);
  if (lost && !r.daily) msg.replaces = { code: lost.code, key: lost.key };
  return msg;
}

export function cue(kind) {
  if (kind === 'count') tone(660, 660, 0.12);
  else if (kind === 'go') tone(880, 880, 0.4, 'sine', 0.16);
  else if (kind === 'finish') [523, 659, 784].forEach((f, i) => tone(f, f, 0.18, 'triangle', 0.12, i * 0.09));
}

/** The race clock: it counts from the start signal (`race_start.clock`); a race of one counts from each first move, not shown here. */
const clockText = (s) => (s.race.clock === 'start' && s.race.live ? F.clock(elapsed(s, ctx.fx.now())) : '');

/** Which pane: the room's phase as the messages left it. */
function paneOf(s) {
  if (s.tv.closed) return 'tv-closed';
  const r = s.room;
  if (!r) return 'tv-wait';
  if (r.phase === 'lobby') return 'tv-lobby';
  if (s.match.over || s.race.results || s.match.intermission) return 'tv-after';
  if (s.race.board) return 'tv-race';
  return 'tv-wait';
}

export function render(s) {
  if (s.view !== 'tv' || !s.tv) return;
  const pane = paneOf(s);
  for (const id of PANES) $(id).hidden = id !== pane;
  const r = s.room;
  $('tv-conn').textContent = r && !s.conn.welcomed ? 'Connection lost: reconnecting…' : '';
  $('tv-sound').hidden = audible() || ctx.fx.store.muted() || !r;
  $('tv-clock').textContent = pane === 'tv-race' ? clockText(s) : '';
  setText('tv-h', heading(s, pane));
  const tagList = r ? [...F.roomBoards(r), `Ranked by ${r.rank_by === 'steps' ? 'steps' : 'time'}`] : [];
  once('tags', tagList, () => $('tv-tags').replaceChildren(...tags(tagList)));
  if (pane === 'tv-lobby') renderLobby(s, r);
  else if (pane === 'tv-race') renderRace(s);
  else if (pane === 'tv-after') renderAfter(s);
  else if (pane === 'tv-closed') setText('tv-why', s.tv.closed);
  else setText('tv-wait-p', s.conn.welcomed ? 'Opening the room…' : 'Connecting to the server…');
}

function heading(s, pane) {
  const r = s.room;
  if (pane === 'tv-closed') return 'This room has closed';
  if (!r) return s.lastIntent && s.lastIntent.type === 'create_room' ? 'Making a party room…' : 'Opening the room…';
  const round = standingsOf(s) ? `${roundLabel(s)} · ` : '';
  const b = s.race.board && s.race.board.size ? s.race.board : r;
  if (pane === 'tv-lobby') return r.party ? 'Join on your phone' : `${hostName(s)}’s room`;
  if (pane === 'tv-race') return `${round}${F.label(b.game, b.size)}`;
  if (s.match.over) return `Match over · ${F.matchLabel(matchOf(s))}`;
  return `Results · ${round}${F.label(b.game, b.size)}`;
}

const hostName = (s) => (racers(s).some((p) => p.id === s.room.host) ? nameOf(s, s.room.host) : 'The host');

function setText(id, text) {
  const e = $(id);
  if (e.textContent !== text) e.textContent = text;
}

/** Runs `build` when `key` (any JSON) differs from the last time for `part`. */
function once(part, key, build) {
  const k = JSON.stringify(key);
  if (built[part] === k) return;
  built[part] = k;
  build();
}

const dot = (colour) => el('span', { class: 'dot', style: `background:${colour}`, 'aria-hidden': 'true' });

/**
 * `items` in `box` (a list, or a table's body), as many as fit its height
 * (and `over`'s, the box that scrolls when they do not), the rest counted
 * in a last line `more(n)`: a screen nobody scrolls shows no cut-off line.
 */
function fitRows(box, items, more, over = box) {
  box.replaceChildren(...items);
  let shown = items.length;
  while (shown > 1 && over.scrollHeight > over.clientHeight + 1) {
    shown -= 1;
    box.replaceChildren(...items.slice(0, shown), more(items.length - shown));
    // The "and N more" line took a row: one more out if it still does not fit.
  }
}

function renderLobby(s, r) {
  // The link as a phone opens it (with the key, in the QR), and as one types it: no key, the code is enough.
  const url = `${siteUrl(s)}${F.roomPath(r.code, r.key)}`;
  const src = `/api/qr.svg?text=${encodeURIComponent(url)}`;
  const qr = $('tv-qr');
  if (qr.getAttribute('src') !== src) qr.src = src;
  const typed = [siteUrl(s).replace(/^https?:\/\//, ''), F.roomPath(r.code)];
  once('url', typed, () => $('tv-url').replaceChildren(...typed.map((text) => el('span', { text }))));
  setText('tv-code', r.code);
  const rs = racers(s);
  setText('tv-count', `${rs.length} / ${r.max_players}`);
  const ready = rs.filter((p) => p.ready && !p.rival).length;
  const people = rs.map((p) => [p.id, p.name, colourOf(s, p.id), p.id === r.host, p.ready, p.connected, !!p.rival]);
  once('people', [people, innerHeight], () =>
    fitRows(
      $('tv-people'),
      rs.map((p) =>
        el(
          'li',
          { 'data-id': String(p.id) },
          dot(colourOf(s, p.id)),
          el('span', { class: 'nm', text: p.name, title: p.name }),
          p.id === r.host ? badge('host', 'host') : null,
          p.rival ? badge('replay') : p.ready ? badge('✓ ready', 'ok') : null,
          p.connected ? null : badge('offline', 'off'),
        ),
      ),
      (n) => el('li', { class: 'muted', text: `and ${n} more` }),
    ),
  );
  let next;
  if (!rs.length)
    next = r.party
      ? 'Scan the code with a phone camera to join. The first one in is the host: the settings and Start are on their phone.'
      : 'Scan the code with a phone camera to join.';
  else if (r.party || rs.some((p) => p.id === r.host))
    next = `${hostName(s)} is the host and starts the race${r.party ? ' from their phone' : ''}. ${ready} of ${rs.length} ready.`;
  else next = `${ready} of ${rs.length} ready.`;
  setText('tv-next', next);
}

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

function renderRace(s) {
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

function renderAfter(s) {
  const st = standingsOf(s);
  const im = s.match.intermission;
  const over = s.match.over;
  const host = hostName(s);
  let status;
  if (over) status = `${winnersWords(over, (matchOf(s) || {}).rounds)} ${host} can start another match from their phone.`;
  else if (im && im.held) status = `${host} holds the match: round ${im.round} waits.`;
  else if (im) status = `Round ${im.round} starts in ${F.plural(im.seconds, 'second')}.`;
  else if (st) status = 'The next round follows by itself.';
  else status = `Waiting for ${host} to start a rematch.`;
  setText('tv-status', status);
  const places = over ? podium(over.lines) : [];
  $('tv-podium').hidden = !over;
  once('podium', [places], () =>
    $('tv-podium').replaceChildren(
      ...places.map((p) =>
        el(
          'li',
          { class: `p${p.rank}`, 'data-id': String(p.id) },
          el('span', { class: 'pl', text: p.place }),
          dot(colourOf(s, p.id)),
          el('span', { class: 'nm', text: p.name, title: p.name }),
          el('span', { class: 'st', text: p.points }),
        ),
      ),
    ),
  );
  // The round's results, under the podium at the end (as many as fit).
  const res = s.race.results;
  const b = s.race.board;
  const unit = F.unit(b ? b.game : res && res.reveal && res.reveal.game, true);
  const lines = res ? F.list(res.rankings) : [];
  $('tv-res-box').hidden = !res;
  once('results', [lines, over ? 1 : 0, innerHeight], () => {
    const body = el('tbody');
    $('tv-results').replaceChildren(
      el('caption', { text: standingsOf(s) ? `${roundLabel(s)}: results` : 'This race' }),
      el('thead', {}, el('tr', {}, ...['#', 'Player', unit, 'Time'].map((h) => el('th', { scope: 'col', text: h })))),
      body,
    );
    fitRows(
      body,
      lines.map((l) =>
        el(
          'tr',
          { 'data-id': String(l.player_id) },
          el('td', { text: l.rank ? String(l.rank) : '–' }),
          el('td', {}, dot(colourOf(s, l.player_id)), el('span', { class: 'nm', text: l.name, title: l.name })),
          el('td', { text: String(l.steps) }),
          el('td', { text: l.time_ms != null ? F.clock(l.time_ms) : F.statusLabel(l.status) }),
        ),
      ),
      (n) => el('tr', {}, el('td', { colspan: '4', class: 'muted', text: `and ${n} more` })),
      $('tv-res-box'),
    );
  });
  renderMatch(s, st);
}

/** The match table: rank, name, points and every round's points, as many rounds as fit across and players as fit down. */
function renderMatch(s, st) {
  const box = $('tv-match-box');
  box.hidden = !st;
  if (!st) return;
  const rows = tableRows(st.lines, { players: s.room.players });
  const n = Math.max(st.round || 0, ...rows.map((r) => r.rounds.length));
  once('match', [rows, n, st.over, innerHeight, innerWidth], () => {
    const table = $('tv-match');
    let from = 0;
    const build = () => {
      const cols = Array.from({ length: n - from }, (_, i) => `R${from + i + 1}`);
      const body = el('tbody');
      table.replaceChildren(
        el('caption', { text: st.over ? 'Final table' : 'Match table' }),
        el('thead', {}, el('tr', {}, ...['#', 'Player', 'Points', ...cols].map((h) => el('th', { scope: 'col', text: h })))),
        body,
      );
      return { body, cols: cols.length };
    };
    let { body } = build();
    const row = (r) =>
      el(
        'tr',
        { 'data-id': String(r.id), class: r.left ? 'gone' : null },
        el('td', { text: r.rank }),
        el(
          'td',
          {},
          dot(colourOf(s, r.id)),
          el('span', { class: 'nm', text: r.name, title: r.name }),
          r.left ? badge('left', 'off') : r.away ? badge('offline', 'off') : null,
        ),
        el('td', { text: r.points }),
        ...Array.from({ length: n - from }, (_, i) => el('td', { text: r.rounds[from + i] ?? '–' })),
      );
    body.replaceChildren(...rows.map(row));
    // Too wide (a match of 10 rounds on a projector): the latest rounds stay, the earliest go.
    while (table.scrollWidth > box.clientWidth + 1 && n - from > 1) {
      from += 1;
      ({ body } = build());
      body.replaceChildren(...rows.map(row));
    }
    if (from) table.querySelector('caption').textContent += ` (rounds ${from + 1} to ${n})`;
    fitRows(
      body,
      rows.map(row),
      (k) => el('tr', {}, el('td', { colspan: String(3 + n - from), class: 'muted', text: `and ${k} more` })),
      box,
    );
  });
}
