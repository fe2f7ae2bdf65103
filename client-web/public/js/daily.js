// The daily challenge: the home panel, the result cards, the leaderboards.

import { $, el, announce, btn, cells, note, pills, getJson, nm, siteUrl } from './dom.js';
import { request, openLeague } from './actions.js';
import { noServer } from './state.js';
import * as F from './format.js';
import { fromTable as raceTable } from './rival.js';
import { boardsOfTheDay, sizeOf } from './games/index.js';

let ctx = null;
let panelKey = '';

// Home's result card: a copy of the results' one.
const card = el(
  'div',
  { id: 'dcard', class: 'daily-card', role: 'region', 'aria-labelledby': 'dcard-h' },
  ...$('daily-card').cloneNode(true).children,
);
for (const e of card.querySelectorAll('[id]')) e.removeAttribute('id');
card.querySelector('[data-f=date]').replaceWith(el('h3', { id: 'dcard-h', tabindex: '-1', 'data-f': 'date', class: 'note' }));
$('dcard-wrap').append(card);

/** `table()` fills its body and names its third column. */
export const lbTable = (id) =>
  el(
    'table',
    { class: 'table lbt' },
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        ...['#', 'Player', 'Steps', 'Time'].map((text) => el('th', { text })),
        el('th', {}, el('span', { class: 'sr-only', text: 'Replay' })),
      ),
    ),
    el('tbody', { id }),
  );
$('lb-wrap').append(lbTable('lb'));
$('ranks-meta').after(lbTable('ranks-rows'));
// Runs the server flagged as paced at the ranked floor end to end (a likely
// script) can be hidden from the day's table; shown only when there are some.
const floorToggle = el(
  'label',
  { class: 'note', hidden: true },
  el('input', { type: 'checkbox', id: 'hide-floor' }),
  ' Hide runs at floor pace',
);
$('ranks-meta').after(floorToggle);
// The day's boards as they will look, from the table, before /api/daily answers (no layout shift when it does).
$('daily-list').replaceChildren(...boardRows(null, boardsOfTheDay(), true));

export function init(c) {
  ctx = c;
  const { s } = c;
  const watch = (d) =>
    d && Number.isInteger(d.run_id) && c.watchRun(d.run_id, { ...d, name: s.me.name, state: d.finished ? 'finished' : 'not_finished' });
  card.querySelector('.row').append(btn('Close', null, () => ((s.daily.card = null), c.render()), 'small ghostbtn'));
  for (const [root, get] of [
    [$('daily-card'), () => s.daily.result],
    [card, () => s.daily.card],
  ]) {
    root
      .querySelector('[data-f=copy]')
      .addEventListener('click', () => c.copy(root.querySelector('[data-f=share]').textContent, 'Share text copied.'));
    root.querySelector('[data-f=watch]').addEventListener('click', () => watch(get()));
  }
  c.on('ranks-back', 'click', () => (s.view = 'home'));
  c.on('hide-floor', 'change', () => {
    tables.delete($('ranks-rows'));
    c.render();
  });
  setInterval(tick, 1000);
}

export async function loadDaily() {
  const { s, fx } = ctx;
  let gone = false;
  const data = await getJson('/api/daily', fx.store.token()).catch((e) => {
    // A fetch that never reached a server (not an HTTP error): it is gone.
    gone = e instanceof TypeError;
    return null;
  });
  // Any answer says the server is there again (app.js asks again while it is not).
  s.conn.unreachable = gone;
  // Gone, the boards already shown stay (their buttons held: ui.js renderDown).
  if (gone && s.daily.loaded) return ctx.render();
  // Boards of a game or size this page does not know are left out.
  const boards = data && Array.isArray(data.boards) ? data.boards.filter((b) => b && sizeOf(b.game, b.size)) : [];
  s.daily.boards = boards;
  s.daily.loaded = true;
  $('daily').dataset.loaded = '';
  s.daily.date = data && typeof data.date === 'string' ? data.date : null;
  const next = Number(data && data.next_in_ms);
  s.daily.deadline = boards.length ? Date.now() + (Number.isFinite(next) && next > 0 ? next : F.msToUtcMidnight()) : 0;
  s.daily.you = data && data.you && Array.isArray(data.you.boards) ? data.you : null;
  if (s.view === 'league' && s.conn.welcomed) openLeague(s, fx, s.leagues.open); // today's tables
  ctx.render();
  tick();
}

