// Everything kept in the browser. Storage can throw (disabled, full) or hold
// junk: both read as nothing.
//
// One player per live tab. A tab playing as a token holds a Web Lock named
// after it for as long as it lives; the browser drops the lock the moment the
// tab closes. So a tab closed mid-race and a new one opened a second later
// resumes the same player (a claim kept in localStorage used to live 10 s
// after its tab died, so the new tab started as a new player, joined its own
// race as a watcher and was listed twice), while two tabs open at once are
// still two players. The best result is kept per game AND size.

const KEY = 'mazerace.';
/** How far a resumed race's clock origin may be from the kept one's (network delays). */
export const TRAIL_SLACK_MS = 2500;
const TRAILS_KEPT = 4;

/**
 * Takes the lock for `token`, waiting up to `waitMs` for a tab that is
 * closing to let go. Resolves to a release function, or null when another
 * live tab holds it.
 */
function lockToken(locks, token, waitMs) {
  return new Promise((resolve) => {
    let release;
    const held = new Promise((r) => (release = r));
    const opts =
      waitMs > 0 && globalThis.AbortSignal && AbortSignal.timeout ? { signal: AbortSignal.timeout(waitMs) } : { ifAvailable: true };
    Promise.resolve()
      .then(() =>
        locks.request(`mazerace.token.${token}`, opts, (lock) => {
          if (!lock) return resolve(null);
          resolve(release);
          return held;
        }),
      )
      .catch(() => resolve(null));
  });
}

/**
 * Web Locks' `request` over a BroadcastChannel, for pages without
 * navigator.locks (it needs a secure context; a phone on a plain-HTTP LAN
 * address has none): a live tab holding a name answers when asked; a closed
 * one cannot, so its name is free at once. `close()` ends it (tests).
 */
export function channelLocks(BC = globalThis.BroadcastChannel, waitMs = 150) {
  if (!BC) return null;
  const ch = new BC('mazerace.locks');
  const mine = new Set();
  ch.addEventListener('message', (e) => e.data && mine.has(e.data.ask) && ch.postMessage({ have: e.data.ask }));
  return {
    close: () => ch.close(),
    request: (name, opts, cb) =>
      new Promise((resolve, reject) => {
        let taken = mine.has(name);
        const hear = (e) => (taken ||= !!e.data && e.data.have === name);
        ch.addEventListener('message', hear);
        ch.postMessage({ ask: name });
        setTimeout(async () => {
          ch.removeEventListener('message', hear);
          if (taken) return opts.signal ? reject(new Error('AbortError')) : resolve(cb(null));
          mine.add(name);
          try {
            resolve(await cb({ name }));
          } finally {
            mine.delete(name);
          }
        }, waitMs);
      }),
  };
}

