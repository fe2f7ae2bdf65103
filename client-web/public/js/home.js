// Home: the name, make, practice, join, the how-to (an invite link's page:
// invite.js). The games' choice and the how-to come from the games' table.

import { $, el } from './dom.js';
import { GAMES, gameOf } from './games/index.js';
import { request, rename, joinMsg, leave, beScreen } from './actions.js';
import { unlock } from './audio.js';
import { noServer, quiet } from './state.js';
import { joinInvite } from './leagues.js';
import * as F from './format.js';

let ctx = null;

/** The choice of one race or a match (`create_room`'s and `set_match`'s `match`), here and in the lobby. */
export function fillMatchChoice(rounds, plan) {
  rounds.replaceChildren(
    el('option', { value: '', text: 'One race' }),
    ...F.MATCH_ROUNDS.map((n) => el('option', { value: String(n), text: `A match of ${n} rounds` })),
  );
  plan.replaceChildren(...F.PLANS.map(([value, text]) => el('option', { value, text })));
}
let lastBest = '';

export function init(c) {
  ctx = c;
  const { s, fx } = c;
  const name = () => $('name').value;
  const send = (msg) => (request(s, fx, msg, name()), c.render());
  const makeMsg = () => {
    const m = { type: 'create_room', game: gameChosen(), size: $('size').value, rank_by: $('rankby').value };
    const rounds = Number($('rounds').value);
    if (rounds) m.match = { rounds, plan: $('plan').value };
    return m;
  };
  fillGames();
  fillMatchChoice($('rounds'), $('plan'));
  c.on('rounds', 'change', () => ($('plan').hidden = $('plan-l').hidden = !$('rounds').value));
  for (const r of document.querySelectorAll('input[name=game]')) r.addEventListener('change', () => fillSizes());
  c.on('size', 'change', () => {});
  c.on('make', 'submit', () => send(makeMsg()));
  // This browser shows the room (a TV); the first phone in hosts it. The
  // press lets the screen's sounds play (audio.js).
  c.on('host-tv', 'click', () => (unlock(), beScreen(s, fx, { ...makeMsg(), party: true })));
  const practice = () => {
    const m = makeMsg();
    delete m.rank_by;
    delete m.match; // practice is one race alone
    s.soloNext = true;
    send(m);
  };
  // The server out of reach: practice in the page itself (and if the
  // connection this asks for fails first, app.js goes offline then).
  const away = () => s.conn.status === 'waiting' || s.conn.unreachable;
  $('practice').addEventListener('click', () => (away() ? fx.goOffline().then(practice) : practice()));
  $('offline').addEventListener('click', () => fx.goOffline().then(practice));
  // The banner's button: offline now, the player picks the game on home.
  $('down-offline').addEventListener('click', () =>
    fx.goOffline().then(() => {
      if (!s.room) s.view = 'home';
      c.render();
      $('make').scrollIntoView({ block: 'nearest' });
    }),
  );
  // The room's node is gone: its players who click share one new room.
  $('lost-new').addEventListener('click', () => {
    const lost = s.ui.lost;
    s.ui.lost = null;
    if (lost) send(lost.create);
  });
  const joinFromForm = (spectate) => {
    const text = $('code').value;
    const code = F.cleanCode(text);
    // A pasted link's key, or the invite link's with its code.
    const inv = s.ui.invite;
    const key = F.keyFrom(text) || (inv && inv.code === code ? inv.key : null);
    if (!code) {
      fx.toast('Type the room code (5 letters) or paste the link.');
      $('code').focus();
      return;
    }
    send(joinMsg(code, spectate, key));
  };
  c.on('join', 'submit', () => joinFromForm(false));
  c.on('watch', 'click', () => joinFromForm(true));
  c.on('name', 'input', () => {
    // Counted as the server counts (maxlength would count UTF-16 units).
    const input = $('name');
    const max = s.limits.max_name_chars;
    const clip = F.clipName(input.value, input.selectionEnd ?? input.value.length, max);
    const clipped = clip.value !== input.value;
    if (clipped) {
      input.value = clip.value;
      input.setSelectionRange(clip.caret, clip.caret);
    }
    s.ui.nameError = clipped ? `A name is at most ${max} characters.` : '';
    // Kept for the next visit; the server's name is the one shown.
    fx.store.setName(input.value.trim());
  });
  c.on('name', 'keydown', (e) => {
    if (e.key !== 'Enter') return;
    e.preventDefault();
    // From an invite link, Enter joins (the invitation's one button, unless held); else it saves the name.
    if (joinInvite(s)) return;
    if (!s.ui.invite) rename(s, fx, name());
    else if (!$('inv-join').hidden) $('inv-join').click();
  });
  c.on('name', 'change', () => s.conn.welcomed && !s.room && rename(s, fx, name()));
  c.on('brand', 'click', (e) => {
    e.preventDefault();
    // The logo leaves the room too, and asks first while my run is on, as Leave does.
    if (s.room) leave(s, fx);
    else {
      s.view = 'home';
      fx.go('/');
    }
  });
  // Quiet by default on a phone in a room a screen shows: a press here turns sound on for this player.
  c.on('mute', 'click', () => fx.store.setMuted(!quiet(s, fx.store)));
  $('name').value = F.clipName(fx.store.name(), undefined, s.limits.max_name_chars).value;
  fillSizes();
  // Below the fold: each demo is drawn when it scrolls near the view, one
  // per task, so the first paint and the page's first taps never wait on them
  // (drawing both at idle was one 161 ms task in Lighthouse's mobile trace).
  watchDemos();
  // An invite link: the invitation (invite.js, loaded for it by app.js) is
  // all home shows from the first paint, so nothing else is there to tap.
  const invited = F.codeFromPath(fx.path());
  if (invited) {
    s.ui.invite = { code: invited, key: F.keyFrom(fx.path()), room: null, failed: null };
    $('code').value = invited;
  }
}

