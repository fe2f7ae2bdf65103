// The match screens (loaded with the room screens, never with home): the
// lobby's match choice and the room's tally, and on the race screen the
// match card: the round under way, the intermission's countdown as the
// server sends it with the host's Hold and Start now, the match table, and
// at the end the podium, every round's result with its best line to watch,
// the share line and "Play another match". Laid out from matches.js and
// matchtable.js, which turn the server's numbers into text and compute none.

import { $, el, badge, btn, nm } from './dom.js';
import { isHost, member } from './state.js';
import { matchOf, standingsOf, roundLabel, winnersWords, roundsOver, chooseMatch, hold, nextRound, anotherMatch } from './matches.js';
import { tableRows, tableCaption, podium, roundRows, roundWinners, tallyRows } from './matchtable.js';
import * as F from './format.js';
import { fillMatchChoice } from './home.js';
import { still } from './render.js';

const phone = matchMedia('(max-width: 880px)');

let ctx = null;
/** What each part was last built from, so an unchanged part keeps its DOM (and the focus in it). */
const built = { table: null, over: null, lobby: null };

export function init(c) {
  ctx = c;
  const { s, fx } = c;
  fillMatchChoice($('m-rounds'), $('m-plan'));
  c.on('m-rounds', 'change', () => pick(s, fx));
  c.on('m-plan', 'change', () => pick(s, fx));
  c.on('m-hold', 'click', () => hold(s, fx));
  c.on('m-next', 'click', () => nextRound(s, fx));
  c.on('m-again', 'click', () => anotherMatch(s, fx));
  c.on('m-copy', 'click', () => s.match.over && c.copy(String(s.match.over.share || ''), 'Share text copied.'));
}

function pick(s, fx) {
  const rounds = Number($('m-rounds').value) || 0;
  chooseMatch(s, fx, rounds, $('m-plan').value);
}

export function render(s) {
  renderLobby(s);
  renderCard(s);
}

/** The lobby: the host's choice (never in a daily room; the title's tags say the settings to all); the tally. */
function renderLobby(s) {
  const r = s.room;
  if (!r || s.view !== 'lobby') return;
  const m = matchOf(s);
  const choose = isHost(s) && !r.daily;
  $('m-choose').hidden = !choose;
  const key = JSON.stringify(m);
  if (built.lobby !== key) {
    built.lobby = key;
    // The server's settings, not what was last picked here: a refused choice falls back.
    $('m-rounds').value = m ? String(m.rounds) : '';
    if (m) $('m-plan').value = m.plan;
  }
  $('m-plan-wrap').hidden = !m;
  renderTally($('m-tally'), r.tally);
}

function renderTally(box, tally) {
  const rows = tallyRows(tally);
  box.hidden = !rows.length;
  const key = JSON.stringify(rows);
  if (box.dataset.key === key) return; // each box (lobby, match card) keeps its own
  box.dataset.key = key;
  box.replaceChildren(
    el('h3', { text: 'Matches won in this room' }),
    el('ul', { class: 'tally' }, ...rows.map((t) => el('li', {}, nm(t.name), ` ${t.wins}`))),
  );
}

/** The match card on the race screen: shown while a match is on and after it, until the next begins. */
function renderCard(s) {
  const st = standingsOf(s);
  const card = $('match');
  card.hidden = !st || !s.room || s.view !== 'play';
  if (card.hidden) return;
  const m = matchOf(s) || {};
  const over = st.over ? s.match.over : null;
  $('m-h').textContent = st.over ? `Match over · ${F.matchLabel(m)}` : `${roundLabel(s)} · ${F.planLabel(m.plan)}`;
  $('m-status').textContent = statusWords(s);
  const im = s.match.intermission;
  const host = isHost(s);
  $('m-host').hidden = !host || !im;
  $('m-hold').disabled = !im || im.held || s.match.heldRound === im.round;
  $('m-hold').textContent = im && im.held ? 'Held' : 'Hold';
  renderTable(s, st);
  renderOver(s, over);
  $('m-end').hidden = !st.over;
  $('m-copy').hidden = !over;
  $('m-again').hidden = !host;
  $('m-wait').hidden = host;
  renderTally($('m-tally2'), s.room.tally);
}

