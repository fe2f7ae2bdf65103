// Boots the page: the state, storage, the connection, the effects `fx`, the screens.

import { createState } from './state.js';
import { handle } from './handlers.js';
import * as engine from './engine.js';
import { leave, runAtStake, practiceMsg, beScreen, joinMsg } from './actions.js';
import * as F from './format.js';
import { makeStore, memoryStorage, channelLocks } from './store.js';
import { Connection } from './net.js';
import { buzz } from './audio.js';
import { announce, getJson, siteBaseFrom } from './dom.js';
import { renderAll, toast, bump, copy } from './ui.js';
import * as home from './home.js';
import * as daily from './daily.js';
import * as rival from './rival.js';
import * as leagues from './leagues.js';

const storageOr = (get) => {
  try {
    const st = get();
    st.getItem('x');
    return st;
  } catch {
    return memoryStorage();
  }
};

const s = createState();
const store = makeStore(
  storageOr(() => localStorage),
  storageOr(() => sessionStorage),
  () => Date.now(),
  navigator.locks || channelLocks(),
);
const screens = [home, daily, rival, leagues];
/**
 * The screens home does not show (lobby, race, results, replay, a match's)
 * load when the player first heads for a room or a replay, not with the home
 * page: the page over the wire stays small (README, "Size"). A room's answer takes
 * a round trip anyway, and the import starts with the request.
 */
let roomScreens = null;
let replayView = null;
/** The views whose screens load with the room screens. */
const ROOM_VIEWS = new Set(['lobby', 'play', 'replay']);
function loadRoomScreens() {
  engine.load().catch(() => {}); // beside the screens (which import it too): a board's messages wait for it
  roomScreens ||= Promise.all(['./lobby.js', './race.js', './results.js', './replayview.js', './matchview.js'].map((m) => import(m))).then(
    (mods) => {
      for (const m of mods) m.init(ctx);
      screens.push(...mods);
      replayView = mods[3];
      render();
      return replayView;
    },
  );
  // Not loaded (the network went): the room waits on home, and the next
  // render asks again instead of keeping the failure for the page's life.
  roomScreens.catch(() => {
    roomScreens = null;
    if (s.room) toast("The room's screens did not load: trying again.");
  });
  return roomScreens;
}
/** The screen's view (a TV: tv.js), loaded only on a page that is one. */
let tvView = null;
let tvLoading = null;
function loadTv() {
  tvLoading ||= import('./tv.js').then(
    async (m) => {
      await m.init(ctx); // its stylesheet loaded: the screen is measured as it looks
      screens.push(m);
      tvView = m;
      render();
    },
    () => (tvLoading = null), // the next render asks again
  );
}
function render() {
  if (s.tv && !tvLoading) loadTv();
  if (!roomScreens && (s.room || s.intent || s.lastIntent || s.view !== 'home')) loadRoomScreens();
  // A room view is shown once its screen is here: shown before, it is an
  // empty section for a moment (no code, no players), and whoever reads it
  // then (a person, a screen reader given its focus, a test) reads nothing.
  const ready = s.view === 'tv' ? !!tvView : replayView !== null || !ROOM_VIEWS.has(s.view);
  renderAll(s, screens, ready);
}

/** Server messages in order; one carrying a board waits for the engine, which loads with the room screens. */
const receive = engine.inbox({ ready: () => !!engine.rules, load: engine.load, each: (m) => handle(s, m, fx), after: () => render() });

