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
// The panes are tvlobby.js, tvrace.js and tvafter.js (their shared parts
// tvkit.js); here the screen's frame, which pane is up, its heading, the
// clock, the sound and a closed room.

import { $, el, tags } from './dom.js';
import { elapsed } from './state.js';
import { PARTY } from './games/index.js';
import { standingsOf, matchOf, roundLabel } from './matches.js';
import { beScreen } from './actions.js';
import { unlock, audible, tone } from './audio.js';
import * as F from './format.js';
import { built, setText, once, hostName } from './tvkit.js';
import { renderLobby } from './tvlobby.js';
import { renderRace } from './tvrace.js';
import { renderAfter } from './tvafter.js';

let ctx = null;

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

/**
 * A race's cue (handlers.js asks for it on a screen only: the room hears one
 * TV, not every phone at once): each second of the countdown, the start, a
 * racer in.
 */
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
