// Pure formatters shared by the views. A game's words come from its module
// in the table (js/games/): its title, its sizes, what a run counts.

import { GAMES, gameOf, sizeOf } from './games/index.js';

/** A match's rounds and boards (PROTOCOL.md, `create_room`'s `match`): the choices on home and in the lobby. */
export const MATCH_ROUNDS = [3, 5, 10];
export const PLANS = [
  ['same', 'The same game and size'],
  ['alternate', `${andList(GAMES.map((g) => g.short))} in turn`],
  ['harder', 'Getting harder, small to large'],
];
export const planLabel = (plan) => (PLANS.find(([k]) => k === plan) || [null, String(plan)])[1];
/**
 * A room's boards as tags: its game and size, except where a match's plan
 * changes them from round to round (getting harder, or both games in
 * turn): the room's own size would name one board of several.
 */
export function roomBoards(room) {
  const m = room.match;
  const game = gameLabel(room.game);
  if (m && m.plan === 'harder') return [game, planLabel(m.plan), matchLabel(m)];
  if (m && m.plan === 'alternate') return [planLabel(m.plan), matchLabel(m)];
  return [game, sizeLabel(room.game, room.size), ...(m ? [matchLabel(m)] : [])];
}
/** "A, B and C". */
export function andList(items) {
  return items.length > 1 ? `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}` : items.join('');
}
/** `room.match` in words: "Match of 3 rounds". */
export const matchLabel = (m) => (m ? `Match of ${m.rounds} rounds` : 'One race');

/** JSON's arrays, else none. */
export const list = (x) => (Array.isArray(x) ? x : []);
export const gameLabel = (g) => (gameOf(g) || { title: String(g) }).title;
/** "Small 6×6". */
export const sizeWords = (s) => `${s.label} ${s.n}×${s.n}`;
export function sizeLabel(game, size) {
  const s = sizeOf(game, size);
  return s ? sizeWords(s) : String(size);
}
export const label = (game, size, sep = ' ') => `${gameLabel(game)}${sep}${sizeLabel(game, size)}`;
/** What a run of `game` counts ("steps", "moves"); a column's title with `title`. */
export const unit = (game, title = false) => {
  const u = (gameOf(game) || { unit: 'moves' }).unit;
  return title ? u[0].toUpperCase() + u.slice(1) : u;
};
export const goal = (game) => (gameOf(game) || { goal: 'goal' }).goal;
/** store.best: "90% · 20 steps · 0:42.3 (offline)". */
export const best = (b, game) =>
  `${b.efficiency != null ? b.efficiency + '% · ' : ''}${b.steps} ${unit(game)} · ${clock(b.time_ms)}${b.offline ? ' (offline)' : ''}`;
export const plural = (n, one) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** 42_300 -> "0:42.3"; null -> "–". */
export function clock(ms) {
  if (!Number.isFinite(ms) || ms < 0) return '–';
  const tenths = Math.floor(ms / 100);
  const m = Math.floor(tenths / 600);
  const s = Math.floor(tenths / 10) % 60;
  return `${m}:${String(s).padStart(2, '0')}.${tenths % 10}`;
}