export function played(s, game, size) {
  const you = s.daily.you;
  const e = you && you.boards.find((b) => b.game === game && b.size === size);
  if (e) return e.played ? e : null;
  if (you) return null;
  const kept = ctx.fx.store.rankedDaily(s.daily.date, game, size);
  return kept ? { ...kept, played: true } : null;
}

function streak(s) {
  if (s.daily.you && Number.isFinite(s.daily.you.streak)) return s.daily.you.streak;
  const st = ctx.fx.store.streak();
  return st && s.daily.date && st.date === s.daily.date ? st.streak : null;
}

function tick() {
  const s = ctx.s;
  if (!s.daily.deadline) return;
  const left = s.daily.deadline - Date.now();
  $('daily-count').textContent = F.hms(left);
  if (left <= 0) {
    s.daily.deadline = 0;
    setTimeout(loadDaily, 1500); // once the server's day has turned over too
  }
}

const resultLine = (e) => {
  const u = F.unit(e.game);
  if (!e.finished) return `Played: not finished${Number.isFinite(e.steps) ? ` (${e.steps} ${u})` : ''}`;
  const rank = e.rank ? `#${e.rank} of ${e.entrants}` : 'finished';
  return `Played: ${rank} · ${e.steps} ${u} · ${F.clock(e.time_ms)}`;
};

export function render(s) {
  renderPanel(s);
  renderCard($('daily-card'), s.view === 'play' ? s.daily.result : null, s);
  renderCard(card, s.view === 'home' ? s.daily.card : null, s);
  $('dcard-wrap').hidden = !(s.view === 'home' && s.daily.card);
  const t = s.daily.table;
  const d = s.daily.result;
  const here = !!(t && d && t.game === d.game && t.size === d.size && s.view === 'play');
  $('lb-wrap').hidden = !here;
  if (here) table($('lb'), t);
  if (s.view === 'ranks' && t && t.game === s.daily.ranksOf?.game && t.size === s.daily.ranksOf?.size) table($('ranks-rows'), t);
}

function renderPanel(s) {
  const boards = s.daily.boards;
  // Until /api/daily answers, the rows made at load hold the place (no layout shift).
  if (!s.daily.loaded) return;
  $('daily').hidden = !boards.length;
  if (!boards.length) return;
  $('daily-off').hidden = !noServer(s);
  const st = streak(s);
  $('daily-streak').textContent = st ? `Your streak: ${F.plural(st, 'day')}` : 'No streak yet: play a board today to start one.';
  // Rebuilt only on a change: a button replaced mid-press would lose the click.
  const key = JSON.stringify(boards.map((b) => [b.game, b.size, played(s, b.game, b.size)]));
  if (key === panelKey) return;
  panelKey = key;
  $('daily-list').replaceChildren(...boardRows(s, boards, false));
}

/** The rows of `boards`, each game's under its title; `loading`: before /api/daily answers, nothing played yet known and every button held. */
function boardRows(s, boards, loading) {
  const items = [];
  let game = null;
  for (const b of boards) {
    if (b.game !== game) items.push(el('li', { class: 'game', text: F.gameLabel(b.game) }));
    game = b.game;
    items.push(boardRow(s, b, loading));
  }
  return items;
}