/** Names the room, for a load balancer (docs/OPERATIONS.md, "Running several nodes"). */
function wsUrl(st) {
  const join = st.intent && st.intent.type === 'join_room' ? st.intent.code : null;
  const code = (st.room && st.room.code) || join || (st.ui.invite && st.ui.invite.code);
  const base = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`;
  return code && !st.conn.offline ? `${base}?room=${encodeURIComponent(code)}` : base;
}

let conn = null;
function useTransport(Transport) {
  if (conn) conn.close();
  conn = new Transport({
    url: () => wsUrl(s),
    hello: () => {
      s.me.helloName = s.me.helloName || store.name();
      const token = store.token();
      return token ? { type: 'hello', name: s.me.helloName, token } : { type: 'hello', name: s.me.helloName };
    },
    onMessage: receive,
    onState: (state, wait) => {
      s.conn.welcomed = false;
      s.conn.status = state;
      s.conn.wait = wait || 0;
      s.conn.taken = state === 'taken';
      if (state === 'waiting') {
        s.conn.fails += 1;
        // Practice alone needs no server: with none to reach, it goes offline by itself.
        if (practiceMsg(s.intent) && s.soloNext && !s.conn.offline) goOffline();
      }
      if (s.conn.taken) toast('You opened this game in another tab or window. Click the board to play here.');
      render();
    },
  });
}

const fx = {
  send: (msg) => conn.send(msg),
  connect: () => conn.active || conn.connect(),
  connected: () => conn.open,
  reconnect: () => conn.restart(),
  now: () => performance.now(),
  wall: () => Date.now(),
  later: (fn, ms) => setTimeout(() => (fn(), render()), ms),
  store,
  announce,
  toast,
  buzz,
  cue: (kind) => tvView && tvView.cue(kind),
  bump,
  path: () => location.pathname + location.search,
  go: (path) => history.pushState(null, '', path),
  loadDaily: () => daily.loadDaily(),
  useTransport,
  goOffline,
};

/** Listens on element `id` (a submit's default prevented), then renders. */
function on(id, type, fn) {
  document.getElementById(id).addEventListener(type, (e) => {
    if (type === 'submit') e.preventDefault();
    fn(e);
    render();
  });
}

const watchRun = (...a) => loadRoomScreens().then((replay) => replay.watchRun(...a));
const watchLine = (...a) => loadRoomScreens().then((replay) => replay.watchLine(...a));
const ctx = { s, fx, render, copy, watchRun, watchLine, on };
useTransport(Connection);
// Offline play is loaded only when going offline (README, "Size"): the
// service worker keeps it cached where there can be one; a plain-HTTP page
// has none, so it fetches the modules once the page is idle, for the open tab.
let offline = null;
async function goOffline() {
  const { Offline } = await import('./offlinemode.js');
  offline ||= new Offline({ s, fx, useTransport, Connection, render, toast });
  offline.start();
}
if (isSecureContext && navigator.serviceWorker) import('./offline/sw-register.js').then((m) => m.registerServiceWorker());
else {
  // No service worker here (plain http): what offline play needs is fetched
  // once the page is idle, for this open tab to go offline with the server gone.
  addEventListener('load', () =>
    (globalThis.requestIdleCallback || setTimeout)(() => {
      import('./offlinemode.js').catch(() => {});
      loadRoomScreens().catch(() => {});
    }),
  );
}
for (const sc of screens) sc.init(ctx);
// A room on a big screen (/tv/CODE?k=KEY, "Show on a big screen"): the page
// is its screen from the start, and joins with no input (tv.js).
const tvCode = F.codeFromPath(location.pathname, 'tv');
if (tvCode) beScreen(s, fx, joinMsg(tvCode, false, F.keyFrom(location.search), true), { boot: true });
// An invite link's page: its own module (README, "Size"), asked for at once.
if (s.ui.invite)
  import('./invite.js').then((m) => {
    m.init(ctx);
    screens.push(m);
    render();
  });
addEventListener('popstate', () => {
  if (location.pathname === '/' && s.room) {
    // The browser's Back is a tap too: with my run still on, stay and ask (as Leave does).
    if (runAtStake(s)) {
      history.pushState(null, '', F.roomPath(s.room.code, s.room.key));
      leave(s, fx);
      return render();
    }
    fx.send({ type: 'leave_room' });
    s.room = null;
    s.view = 'home';
    render();
  }
});

render();
// Out of reach with no socket trying (a first visit has none): asked again
// now and then, so the banner and the held buttons go when the server is back.
setInterval(() => {
  if (s.conn.unreachable && !s.conn.offline && !conn.active) daily.loadDaily();
}, 5000);
// The address for the links others open (dom.js siteUrl).
getJson('/api/urls')
  .then((urls) => {
    s.ui.siteBase = siteBaseFrom(urls, location.hostname);
    render();
  })
  .catch(() => {});
// Resume a seat, or open the invited room straight away, once this tab knows which player it is.
store.claim().then(() => {
  // A player who may be resumed into a room (a token), or a room link: its screens now.
  if (store.token() || F.codeFromPath(location.pathname)) loadRoomScreens();
  daily.loadDaily();
  if (store.name() || s.tv) fx.connect();
  else if (s.ui.invite || s.leagues.invite) document.getElementById('name').focus();
});

// A read-only window for tests and debugging, each a getter.
const peek = {
  view: () => s.view,
  board: () => s.race.board,
  game: () => s.game.pred && s.game.pred.game,
  room: () => s.room,
  clock: () => s.race.clock,
  me: () => ({ id: s.me.id, name: s.me.name }),
  replay: () => (replayView ? replayView.replayState() : { error: null }),
  line: () => (s.replay.line ? { i: s.replay.line.pb.i, last: s.replay.line.pb.last, playing: s.replay.line.pb.playing } : null),
  markers: () => s.others.markers.map((m) => ({ ...m, pos: m.pos.slice() })),
  visited: () => [...s.game.visited].sort(),
  tv: () => (s.tv ? { ...s.tv } : null),
};
globalThis.__mazerace = Object.defineProperties(
  {},
  Object.fromEntries(Object.entries(peek).map(([k, get]) => [k, { get, enumerable: true }])),
);
