// Rivals: race a stored run, which the server plays back as one more racer.
// The results' "Race the #1" (once my ranked try is spent: the server allows
// today's #1 then) or "Race my last run" (practice), the "Race" button (my
// best) on my own line of today's tables (daily.js), the host's "Race a
// stored run" in the lobby (folded until asked), and the start once the room lists the rival
// (handlers.js). Rivals are drawn like any racer, marked "replay".
import { $, badge } from './dom.js';
import { isHost } from './state.js';

export const mark = (p) => (p && p.rival ? badge('replay') : null);

/** The results' button: [label, add_rival fields], or null. */
export function choice(s) {
  const res = s.race.results;
  if (!res || !s.room || !isHost(s)) return null;
  const d = s.room.daily && s.daily.result;
  // The #1 would race their own run: offered as what it is.
  if (d && d.ranked) return d.rank === 1 ? ['Race my ranked run', { pick: 'mine' }] : ['Race the #1', { pick: 'best' }];
  const me = (res.rankings || []).find((r) => r.player_id === s.me.id);
  return me && me.status === 'finished' ? ['Race my last run', { pick: 'last' }] : null;
}

/** Back to the lobby on this board with the rival; it starts once listed. */
export function race(s, fx, fields) {
  if (s.room.phase === 'results') fx.send({ type: 'rematch', same_board: true });
  s.rivalNext = true;
  fx.send({ type: 'add_rival', ...fields });
}

/** "Race" on my line of today's table: in my room, or a practice room. */
export function fromTable(s, fx, m, runId) {
  if (s.room) return race(s, fx, { run_id: runId });
  fx.send({ type: 'create_room', game: m.game, size: m.size, daily: true });
  s.rivalNext = true;
  fx.send({ type: 'add_rival', run_id: runId });
}

/** The lobby's "Race a stored run" choices: what each races, and whether this room can have it. */
const PICKS = {
  best: [
    "The fastest run on today's table of this board, played back beside you (open once your own ranked try has begun).",
    (s) => !!s.room.daily,
  ],
  mine: ['Your own ranked run on this board today.', (s) => !!s.room.daily],
  last: ['Your run in the race this room just had.', (s) => s.ranHere === s.room.code],
  id: ['A stored daily run by its number (a leaderboard or a share shows it).', () => true],
};

export function init(c) {
  const { s, fx } = c;
  c.on('race-rival', 'click', () => {
    const ch = choice(s);
    if (ch) race(s, fx, ch[1]);
  });
  c.on('rival-pick', 'change', () => {});
  c.on('rival-add', 'click', () => {
    const pick = $('rival-pick').value;
    if (pick !== 'id') return fx.send({ type: 'add_rival', pick });
    const id = Number($('rival-run').value);
    if (Number.isInteger(id) && id > 0) fx.send({ type: 'add_rival', run_id: id });
    else {
      fx.toast('Type the run number first.');
      $('rival-run').focus();
    }
  });
}

export function render(s) {
  const ch = choice(s);
  $('race-rival').hidden = !ch;
  if (ch) $('race-rival').textContent = ch[0];
  // Folded (index.html's <details>) until the host asks: most rooms race no stored run.
  const form = $('rival-form');
  const shown = !!(s.room && s.room.phase === 'lobby' && isHost(s) && !s.room.ranked && !s.conn.offline);
  if (!shown && !form.hidden) form.open = false;
  form.hidden = !shown;
  if (!shown) return;
  const sel = $('rival-pick');
  for (const o of sel.options) o.hidden = o.disabled = !PICKS[o.value][1](s);
  if (sel.selectedOptions[0]?.disabled) sel.value = [...sel.options].find((o) => !o.disabled).value;
  $('rival-what').textContent = PICKS[sel.value][0];
  $('rival-run').hidden = sel.value !== 'id';
}
