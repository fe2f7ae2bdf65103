// The service worker (public/sw.js) run in a vm with fake caches and fetch:
// install caches the files, activate deletes other versions' caches, fetches
// go to the network first and to the cache only when it fails; and
// sw-register.js's registration and version check.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import vm from 'node:vm';
import { registerServiceWorker, checkVersion, pageVersion } from '../../public/js/offline/sw-register.js';

const SOURCE = readFileSync(new URL('../../public/sw.js', import.meta.url), 'utf8')
  .replace('__MAZERACE_VERSION__', 'v2')
  .replace('[/*MAZERACE_FILES*/]', '["/","/js/app.js"]');

class FakeCaches {
  constructor() {
    this.stores = new Map();
  }
  async open(name) {
    if (!this.stores.has(name)) this.stores.set(name, new Map());
    const store = this.stores.get(name);
    const key = (r) => new URL(typeof r === 'string' ? r : r.url, 'https://game.test').pathname;
    return {
      addAll: async (reqs) => {
        for (const r of reqs) {
          assert.equal(r.cache, 'no-cache', 'installed revalidated with the server (a 304 for what the page has just loaded)');
          store.set(key(r), new Response(`cached ${key(r)}`));
        }
      },
      put: async (r, res) => {
        store.set(key(r), res);
      },
      match: async (r) => store.get(key(r))?.clone(),
    };
  }
  async keys() {
    return [...this.stores.keys()];
  }
  async delete(name) {
    return this.stores.delete(name);
  }
}

function worker(network) {
  const listeners = {};
  const caches = new FakeCaches();
  const requests = [];
  const self = {
    location: { origin: 'https://game.test' },
    addEventListener: (type, fn) => {
      listeners[type] = fn;
    },
    skipWaiting: async () => {},
    clients: { claim: async () => {} },
  };
  const fetch = async (req) => {
    requests.push(req);
    return network(req);
  };
  // Relative URLs resolve against the worker's origin, as in a browser.
  class WorkerRequest {
    constructor(url, init = {}) {
      this.url = new URL(url, self.location.origin).href;
      this.cache = init.cache;
    }
  }
  vm.runInNewContext(SOURCE, { self, caches, fetch, Request: WorkerRequest, Response, URL, Promise, console });
  const run = async (type, event) => {
    const waits = [];
    let response;
    listeners[type]({
      ...event,
      waitUntil: (p) => waits.push(p),
      respondWith: (p) => {
        response = p;
      },
    });
    await Promise.all(waits);
    const res = response && (await response);
    await Promise.all(waits); // the cache put is registered while responding
    return res;
  };
  const get = (path, mode = 'cors') => run('fetch', { request: { url: `https://game.test${path}`, method: 'GET', mode } });
  return { caches, requests, run, get };
}

test('install caches this version; activate deletes the others', async () => {
  const w = worker(() => {
    throw new TypeError('offline');
  });
  await w.caches.open('mazerace-v1');
  await w.caches.open('someone-else');
  await w.run('install', {});
  assert.deepEqual([...w.caches.stores.get('mazerace-v2').keys()], ['/', '/js/app.js']);
  await w.run('activate', {});
  assert.deepEqual(await w.caches.keys(), ['someone-else', 'mazerace-v2']);
});

test('network first: fresh answers are cached; the cache serves only when the network fails', async () => {
  let up = true;
  const w = worker((req) => {
    if (!up) throw new TypeError('Failed to fetch');
    return Object.assign(new Response(`fresh ${new URL(req.url).pathname}`), {});
  });
  await w.run('install', {});
  const fresh = await w.get('/js/app.js');
  // Fake Responses have type 'default', not 'basic': nothing is stored from them.
  assert.equal(await fresh.text(), 'fresh /js/app.js');
  up = false;
  assert.equal(await (await w.get('/js/app.js')).text(), 'cached /js/app.js');
  assert.equal(await (await w.get('/r/K7M2Q', 'navigate')).text(), 'cached /', 'a room link is the page');
  assert.equal((await w.get('/nope.js')).type, 'error');
  // The socket, the API and the version never come from the cache.
  for (const path of ['/ws', '/api/daily', '/version.json', '/healthz']) assert.equal(await w.get(path), undefined, path);
});

test('a successful same-origin answer replaces the cached copy', async () => {
  const w = worker(() => {
    const res = new Response('new body');
    Object.defineProperty(res, 'type', { value: 'basic' });
    return res;
  });
  await w.run('install', {});
  await w.get('/js/app.js');
  const stored = await (await w.caches.open('mazerace-v2')).match('/js/app.js');
  assert.equal(await stored.text(), 'new body');
});

test('registerServiceWorker only in a secure context with support', async () => {
  const calls = [];
  const nav = {
    serviceWorker: {
      register: async (...a) => {
        calls.push(a);
        return 'reg';
      },
    },
  };
  assert.equal(await registerServiceWorker({ nav, secure: false }), null);
  assert.equal(await registerServiceWorker({ nav: {}, secure: true }), null);
  assert.equal(await registerServiceWorker({ nav, secure: true }), 'reg');
  assert.deepEqual(calls, [['/sw.js', { scope: '/' }]]);
  const refusing = {
    serviceWorker: {
      register: async () => {
        throw new Error('no');
      },
    },
  };
  assert.equal(await registerServiceWorker({ nav: refusing, secure: true }), null);
});

test('checkVersion says when the server runs a different client', async () => {
  const answer = (version) => async () => new Response(JSON.stringify({ version }));
  assert.equal(pageVersion(), null, 'read raw from disk, the version is unknown');
  assert.deepEqual(await checkVersion({ fetchFn: answer('abc'), page: 'abc' }), {
    reachable: true,
    server: 'abc',
    page: 'abc',
    reload: false,
  });
  assert.deepEqual(await checkVersion({ fetchFn: answer('def'), page: 'abc' }), {
    reachable: true,
    server: 'def',
    page: 'abc',
    reload: true,
  });
  assert.equal((await checkVersion({ fetchFn: answer('def'), page: null })).reload, false, 'unknown page version: no reload loop');
  const down = async () => {
    throw new TypeError('Failed to fetch');
  };
  assert.deepEqual(await checkVersion({ fetchFn: down, page: 'abc' }), { reachable: false, server: null, page: 'abc', reload: false });
  assert.equal((await checkVersion({ fetchFn: async () => new Response('', { status: 503 }), page: 'abc' })).reachable, false);
});