/** One line on where the match stands: the countdown as sent, a hold, the round under way. */
function statusWords(s) {
  const st = standingsOf(s);
  const im = s.match.intermission;
  if (st.over) return s.match.over ? winnersWords(s.match.over, (matchOf(s) || {}).rounds) : 'The match is over.';
  if (im && im.held) return `The host holds the match. Round ${im.round} waits.`;
  if (im) return `Round ${im.round} starts in ${F.plural(im.seconds, 'second')}.`;
  const me = member(s);
  const phase = s.room.phase;
  // The server lists a member who is not in this round as watching; one with
  // a line in the table (joined mid-match, or back after missing the start) is
  // a player who races the next round, a spectator has none.
  const inTable = F.list(st.lines).some((l) => l.player_id === s.me.id);
  if (me && me.spectator && inTable) return 'You watch this round and race from the next one.';
  if (me && me.spectator) return 'You are watching this match.';
  return phase === 'countdown' ? `${roundLabel(s)} is about to start.` : `${roundLabel(s)} is under way.`;
}

function renderTable(s, st) {
  const players = s.room.players;
  const rows = tableRows(st.lines, { me: s.me.id, players });
  const key = JSON.stringify([rows, st.round, st.more_lines]);
  if (built.table === key) return;
  built.table = key;
  const n = Math.max(st.round || 0, ...rows.map((r) => r.rounds.length));
  const head = ['#', 'Player', 'Points', 'Wins', 'Time', ...Array.from({ length: n }, (_, i) => `R${i + 1}`)];
  $('m-table').replaceChildren(
    el('caption', { text: tableCaption(st) }),
    el(
      'thead',
      {},
      el('tr', {}, ...head.map((h, i) => el('th', { scope: 'col', text: h, title: i > 4 ? `Points in round ${i - 4}` : null }))),
    ),
    el(
      'tbody',
      {},
      ...rows.map((r) =>
        el(
          'tr',
          { class: [r.me ? 'me' : '', r.left ? 'gone' : ''].join(' ').trim() || null, 'data-id': String(r.id) },
          el('td', { text: r.rank }),
          el(
            'td',
            { title: r.name },
            nm(r.name),
            r.me ? badge('you') : null,
            r.left ? badge('left', 'off') : null,
            r.away ? badge('offline', 'off') : null,
          ),
          el('td', { text: r.points }),
          el('td', { text: r.wins }),
          el('td', { text: r.time }),
          ...r.rounds.map((p) => el('td', { text: p })),
        ),
      ),
    ),
    // The server sends at most 64 lines: those it leaves out are players who left, ranked below.
    ...(st.more_lines > 0
      ? [
          el(
            'tfoot',
            {},
            el('tr', {}, el('td', { colspan: String(head.length), text: `and ${F.plural(st.more_lines, 'more player')} who left` })),
          ),
        ]
      : []),
  );
}

/** The podium, every round's result (with its best line to watch) and the share line. */
function renderOver(s, over) {
  $('m-over').hidden = $('m-podium').hidden = !over;
  if (!over || built.over === over) return;
  built.over = over;
  // The podium is the news: in view and focused (on a phone it is above the board and the last results).
  requestAnimationFrame(() => {
    $('m-h').focus({ preventScroll: true });
    if (phone.matches) $('match').scrollIntoView({ block: 'start', behavior: still() ? 'auto' : 'smooth' });
  });
  const places = podium(over.lines);
  $('m-podium').replaceChildren(
    ...places.map((p) =>
      el(
        'li',
        { class: `step p${p.rank}`, 'data-id': String(p.id) },
        el('span', { class: 'place', text: p.place }),
        nm(p.name),
        el('span', { class: 'pts', text: p.points }),
        p.left ? badge('left', 'off') : null,
      ),
    ),
  );
  $('m-rounds-out').replaceChildren(...roundsOver(s, over).map((r) => roundBlock(s, r)));
  $('m-share').textContent = String(over.share || '');
}

function roundBlock(s, round) {
  const rows = roundRows(round, s.me.id);
  const won = roundWinners(round);
  const unit = F.unit(round.game, true);
  return el(
    'details',
    { class: 'round' },
    el('summary', { text: `Round ${round.round} · ${F.label(round.game, round.size)}${won.length ? ` · won by ${won.join(', ')}` : ''}` }),
    el(
      'table',
      { class: 'table' },
      el('caption', { class: 'sr-only', text: `Round ${round.round}` }),
      el('thead', {}, el('tr', {}, ...['#', 'Player', unit, 'Time', 'Points'].map((h) => el('th', { scope: 'col', text: h })))),
      el(
        'tbody',
        {},
        ...rows.map((r) =>
          el(
            'tr',
            { class: r.me ? 'me' : null },
            el('td', { text: r.rank }),
            el('td', { title: r.name }, nm(r.name), r.rival ? badge('replay') : null),
            el('td', { text: r.steps }),
            el('td', { class: r.finished ? null : 'why', text: r.time }),
            el('td', { text: r.points }),
          ),
        ),
      ),
    ),
    btn(`Watch round ${round.round}'s best line`, null, () => ctx.watchLine(round), 'small'),
  );
}
