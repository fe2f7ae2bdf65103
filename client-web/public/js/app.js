// The page: views (home, lobby, race with results, daily leaderboard), the
// reaction to every server message, input, and the render loop. Rules live in
// rules.js, prediction in predict.js, the socket in net.js, drawing in
// render.js. Every name or server string reaches the page through textContent,
// never innerHTML: player names are data, not markup.

import { parseBoard, dirTo, samePos, gateOpen } from './rules.js';
import { Predictor } from './predict.js';
import { makeStore, memoryStorage } from './store.js';
import { Connection } from './net.js';
import { fit, draw, cellAt, PALETTE, RACER_COLOURS } from './render.js';
import { replayFrames, trailAt } from './replay.js';
import { initReplay, openReplay, closeReplay, replayState } from './replayview.js';
import { buzz } from './audio.js';
import * as F from './format.js';
import { $, el, announce, pill } from './dom.js';

const storageOr = (get) => {
  try {
    const s = get();
    s.getItem('x');
    return s;
  } catch {
    return memoryStorage();
  }
};
const store = makeStore(storageOr(() => localStorage), storageOr(() => sessionStorage));
const reducedMotion = matchMedia('(prefers-reduced-motion: reduce)');

const S = {
  me: null, // my player id
  welcomed: false,
  helloName: '',
  intent: null, // a message to send once welcomed
  lastIntent: null,
  soloNext: false, // a room of one: start as soon as its lobby appears
  room: null,
  board: null,
  pred: null,
  seq: 0,
  progress: new Map(),
  finished: new Map(),
  colours: new Map(),
  t0: 0, // performance.now() at the start signal
  firstMove: 0,
  doneMs: null,
  visited: new Set(),
  results: null,
  countdown: 0,
  gateWas: false,
  replay: null,
  lanBase: null,
  view: 'home',
  awaitingSnap: false,
};

// ---------------------------------------------------------------- connection

const conn = new Connection({
  url: `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`,
  hello: () => {
    S.helloName = currentName();
    const token = store.token();
    return token ? { type: 'hello', name: S.helloName, token } : { type: 'hello', name: S.helloName };
  },
  onMessage: (m) => (HANDLERS[m.type] || (() => {}))(m),
  onState: (state, wait) => {
    S.welcomed = false;
    const c = $('conn');
    c.className = 'conn ' + (state === 'open' ? 'on' : state === 'connecting' ? '' : 'off');
    c.textContent = {
      open: 'Online',
      waiting: `Reconnecting in ${Math.ceil(wait / 1000)} s…`,
      taken: 'Playing in another tab',
    }[state] || 'Connecting…';
    S.taken = state === 'taken';
    if (S.taken) toast('You opened this game in another tab or window. Click the board to play here.');
    renderOverlay();
  },
});
setInterval(() => S.welcomed && store.keepClaim(), 4000);

function currentName() {
  return $('name').value.trim();
}

/** Sends `msg` now if welcomed, else connects and sends it after `welcome`. */
function request(msg) {
  const name = currentName();
  if (!name) {
    nameError('Enter a name first: the others will see it.');
    return;
  }
  nameError('');
  store.setName(name);
  if (S.welcomed && name === S.helloName) {
    S.lastIntent = msg;
    conn.send(msg);
    return;
  }
  S.intent = msg;
  if (!conn.ws) conn.connect();
  else if (S.welcomed) conn.restart(); // a new name needs a new hello
  // else still connecting: the welcome sends it
}

function runIntent() {
  const msg = S.intent || (!S.room && F.codeFromPath(location.pathname) ? joinMsg(F.codeFromPath(location.pathname)) : null);
  S.intent = null;
  if (msg) {
    S.lastIntent = msg;
    conn.send(msg);
  }
}

const joinMsg = (code, spectate = false) => (spectate ? { type: 'join_room', code, spectate } : { type: 'join_room', code });

// ------------------------------------------------------------------ messages

