// The lobby: the room code, link (LAN address) and QR code, who is in and ready.

import { $, el, tags, getJson, badge } from './dom.js';
import { PALETTE } from './render.js';
import { isHost, member, racers, colourOf, nameOf } from './state.js';
import { leave } from './actions.js';
import * as F from './format.js';
import { mark } from './rival.js';

let ctx = null;

export function init(c) {
  ctx = c;
  const { s, fx } = c;
  c.on('start', 'click', () => fx.send({ type: 'start' }));
  c.on('ready', 'click', () => fx.send({ type: 'ready', ready: !(member(s) || {}).ready }));
  c.on('leave', 'click', () => leave(s, fx));
  c.on('qr', 'error', () => ($('qr').hidden = true));
  c.on('copy', 'click', () => c.copy($('link').value, 'Link copied.', $('link')));
  loadLan(s);
}

/**
 * The site's address for the links others open (the invite link, its QR
 * code, the daily share line): the server's --public-url when it has one
 * (a reverse proxy in front), else, for a page opened on this computer, an
 * address a phone on the LAN can open, else the page's own (GET /api/urls).
 */
export const siteUrl = (s) => s.ui.lanBase || location.origin;

async function loadLan(s) {
  const data = await getJson('/api/urls').catch(() => null);
  const ok = (u) => typeof u === 'string' && /^https?:\/\/[^/]+/.test(u);
  const loopback = /^(localhost|127\.0\.0\.1|\[::1\])$/.test(location.hostname);
  const url = ok(data && data.public) ? data.public : loopback ? F.list(data && data.lan).find(ok) : null;
  if (url) {
    s.ui.lanBase = url.replace(/\/+$/, '');
    ctx.render();
  }
}

export function render(s) {
  const r = s.room;
  if (!r || s.view !== 'lobby') return;
  $('lobby-h').textContent = r.code;
  $('lobby-game').replaceChildren(
    ...tags([
      F.gameLabel(r.game),
      F.sizeLabel(r.game, r.size),
      `Ranked by ${r.rank_by === 'steps' ? 'steps' : 'time'}`,
      ...(r.daily ? ['Daily'] : []),
    ]),
  );
  const url = `${siteUrl(s)}${F.roomPath(r.code, r.key)}`;
  $('link').value = url;
  const qr = $('qr');
  const src = `/api/qr.svg?text=${encodeURIComponent(url)}`;
  if (qr.dataset.src !== src) {
    qr.dataset.src = src;
    qr.hidden = false;
    qr.src = src;
  }
  const inRace = racers(s);
  const watchers = r.players.filter((p) => p.spectator);
  const person = (p) =>
    el(
      'li',
      {},
      el('span', {
        class: 'dot',
        style: `background:${p.id === s.me.id ? PALETTE.you : p.spectator ? '#9aa3b2' : colourOf(s, p.id)}`,
        'aria-hidden': 'true',
      }),
      el('span', { class: 'name', text: p.name, title: p.name }),
      p.id === s.me.id ? badge('you') : mark(p),
      p.id === r.host ? badge('host', 'host') : null,
      !p.spectator && p.ready ? badge('✓ ready', 'ok') : null,
      !p.connected ? badge('offline', 'off') : null,
    );
  $('players').replaceChildren(...inRace.map(person));
  $('spectators').replaceChildren(...watchers.map(person));
  $('spec-wrap').hidden = !watchers.length;
  $('count').textContent = `${inRace.length} / ${r.max_players}`;
  const host = isHost(s);
  const me = member(s);
  $('start').hidden = !host;
  $('ready').hidden = !me || me.spectator;
  if (me) {
    $('ready').setAttribute('aria-pressed', String(me.ready));
    $('ready').textContent = me.ready ? 'Ready ✓' : "I'm ready";
  }
  const notReady = inRace.filter((p) => !p.ready && p.connected).length;
  $('lobby-note').textContent = host
    ? inRace.length > 1
      ? `You are the host: start when everyone is in${notReady ? ` (${notReady} not ready yet)` : ''}. When everyone is ready, it starts by itself.`
      : 'Send the link to a friend, or start now and race alone.'
    : me && me.spectator
      ? 'You are watching this race.'
      : `Press “I'm ready”: the race starts when everyone is ready, or when ${nameOf(s, r.host)} (the host) starts it.`;
}
