// Leagues (issue 15): the home card, the /l/CODE join card, the league view.

import { $, el, btn, cells, note, getJson, names, nm, siteUrl } from './dom.js';
import { leagueAct, openLeague } from './actions.js';
import { table, lbTable } from './daily.js';
import * as F from './format.js';

let ctx = null;

export function init(c) {
  ctx = c;
  const { s, fx } = c;
  const act = (msg) => leagueAct(s, fx, msg, $('name').value);
  c.on('lmake', 'submit', () => act({ type: 'create_league', name: $('lname').value.trim() }));
  c.on('ljoin', 'submit', () => {
    const code = F.leagueCode($('lcode').value);
    if (code) act({ type: 'join_league', code });
  });
  c.on('lg-leave', 'click', () => act({ type: 'leave_league', code: s.leagues.open }));
  c.on('lg-back', 'click', () => (fx.go('/'), (s.view = 'home')));
  c.on('lg-copy', 'click', () => c.copy($('lg-link').value, 'Link copied.', $('lg-link')));
  // Removing a puppet does not keep it out: a new code does (remove first, then this).
  c.on('lg-newcode', 'click', () => fx.send({ type: 'new_league_code', code: s.leagues.open }));
  for (const days of [7, 30]) {
    c.on(`lg-${days}`, 'click', () => {
      s.leagues.days = days;
      openLeague(s, fx, s.leagues.open);
    });
  }
  const code = F.leagueFromPath(fx.path());
  if (code) invite(s, code, F.keyFrom(fx.path()));
}

/** A /l/CODE?k=KEY link's card: name and members from the standings (anyone may read them). */
async function invite(s, code, key) {
  s.leagues.invite = { code, key };
  const b = await getJson(`/api/leagues/${code}/standings?days=7${key ? `&k=${key}` : ''}`).catch(() => null);
  if (b && s.leagues.invite && s.leagues.invite.code === code)
    s.leagues.invite = { code, key, name: b.name, names: (b.lines || []).map((l) => l.name) };
  ctx.render();
}

export function joinInvite(s) {
  const inv = s.leagues.invite;
  if (!inv) return false;
  leagueAct(s, ctx.fx, F.withKey({ type: 'join_league', code: inv.code }, inv.key), $('name').value);
  ctx.render();
  return true;
}

export function render(s) {
  const L = s.leagues;
  const err = $('league-err');
  err.textContent = L.error;
  err.hidden = !L.error;
  renderInvite(s);
  $('leagues').hidden = s.conn.offline;
  if (s.view === 'home') renderMine(s);
  if (s.view === 'league') {
    $('lname').value = $('lcode').value = '';
    renderLeague(s);
  }
}

function renderInvite(s) {
  const inv = s.leagues.invite;
  const card = $('linvite');
  card.hidden = !inv;
  if (!inv) return;
  const lines = [el('strong', {}, 'You are invited to the league ', nm(inv.name || inv.code), '.')];
  if (inv.names && inv.names.length) lines.push(names('In it', inv.names));
  if (s.leagues.error) lines.push(el('span', { class: 'err', text: s.leagues.error }));
  lines.push(btn('Join the league', null, () => joinInvite(s), 'primary'));
  card.replaceChildren(...lines.map((x) => el('span', { class: 'line' }, x)));
}

let mineKey = '';
function renderMine(s) {
  const mine = s.leagues.mine;
  // Rebuilt only on a change (as daily.js's panel).
  const key = JSON.stringify(mine);
  if (key === mineKey) return;
  mineKey = key;
  const rows = (mine || []).map((l) =>
    el(
      'li',
      { 'data-league': l.code },
      el('span', { class: 'what' }, nm(l.name), el('span', { class: 'state', text: `${F.leagueToday(l.today)} · ${l.members} in it` })),
      btn('Open', `Open the league ${l.name}`, () => (openLeague(s, ctx.fx, l.code), ctx.render())),
    ),
  );
  if (!rows.length)
    rows.push(
      el('li', { class: 'muted', text: mine ? 'No leagues yet: make one and send its link.' : 'Enter your name to see your leagues.' }),
    );
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
  $('lg-meta').textContent =
    `Code ${code}${info.members ? ` · ${info.members} in it` : ''}${info.today ? ` · you: ${F.leagueToday(info.today)}` : ''}`;
  $('lg-link').value = `${siteUrl(s)}${F.leaguePath(code, info.key)}`;
  $('lg-owner').hidden = !F.owns(st);
  for (const d of [7, 30]) $(`lg-${d}`).setAttribute('aria-pressed', String(L.days === d));
  $('lg-range').textContent = st && st.from ? `${st.from} to ${st.to} (UTC)` : '';
  if (standings !== st) {
    standings = st;
    const lines = st ? st.lines || [] : [];
    const mayRemove = F.removable(st);
    const remove = (l) =>
      mayRemove.includes(l.member)
        ? btn('Remove', `Remove ${l.name} from the league`, () => ctx.fx.send({ type: 'remove_member', code, member: l.member }))
        : null;
    const trs = lines.map((l) => el('tr', { class: l.you ? 'me' : '' }, ...cells(F.standingCells(l)), el('td', {}, remove(l))));
    $('lg-stand').replaceChildren(...(trs.length ? trs : [note(7, st ? 'Nobody has played yet.' : 'Loading…')]));
  }
  const wrap = $('lg-boards');
  const have = [...wrap.children].map((t) => t.dataset.board).join();
  if (have !== s.daily.boards.map((b) => `${b.game}.${b.size}`).join()) {
    wrap.replaceChildren(
      ...s.daily.boards.map((b) =>
        el('div', { 'data-board': `${b.game}.${b.size}` }, el('h3', { text: F.label(b.game, b.size, ' · ') }), lbTable()),
      ),
    );
  }
  for (const div of wrap.children) table(div.querySelector('tbody'), L.boards.get(div.dataset.board) || null, 'Nobody has played it yet.');
}
