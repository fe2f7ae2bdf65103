// Rivals (issue 16): race a stored run, which the server plays back as one
// more racer. The results' "Race the #1" (after my ranked try) / "Race my last
// run" (practice), the "Race" button (my best) on my own line of today's tables (daily.js), the
// host's "Add rival" by run id in the lobby, and the start once the room
// lists the rival (handlers.js). Rivals are drawn like any racer, marked.
import { $, el } from './dom.js';
import { isHost } from './state.js';

/** The "replay" mark after a rival's name (null for a person). */
export const mark = (p) => (p && p.rival ? el('span', { class: 'badge', text: 'replay' }) : null);

/** What the results' button races: [label, add_rival fields], or null. */
export function choice(s) {
  const res = s.race.results;
  if (!res || !s.room || !isHost(s)) return null;
  const d = s.room.daily && s.daily.result;
  // Today's #1 may be raced once my ranked try is spent; my own best from my table line.
  if (d && d.ranked) return ['Race the #1', { pick: 'best' }];
  const me = (res.rankings || []).find((r) => r.player_id === s.me.id);
  return me && me.status === 'finished' ? ['Race my last run', { pick: 'last' }] : null;
}

/** Back to the lobby on this board with the rival; started once the room lists it. */
export function race(s, fx, fields) {
  if (s.room.phase === 'results') fx.send({ type: 'rematch', same_board: true });
  s.rivalNext = true;
  fx.send({ type: 'add_rival', ...fields });
}

/** "Race" on my line of today's table: in my room, or a practice room on that board made for it. */
export function fromTable(s, fx, m, runId) {
  if (s.room) return race(s, fx, { run_id: runId });
  fx.send({ type: 'create_room', game: m.game, size: m.size, daily: true });
  s.rivalNext = true;
  fx.send({ type: 'add_rival', run_id: runId });
}

export function init(c) {
  const { s, fx } = c;
  $('race-rival').addEventListener('click', () => {
    const ch = choice(s);
    if (ch) race(s, fx, ch[1]);
  });
  $('rival-add').addEventListener('click', () => {
    const id = Number($('rival-run').value);
    if (Number.isInteger(id) && id > 0) fx.send({ type: 'add_rival', run_id: id });
  });
}

export function render(s) {
  const ch = choice(s);
  $('race-rival').hidden = !ch;
  if (ch) $('race-rival').textContent = ch[0];
  $('rival-form').hidden = !(s.room && s.room.phase === 'lobby' && isHost(s) && !s.room.ranked);
}