function boardRow(s, b, loading) {
  const label = F.label(b.game, b.size, ' · ');
  const mine = !loading && played(s, b.game, b.size);
  const play = () => {
    s.soloNext = true;
    request(s, ctx.fx, { type: 'create_room', game: b.game, size: b.size, daily: true }, $('name').value);
    ctx.render();
  };
  // Loading: disabled and not the server's to enable (ui.js renderDown), there is nothing to press yet.
  const button = (text, aria, fn, cls) =>
    loading
      ? el('button', { type: 'button', class: cls, disabled: true, 'aria-label': aria, text })
      : needsServer(btn(text, aria, fn, cls));
  const state = loading ? 'Loading…' : mine ? resultLine({ ...b, ...mine }) : 'Not played today';
  return el(
    'li',
    { 'data-board': `${b.game}.${b.size}` },
    el(
      'span',
      { class: 'what' },
      el('span', { text: F.sizeLabel(b.game, b.size) }),
      el('span', { class: mine ? 'state done' : 'state', text: state }),
    ),
    // Each accessible name starts with the button's visible word (WCAG 2.5.3, label in name).
    mine ? btn('Result', `Result: mine on today's ${label}`, () => openCard(s, b, mine)) : null,
    button(mine ? 'Practice' : 'Play', `${mine ? 'Practice' : 'Play'} today's ${label}`, play, mine ? '' : 'primary'),
    button('Top', `Top: leaderboard for today's ${label}`, () => openLeaderboard(b.game, b.size)),
  );
}

/** Held (disabled) while there is no server: ui.js renderDown. */
function needsServer(button) {
  button.dataset.server = '';
  return button;
}

function openCard(s, b, mine) {
  s.daily.card = {
    ...ctx.fx.store.rankedDaily(s.daily.date, b.game, b.size),
    ...mine,
    game: b.game,
    size: b.size,
    date: s.daily.date,
    ranked: true,
    streak: streak(s),
  };
  ctx.render();
  $('dcard-h').focus({ preventScroll: false });
  announce(`Your result on today's ${F.label(b.game, b.size)}: ${resultLine({ ...b, ...mine })}.`);
}

/**
 * One time per run: under the results, the card shows the race's time for
 * this run (the table's). A daily raced against a rival runs on the start
 * signal's clock, while the stored daily time counts from the first move,
 * so the two differ by the reaction time (README, "Decisions").
 */
function raceTime(s, d) {
  const mine = d === s.daily.result && s.race.results && F.list(s.race.results.rankings).find((r) => r.player_id === s.me.id);
  return mine && Number.isFinite(mine.time_ms) ? mine.time_ms : d.time_ms;
}

function renderCard(root, d, s) {
  root.hidden = !d;
  if (!d) return;
  const q = (sel) => root.querySelector(sel);
  q('[data-f=date]').textContent = `Daily challenge · ${d.date} (UTC) · ${F.label(d.game, d.size)}`;
  const head = q('[data-f=head]');
  head.textContent = d.ranked
    ? d.finished
      ? d.rank
        ? `Today's rank: #${d.rank} of ${d.entrants}`
        : `Finished (${d.entrants} entrants)`
      : 'Not finished: this was your ranked try for today'
    : 'Practice run (not ranked)';
  head.classList.toggle('practice', !d.ranked);
  const why =
    !d.ranked && d === s.daily.result && s.daily.practice === 'address_cap'
      ? [el('li', { class: 'muted', text: F.practiceWhy('address_cap') })]
      : [];
  q('[data-f=places]').replaceChildren(
    ...why,
    ...F.places(d).map((p) =>
      el(
        'li',
        {},
        nm(p.label),
        el('strong', { text: p.text }),
        p.share
          ? btn('Copy', `Copy the share line for ${p.label}`, () => ctx.copy(withLink(s, p.share), 'Share text copied.'), 'small')
          : null,
      ),
    ),
  );
  const chips = [];
  if (d.finished) chips.push(`${d.steps} ${F.unit(d.game)}`, F.clock(raceTime(s, d)));
  if (Number.isFinite(d.streak)) chips.push(`Streak: ${F.plural(d.streak, 'day')}`);
  q('[data-f=meta]').replaceChildren(...pills(chips));
  const share = q('[data-f=share]');
  share.textContent = d.share ? withLink(s, d.share) : '';
  share.hidden = q('[data-f=copy]').hidden = !d.share;
  q('[data-f=watch]').hidden = !Number.isInteger(d.run_id);
  $('lb-title').textContent = `Leaderboard · ${d.date}`;
}

