// The daily challenge: the home panel, the result cards and the leaderboards.

import { $, el, announce } from './dom.js';
import { request, openLeague } from './actions.js';
import * as F from './format.js';
import { fromTable as raceTable } from './rival.js';

let ctx = null;
let panelKey = '';

export function init(c) {
  ctx = c;
  const { s } = c;
  $('copy-share').addEventListener('click', () => c.copy($('share').textContent, 'Share text copied.'));
  $('watch-mine').addEventListener('click', () => {
    const d = s.daily.result;
    if (d && Number.isInteger(d.run_id)) c.watchRun(d.run_id, { ...d, name: s.me.name, state: d.finished ? 'finished' : 'not_finished' });
  });
  $('dcard-copy').addEventListener('click', () => c.copy($('dcard').querySelector('[data-f=share]').textContent, 'Share text copied.'));
  $('dcard-watch').addEventListener('click', () => {
    const d = s.daily.card;
    if (d && Number.isInteger(d.run_id)) c.watchRun(d.run_id, { ...d, name: s.me.name, state: d.finished ? 'finished' : 'not_finished' });
  });
  $('dcard-close').addEventListener('click', () => {
    s.daily.card = null;
    c.render();
  });
  $('ranks-back').addEventListener('click', () => {
    s.view = 'home';
    c.render();
  });
  setInterval(tick, 1000);
}

export async function loadDaily() {
  const { s, fx } = ctx;
  let data = null;
  try {
    const token = fx.store.token();
    const res = await fetch('/api/daily', { headers: { accept: 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) } });
    if (res.ok) data = await res.json();
  } catch {
    data = null;
  }
  const boards = data && Array.isArray(data.boards) ? data.boards.filter((b) => b && F.GAMES[b.game] && F.SIZES[b.game].some(([k]) => k === b.size)) : [];
  s.daily.boards = boards;
  s.daily.date = data && typeof data.date === 'string' ? data.date : null;
  const next = Number(data && data.next_in_ms);
  s.daily.deadline = boards.length ? Date.now() + (Number.isFinite(next) && next > 0 ? next : F.msToUtcMidnight()) : 0;
  s.daily.you = data && data.you && Array.isArray(data.you.boards) ? data.you : null;
  if (s.view === 'league' && s.conn.welcomed) openLeague(s, fx, s.leagues.open); // today's boards' tables
  ctx.render();
  tick();
}

/** What I did today on `game`/`size`: the server's `you` entry, else the result kept here. */
export function played(s, game, size) {
  const you = s.daily.you;
  const e = you && you.boards.find((b) => b.game === game && b.size === size);
  if (e) return e.played ? e : null;
  if (you || !s.daily.date) return null;
  const kept = ctx.fx.store.dailyDay(s.daily.date)[`${game}.${size}`];
  return kept && kept.ranked ? { ...kept, played: true } : null;
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
    setTimeout(loadDaily, 1500); // the server's day turns over too
  }
}

const resultLine = (e) => {
  const u = e.game === 'ghost' ? 'steps' : 'moves';
  if (!e.finished) return `Played: not finished${Number.isFinite(e.steps) ? ` (${e.steps} ${u})` : ''}`;
  const rank = e.rank ? `#${e.rank} of ${e.entrants}` : 'finished';
  return `Played: ${rank} · ${e.steps} ${u} · ${F.clock(e.time_ms)}`;
};

