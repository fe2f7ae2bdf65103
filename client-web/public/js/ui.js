// Around the screens: the view and its focus, the connection pill, toasts.

import { $, el } from './dom.js';
import { serverDown, noServer, overtakesRestart } from './state.js';

const VIEWS = ['home', 'lobby', 'play', 'ranks', 'replay', 'league', 'tv'];
let shownView = null;
let toastTimer = 0;
let toastKey = null;
let bumpTimer = 0;

/** `viewReady`: the screen of `s.view` has loaded; until it has, the view shown stays. */
export function renderAll(s, screens, viewReady = true) {
  if (viewReady && shownView !== s.view) {
    shownView = s.view;
    document.body.dataset.view = s.view;
    for (const id of VIEWS) $(id).hidden = id !== s.view;
    const focus = { lobby: 'lobby-h', ranks: 'ranks-h', league: 'lg-h', play: s.race.results ? 'results-h' : 'stage' }[s.view];
    if (focus) $(focus).focus({ preventScroll: true });
  }
  document.title = s.room && s.view !== 'home' ? `Room ${s.room.code} · mazerace` : 'mazerace';
  renderConn(s);
  for (const sc of screens) sc.render(s);
  // After the screens: the buttons they have just built are held too.
  renderDown(s);
}

/**
 * The server out of reach (README, "Server gone"): a banner that offers
 * offline play; offline, the home page says so. Every button that needs the
 * server (`data-server`: make, join, the daily) is disabled meanwhile, not
 * left to fail once pressed.
 */
function renderDown(s) {
  const down = serverDown(s);
  const off = s.conn.offline && s.view === 'home';
  $('down').hidden = !down && !off;
  $('down').classList.toggle('off', off);
  $('down-offline').hidden = !down;
  const [head, more] = off
    ? s.conn.back
      ? ['The server is back.', 'Going online…']
      : [
          'You are offline.',
          'Solo practice works in this page; rooms and the daily challenge come back by themselves when the server answers.',
        ]
    : ["Can't reach the server.", 'Rooms and the daily challenge need it; solo practice works in this page.'];
  if ($('down-head').textContent !== head) $('down-head').textContent = head;
  if ($('down-more').textContent !== more) $('down-more').textContent = more;
  const none = noServer(s);
  for (const b of document.querySelectorAll('[data-server]')) b.disabled = none;
  $('lost').hidden = !s.ui.lost;
  if (overtakesRestart(s)) retract('restarting');
}

function renderConn(s) {
  const c = $('conn');
  const st = s.conn.status;
  const off = s.conn.offline;
  c.className = 'conn ' + (off ? 'off' : st === 'open' ? 'on' : st === 'connecting' || st === 'idle' ? '' : 'off');
  // [what, detail]: the detail is dropped on a phone (style.css), the words stay for screen readers.
  const [what, more] = off
    ? ['Offline', ` · ${s.conn.back ? 'the server is back' : 'solo practice'}`]
    : ({
        idle: [''],
        open: ['Online'],
        waiting: ['Reconnecting', ` in ${Math.ceil(s.conn.wait / 1000)} s…`],
        taken: ['Playing in another tab'],
      }[st] ?? ['Connecting…']);
  const key = `${what}|${more}`;
  if (c.dataset.said === key) return;
  c.dataset.said = key;
  c.replaceChildren(what, ...(more ? [el('span', { class: 'more', text: more })] : []));
}

/** Shows `text` for a few seconds; `key` names it for `retract`. */
export function toast(text, key = null) {
  const t = $('toast');
  toastKey = key;
  t.textContent = text;
  t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (t.hidden = true), 3500);
}

/** Takes down the toast named `key` if it is showing: its news is stale. */
function retract(key) {
  const t = $('toast');
  if (toastKey !== key || t.hidden) return;
  clearTimeout(toastTimer);
  t.hidden = true;
}

export function bump() {
  const st = $('stage');
  st.classList.remove('bump');
  void st.offsetWidth; // restart the animation
  st.classList.add('bump');
  clearTimeout(bumpTimer);
  bumpTimer = setTimeout(() => st.classList.remove('bump'), 200);
}

export async function copy(text, done, input) {
  try {
    await navigator.clipboard.writeText(text);
    toast(done);
  } catch {
    // Plain http on a LAN address is not a secure context: no clipboard API.
    if (input && input.select) {
      input.select();
      toast(document.execCommand && document.execCommand('copy') ? done : 'Select the text and copy it.');
    } else toast('Select the text and copy it.');
  }
}
