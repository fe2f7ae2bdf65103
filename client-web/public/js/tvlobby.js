// The big screen's lobby pane (tv.js): the room's link, QR and code to join
// by, who is in and ready (as many as fit), and what comes next.

import { $, el, badge, siteUrl } from './dom.js';
import { racers, colourOf } from './state.js';
import * as F from './format.js';
import { setText, once, dot, fitRows, hostName } from './tvkit.js';

export function renderLobby(s, r) {
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