const HANDLERS = {
  welcome(m) {
    S.me = m.player_id;
    S.welcomed = true;
    store.setToken(m.token);
    if (m.resumed) {
      // A snapshot follows when we were in a room; if none comes, carry on as new.
      S.awaitingSnap = true;
      setTimeout(() => {
        if (S.awaitingSnap) {
          S.awaitingSnap = false;
          runIntent();
        }
      }, 1500);
    } else {
      if (S.room) {
        // The old seat is gone (resume window passed, or the server restarted): ask for it again.
        S.intent = S.intent || joinMsg(S.room.code);
        leftRoom();
      }
      runIntent();
    }
    renderOverlay();
  },

  room(info) {
    const prev = S.room;
    S.room = info;
    if (!prev || prev.code !== info.code) enteredRoom(info);
    if (info.phase === 'lobby') {
      const autostart = S.soloNext && info.host === S.me;
      S.soloNext = false;
      if (autostart) conn.send({ type: 'start' });
      if (S.view !== 'lobby' && S.view !== 'replay') clearRace();
      renderLobby();
      showRoom(autostart ? 'play' : 'lobby');
      if (autostart) renderPlay();
    } else {
      S.soloNext = false;
      showRoom('play');
    }
    renderRacers();
    renderResultsButtons();
  },

  countdown(m) {
    S.countdown = m.seconds;
    clearRace();
    show('play');
    announce(String(m.seconds));
    renderPlay();
  },

  race_start(m) {
    let board;
    try {
      board = parseBoard(m.board);
    } catch {
      return toast('The server sent a board this page cannot read.');
    }
    startRace(board, 0, null, []);
    S.countdown = 0;
    announce(board.game === 'ghost' ? 'Go! Run one: walk to the plate.' : 'Go! Find the exit.');
    flashOverlay('Go!');
    $('stage').focus({ preventScroll: true });
  },

  move_result: confirm,
  rewind_result: confirm,

  progress(m) {
    for (const p of m.players || []) S.progress.set(p.id, p);
    renderRacers();
    requestDraw();
  },

  finished(m) {
    S.finished.set(m.player_id, m);
    if (m.player_id === S.me) {
      S.doneMs = m.time_ms;
      announce(`You finished ${F.ordinal(m.rank)} in ${F.clock(m.time_ms)} with ${m.steps} steps.`);
    } else {
      announce(`${nameOf(m.player_id)} finished ${F.ordinal(m.rank)}.`);
    }
    renderRacers();
    renderHud();
    renderOverlay();
  },

  results(m) {
    S.results = m;
    S.countdown = 0;
    showRoom('play');
    renderResults();
    const mine = (m.rankings || []).find((r) => r.player_id === S.me);
    if (mine) announce(mine.rank ? `Race over. You placed ${F.ordinal(mine.rank)}.` : 'Race over. You did not finish.');
  },

  snapshot(snap) {
    S.awaitingSnap = false;
    const wanted = F.codeFromPath(location.pathname);
    S.room = snap.room;
    enteredRoom(snap.room);
    if (wanted && wanted !== snap.room.code && !snap.room.daily) {
      // The link asks for another room than the one we were resumed into.
      conn.send({ type: 'leave_room' });
      conn.send(joinMsg(wanted));
      return;
    }
    let board = null;
    try {
      board = snap.board ? parseBoard(snap.board) : null;
    } catch {
      board = null;
    }
    if (board) {
      // Joined (or came back) after the start without a game of our own: watch.
      startRace(board, snap.elapsed_ms || 0, snap.you || null, snap.recording || [], !snap.you);
    }
    // After startRace, which forgets the progress of an earlier board.
    S.progress.clear();
    for (const p of snap.players || []) S.progress.set(p.id, p);
    if (snap.room.phase === 'lobby') {
      clearRace();
      showRoom('lobby');
      renderLobby();
    } else showRoom('play');
    renderRacers();
    renderPlay();
  },

  daily_result(m) {
    S.daily = m;
    renderDaily();
    conn.send({ type: 'leaderboard', game: m.game, size: m.size, date: m.date });
  },

  leaderboard(m) {
    if (S.view === 'ranks') renderBoardTable($('ranks-rows'), m);
    else {
      $('lb-wrap').hidden = false;
      renderBoardTable($('lb'), m);
    }
  },

  error(m) {
    const code = m.code;
    if (code === 'already_in_room' && S.lastIntent && S.lastIntent.type !== 'join_room') {
      conn.send({ type: 'leave_room' });
      conn.send(S.lastIntent);
      S.lastIntent = null;
      return;
    }
    if (code === 'already_in_room') return; // the link's room is the one we are in
    if (code === 'rate_limited' || code === 'not_racing') return; // the next move_result puts us right
    if (code === 'wrong_phase' && S.soloNext === false && S.room && S.room.phase !== 'lobby') return;
    if (code === 'bad_name') {
      show('home');
      nameError(m.message || 'That name is not allowed.');
      $('name').focus();
      return;
    }
    if (code === 'room_not_found' || code === 'room_full') {
      leftRoom();
      show('home');
    }
    toast(m.message || code);
  },

  server_shutdown() {
    toast('The server is restarting. Reconnecting…');
  },
};

/** A move_result or rewind_result: reconcile the prediction by seq. */
function confirm(m) {
  if (!S.pred) return;
  const was = S.pred.game;
  const r = S.pred.confirm(m);
  if (r.corrected) {
    if (r.snapBack) blocked(m.reason, false);
    S.visited.add(S.pred.game.pos.join(','));
  }
  if (m.status === 'won' && S.doneMs == null && was.status !== 'won') S.doneMs = elapsed();
  afterChange();
}

function enteredRoom(info) {
  const path = `/r/${info.code}`;
  if (location.pathname !== path) history.pushState(null, '', path);
  S.colours.clear();
  document.title = `Room ${info.code} · mazerace`;
}

/** Forgets the board and my game (between races). */
function clearRace() {
  S.board = null;
  S.pred = null;
  S.results = null;
  stopReplay();
}

function leftRoom() {
  S.room = null;
  clearRace();
  S.daily = null;
  if (location.pathname !== '/') history.pushState(null, '', '/');
  document.title = 'mazerace';
}

function leave() {
  conn.send({ type: 'leave_room' });
  leftRoom();
  show('home');
  showBestHere();
  loadDaily();
}

// --------------------------------------------------------------------- race

function startRace(board, elapsedMs, you, recording, watchOnly = false) {
  const same = S.board && S.board.seed === board.seed && S.board.game === board.game;
  S.board = board;
  pace.queue.length = 0; // moves meant for an earlier board
  S.t0 = performance.now() - elapsedMs;
  S.firstMove = 0;
  S.doneMs = null;
  S.results = null;
  S.daily = null;
  stopReplay();
  if (!same) {
    S.finished.clear();
    if (!you) S.progress.clear();
  }
  const me = S.room && S.room.players.find((p) => p.id === S.me);
  S.pred = me && !me.spectator && !watchOnly ? new Predictor(board) : null;
  if (S.pred && you) S.pred.reset(you, recording);
  S.visited = restoreVisited(board);
  if (S.pred) S.visited.add(S.pred.game.pos.join(','));
  S.gateWas = !!(S.pred && S.pred.game.run === 2 && gateOpenNow());
  if (you && you.status === 'won') S.doneMs = elapsedMs;
  show('play');
  renderPlay();
}

const solo = () => !!S.room && (S.room.daily || S.room.players.filter((p) => !p.spectator).length === 1);

/** Milliseconds on my clock: from the start signal, or (solo and daily) from the first move. */
function elapsed() {
  if (S.doneMs != null) return S.doneMs;
  if (!S.board) return 0;
  if (solo() && S.pred) return S.firstMove ? performance.now() - S.firstMove : 0;
  return performance.now() - S.t0;
}

const racing = () => !!S.room && S.room.phase === 'racing' && !!S.board;
const canMove = () => racing() && S.pred && S.pred.game.status === 'playing' && S.welcomed && conn.open;

