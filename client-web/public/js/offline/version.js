// The version of the client files this page was loaded with. The server
// fills it in when it serves this file (server/src/assets.rs: the same hash
// as /version.json and the service worker's cache); read raw from disk it is
// the placeholder, which sw-register.js treats as "unknown".
export const VERSION = '__MAZERACE_VERSION__';