/** A share line with the site's address on its own line (lobby.js siteUrl: --public-url, else the LAN address). */
export const withLink = (s, line) => `${line}\n${siteUrl(s)}/`;

const tables = new WeakMap(); // tbody -> the leaderboard it shows

/**
 * A run's Watch button. Another player's run on today's board is shown from
 * tomorrow (no spoilers: the server answers 403 until then), so its button
 * is disabled with that reason beside it instead of leading to a refusal.
 */
let laterIds = 0;
function watchButton(e, m, mine) {
  const today = !m.date || m.date === ctx.s.daily.date;
  if (today && !mine) {
    const id = `later-${++laterIds}`; // the same run may be in two tables at once
    return el(
      'span',
      { class: 'later' },
      el('button', { type: 'button', class: 'watch', disabled: true, 'aria-describedby': id, text: 'Watch' }),
      el('span', { id, class: 'note', text: 'from tomorrow' }),
    );
  }
  return btn('Watch', `Watch ${e.name}'s run`, () => ctx.watchRun(e.run_id, { ...e, game: m.game, size: m.size, date: m.date }), 'watch');
}

/** A leaderboard, or a `league_board` (unfinished runs have no rank). */
export function table(tbody, m, empty = 'No finishes yet today. Be the first!') {
  if (tables.get(tbody) === m) return;
  tables.set(tbody, m);
  if (!m) return tbody.replaceChildren(note(5, 'Loading…'));
  const run = (e) => Number.isInteger(e.run_id);
  const row = (e, me) =>
    el(
      'tr',
      { class: me || e.you ? 'me' : '' },
      ...cells([e.rank ?? '–', F.entryName(e), e.steps, e.finished === false ? 'not finished' : F.clock(e.time_ms)]),
      el(
        'td',
        {},
        run(e) ? watchButton(e, m, me || e.you) : null,
        me && run(e) && (tbody.id === 'lb' || m.date === ctx.s.daily.date)
          ? btn('Race', 'Race my run', () => raceTable(ctx.s, ctx.fx, m, e.run_id), 'watch')
          : null,
      ),
    );
  const all = F.list(m.entries);
  const you = m.you;
  const ranks = tbody.id === 'ranks-rows';
  if (ranks) floorToggle.hidden = !all.some((e) => e.at_floor);
  const entries = F.shownEntries(all, ranks && $('hide-floor').checked, you && you.run_id);
  const rows = entries.map((e) => row(e, you && e.run_id === you.run_id));
  if (you && !entries.some((e) => e.run_id === you.run_id)) rows.push(row(you, true));
  tbody.replaceChildren(...(rows.length ? rows : [note(5, empty)]));
  tbody.parentElement.querySelector('th:nth-child(3)').textContent = F.unit(m.game, true);
  if (tbody.id === 'ranks-rows')
    $('ranks-meta').textContent = `${m.date || 'Today'} (UTC) · ${F.plural(m.entrants ?? all.length, 'entrant')} · first tries only`;
}

export async function openLeaderboard(game, size) {
  const { s, fx } = ctx;
  s.view = 'ranks';
  s.daily.ranksOf = { game, size };
  s.daily.table = null;
  ctx.render();
  $('ranks-h').textContent = `Daily · ${F.label(game, size)}`;
  $('ranks-meta').textContent = 'Loading…';
  $('ranks-rows').replaceChildren();
  const date = s.daily.date;
  if (s.conn.welcomed && fx.connected()) {
    fx.send(date ? { type: 'leaderboard', game, size, date } : { type: 'leaderboard', game, size });
    return;
  }
  const m = await getJson(`/api/daily/${encodeURIComponent(date || 'today')}/${game}/${size}`, fx.store.token()).catch(() => null);
  if (!m) return ($('ranks-meta').textContent = 'The leaderboard could not be loaded. Enter your name and try again.');
  s.daily.table = { game, size, date, ...m };
  ctx.render();
}
