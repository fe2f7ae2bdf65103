// The lobby: the room's title and settings, then three pieces each layout
// orders for whoever looks: what I do (ready, or the host's controls: start,
// the match, a stored run), who is in and ready, and the code, link (LAN
// address) and QR code to share, with "Show on a big screen". While a screen
// (a TV, tv.js) shows the room, a phone's lobby is only the player's name and
// colour, ready and the host's controls: the code, QR and who is in are on the
// screen for everyone.

import { $, el, tags, badge, nm, siteUrl } from './dom.js';
import { PALETTE } from './render.js';
import { isHost, member, racers, watching, colourOf, nameOf } from './state.js';
import { leave } from './actions.js';
import * as F from './format.js';
import { mark } from './rival.js';

/**
 * The pieces in reading order, per role: the host shares the link first
 * (nobody is in yet), then sees who came and starts; a guest (or a watcher)
 * is there to say ready, so that comes first, the link to pass on last.
 * The page is laid out in this order too, so focus and screen readers follow it.
 */
const ORDER = {
  host: ['lobby-share', 'lobby-who', 'lobby-me'],
  guest: ['lobby-me', 'lobby-who', 'lobby-share'],
};
let shownRole = null;

export function init(c) {
  const { s, fx } = c;
  c.on('start', 'click', () => fx.send({ type: 'start' }));
  c.on('ready', 'click', () => fx.send({ type: 'ready', ready: !(member(s) || {}).ready }));
  c.on('leave', 'click', () => leave(s, fx));
  c.on('qr', 'error', () => ($('qr').hidden = true));
  c.on('copy', 'click', () => c.copy($('link').value, 'Link copied.', $('link')));
}

/** Lays the pieces out in `role`'s order (only on a change: a moved element loses the focus, given back here). */
function arrange(role) {
  if (shownRole === role) return;
  shownRole = role;
  const lobby = $('lobby');
  lobby.dataset.role = role;
  const focused = document.activeElement;
  lobby.append(...ORDER[role].map((id) => $(id)));
  if (focused && focused !== document.activeElement && lobby.contains(focused)) focused.focus({ preventScroll: true });
}

export function render(s) {
  const r = s.room;
  if (!r || s.view !== 'lobby') return;
  const host = isHost(s);
  const me = member(s);
  arrange(host ? 'host' : 'guest');
  const tv = r.screens > 0 && !s.conn.offline;
  // Whose room: mine, or the host's by name (a name is data: textContent only);
  // with a screen on, who I am there (my name in my colour).
  const dot = () =>
    el('span', {
      class: 'dot',
      style: `background:${colourOf(s, s.me.id, PALETTE.you)};display:inline-block;width:.8em;height:.8em;margin-right:.3em`,
      'aria-hidden': 'true',
    });
  const title = tv && me ? [dot(), nm(me.name)] : host ? ['Your room'] : [nm(nameOf(s, r.host)), '’s room'];
  const key = title.map((x) => (typeof x === 'string' ? x : x.textContent)).join('') + (tv ? '|tv' : '');
  if ($('lobby-h').dataset.said !== key) {
    $('lobby-h').dataset.said = key;
    $('lobby-h').replaceChildren(...title);
  }
  $('lobby-game').replaceChildren(
    ...tags([...F.roomBoards(r), `Ranked by ${r.rank_by === 'steps' ? 'steps' : 'time'}`, ...(r.daily ? ['Daily'] : [])]),
  );
  renderShare(s, r);
  renderWho(s, r);
  $('lobby-share').hidden ||= tv;
  $('lobby-who').hidden = tv;
  $('start').hidden = !host;
  $('ready').hidden = !me || me.spectator;
  if (me) {
    $('ready').setAttribute('aria-pressed', String(me.ready));
    $('ready').textContent = me.ready ? 'Ready ✓' : "I'm ready";
  }
  // A guest's one thing to do is the page's main button; the host's is Start.
  $('ready').classList.toggle('primary', !host && !!me && !me.ready);
  $('lobby-note').textContent = (tv ? 'You are on the big screen in this colour. ' : '') + note(s, r, host, me);
}

/** The code, the link and its QR code; offline there is nobody to send them to, so the piece is not shown. */
function renderShare(s, r) {
  $('lobby-share').hidden = s.conn.offline;
  if (s.conn.offline) return;
  $('lobby-code').textContent = r.code;
  const url = `${siteUrl(s)}${F.roomPath(r.code, r.key)}`;
  $('link').value = url;
  $('tv-link').href = `${siteUrl(s)}${F.tvPath(r.code, r.key)}`;
  const qr = $('qr');
  const src = `/api/qr.svg?text=${encodeURIComponent(url)}`;
  if (qr.dataset.src !== src) {
    qr.dataset.src = src;
    qr.hidden = false;
    qr.src = src;
  }
}

function renderWho(s, r) {
  const inRace = racers(s);
  const watchers = r.players.filter((p) => p.spectator);
  const person = (p) =>
    el(
      'li',
      {},
      el('span', {
        class: 'dot',
        style: `background:${p.spectator ? '#9aa3b2' : colourOf(s, p.id, p.id === s.me.id ? PALETTE.you : undefined)}`,
        'aria-hidden': 'true',
      }),
      el('span', { class: 'name', text: p.name, title: p.name }),
      p.id === s.me.id ? badge('you') : mark(p),
      p.id === r.host ? badge('host', 'host') : null,
      !p.spectator && p.ready ? badge('✓ ready', 'ok') : null,
      !p.connected ? badge('offline', 'off') : null,
    );
  $('players').replaceChildren(...inRace.map(person));
  const unnamed = r.more_spectators || 0;
  const more = unnamed ? el('li', { class: 'muted', text: `and ${unnamed} more watching` }) : null;
  $('spectators').replaceChildren(...watchers.map(person), ...(more ? [more] : []));
  $('spec-wrap').hidden = !watching(r);
  $('count').textContent = `${inRace.length} / ${r.max_players}`;
}

/** What to do now, in a line. */
function note(s, r, host, me) {
  if (host) {
    if (s.conn.offline) return 'You are offline: nobody else can join this room. Start when you are ready.';
    // The host starts the race: only the others' readiness is news.
    const waiting = racers(s).filter((p) => p.id !== r.host && !p.rival && p.connected && !p.ready).length;
    if (racers(s).length < 2)
      return r.screens > 0
        ? 'Friends join by scanning the code on the big screen.'
        : 'Send the link to a friend, or start now and race alone.';
    return waiting
      ? `You are the host: start the race when everyone is in (${waiting} not ready yet).`
      : 'Everyone is ready: start the race.';
  }
  if (me && me.spectator) return 'You are watching this race.';
  return `Press “I'm ready”: the race starts when everyone is ready, or when ${nameOf(s, r.host)} (the host) starts it.`;
}