function act(action) {
  if (!canMove()) return;
  if (S.pred.pending.length >= 24) return; // far ahead of the server: wait for answers
  const seq = S.seq + 1;
  const from = S.pred.game.pos.slice();
  const r = S.pred.act(action, seq);
  if (!r.ok) return blocked(r.reason, true);
  S.seq = seq;
  sendPaced(action === 'rewind' ? { type: 'rewind', seq } : { type: 'move', dir: action, seq });
  if (!S.firstMove) S.firstMove = performance.now();
  if (action === 'rewind') {
    announce('Rewind. Run two: your ghost replays run one.');
    $('stage').focus({ preventScroll: true }); // the button is gone in run two
    S.anim = null;
  } else {
    S.anim = { from, t: performance.now() };
  }
  S.visited.add(S.pred.game.pos.join(','));
  saveVisited();
  const g = S.pred.game;
  if (g.status === 'won') {
    S.doneMs = elapsed();
    announce('You reached the goal!');
  } else if (g.status === 'out_of_steps') announce('Out of steps.');
  afterChange();
}

// The server allows 40 messages a second (80 in a burst) and refuses the
// rest. Moves are paced below that here, queued rather than dropped: they are
// already on screen, the server just hears of them a moment later.
const pace = { tokens: 40, at: 0, queue: [], timer: 0 };
function sendPaced(msg) {
  const now = performance.now();
  pace.tokens = Math.min(40, pace.tokens + ((now - (pace.at || now)) / 1000) * 25);
  pace.at = now;
  if (msg) pace.queue.push(msg);
  while (pace.queue.length && pace.tokens >= 1) {
    pace.tokens -= 1;
    conn.send(pace.queue.shift());
  }
  if (pace.queue.length && !pace.timer) {
    pace.timer = setTimeout(() => {
      pace.timer = 0;
      sendPaced(null);
    }, 45);
  }
}

const REASONS = {
  wall: 'A wall is in the way.',
  gate_closed: 'The gate is shut: nobody is standing on the plate.',
  game_over: 'Your game is over.',
  rewind_used: 'The rewind is used up.',
  no_rewind: 'Only Ghost has a rewind.',
};

function blocked(reason, local) {
  if (!store.muted() && (local || reason !== 'game_over')) buzz();
  const st = $('stage');
  st.classList.remove('bump');
  void st.offsetWidth; // restart the animation
  st.classList.add('bump');
  clearTimeout(blocked.t);
  blocked.t = setTimeout(() => st.classList.remove('bump'), 200);
  hint(REASONS[reason] || 'That move is not allowed.', true);
  if (reason === 'gate_closed') announce(REASONS.gate_closed);
}

const gateOpenNow = () => !!S.pred && gateOpen(S.pred.game);

function afterChange() {
  if (S.pred && S.board.game === 'ghost' && S.pred.game.run === 2) {
    const open = gateOpenNow();
    if (open !== S.gateWas) announce(open ? 'Gate open.' : 'Gate shut.');
    S.gateWas = open;
  }
  renderHud();
  renderRacers();
  renderOverlay();
  requestDraw();
}

function restoreVisited(board) {
  const set = new Set();
  if (board.game !== 'maze') return set;
  try {
    const saved = JSON.parse(sessionStorage.getItem('mazerace.visited') || 'null');
    if (saved && saved.seed === board.seed && Array.isArray(saved.cells)) for (const c of saved.cells) set.add(String(c));
  } catch {
    /* nothing saved */
  }
  return set;
}

function saveVisited() {
  if (!S.board || S.board.game !== 'maze') return;
  try {
    sessionStorage.setItem('mazerace.visited', JSON.stringify({ seed: S.board.seed, cells: [...S.visited] }));
  } catch {
    /* storage off: the tint is lost on reload, nothing else */
  }
}

// -------------------------------------------------------------------- input

const KEYS = {
  ArrowUp: 'up', ArrowDown: 'down', ArrowLeft: 'left', ArrowRight: 'right',
  w: 'up', s: 'down', a: 'left', d: 'right', W: 'up', S: 'down', A: 'left', D: 'right',
};

document.addEventListener('keydown', (e) => {
  if (e.ctrlKey || e.altKey || e.metaKey) return; // browser and OS shortcuts stay theirs
  const dir = KEYS[e.key];
  if (!dir || S.view !== 'play' || S.results) return;
  const t = e.target;
  if (t && (t.tagName === 'INPUT' || t.tagName === 'SELECT' || t.tagName === 'TEXTAREA' || t.isContentEditable)) return;
  if (!S.pred && !S.countdown) return;
  e.preventDefault(); // arrows must not scroll the page mid-race
  act(dir);
});

$('overlay').addEventListener('click', () => {
  if (S.taken) conn.connect();
});
$('board').addEventListener('pointerdown', (e) => {
  if (!S.board || !S.pred || !S.layout) return;
  const cell = cellAt($('board'), S.layout, e.clientX, e.clientY);
  if (!cell) return;
  const dir = dirTo(S.pred.game.pos, cell);
  if (dir) {
    e.preventDefault();
    act(dir);
  } else if (!samePos(cell, S.pred.game.pos) && canMove()) hint('Tap a square next to you.', false);
});
$('pad').addEventListener('click', (e) => {
  const b = e.target.closest('[data-dir]');
  if (b) act(b.dataset.dir);
});
$('rewind').addEventListener('click', () => act('rewind'));

// ------------------------------------------------------------------ drawing

let drawQueued = false;
function requestDraw() {
  if (drawQueued) return;
  drawQueued = true;
  requestAnimationFrame(drawNow);
}

