// The results: ranking, efficiency, par in words, my best, the optimal line, what next.

import { $, el, cells } from './dom.js';
import { replayFrames, Playback } from './replay.js';
import { isHost, alone } from './state.js';
import { rematch, tryAgain, leave } from './actions.js';
import { requestDraw } from './raceboard.js';
import { still } from './render.js';
import * as F from './format.js';
import { mark } from './rival.js';
import { standingsOf, roundLabel } from './matches.js';
import { gameOf } from './games/index.js';

const phone = matchMedia('(max-width: 880px)');
let ctx = null;
let shown = null; // the results last laid out

export function init(c) {
  ctx = c;
  const { s, fx } = c;
  c.on('rematch', 'click', () => rematch(s, fx));
  c.on('again', 'click', () => tryAgain(s, fx));
  c.on('newboard', 'click', () => {
    s.soloNext = true;
    rematch(s, fx);
  });
  c.on('leave2', 'click', () => leave(s, fx));
  c.on('watch-line', 'click', () => (s.replay.line ? stopLine : startLine)(s));
}

/** `results.reveal` in words, as its game says it (games/ `reveal`): {text, why, ask}, all empty for no or an unknown game. */
export function revealText(rv) {
  const game = rv && gameOf(rv.game);
  return game ? game.reveal(rv) : { text: '', why: '', ask: '' };
}

export function render(s) {
  const m = s.race.results;
  $('results').hidden = !m;
  $('play').classList.toggle('done', !!m);
  $('play-h').textContent = m ? 'Results' : 'Race';
  if (!m) {
    shown = null;
    return;
  }
  const first = shown !== m;
  shown = m;
  if (first) layout(s, m);
  renderButtons(s);
  const wl = $('watch-line');
  const rv = m.reveal || {};
  const line = s.replay.line;
  wl.hidden = !(s.race.board && Array.isArray(rv.solution) && rv.solution.length);
  if (!line) wl.textContent = (gameOf(rv.game) || { lineButton: 'Watch the optimal line' }).lineButton;
  else wl.textContent = line.pb.playing ? 'Stop' : still() ? 'Hide the line' : 'Watch again';
  if (first) {
    $('results-h').focus({ preventScroll: true });
    // On a phone the results are above the board: bring them into view (in a
    // match, the match card above them, with the countdown to the next round).
    const top = standingsOf(s) ? $('match') : $('results');
    if (phone.matches) top.scrollIntoView({ block: 'start', behavior: still() ? 'auto' : 'smooth' });
  }
}

function layout(s, m) {
  const b = s.race.board;
  const rv = m.reveal || {};
  $('col-steps').textContent = F.unit(b ? b.game : rv.game, true);
  const round = standingsOf(s) ? `${roundLabel(s)} · ` : '';
  // The board's game and size: a match's rounds may change them (RULES.md, "Matches").
  const on = b && b.size ? b : s.room;
  $('results-h').textContent = s.room ? `Results · ${round}${F.label(on.game, on.size)}` : 'Results';
  $('rankings').replaceChildren(
    ...(m.rankings || []).map((r) => {
      // The server's figure (RULES.md, "Efficiency"): the page computes no score.
      const eff = r.status === 'finished' && Number.isFinite(r.efficiency) ? r.efficiency : null;
      const finished = r.time_ms != null;
      const [rank, name, steps] = cells([r.rank || '–', r.name, r.steps]);
      name.append(mark(r) || '');
      return el(
        'tr',
        { class: r.player_id === s.me.id ? 'me' : '' },
        rank,
        name,
        steps,
        // Not finished: why, across the time and efficiency columns.
        finished
          ? el('td', { text: F.clock(r.time_ms) })
          : el('td', { class: 'why', colspan: '2', text: F.statusLabel(r.status).replace(/^./, (c) => c.toUpperCase()) }),
        finished ? el('td', { text: eff != null ? `${eff}%` : '' }) : null,
      );
    }),
  );
  const said = revealText(rv);
  $('reveal').textContent = [said.text, F.lineHiddenUntil(m.hidden_until)].filter(Boolean).join(' ');
  $('reveal-why').hidden = !said.why;
  $('reveal-why').open = false;
  $('reveal-ask').textContent = said.ask;
  $('reveal-because').textContent = said.why;
  const mine = (m.rankings || []).find((r) => r.player_id === s.me.id);
  const { game, size } = b && b.size ? b : s.room || {}; // a best belongs to the board raced
  const store = ctx.fx.store;
  const rec =
    mine && mine.status === 'finished'
      ? store.recordFinish(game, size, {
          ...mine,
          efficiency: mine.efficiency,
          offline: s.conn.offline,
        })
      : { best: store.best(game, size) };
  const label = F.label(game, size);
  $('mybest').replaceChildren(
    rec.best ? `Your best on ${label}: ${F.best(rec.best, game)}` : `No finish on ${label} yet.`,
    rec.improved ? el('span', { class: 'new', text: 'New best!' }) : '',
  );
}

function renderButtons(s) {
  if (!s.room) return;
  const host = isHost(s);
  // In a match the next round comes by itself, and after it the match card offers another.
  const inMatch = !!standingsOf(s);
  const one = alone(s) && !inMatch;
  // Alone: the same board again, or (not daily) a new one. With others: the host's rematch.
  $('rematch').hidden = !host || one || inMatch;
  $('again').hidden = !one;
  $('again').textContent = s.room.daily ? 'Try this board again (practice)' : 'Try this board again';
  $('newboard').hidden = !one || !!s.room.daily;
  $('rematch-note').hidden = host || one || inMatch;
}

export function startLine(s) {
  const rv = s.race.results && s.race.results.reveal;
  if (!rv || !s.race.board) return;
  const { frames } = replayFrames(s.race.board, rv.solution);
  const calm = still();
  const pb = new Playback(frames.length, { speed: frames.length > 40 ? 4 : 2, at: calm ? frames.length : 0 });
  s.replay.line = { frames, pb };
  // On a phone the board is below the results.
  if (phone.matches) $('stage').scrollIntoView({ block: 'center', behavior: calm ? 'auto' : 'smooth' });
  requestDraw();
  if (calm) return;
  pb.play();
  tick(s, s.replay.line);
}

function tick(s, line) {
  clearTimeout(s.timers.line);
  s.timers.line = setTimeout(() => {
    if (s.replay.line !== line) return;
    line.pb.tick();
    requestDraw();
    if (line.pb.playing) tick(s, line);
    else ctx.render();
  }, line.pb.interval);
}

export function stopLine(s) {
  clearTimeout(s.timers.line);
  const line = s.replay.line;
  s.replay.line = null;
  // "Watch again" after the end plays it from the start.
  if (line && !line.pb.playing && !still()) startLine(s);
  requestDraw();
}
