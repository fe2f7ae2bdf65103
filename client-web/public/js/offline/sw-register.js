// Offline plumbing for app.js to wire: register the service worker (sw.js)
// where browsers allow one (secure contexts: HTTPS or localhost; on a plain
// HTTP LAN address only the open tab works offline), and compare this page's
// version with the server's /version.json, so a page loaded from the cache
// reloads before it speaks to a newer server.

import { VERSION } from './version.js';

const PLACEHOLDER = '__MAZERACE' + '_VERSION__'; // split: the server replaces the whole word

/** This page's client version, or null when it is not known (files read raw). */
export const pageVersion = () => (VERSION === PLACEHOLDER ? null : VERSION);

/**
 * Registers /sw.js for the whole origin. Resolves to the registration, or
 * null where there can be none (not a secure context, no support, refused).
 */
export async function registerServiceWorker({ nav = globalThis.navigator, secure = globalThis.isSecureContext } = {}) {
  if (!secure || !nav || !nav.serviceWorker) return null;
  try {
    return await nav.serviceWorker.register('/sw.js', { scope: '/' });
  } catch {
    return null;
  }
}

/**
 * Asks the server for its version: {reachable, server, page, reload}.
 * `reload` is true when the server is reachable and runs a different client
 * than this page was loaded with (reload before rooms or daily).
 */
export async function checkVersion({ fetchFn = globalThis.fetch, page = pageVersion() } = {}) {
  try {
    const res = await fetchFn('/version.json', { cache: 'no-store' });
    if (!res.ok) return { reachable: false, server: null, page, reload: false };
    const body = await res.json();
    const server = body && typeof body.version === 'string' ? body.version : null;
    return { reachable: true, server, page, reload: !!server && !!page && server !== page };
  } catch {
    return { reachable: false, server: null, page, reload: false };
  }
}