/** storage: localStorage; session: sessionStorage; locks: navigator.locks or channelLocks() (null: every claim succeeds). */
export function makeStore(storage, session, now = () => Date.now(), locks = null) {
  const get = (s, k) => {
    try {
      const raw = s && s.getItem(KEY + k);
      return raw == null ? null : JSON.parse(raw);
    } catch {
      return null;
    }
  };
  const set = (s, k, v) => {
    try {
      if (v == null) s.removeItem(KEY + k);
      else s.setItem(KEY + k, JSON.stringify(v));
    } catch {
      /* full or disabled: it just forgets */
    }
  };
  let chosen = null; // the token this tab plays as
  let screen = false;
  let release = null;
  const lock = (t, waitMs) => (locks ? lockToken(locks, t, waitMs) : Promise.resolve(() => {}));

  return {
    name: () => {
      const n = get(storage, 'name');
      return typeof n === 'string' ? n : '';
    },
    setName: (n) => set(storage, 'name', n),
    muted: () => get(storage, 'muted') === true,
    /** Sound turned on by the player (not just never turned off): a phone in a room with a screen sounds then only. */
    soundOn: () => get(storage, 'muted') === false,
    setMuted: (m) => set(storage, 'muted', !!m),

    /**
     * This tab is a screen from now on (tv.js): a token of its own, in this
     * tab's storage only, so no player's tab ever resumes as the screen and
     * the screen never takes a player's seat. False when it already was.
     */
    asScreen() {
      if (screen) return false;
      screen = true;
      if (release) release();
      [chosen, release] = [null, null];
      return true;
    },

    /**
     * Decides the token this tab plays as (once, before connecting): its own
     * from before a reload, else the browser's shared one, whichever no other
     * live tab holds; null to start as a new player.
     */
    async claim() {
      if (screen) return (chosen = get(session, 'screen'));
      for (const t of new Set([get(session, 'token'), get(storage, 'token')])) {
        if (typeof t !== 'string') continue;
        const r = await lock(t, 400);
        if (r) {
          [chosen, release] = [t, r];
          break;
        }
      }
      return chosen;
    },
    token: () => chosen,
    /** The token from `welcome` (null: forget it); the first tab's is the shared one too. */
    setToken(t) {
      if (screen) return set(session, 'screen', (chosen = t));
      const shared = get(storage, 'token');
      if (shared == null || shared === chosen) set(storage, 'token', t);
      set(session, 'token', t);
      if (t === chosen) return;
      if (release) release();
      [chosen, release] = [t, null];
      if (t != null) lock(t, 0).then((r) => (chosen === t ? (release = r) : r && r()));
    },

    /**
     * A maze race's trail (the cells crossed), kept per race so that it
     * survives a reload or a tab closed and opened again (localStorage),
     * and never shows in another race: a race is its room, its board's seed
     * and `origin`, the wall-clock ms its clock counts from (the start
     * signal, or the first move), which a resume knows again as now less the
     * snapshot's `elapsed_ms`. A rematch of the same board in the same room
     * starts later than TRAIL_SLACK_MS after the last, so it never matches.
     */
    trail(room, seed, origin) {
      const t = (get(storage, 'trails') || {})[room];
      const same = t && t.seed === seed && Number.isFinite(t.origin) && Math.abs(t.origin - origin) <= TRAIL_SLACK_MS;
      return same && Array.isArray(t.cells) ? t.cells.map(String) : [];
    },
    setTrail(room, seed, origin, cells) {
      const all = get(storage, 'trails');
      const kept = all && typeof all === 'object' ? all : {};
      delete kept[room];
      // The newest last; a handful of rooms is all a player is in at once.
      const recent = Object.entries(kept).slice(-(TRAILS_KEPT - 1));
      set(storage, 'trails', Object.fromEntries([...recent, [room, { seed, origin, cells }]]));
    },

    recordDaily(m) {
      if (!m || typeof m.date !== 'string') return;
      const day = get(storage, `daily.${m.date}`);
      const all = day && typeof day === 'object' ? day : {};
      const k = `${m.game}.${m.size}`;
      if (m.ranked || !all[k]) all[k] = { ...m, at: new Date(now()).toISOString() };
      set(storage, `daily.${m.date}`, all);
      set(storage, 'streak', { date: m.date, streak: m.streak });
    },
    dailyDay(date) {
      const d = get(storage, `daily.${date}`);
      return d && typeof d === 'object' ? d : {};
    },
    rankedDaily(date, game, size) {
      const d = date ? this.dailyDay(date)[`${game}.${size}`] : null;
      return d && d.ranked ? d : null;
    },
    streak() {
      const st = get(storage, 'streak');
      return st && typeof st.date === 'string' && Number.isFinite(st.streak) ? st : null;
    },

    best: (game, size) => {
      const b = get(storage, `best.${game}.${size}`);
      return b && typeof b === 'object' && Number.isFinite(b.steps) ? b : null;
    },
    /** The best: highest efficiency, then quicker, then fewer steps. Returns {best, improved}. */
    recordFinish(game, size, r) {
      const old = this.best(game, size);
      const cur = { steps: r.steps, time_ms: r.time_ms ?? null, efficiency: r.efficiency ?? null, at: now() };
      if (r.offline) cur.offline = true; // the page judged it
      const rank = (b) => [b.efficiency ?? -1, -(b.time_ms ?? Infinity), -b.steps];
      const better =
        !old ||
        rank(cur)
          .map((v, i) => Math.sign(v - rank(old)[i]) || 0)
          .find((v) => v) > 0;
      if (better) set(storage, `best.${game}.${size}`, cur);
      return { best: better ? cur : old, improved: better, previous: old };
    },
  };
}

export function memoryStorage() {
  const m = new Map();
  return {
    getItem: (k) => (m.has(k) ? m.get(k) : null),
    setItem: (k, v) => m.set(k, String(v)),
    removeItem: (k) => m.delete(k),
  };
}
