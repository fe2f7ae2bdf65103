// The service worker: the client's files, network first, from a versioned
// cache only when the network fails, so a page served over HTTPS or from
// localhost reloads with the server gone (solo practice then runs in the
// browser: js/offline/). The server fills in VERSION (a hash over every file
// it embeds) and FILES (their paths) when it serves this file
// (server/src/assets.rs), so a new server version is a new cache: installed
// beside the old, which is deleted on activate. The WebSocket, the API and
// /version.json always go to the network.

const VERSION = '__MAZERACE_VERSION__';
const FILES = [/*MAZERACE_FILES*/];
const CACHE = `mazerace-${VERSION}`;
const NETWORK_ONLY = /^\/(ws|api\/|healthz|version\.json)/;

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      // `no-cache`: every file revalidated with the server (its ETag), so the
      // cache holds this version's files, while those the page has just
      // loaded come back as 304s instead of being downloaded twice.
      .then((cache) => cache.addAll(FILES.map((f) => new Request(f, { cache: 'no-cache' }))))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith('mazerace-') && k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('fetch', (event) => {
  const req = event.request;
  const url = new URL(req.url);
  if (req.method !== 'GET' || url.origin !== self.location.origin || NETWORK_ONLY.test(url.pathname)) return;
  event.respondWith(
    fetch(req)
      .then((res) => {
        if (res.ok && res.type === 'basic') {
          const copy = res.clone();
          event.waitUntil(caches.open(CACHE).then((cache) => cache.put(req, copy)));
        }
        return res;
      })
      .catch(async () => {
        const cache = await caches.open(CACHE);
        // A room link (/r/CODE) or any other page is the one page, index.html.
        const hit = (await cache.match(req, { ignoreSearch: true })) || (req.mode === 'navigate' ? await cache.match('/') : undefined);
        return hit || Response.error();
      }),
  );
});