export function render(s) {
  renderPanel(s);
  renderCard($('daily-card'), s.view === 'play' ? s.daily.result : null, s);
  renderCard($('dcard'), s.view === 'home' ? s.daily.card : null, s);
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
  $('daily').hidden = !boards.length;
  if (!boards.length) return;
  const st = streak(s);
  $('daily-streak').textContent = st ? `Your streak: ${st} day${st === 1 ? '' : 's'}` : '';
  $('daily-streak').hidden = !st;
  // Rebuilt only when it changes: a button replaced between press and release would lose the click.
  const key = JSON.stringify(boards.map((b) => [b.game, b.size, played(s, b.game, b.size)]));
  if (key === panelKey) return;
  panelKey = key;
  const items = [];
  let game = null;
  for (const b of boards) {
    if (b.game !== game) items.push(el('li', { class: 'game', text: F.gameLabel(b.game) }));
    game = b.game;
    const label = `${F.gameLabel(b.game)} · ${F.sizeLabel(b.game, b.size)}`;
    const mine = played(s, b.game, b.size);
    items.push(
      el(
        'li',
        { 'data-board': `${b.game}.${b.size}` },
        el(
          'span',
          { class: 'what' },
          el('span', { text: F.sizeLabel(b.game, b.size) }),
          el('span', { class: `state ${mine ? 'done' : ''}`, text: mine ? resultLine({ ...b, ...mine }) : 'Not played today' }),
        ),
        mine
          ? el('button', {
              type: 'button',
              text: 'Result',
              'aria-label': `My result on today's ${label}`,
              onclick: () => openCard(s, b, mine),
            })
          : null,
        el('button', {
          type: 'button',
          class: mine ? '' : 'primary',
          text: mine ? 'Practice' : 'Play',
          'aria-label': `${mine ? 'Practice' : 'Play'} today's ${label}`,
          onclick: () => {
            s.soloNext = true;
            request(s, ctx.fx, { type: 'create_room', game: b.game, size: b.size, daily: true }, $('name').value);
            ctx.render();
          },
        }),
        el('button', { type: 'button', text: 'Top', 'aria-label': `Leaderboard for today's ${label}`, onclick: () => openLeaderboard(b.game, b.size) }),
      ),
    );
  }
  $('daily-list').replaceChildren(...items);
}

function openCard(s, b, mine) {
  const kept = s.daily.date ? ctx.fx.store.dailyDay(s.daily.date)[`${b.game}.${b.size}`] : null;
  s.daily.card = { ...(kept && kept.ranked ? kept : {}), ...mine, game: b.game, size: b.size, date: s.daily.date, ranked: true, streak: streak(s) };
  ctx.render();
  $('dcard-h').focus({ preventScroll: false });
  announce(`Your result on today's ${F.gameLabel(b.game)} ${F.sizeLabel(b.game, b.size)}: ${resultLine({ ...b, ...mine })}.`);
}

function renderCard(root, d, s) {
  root.hidden = !d;
  if (!d) return;
  const q = (sel) => root.querySelector(sel);
  q('[data-f=date]').textContent = `Daily challenge · ${d.date} (UTC) · ${F.gameLabel(d.game)} ${F.sizeLabel(d.game, d.size)}`;
  const head = q('[data-f=head]');
  head.textContent = d.ranked
    ? d.finished
      ? d.rank
        ? `#${d.rank} of ${d.entrants} today`
        : `Finished (${d.entrants} entrants)`
      : 'Not finished: this was your ranked try for today'
    : 'Practice run (not ranked)';
  head.classList.toggle('practice', !d.ranked);
  // The places: overall and in each league, a league's share line copied from its row.
  const why = !d.ranked && d === s.daily.result && s.daily.practice === 'address_cap' ? [el('li', { class: 'muted', text: F.practiceWhy('address_cap') })] : [];
  q('[data-f=places]').replaceChildren(
    ...why,
    ...F.places(d).map((p) =>
      el(
        'li',
        {},
        el('span', { class: 'nm', text: p.label }),
        el('strong', { text: p.text }),
        p.share ? el('button', { type: 'button', class: 'small', text: 'Copy', 'aria-label': `Copy the share line for ${p.label}`, onclick: () => ctx.copy(p.share, 'Share text copied.') }) : null,
      ),
    ),
  );
  const chips = [];
  if (d.finished) chips.push(`${d.steps} ${d.game === 'ghost' ? 'steps' : 'moves'}`, F.clock(d.time_ms));
  if (Number.isFinite(d.streak)) chips.push(`Streak: ${d.streak} day${d.streak === 1 ? '' : 's'}`);
  q('[data-f=meta]').replaceChildren(...chips.map((c) => el('span', { class: 'pill', text: c })));
  const share = q('[data-f=share]');
  if (share) {
    share.textContent = d.share || '';
    share.hidden = !d.share;
  }
  const copyBtn = q('[data-f=copy]');
  if (copyBtn) copyBtn.hidden = !d.share;
  const w = q('[data-f=watch]');
  if (w) w.hidden = !Number.isInteger(d.run_id);
  $('lb-title').textContent = `Leaderboard · ${d.date}`;
}

