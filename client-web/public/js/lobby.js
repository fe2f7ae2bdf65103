// The lobby: the room code, link (LAN address) and QR code, who is in and ready.

import { $, el, tags, badge, siteUrl } from './dom.js';
import { PALETTE } from './render.js';
import { isHost, member, racers, watching, colourOf, nameOf } from './state.js';
import { leave } from './actions.js';
import * as F from './format.js';
import { mark } from './rival.js';

export function init(c) {
  const { s, fx } = c;
  c.on('start', 'click', () => fx.send({ type: 'start' }));
  c.on('ready', 'click', () => fx.send({ type: 'ready', ready: !(member(s) || {}).ready }));
  c.on('leave', 'click', () => leave(s, fx));
  c.on('qr', 'error', () => ($('qr').hidden = true));
  c.on('copy', 'click', () => c.copy($('link').value, 'Link copied.', $('link')));
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
      ...(r.match ? [F.matchLabel(r.match)] : []),
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