function drawNow() {
  drawQueued = false;
  if (S.view !== 'play') return;
  const canvas = $('board');
  const stage = $('stage');
  const padOn = !!(S.pred && !S.results && $('pad').offsetParent);
  // Room for the header and HUD above, and the hint and buttons (or pad) below.
  const maxH = Math.max(220, innerHeight - 120 - (padOn ? 200 : 80));
  const maxW = stage.parentElement.clientWidth;
  if (!S.board) {
    const l = fit(canvas, 10, maxW, maxH);
    const ctx = canvas.getContext('2d');
    ctx.setTransform(l.dpr, 0, 0, l.dpr, 0, 0);
    ctx.fillStyle = '#e6e9ef';
    ctx.fillRect(0, 0, l.css, l.css);
    return;
  }
  const layout = fit(canvas, S.board.n, maxW, maxH);
  S.layout = layout;
  let me = null;
  if (S.pred) {
    const g = S.pred.game;
    let pos = g.pos;
    if (S.anim && !reducedMotion.matches) {
      const k = Math.min(1, (performance.now() - S.anim.t) / 90);
      if (k < 1) {
        pos = [S.anim.from[0] + (g.pos[0] - S.anim.from[0]) * k, S.anim.from[1] + (g.pos[1] - S.anim.from[1]) * k];
        requestDraw();
      } else S.anim = null;
    }
    me = { pos, ghost: g.ghost, gateOpen: gateOpenNow() };
  }
  const others = [];
  for (const [id, p] of S.progress) {
    if (id === S.me || p.status === 'left') continue;
    others.push({ pos: p.pos, colour: colourOf(id), name: nameOf(id) });
  }
  S.markers = others;
  const rp = S.replay;
  const f = rp && rp.frames[rp.i];
  draw(canvas, layout, {
    board: S.board,
    me: f ? { gateOpen: f.gateOpen } : me,
    visited: S.board.game === 'maze' && !rp ? S.visited : null,
    others: rp ? [] : others,
    trail: f ? trailAt(rp.frames, rp.i) : null,
    marker: f ? { pos: f.pos, ghost: f.ghost } : null,
  });
}

addEventListener('resize', requestDraw);
if (globalThis.ResizeObserver) new ResizeObserver(requestDraw).observe($('stage'));

// -------------------------------------------------------------------- views

function show(view) {
  if (S.view === view) return;
  if (S.view === 'replay') closeReplay();
  S.view = view;
  document.body.dataset.view = view;
  for (const id of ['home', 'lobby', 'play', 'ranks', 'replay']) $(id).hidden = id !== view;
  $('play').classList.toggle('done', false);
  const focus = { home: null, lobby: 'lobby-h', ranks: 'ranks-h', play: S.results ? 'results-h' : 'stage', replay: 'rp-h' }[view];
  if (focus) $(focus).focus({ preventScroll: true });
  if (view === 'home') document.title = 'mazerace';
  requestDraw();
}

/** A view the server's messages call for: the replay screen stays up, and its Back goes there. */
function showRoom(view) {
  if (S.view === 'replay') S.back = view;
  else show(view);
}

/** Opens the replay of stored run `id` (`known`: what the page already knows of it); Back returns here. */
function watchRun(id, known) {
  if (S.view !== 'replay') S.back = S.view;
  openReplay(id, known);
}
initReplay({ show, back: () => show(S.back || 'home'), token: () => store.token() });

function renderPlay() {
  renderMini();
  renderHud();
  renderRacers();
  renderOverlay();
  $('results').hidden = !S.results;
  $('play').classList.toggle('done', !!S.results);
  $('pad').classList.toggle('on', !!S.pred && !S.results);
  $('play-h').textContent = S.results ? 'Results' : 'Race';
  requestDraw();
}

/** The short rules of the game being played, beside the board. */
function renderMini() {
  const game = S.board ? S.board.game : S.room && S.room.game;
  if (!game || renderMini.game === game) return;
  renderMini.game = game;
  const src = document.querySelector(`#home [data-howto="${game}"]`);
  $('mini-title').textContent = `How to play ${F.gameLabel(game)}`;
  $('mini-body').replaceChildren(src.cloneNode(true));
  $('mini').open = innerWidth > 880;
}

function renderHud() {
  const b = S.board;
  const g = S.pred && S.pred.game;
  if (!b) {
    for (const id of ['hud-run', 'hud-gate', 'hud-steps']) pill(id, '');
    pill('hud-time', S.countdown ? 'Get ready' : '');
    $('rewind').hidden = true;
    hint(S.room ? `${F.gameLabel(S.room.game)} · ${F.sizeLabel(S.room.game, S.room.size)}` : '', false);
    return;
  }
  if (!g) {
    pill('hud-run', 'Watching');
    pill('hud-gate', '');
    pill('hud-steps', '');
  } else if (b.game === 'ghost') {
    const open = gateOpenNow();
    const left = Math.max(0, b.allowance - g.steps);
    pill('hud-run', `Run ${g.run} of 2`);
    pill('hud-gate', open ? 'Gate open' : 'Gate shut', open ? 'open' : 'shut');
    pill('hud-steps', `Steps ${g.steps} · ${left} left`, left <= 3 && g.status === 'playing' ? 'low' : '');
  } else {
    pill('hud-run', F.sizeLabel('maze', b.size));
    pill('hud-gate', '');
    pill('hud-steps', `Moves ${g.steps}`);
  }
  pill('hud-time', F.clock(elapsed()), 'time');
  $('stage').setAttribute(
    'aria-label',
    `Board, ${b.n} by ${b.n}.` +
      (g ? ` You are at row ${g.pos[0] + 1}, column ${g.pos[1] + 1}. Move with the arrow keys or W A S D.` : ''),
  );
  const rw = $('rewind');
  rw.hidden = !(g && b.game === 'ghost' && g.run === 1 && g.status === 'playing' && !S.results);
  rw.disabled = !canMove();
  if (hint.sticky > performance.now()) return;
  let h = '';
  if (g && g.status === 'playing') {
    if (b.game === 'maze') h = 'Find the red exit (E), bottom right.';
    else if (g.run === 1 && samePos(g.pos, b.plate)) h = 'You hold the plate: press Rewind and run again.';
    else if (g.run === 1) h = 'Run one: walk to the plate (P), then press Rewind.';
    else h = gateOpenNow() ? 'The gate is open: go through to the flag.' : 'Run two: the gate (G) opens when your ghost stands on the plate.';
  } else if (!g && !S.results) {
    // The server seats a player who joins mid-race as a spectator until the next race.
    const asked = S.lastIntent && S.lastIntent.type === 'join_room' && !S.lastIntent.spectate;
    h = asked ? 'The race had already started: you are watching, and you race in the next one.' : 'You are watching this race.';
  }
  hint(h, false);
}

function hint(text, warn) {
  const h = $('hint');
  h.textContent = text;
  h.classList.toggle('warn', !!warn);
  hint.sticky = warn ? performance.now() + 1800 : 0;
}

