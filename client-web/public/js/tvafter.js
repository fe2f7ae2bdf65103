// The big screen's pane after a race (tv.js): what comes next, the podium at
// a match's end, the round's results and the match table, as many rows (and
// rounds) as fit. It lays out the server's lines (matchtable.js).

import { $, el, badge } from './dom.js';
import { colourOf } from './state.js';
import { standingsOf, matchOf, roundLabel, winnersWords } from './matches.js';
import { tableRows, podium } from './matchtable.js';
import * as F from './format.js';
import { setText, once, dot, fitRows, hostName } from './tvkit.js';

export function renderAfter(s) {
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