/** RFC 3339 -> the local "09:12", or null. */
export function hhmm(iso) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return null;
  return `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
}

export function hms(ms) {
  const t = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(t / 3600),
    m = Math.floor(t / 60) % 60,
    s = t % 60;
  return `${h}:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}`;
}

export function ordinal(n) {
  const v = n % 100;
  const suf = v >= 11 && v <= 13 ? 'th' : ['th', 'st', 'nd', 'rd'][n % 10] || 'th';
  return n + suf;
}

export function msToUtcMidnight(now = Date.now()) {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1) - now;
}

/** A racer's status in words: out_of_steps -> "out of steps". */
export const statusLabel = (s) => String(s || '').replace(/_/g, ' ');

/** A room (`r`) or league (`l`) code typed or pasted, a link too. */
export function cleanCode(text, kind = 'r') {
  const s = String(text || '').trim();
  const m = s.match(new RegExp(`/${kind}/([A-Za-z0-9]+)`));
  return (m ? m[1] : s)
    .replace(/[^A-Za-z0-9]/g, '')
    .toUpperCase()
    .slice(0, 12);
}

/** The code in a room (`r`) or league (`l`) path, a query after it allowed. */
export const codeFromPath = (path, kind = 'r') =>
  (new RegExp(`^/${kind}/([A-Za-z0-9]{1,12})/?(\\?.*)?$`).exec(path || '') || [])[1]?.toUpperCase() || null;

/** The invite key in a link ("...?k=3f9a0c1d5e7b2a64"), or null. */
export function keyFrom(text) {
  const m = /[?&]k=([0-9a-fA-F]{16})\b/.exec(String(text || ''));
  return m ? m[1].toLowerCase() : null;
}

export const roomPath = (code, key) => `/r/${code}${key ? `?k=${key}` : ''}`;
/** The room on a big screen ("Show on a big screen"): the same page, as the room's screen. */
export const tvPath = (code, key) => `/tv/${code}${key ? `?k=${key}` : ''}`;
/** A league's invite link path: its key spares a friend the address's failed-join budget. */
export const leaguePath = (code, key) => `/l/${code}${key ? `?k=${key}` : ''}`;
/** A league lookup's message fields with the invite key when there is one. */
export const withKey = (msg, key) => (key ? { ...msg, key } : msg);

/** In Unicode scalar values, as the server counts (Rust's chars()). */
export const NAME_MAX = 24;

/** Control characters and the bidi marks the server refuses in a name. */
// eslint-disable-next-line no-control-regex -- these are the characters refused
const BAD_NAME_CHARS = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

export function nameProblem(name, max = NAME_MAX) {
  if (!name) return 'Enter a name first: the others will see it.';
  if (nameLength(name) > max) return `A name is at most ${max} characters.`;
  if (BAD_NAME_CHARS.test(name)) return 'That name has a character that is not allowed.';
  return '';
}

/** Code points, not UTF-16 units, as the server counts (Rust's chars()): an emoji is one, not two. */
export const nameLength = (s) => [...String(s)].length;

/**
 * Cuts a name to `max` code points from just before the caret (what was just
 * typed or pasted), as maxlength would but never half a surrogate pair.
 */
export function clipName(value, caret = value.length, max = NAME_MAX) {
  const before = [...value.slice(0, caret)];
  const after = [...value.slice(caret)];
  let excess = before.length + after.length - max;
  if (excess <= 0) return { value, caret };
  const cut = Math.min(excess, before.length);
  before.length -= cut;
  excess -= cut;
  if (excess > 0) after.length -= excess;
  const head = before.join('');
  return { value: head + after.join(''), caret: head.length };
}

export const leagueCode = (text) => cleanCode(text, 'l');
export const leagueFromPath = (path) => codeFromPath(path, 'l');

/** `leagues[].today`: "#1 of 3 today · 5 points". */
export function leagueToday(t) {
  if (!t) return 'Not played today'; // absent before my try today (PROTOCOL.md, `leagues`)
  // A new league ranks everyone #1 before anyone has played: say so instead.
  if (!t.played) return 'Nobody has played today';
  // Every ranked try scores at least 1: no points is no try of mine today.
  if (!t.points) return `Not played today · ${t.played} played`;
  return `#${t.rank} of ${t.played} today · ${plural(t.points, 'point')}`;
}

export function places(d) {
  const at = (rank, n) => (rank ? `#${rank} of ${n}` : 'not finished');
  const out = d.ranked ? [{ label: 'Everyone', text: at(d.finished && d.rank, d.entrants) }] : [];
  for (const l of list(d.leagues)) out.push({ label: String(l.name), text: at(l.rank, l.entrants), share: l.share || '' });
  return out;
}

/** A table line's name, marked when the server flagged the run as paced at its ranked floor (`at_floor`). */
export const entryName = (e) => (e.at_floor ? `${e.name} (floor pace)` : e.name);
/**
 * A table's lines with the floor-paced runs left out when `hide` (the player's
 * own line always stays). The ranks stay the server's: a hidden run leaves a
 * gap in them rather than the page ranking anyone itself.
 */
export const shownEntries = (entries, hide, youRunId) => (hide ? entries.filter((e) => !e.at_floor || e.run_id === youRunId) : entries);
/** The members the owner may remove (`member` tags): every line but their own; none for anyone else. */
/** Whether I own the league these standings are of (I may remove members and change its code). */
export function owns(st) {
  const me = list(st && st.lines).find((l) => l.you);
  return Boolean(me && me.owner);
}
export function removable(st) {
  return owns(st)
    ? list(st.lines)
        .filter((l) => !l.you)
        .map((l) => l.member)
    : [];
}
export const standingCells = (l) => [l.rank, l.name, l.points, l.wins, l.days, l.streak || 0].map(String);

export function practiceWhy(why, rankedAt) {
  if (why === 'address_cap')
    return 'Practice: not ranked. Your network address has had its ranked tries on this board today (everyone on it shares them).';
  const at = rankedAt ? hhmm(rankedAt) : null;
  return at ? `Practice: not ranked (your ranked try today was at ${at}).` : 'Practice: not ranked (you used your ranked try today).';
}

/**
 * Why a daily room's results show no optimal line: the server withholds it
 * while the board's day (`hidden_until`, from `results`) is on.
 */
export function lineHiddenUntil(date) {
  return date ? `The optimal line is shown once ${date} is over (00:00 UTC), so nobody can copy it today.` : '';
}