function renderOverlay() {
  const o = $('overlay');
  const g = S.pred && S.pred.game;
  let big = '', small = '';
  if (S.view === 'play' && S.room && S.taken) small = 'This game continued in another tab. Click here to play in this one.';
  else if (S.view === 'play' && S.room && !S.welcomed) small = 'Connection lost. Reconnecting…';
  else if (S.countdown) (big = String(S.countdown)), (small = 'Get ready');
  else if (S.results || S.replay) small = '';
  else if (g && S.board && g.status === 'won') {
    const f = S.finished.get(S.me);
    big = f ? F.ordinal(f.rank) : '✓';
    small = `Finished in ${g.steps} ${S.board.game === 'ghost' ? 'steps' : 'moves'}${solo() ? '' : '. Waiting for the others…'}`;
  } else if (g && g.status === 'out_of_steps') small = 'Out of steps. Waiting for the results…';
  const flash = !big && !small && flashOverlay.text && flashOverlay.until > performance.now();
  if (flash) big = flashOverlay.text;
  o.classList.toggle('flash', !!flash);
  o.hidden = !big && !small;
  o.replaceChildren(...[big && el('b', { text: big }), small && el('span', { text: small })].filter(Boolean));
}

function flashOverlay(text) {
  flashOverlay.text = text;
  flashOverlay.until = performance.now() + 700;
  renderOverlay();
  setTimeout(renderOverlay, 720);
}

function nameOf(id) {
  const p = S.room && S.room.players.find((x) => x.id === id);
  if (p) return p.name;
  const r = S.results && S.results.rankings.find((x) => x.player_id === id);
  return r ? r.name : `Player ${id}`;
}

function colourOf(id) {
  if (!S.colours.has(id)) S.colours.set(id, RACER_COLOURS[S.colours.size % RACER_COLOURS.length]);
  return S.colours.get(id);
}

function renderRacers() {
  if (!S.room) return;
  const list = $('racers');
  const racers = S.room.players.filter((p) => !p.spectator);
  const rows = racers.map((p) => {
    const mine = p.id === S.me;
    const pr = S.progress.get(p.id);
    const fin = S.finished.get(p.id);
    const g = mine && S.pred ? S.pred.game : null;
    const steps = g ? g.steps : pr ? pr.steps : 0;
    const run = g ? g.run : pr && pr.run;
    const status = g ? (g.status === 'won' ? 'finished' : g.status === 'playing' ? 'racing' : g.status) : pr ? pr.status : 'racing';
    let stat = S.board ? `${steps} ${S.board.game === 'ghost' ? 'steps' : 'moves'}` : '';
    if (S.board && S.board.game === 'ghost' && run && status === 'racing') stat = `run ${run} · ${stat}`;
    if (fin) stat = `${F.ordinal(fin.rank)} · ${F.clock(fin.time_ms)}`;
    else if (status !== 'racing') stat = `${F.statusLabel(status)} · ${stat}`;
    if (!p.connected) stat = `offline · ${stat}`;
    return el(
      'li',
      { class: mine ? 'me' : '' },
      el('span', { class: 'dot', style: `background:${mine ? PALETTE.you : colourOf(p.id)}`, 'aria-hidden': 'true' }),
      el(
        'span',
        { class: 'who' },
        el('span', { class: 'name', text: p.name, title: p.name }),
        mine ? el('span', { class: 'badge', text: 'you' }) : null,
      ),
      el('span', { class: 'stat', text: stat }),
    );
  });
  const watchers = S.room.players.length - racers.length;
  if (watchers) rows.push(el('li', {}, el('span'), el('span', { class: 'muted', text: `${watchers} watching` })));
  list.replaceChildren(...rows);
}

// -------------------------------------------------------------------- lobby

function shareUrl(code) {
  return `${S.lanBase || location.origin}/r/${code}`;
}

function renderLobby() {
  const r = S.room;
  if (!r) return;
  $('lobby-h').textContent = r.code;
  $('lobby-game').replaceChildren(
    el('span', { class: 'tag', text: F.gameLabel(r.game) }),
    el('span', { class: 'tag', text: F.sizeLabel(r.game, r.size) }),
    el('span', { class: 'tag', text: r.rank_by === 'steps' ? 'Ranked by steps' : 'Ranked by time' }),
    ...(r.daily ? [el('span', { class: 'tag', text: 'Daily' })] : []),
  );
  const url = shareUrl(r.code);
  $('link').value = url;
  const qr = $('qr');
  const src = `/api/qr.svg?text=${encodeURIComponent(url)}`;
  if (qr.dataset.src !== src) {
    qr.dataset.src = src;
    qr.hidden = false;
    qr.src = src;
  }
  const racers = r.players.filter((p) => !p.spectator);
  const watchers = r.players.filter((p) => p.spectator);
  const person = (p) =>
    el(
      'li',
      {},
      el('span', {
        class: 'dot',
        style: `background:${p.id === S.me ? PALETTE.you : p.spectator ? '#9aa3b2' : colourOf(p.id)}`,
        'aria-hidden': 'true',
      }),
      el('span', { class: 'name', text: p.name, title: p.name }),
      p.id === S.me ? el('span', { class: 'badge', text: 'you' }) : null,
      p.id === r.host ? el('span', { class: 'badge host', text: 'host' }) : null,
      !p.spectator && p.ready ? el('span', { class: 'badge ok', text: '✓ ready' }) : null,
      !p.connected ? el('span', { class: 'badge off', text: 'offline' }) : null,
    );
  $('players').replaceChildren(...racers.map(person));
  $('spectators').replaceChildren(...watchers.map(person));
  $('spec-wrap').hidden = !watchers.length;
  $('count').textContent = `${racers.length} / ${r.max_players}`;
  const host = r.host === S.me;
  const me = r.players.find((p) => p.id === S.me);
  $('start').hidden = !host;
  $('ready').hidden = host || !me || me.spectator;
  if (me) {
    $('ready').setAttribute('aria-pressed', String(me.ready));
    $('ready').textContent = me.ready ? 'Ready ✓' : "I'm ready";
  }
  $('lobby-note').textContent = host
    ? racers.length > 1
      ? 'You are the host: start when everyone is in.'
      : 'Send the link to a friend, or start now and race alone.'
    : me && me.spectator
      ? 'You are watching this race.'
      : `Waiting for ${nameOf(r.host)} (the host) to start.`;
  document.title = `Room ${r.code} · mazerace`;
}

