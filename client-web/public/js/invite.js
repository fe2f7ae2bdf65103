// Screen: an invite link's page (/r/CODE?k=KEY), shown in home's place
// until the friend joins or says "Not now": whose room, its game and who is
// in (GET /api/rooms/{code}?k=KEY), home's name field and one Join button
// (Enter in the name joins too: home.js). Loaded only for a room link
// (app.js), so home's own page does not carry it (README, "Size").

import { $, el, tags, names, getJson, nm } from './dom.js';
import { request, joinMsg } from './actions.js';
import * as F from './format.js';

let ctx = null;
/** Home's own heading, given back when the invitation is put away. */
let homeTitle = '';
/** What the page was last drawn from (redrawn only on a change: a screen reader may be reading it). */
let drawn = '';

/** The invited room has no racer's seat left: its one button watches (a racer would be refused `room_full`). */
const full = (inv) => {
  const r = inv && inv.room;
  return !!r && Array.isArray(r.players) && Number.isFinite(r.max_players) && r.players.length >= r.max_players;
};

export function init(c) {
  ctx = c;
  const { s, fx } = c;
  homeTitle = $('home-h').textContent;
  // The one button: the invited room, with the link's key.
  c.on('inv-join', 'click', () => {
    const inv = s.ui.invite;
    if (inv) request(s, fx, joinMsg(inv.code, full(inv), inv.key), $('name').value);
  });
  // Not now: the whole home page, the invitation put away (the Join card keeps its code).
  c.on('inv-home', 'click', (e) => {
    e.preventDefault();
    s.ui.invite = null;
    s.view = 'home';
    fx.go('/');
    requestAnimationFrame(() => $('home-h').focus());
  });
  if (s.ui.invite) look(s, s.ui.invite.code, s.ui.invite.key);
}

/**
 * The room from GET /api/rooms/{code}?k=KEY or, when that fails, why:
 * `gone` (404: no such room, or not with this key), `unreachable` (no answer
 * at all: the server is down, which the banner says), else `other`.
 */
async function look(s, code, key) {
  s.ui.invite = { code, key, room: null, failed: null };
  ctx.render();
  let failed = 'other';
  const body = await getJson(`/api/rooms/${encodeURIComponent(code)}${key ? `?k=${key}` : ''}`).catch((e) => {
    failed = e instanceof TypeError ? 'unreachable' : e.message === '404' ? 'gone' : 'other';
    if (failed === 'unreachable') s.conn.unreachable = true;
    return null;
  });
  if (!s.ui.invite || s.ui.invite.code !== code) return;
  const to = body && body.moved;
  if (to && typeof to.code === 'string' && typeof to.key === 'string') {
    // The room moved to another server (a restart): the page, the link and the join follow it.
    history.replaceState(null, '', F.roomPath(to.code, to.key));
    $('code').value = to.code;
    return look(s, to.code, to.key);
  }
  if (body && typeof body.game === 'string') s.ui.invite.room = body;
  else s.ui.invite.failed = failed;
  ctx.render();
}

export function render(s) {
  const inv = s.ui.invite;
  const on = !!inv && !s.room;
  for (const id of ['inv-kicker', 'invite', 'inv-later']) $(id).hidden = !on;
  $('inv-join').hidden = !on || inv.failed === 'gone';
  const key = on ? JSON.stringify(inv) : '';
  if (key === drawn) return;
  drawn = key;
  if (!on) {
    $('home-h').textContent = homeTitle;
    return;
  }
  const r = inv.room;
  const host = r && typeof r.host === 'string' && r.host ? r.host : null;
  $('inv-kicker').textContent = `Invitation · room ${inv.code}`;
  if (inv.failed === 'gone') $('home-h').textContent = 'This invitation no longer works';
  else if (host) $('home-h').replaceChildren(nm(host), ' invites you to a race');
  else $('home-h').textContent = 'You are invited to a race';
  $('inv-join').textContent = full(inv) ? 'Watch the room' : 'Join the room';
  $('inv-home').textContent = inv.failed === 'gone' ? 'Go to the home page' : 'Not now: go to the home page';
  const rows = [];
  if (inv.failed === 'gone') {
    rows.push('The room has closed, or the link was cut short. Ask for a new link, or make a room of your own.');
  } else if (!r) {
    rows.push(inv.failed ? 'The room could not be looked up just now; you can still join it.' : 'Looking up the room…');
  } else {
    rows.push(el('span', { class: 'tags' }, ...tags([F.gameLabel(r.game), F.sizeLabel(r.game, r.size)])));
    const who = Array.isArray(r.players) ? r.players.filter((n) => typeof n === 'string') : [];
    if (who.length) rows.push(names('In the room', who));
    if (full(inv)) rows.push(el('span', { class: 'muted', text: 'The room is full: you can watch.' }));
    else if (r.phase && r.phase !== 'lobby')
      rows.push(el('span', { class: 'muted', text: 'A race is on: you watch it and race in the next one.' }));
  }
  $('invite').replaceChildren(...rows.map((x) => el('span', { class: 'line' }, x)));
}
