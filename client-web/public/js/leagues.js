// Leagues (issue 15): the home card, the /l/CODE join card and the league view.
// League and player names are data: only ever textContent.

import { $, el } from './dom.js';
import { leagueAct, openLeague } from './actions.js';
import { table } from './daily.js';
import * as F from './format.js';

let ctx = null;

export function init(c) {
  ctx = c;
  const { s, fx } = c;
  const act = (msg) => {
    leagueAct(s, fx, msg, $('name').value);
    c.render();
  };
  $('lmake').addEventListener('submit', (e) => {
    e.preventDefault();
    act({ type: 'create_league', name: $('lname').value.trim() });
  });
  $('ljoin').addEventListener('submit', (e) => {
    e.preventDefault();
    const code = F.leagueCode($('lcode').value);
    if (code) act({ type: 'join_league', code });
  });
  $('lg-leave').addEventListener('click', () => act({ type: 'leave_league', code: s.leagues.open }));
  $('lg-back').addEventListener('click', () => {
    s.view = 'home';
    fx.go('/');
    c.render();
  });
  $('lg-copy').addEventListener('click', () => c.copy($('lg-link').value, 'Link copied.', $('lg-link')));
  for (const days of [7, 30]) {
    $(`lg-${days}`).addEventListener('click', () => {
      s.leagues.days = days;
      openLeague(s, fx, s.leagues.open);
      c.render();
    });
  }
  const code = F.leagueFromPath(fx.path());
  if (code) invite(s, code);
}

/** The join card of a /l/CODE link: its name and members from the standings (a read anyone may make). */
async function invite(s, code) {
  s.leagues.invite = { code };
  try {
    const res = await fetch(`/api/leagues/${code}/standings?days=7`);
    const b = res.ok ? await res.json() : null;
    if (b && s.leagues.invite && s.leagues.invite.code === code) s.leagues.invite = { code, name: b.name, names: (b.lines || []).map((l) => l.name) };
  } catch {
    /* the code alone */
  }
  ctx.render();
}

export function joinInvite(s) {
  if (!s.leagues.invite) return false;
  leagueAct(s, ctx.fx, { type: 'join_league', code: s.leagues.invite.code }, $('name').value);
  ctx.render();
  return true;
}

const nm = (text) => el('span', { class: 'nm', text });

export function render(s) {
  const L = s.leagues;
  const err = $('league-err');
  err.textContent = L.error;
  err.hidden = !L.error;
  renderInvite(s);
  $('leagues').hidden = s.conn.offline; // the offline stand-in has no leagues
  if (s.view === 'home') renderMine(s);
  if (s.view === 'league') {
    $('lname').value = $('lcode').value = ''; // made or joined
    renderLeague(s);
  }
}

function renderInvite(s) {
  const inv = s.leagues.invite;
  const card = $('linvite');
  card.hidden = !inv;
  if (!inv) return;
  const lines = [el('strong', {}, 'You are invited to the league ', nm(inv.name || inv.code), '.')];
  if (inv.names && inv.names.length) lines.push(el('span', {}, `In it (${inv.names.length}): `, ...inv.names.flatMap((n, i) => [i ? ', ' : '', nm(n)])));
  if (s.leagues.error) lines.push(el('span', { class: 'err', text: s.leagues.error }));
  lines.push(el('button', { type: 'button', class: 'primary', text: 'Join the league', onclick: () => joinInvite(s) }));
  card.replaceChildren(...lines.map((x) => el('span', { class: 'line' }, x)));
}

let mineKey = '';
function renderMine(s) {
  const mine = s.leagues.mine;
  // Rebuilt only when it changes: a button replaced between press and release would lose the click.
  const key = JSON.stringify(mine);
  if (key === mineKey) return;
  mineKey = key;
  const rows = (mine || []).map((l) =>
    el(
      'li',
      { 'data-league': l.code },
      el('span', { class: 'what' }, nm(l.name), el('span', { class: 'state', text: `${F.leagueToday(l.today)} · ${l.members} in it` })),
      el('button', { type: 'button', text: 'Open', 'aria-label': `Open the league ${l.name}`, onclick: () => (openLeague(s, ctx.fx, l.code), ctx.render()) }),
    ),
  );
  if (!rows.length) rows.push(el('li', { class: 'muted', text: mine ? 'No leagues yet: make one and send its link.' : 'Enter your name to see your leagues.' }));
  $('league-list').replaceChildren(...rows);
}

let standings = null;

function renderLeague(s) {
  const L = s.leagues;
  const code = L.open;
  const info = (L.mine || []).find((l) => l.code === code) || {};
  const st = L.standings;
  const name = info.name || (st && st.name) || code;
  $('lg-h').textContent = name;
  $('lg-meta').textContent = `Code ${code}${info.members ? ` · ${info.members} in it` : ''}${info.today ? ` · you: ${F.leagueToday(info.today)}` : ''}`;
  $('lg-link').value = `${location.origin}/l/${code}`;
  for (const d of [7, 30]) $(`lg-${d}`).setAttribute('aria-pressed', String(L.days === d));
  $('lg-range').textContent = st && st.from ? `${st.from} to ${st.to} (UTC)` : '';
  if (standings !== st) {
    standings = st;
    const lines = st ? st.lines || [] : [];
    const trs = lines.map((l) => el('tr', { class: l.you ? 'me' : '' }, ...F.standingCells(l).map((c) => el('td', { text: c, title: c }))));
    $('lg-stand').replaceChildren(...(trs.length ? trs : [el('tr', {}, el('td', { colspan: '6', class: 'muted', text: st ? 'Nobody has played yet.' : 'Loading…' }))]));
  }
  const wrap = $('lg-boards');
  const have = [...wrap.children].map((t) => t.dataset.board).join();
  if (have !== s.daily.boards.map((b) => `${b.game}.${b.size}`).join()) {
    wrap.replaceChildren(
      ...s.daily.boards.map((b) =>
        el(
          'div',
          { 'data-board': `${b.game}.${b.size}` },
          el('h3', { text: `${F.gameLabel(b.game)} · ${F.sizeLabel(b.game, b.size)}` }),
          el('table', { class: 'table lbt' }, el('thead', {}, el('tr', {}, ...['#', 'Player', '', 'Time', ''].map((text) => el('th', { text })))), el('tbody')),
        ),
      ),
    );
  }
  for (const div of wrap.children) table(div.querySelector('tbody'), L.boards.get(div.dataset.board) || null, 'Nobody has played it yet.');
}