const tables = new WeakMap(); // tbody -> the leaderboard it shows (rebuilt only for a new one)

/** A leaderboard, or a league's table of a board (`league_board`: unfinished runs have no rank). */
export function table(tbody, m, empty = 'No finishes yet today. Be the first!') {
  if (tables.get(tbody) === m) return;
  tables.set(tbody, m);
  if (!m) return tbody.replaceChildren(el('tr', {}, el('td', { colspan: '5', class: 'muted', text: 'Loading…' })));
  const row = (e, me) =>
    el(
      'tr',
      { class: me || e.you ? 'me' : '' },
      el('td', { text: String(e.rank ?? '–') }),
      el('td', { text: e.name, title: e.name }),
      el('td', { text: String(e.steps) }),
      el('td', { text: e.finished === false ? 'not finished' : F.clock(e.time_ms) }),
      el(
        'td',
        {},
        Number.isInteger(e.run_id)
          ? el('button', {
              type: 'button',
              class: 'watch',
              text: 'Watch',
              'aria-label': `Watch ${e.name}'s run`,
              onclick: () => ctx.watchRun(e.run_id, { ...e, game: m.game, size: m.size, date: m.date }),
            })
          : null,
        me && Number.isInteger(e.run_id) && (tbody.id === 'lb' || m.date === ctx.s.daily.date)
          ? el('button', { type: 'button', class: 'watch', text: 'Race', 'aria-label': 'Race my run', onclick: () => raceTable(ctx.s, ctx.fx, m, e.run_id) })
          : null,
      ),
    );
  const entries = Array.isArray(m.entries) ? m.entries : [];
  const you = m.you;
  const rows = entries.map((e) => row(e, you && e.run_id === you.run_id));
  if (you && !entries.some((e) => e.run_id === you.run_id)) rows.push(row(you, true));
  if (!rows.length) rows.push(el('tr', {}, el('td', { colspan: '5', class: 'muted', text: empty })));
  tbody.replaceChildren(...rows);
  tbody.parentElement.querySelector('th:nth-child(3)').textContent = m.game === 'maze' ? 'Moves' : 'Steps';
  if (tbody.id === 'ranks-rows') {
    const n = m.entrants ?? entries.length;
    $('ranks-meta').textContent = `${m.date || 'Today'} (UTC) · ${n} ${n === 1 ? 'entrant' : 'entrants'} · first tries only`;
  }
}

export async function openLeaderboard(game, size) {
  const { s, fx } = ctx;
  s.view = 'ranks';
  s.daily.ranksOf = { game, size };
  s.daily.table = null;
  ctx.render();
  $('ranks-h').textContent = `Daily · ${F.gameLabel(game)} ${F.sizeLabel(game, size)}`;
  $('ranks-meta').textContent = 'Loading…';
  $('ranks-rows').replaceChildren();
  const date = s.daily.date;
  if (s.conn.welcomed && fx.connected()) {
    fx.send(date ? { type: 'leaderboard', game, size, date } : { type: 'leaderboard', game, size });
    return;
  }
  try {
    const token = fx.store.token();
    const res = await fetch(`/api/daily/${encodeURIComponent(date || 'today')}/${game}/${size}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
    if (!res.ok) throw new Error(String(res.status));
    s.daily.table = { game, size, date, ...(await res.json()) };
    ctx.render();
  } catch {
    $('ranks-meta').textContent = 'The leaderboard could not be loaded. Enter your name and try again.';
  }
}
