// Everything kept in the browser: the name, the reconnect token, the mute
// switch, and the best result per game AND size (never one key for all sizes).
// Storage can throw (private mode, quota) or hold junk; both read as "nothing".

const KEY = 'mazerace.';

export function makeStore(storage, session, now = () => Date.now()) {
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
      /* storage full or disabled: the game still works, it just forgets */
    }
  };
  // Two tabs must not resume the same player (each would keep taking the seat
  // from the other). The tab that uses the shared token refreshes a claim on it;
  // another tab seeing a fresh claim starts as a new player instead.
  const tabId = get(session, 'tab') || Math.random().toString(36).slice(2);
  set(session, 'tab', tabId);
  const CLAIM_MS = 10000;

  return {
    name: () => {
      const n = get(storage, 'name');
      return typeof n === 'string' ? n : '';
    },
    setName: (n) => set(storage, 'name', n),
    muted: () => get(storage, 'muted') === true,
    setMuted: (m) => set(storage, 'muted', !!m),

    /** The token this tab should resume with, or null to start as a new player. */
    token() {
      const own = get(session, 'token');
      if (typeof own === 'string') return own;
      const shared = get(storage, 'token');
      if (typeof shared !== 'string') return null;
      const claim = get(storage, 'claim');
      if (claim && claim.tab !== tabId && now() - claim.at < CLAIM_MS) return null;
      return shared;
    },
    /** Remembers the token from `welcome`; the first tab also makes it the shared one. */
    setToken(t) {
      set(session, 'token', t);
      const claim = get(storage, 'claim');
      if (t == null || !claim || claim.tab === tabId || now() - claim.at >= CLAIM_MS) {
        set(storage, 'token', t);
        if (t != null) this.keepClaim();
      }
    },
    /** Call every few seconds while connected: this tab still uses the shared token. */
    keepClaim() {
      if (get(session, 'token') === get(storage, 'token')) set(storage, 'claim', { tab: tabId, at: now() });
    },

    best: (game, size) => {
      const b = get(storage, `best.${game}.${size}`);
      return b && typeof b === 'object' && Number.isFinite(b.steps) ? b : null;
    },
    /**
     * Records a finish; the best is the highest efficiency (steps against the
     * board's best possible), then the quicker time, then fewer steps.
     * Returns {best, improved}.
     */
    recordFinish(game, size, r) {
      const old = this.best(game, size);
      const cur = { steps: r.steps, time_ms: r.time_ms ?? null, efficiency: r.efficiency ?? null, at: now() };
      const better =
        !old ||
        (cur.efficiency ?? -1) > (old.efficiency ?? -1) ||
        ((cur.efficiency ?? -1) === (old.efficiency ?? -1) &&
          ((cur.time_ms ?? Infinity) < (old.time_ms ?? Infinity) ||
            ((cur.time_ms ?? Infinity) === (old.time_ms ?? Infinity) && cur.steps < old.steps)));
      if (better) set(storage, `best.${game}.${size}`, cur);
      return { best: better ? cur : old, improved: better, previous: old };
    },
  };
}

/** A Storage-like object in memory (tests, and browsers with storage disabled). */
export function memoryStorage() {
  const m = new Map();
  return {
    getItem: (k) => (m.has(k) ? m.get(k) : null),
    setItem: (k, v) => m.set(k, String(v)),
    removeItem: (k) => m.delete(k),
  };
}