$('start').addEventListener('click', () => conn.send({ type: 'start' }));
$('ready').addEventListener('click', () => {
  const me = S.room && S.room.players.find((p) => p.id === S.me);
  conn.send({ type: 'ready', ready: !(me && me.ready) });
});
$('leave').addEventListener('click', leave);
$('leave2').addEventListener('click', leave);
$('qr').addEventListener('error', () => ($('qr').hidden = true));
$('copy').addEventListener('click', () => copy($('link').value, 'Link copied.', $('link')));

async function copy(text, done, input) {
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

// ------------------------------------------------------------------ results

function renderResults() {
  const m = S.results;
  $('results').hidden = !m;
  renderPlay();
  if (!m) return;
  const b = S.board;
  const unit = b && b.game === 'ghost' ? 'steps' : 'moves';
  $('col-steps').textContent = unit === 'steps' ? 'Steps' : 'Moves';
  $('results-h').textContent = S.room ? `Results · ${F.gameLabel(S.room.game)} ${F.sizeLabel(S.room.game, S.room.size)}` : 'Results';
  $('rankings').replaceChildren(
    ...(m.rankings || []).map((r) =>
      el(
        'tr',
        { class: r.player_id === S.me ? 'me' : '' },
        el('td', { text: r.rank ? String(r.rank) : '–' }),
        el('td', { text: r.name, title: r.name }),
        el('td', { text: String(r.steps) }),
        el('td', { text: r.time_ms != null ? F.clock(r.time_ms) : F.statusLabel(r.status) }),
        el('td', { text: r.efficiency != null ? `${r.efficiency}%` : '' }),
      ),
    ),
  );
  const rv = m.reveal || {};
  $('reveal').textContent =
    rv.game === 'ghost'
      ? `Par ${rv.par} (the builder's count). Best possible: ${rv.true_par == null ? 'unknown, this vault may be unsolvable' : `${rv.true_par} steps`}.`
      : rv.game === 'maze'
        ? `Shortest route: ${rv.shortest} moves.`
        : '';
  const wl = $('watch-line');
  wl.hidden = !(b && Array.isArray(rv.solution) && rv.solution.length);
  wl.textContent = rv.game === 'ghost' ? 'Watch the optimal line' : 'Show the shortest route';
  // My best for this game AND size.
  const mine = (m.rankings || []).find((r) => r.player_id === S.me);
  const game = S.room ? S.room.game : b && b.game;
  const size = S.room ? S.room.size : b && b.size;
  const rec = mine && mine.status === 'finished' ? store.recordFinish(game, size, mine) : { best: store.best(game, size) };
  const best = rec.best;
  const label = `${F.gameLabel(game)} ${F.sizeLabel(game, size)}`;
  $('mybest').replaceChildren(
    best
      ? `Your best on ${label}: ${best.efficiency != null ? best.efficiency + '% · ' : ''}${best.steps} ${unit} · ${F.clock(best.time_ms)}`
      : `No finish on ${label} yet.`,
    rec.improved ? el('span', { class: 'new', text: 'New best!' }) : '',
  );
  renderResultsButtons();
  renderDaily();
  $('results-h').focus({ preventScroll: true });
}

function renderResultsButtons() {
  if (!S.room) return;
  const host = S.room.host === S.me;
  // Play again (straight into the next race) only with nobody else here: a watcher,
  // or someone who joined mid-race, goes back to the lobby with everyone.
  const alone = S.room.daily || S.room.players.length === 1;
  $('rematch').hidden = !S.results || !host || alone;
  $('again').hidden = !S.results || !alone;
  $('again').textContent = S.room.daily ? 'Play again (practice)' : 'Play again';
  $('rematch-note').hidden = !S.results || host || alone;
}

$('rematch').addEventListener('click', () => conn.send({ type: 'rematch' }));
$('again').addEventListener('click', () => {
  if (S.room && S.room.daily) {
    const { game, size } = S.room;
    conn.send({ type: 'leave_room' });
    leftRoom();
    S.soloNext = true;
    request({ type: 'create_room', game, size, daily: true });
  } else {
    S.soloNext = true;
    conn.send({ type: 'rematch' });
  }
});
$('watch-line').addEventListener('click', () => (S.replay ? stopReplay() : startReplay()));

/** The optimal line (or the maze's shortest route) walked on the board, move by move. */
function startReplay() {
  const rv = S.results && S.results.reveal;
  if (!rv || !S.board) return;
  const { frames } = replayFrames(S.board, rv.solution);
  // With reduced motion, no animation: the whole line at once.
  const still = reducedMotion.matches;
  S.replay = { frames, i: still ? frames.length - 1 : 0, timer: 0 };
  $('watch-line').textContent = still ? 'Hide the line' : 'Stop';
  requestDraw();
  if (still) return;
  const ms = Math.max(60, Math.min(260, 9000 / frames.length));
  S.replay.timer = setInterval(() => {
    const rp = S.replay;
    if (++rp.i >= frames.length - 1) {
      clearInterval(rp.timer);
      rp.done = true;
      $('watch-line').textContent = 'Watch again';
    }
    requestDraw();
  }, ms);
}

function stopReplay() {
  if (S.replay) clearInterval(S.replay.timer);
  const wasDone = S.replay && S.replay.done;
  S.replay = null;
  const rv = S.results && S.results.reveal;
  $('watch-line').textContent = rv && rv.game === 'maze' ? 'Show the shortest route' : 'Watch the optimal line';
  requestDraw();
  if (wasDone) startReplay();
}

// -------------------------------------------------------------------- daily

function renderDaily() {
  const d = S.daily;
  $('daily-card').hidden = !d;
  if (!d) {
    $('lb-wrap').hidden = true;
    return;
  }
  $('daily-head').textContent = d.ranked
    ? d.finished
      ? d.rank
        ? `#${d.rank} of ${d.entrants} today`
        : `Finished (${d.entrants} entrants)`
      : 'Not finished: this was your ranked try for today'
    : 'Practice run (not ranked)';
  $('daily-head').classList.toggle('practice', !d.ranked);
  $('daily-date').textContent = `Daily challenge · ${d.date} (UTC)`;
  const chips = [];
  if (d.finished) chips.push(`${d.steps} ${d.game === 'ghost' ? 'steps' : 'moves'}`, F.clock(d.time_ms));
  chips.push(`Streak: ${d.streak} day${d.streak === 1 ? '' : 's'}`);
  $('daily-meta').replaceChildren(...chips.map((c) => el('span', { class: 'pill', text: c })));
  $('share').textContent = d.share || '';
  $('copy-share').hidden = !d.share;
  $('watch-mine').hidden = !Number.isInteger(d.run_id);
  $('lb-title').textContent = `Leaderboard · ${d.date}`;
  announce(
    d.ranked && d.rank ? `Daily: ranked ${F.ordinal(d.rank)} of ${d.entrants}. Streak ${d.streak}.` : `Daily result saved. Streak ${d.streak}.`,
  );
}
$('copy-share').addEventListener('click', () => copy($('share').textContent, 'Share text copied.'));
$('watch-mine').addEventListener('click', () => {
  const d = S.daily;
  if (d) watchRun(d.run_id, { ...d, name: S.helloName, state: d.finished ? 'finished' : 'not_finished' });
});

function renderBoardTable(tbody, m) {
  const row = (e, me) =>
    el(
      'tr',
      { class: me ? 'me' : '' },
      el('td', { text: String(e.rank) }),
      el('td', { text: e.name, title: e.name }),
      el('td', { text: String(e.steps) }),
      el('td', { text: F.clock(e.time_ms) }),
      el(
        'td',
        {},
        Number.isInteger(e.run_id)
          ? el('button', {
              type: 'button',
              class: 'watch',
              text: 'Watch',
              'aria-label': `Watch ${e.name}'s run`,
              onclick: () => watchRun(e.run_id, { ...e, game: m.game, size: m.size, date: m.date }),
            })
          : null,
      ),
    );
  const entries = Array.isArray(m.entries) ? m.entries : [];
  const you = m.you;
  const rows = entries.map((e) => row(e, you && e.run_id === you.run_id));
  if (you && !entries.some((e) => e.run_id === you.run_id)) rows.push(row(you, true));
  if (!rows.length) rows.push(el('tr', {}, el('td', { colspan: '5', class: 'muted', text: 'No finishes yet today. Be the first!' })));
  tbody.replaceChildren(...rows);
  // The steps column says what the game counts.
  tbody.parentElement.querySelector('th:nth-child(3)').textContent = m.game === 'maze' ? 'Moves' : 'Steps';
  if (tbody.id === 'ranks-rows') {
    const n = m.entrants ?? entries.length;
    $('ranks-meta').textContent = `${m.date || 'Today'} (UTC) · ${n} ${n === 1 ? 'entrant' : 'entrants'} · first tries only`;
  }
}

let dailyDeadline = 0;
let dailyDate = null;
async function loadDaily() {
  let data = null;
  try {
    const res = await fetch('/api/daily', { headers: { accept: 'application/json' } });
    if (res.ok) data = await res.json();
  } catch {
    data = null;
  }
  const boards =
    data && Array.isArray(data.boards)
      ? data.boards.filter((b) => b && F.GAMES[b.game] && F.SIZES[b.game].some(([k]) => k === b.size))
      : [];
  $('daily').hidden = !boards.length;
  if (!boards.length) return;
  dailyDate = typeof data.date === 'string' ? data.date : null;
  const next = Number(data.next_in_ms);
  dailyDeadline = Date.now() + (Number.isFinite(next) && next > 0 ? next : F.msToUtcMidnight());
  const items = [];
  for (const b of boards) {
    if (!items.length || items[items.length - 1].game !== b.game) items.push({ game: b.game, head: true });
    items.push(b);
  }
  $('daily-list').replaceChildren(
    ...items.map((b) => {
      if (b.head) return el('li', { class: 'game', text: F.gameLabel(b.game) });
      const label = `${F.gameLabel(b.game)} · ${F.sizeLabel(b.game, b.size)}`;
      return el(
        'li',
        {},
        el('span', { class: 'what', text: F.sizeLabel(b.game, b.size) }),
        el('button', {
          type: 'button',
          class: 'primary',
          text: 'Play',
          'aria-label': `Play today's ${label}`,
          onclick: () => {
            S.soloNext = true;
            request({ type: 'create_room', game: b.game, size: b.size, daily: true });
          },
        }),
        el('button', {
          type: 'button',
          text: 'Top',
          'aria-label': `Leaderboard for today's ${label}`,
          onclick: () => openLeaderboard(b.game, b.size),
        }),
      );
    }),
  );
  tickDaily();
}

function tickDaily() {
  if (!dailyDeadline) return;
  const left = dailyDeadline - Date.now();
  $('daily-count').textContent = F.hms(left);
  if (left <= 0) {
    dailyDeadline = 0;
    setTimeout(loadDaily, 1500); // the server's day turns over too
  }
}
setInterval(tickDaily, 1000);

async function openLeaderboard(game, size) {
  show('ranks');
  $('ranks-h').textContent = `Daily · ${F.gameLabel(game)} ${F.sizeLabel(game, size)}`;
  $('ranks-meta').textContent = 'Loading…';
  $('ranks-rows').replaceChildren();
  if (S.welcomed) {
    conn.send(dailyDate ? { type: 'leaderboard', game, size, date: dailyDate } : { type: 'leaderboard', game, size });
    return;
  }
  try {
    const res = await fetch(`/api/daily/${encodeURIComponent(dailyDate || 'today')}/${game}/${size}`);
    if (!res.ok) throw new Error(String(res.status));
    const m = await res.json();
    renderBoardTable($('ranks-rows'), { game, size, date: dailyDate, ...m });
  } catch {
    $('ranks-meta').textContent = 'The leaderboard could not be loaded. Enter your name and try again.';
  }
}
$('ranks-back').addEventListener('click', () => show('home'));

// --------------------------------------------------------------------- home

function fillSizes() {
  const game = document.querySelector('input[name=game]:checked').value;
  const keep = $('size').value;
  $('size').replaceChildren(...F.SIZES[game].map(([v, label]) => el('option', { value: v, text: label })));
  if (F.SIZES[game].some(([v]) => v === keep)) $('size').value = keep;
  showBestHere();
}
for (const r of document.querySelectorAll('input[name=game]')) r.addEventListener('change', fillSizes);
$('size').addEventListener('change', showBestHere);

/** The local best for the chosen game and size, under the form. */
function showBestHere() {
  const game = document.querySelector('input[name=game]:checked').value;
  const b = store.best(game, $('size').value);
  const unit = game === 'ghost' ? 'steps' : 'moves';
  $('best-here').textContent = b
    ? `Your best here: ${b.efficiency != null ? b.efficiency + '% · ' : ''}${b.steps} ${unit} · ${F.clock(b.time_ms)}`
    : 'No best on this size yet.';
}

function makeMsg() {
  const game = document.querySelector('input[name=game]:checked').value;
  return { type: 'create_room', game, size: $('size').value, rank_by: $('rankby').value };
}
$('make').addEventListener('submit', (e) => {
  e.preventDefault();
  request(makeMsg());
});
$('practice').addEventListener('click', () => {
  const m = makeMsg();
  delete m.rank_by;
  S.soloNext = true;
  request(m);
});
function joinFromForm(spectate) {
  const code = F.cleanCode($('code').value);
  if (!code) {
    toast('Type the room code (5 letters) or paste the link.');
    $('code').focus();
    return;
  }
  request(joinMsg(code, spectate));
}
$('join').addEventListener('submit', (e) => {
  e.preventDefault();
  joinFromForm(false);
});
$('watch').addEventListener('click', () => joinFromForm(true));
$('name').addEventListener('input', () => {
  // The limit counts characters as the server does (maxlength would count UTF-16 units).
  const input = $('name');
  const c = F.clipName(input.value, input.selectionEnd ?? input.value.length);
  const clipped = c.value !== input.value;
  if (clipped) {
    input.value = c.value;
    input.setSelectionRange(c.caret, c.caret);
  }
  nameError(clipped ? `A name is at most ${F.NAME_MAX} characters.` : '');
  store.setName(currentName());
});
$('brand').addEventListener('click', (e) => {
  e.preventDefault();
  if (S.room) leave();
  else show('home');
});

function nameError(text) {
  $('name-err').textContent = text;
  $('name-err').hidden = !text;
}

function syncMute() {
  const m = store.muted();
  $('mute').setAttribute('aria-pressed', String(m));
  $('mute').textContent = m ? 'Sound off' : 'Sound on';
}
$('mute').addEventListener('click', () => {
  store.setMuted(!store.muted());
  syncMute();
});

addEventListener('popstate', () => {
  if (location.pathname === '/' && S.room) leave();
});

// -------------------------------------------------------------------- tools

function toast(text) {
  const t = $('toast');
  t.textContent = text;
  t.hidden = false;
  clearTimeout(toast.t);
  toast.t = setTimeout(() => (t.hidden = true), 3500);
}

setInterval(() => {
  if (S.view === 'play' && S.board && !S.results) $('hud-time').textContent = F.clock(elapsed());
}, 100);

// A page opened on this computer shows a link a phone on the LAN can use.
async function loadLan() {
  if (!/^(localhost|127\.0\.0\.1|\[::1\])$/.test(location.hostname)) return;
  try {
    const res = await fetch('/api/urls');
    const data = res.ok ? await res.json() : null;
    const list = data && (Array.isArray(data.urls) ? data.urls : Array.isArray(data.lan) ? data.lan : []);
    const url = (list || []).find((u) => typeof u === 'string' && /^https?:\/\/[^/]+/.test(u));
    if (url) {
      S.lanBase = url.replace(/\/+$/, '');
      renderLobby();
    }
  } catch {
    /* no LAN address: the local link is all there is */
  }
}

// The how-to panel's little pictures: the seed's worked example vault, and a tiny maze.
function drawDemos() {
  const demos = {
    ghost: {
      game: 'ghost', size: 'small', seed: '0', n: 6,
      cells: ['...#..', '...#..', '......', '...#..', '...#..', '...#..'],
      start: [0, 0], flag: [0, 5], plate: [5, 0], gate: [2, 3], par: 14, allowance: 20,
    },
    maze: { game: 'maze', size: 'easy', seed: '0', n: 5, passages: ['2c2ac', '696c5', '56955', '55455', '393b9'], start: [0, 0], exit: [4, 4] },
  };
  for (const c of document.querySelectorAll('canvas.demo')) {
    const board = parseBoard(demos[c.dataset.demo]);
    const layout = { dpr: Math.max(1, devicePixelRatio || 1), cell: 22, css: 22 * board.n, n: board.n };
    c.style.width = c.style.height = layout.css + 'px';
    c.width = c.height = Math.round(layout.css * layout.dpr);
    const me = { pos: board.game === 'ghost' ? [2, 2] : [1, 1], ghost: board.game === 'ghost' ? [5, 0] : null, gateOpen: true };
    draw(c, layout, { board, me, visited: board.game === 'maze' ? new Set(['0,0', '0,1', '1,1']) : null });
  }
}

// --------------------------------------------------------------------- boot

$('name').value = F.clipName(store.name()).value;
fillSizes();
syncMute();
drawDemos();
loadLan();
const invited = F.codeFromPath(location.pathname);
if (invited) {
  $('code').value = invited;
  $('invite').hidden = false;
  $('invite').textContent = `You are invited to room ${invited}. Enter your name and press Join.`;
}
show('home');
loadDaily();
if (store.name()) conn.connect(); // resume a seat, or open the invited room straight away
else if (invited) $('name').focus();

// A read-only window for tests and debugging.
globalThis.__mazerace = {
  get view() {
    return S.view;
  },
  get board() {
    return S.board;
  },
  get game() {
    return S.pred && S.pred.game;
  },
  get room() {
    return S.room;
  },
  /** The replay screen: {i, last, playing, speed, frame, steps, state, refused} or {error}. */
  get replay() {
    return replayState();
  },
  /** Other racers' markers as last drawn: [{pos, colour, name}]. */
  get markers() {
    return (S.markers || []).map((m) => ({ ...m, pos: m.pos.slice() }));
  },
};