const gameChosen = () => document.querySelector('input[name=game]:checked').value;

/** The Make card's choice of game (the table's first chosen) and the how-to: an article per game, its demo drawn later. */
function fillGames() {
  $('games').append(
    ...GAMES.map((g, i) =>
      el('label', {}, el('input', { type: 'radio', name: 'game', value: g.name, checked: i === 0 }), el('span', { text: g.title })),
    ),
  );
  // A how-to step's parts: text, or [tag, text, class].
  const part = (p) => (typeof p === 'string' ? p : el(p[0], { class: p[2], text: p[1] }));
  $('howtos').replaceChildren(
    ...GAMES.map(({ name, title, howto }) =>
      el(
        'article',
        {},
        el('h3', {}, title, ...(howto.sub ? [' ', el('span', { class: 'muted', text: howto.sub })] : [])),
        el('canvas', { class: 'demo', 'data-demo': name, role: 'img', 'aria-label': howto.alt }),
        el('ol', { 'data-howto': name }, ...howto.steps.map((parts) => el('li', {}, ...parts.map(part)))),
        el('p', { class: 'note', text: howto.note }),
      ),
    ),
  );
}

function fillSizes() {
  const game = gameOf(gameChosen());
  const keep = $('size').value;
  $('size').replaceChildren(...game.sizes.map((sz) => el('option', { value: sz.size, text: F.sizeWords(sz) })));
  if (game.sizes.some((sz) => sz.size === keep)) $('size').value = keep;
  ctx.render();
}

export function render(s) {
  const err = $('name-err');
  err.textContent = s.ui.nameError;
  err.hidden = !s.ui.nameError;
  $('name').setAttribute('aria-invalid', String(!!s.ui.nameError));
  const m = quiet(s, ctx.fx.store);
  $('mute').setAttribute('aria-pressed', String(m));
  $('mute').textContent = m ? 'Sound off' : 'Sound on';
  const me = $('me-name');
  me.textContent = s.conn.welcomed && s.me.name ? s.me.name : '';
  me.title = me.textContent;
  $('me-wrap').hidden = !me.textContent;
  // The rest of home goes while an invitation is up (style.css; invite.js fills it in).
  $('home').toggleAttribute('data-invited', !!s.ui.invite && !s.room);
  if (s.view !== 'home') return;
  const game = gameChosen();
  const b = ctx.fx.store.best(game, $('size').value);
  const text = b ? `Your best here: ${F.best(b, game)}` : 'No best on this size yet.';
  $('offline').hidden = s.conn.offline;
  if (text !== lastBest) $('best-here').textContent = lastBest = text;
  renderMakeOff(s);
}

/**
 * No server (out of reach, or playing offline): Make room cannot work, and
 * nobody could join a room anyway. Said in the Make card, before anyone
 * presses it, with solo play (Practice alone, in this page) as the way on.
 */
function renderMakeOff(s) {
  const off = s.conn.offline;
  const down = noServer(s);
  const note = $('make-off');
  note.hidden = !down;
  $('practice').classList.toggle('primary', down);
  $('make-go').classList.toggle('primary', !down);
  const text = off
    ? 'You are offline: a room needs the server, and nobody could join one now. Practice alone plays these settings in this page.'
    : "Can't reach the server: a room needs it. Practice alone plays these settings in this page.";
  if (down && note.textContent !== text) note.textContent = text;
}

function watchDemos() {
  const canvases = document.querySelectorAll('canvas.demo');
  if (!globalThis.IntersectionObserver) {
    for (const c of canvases) (globalThis.requestIdleCallback || setTimeout)(() => drawDemo(c));
    return;
  }
  const seen = new IntersectionObserver(
    (entries) => {
      for (const e of entries) {
        if (!e.isIntersecting) continue;
        seen.unobserve(e.target);
        drawDemo(e.target);
      }
    },
    { rootMargin: '200px' },
  );
  for (const c of canvases) seen.observe(c);
}
/** A game's demo board (its `demo`), the rules and the drawing loaded for it: home itself reads and draws no board. */
async function drawDemo(c) {
  const [{ draw, fit }, { parseBoard, marks }] = await Promise.all([import('./render.js'), import('./rules.js')]);
  const { board: shape, at, visited } = gameOf(c.dataset.demo).demo;
  const board = parseBoard(shape);
  const layout = fit(c, board.n, 22 * board.n);
  draw(c, layout, { board, me: { ...at, ...marks(at, board) }, visited: visited && new Set(visited) });
}
