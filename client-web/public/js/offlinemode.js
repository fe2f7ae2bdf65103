// Offline solo practice (issue 18): when the server cannot be reached, or
// the player asks, the page swaps its connection for the local stand-in
// server (offline/localserver.js), which builds boards in the browser and
// judges every move exactly as the server would. Nothing offline is ranked
// or sent anywhere; its bests are kept marked as offline. While offline it
// watches /version.json: when the server answers, the page says so and, out
// of a race, goes back online (reloading first when the server now serves
// another client version, so a cached page never speaks an old protocol).

import { LocalServer } from './offline/localserver.js';
import { checkVersion } from './offline/sw-register.js';

/** How often an offline page asks whether the server is back. */
const WATCH_MS = 3000;

export class Offline {
  constructor({ s, fx, useTransport, Connection, render, toast }) {
    Object.assign(this, { s, fx, useTransport, Connection, render, toast });
    this.timer = 0;
  }

  /** Solo practice from now on comes from the local stand-in server. */
  start() {
    if (this.s.conn.offline) return;
    this.s.conn.offline = true;
    this.s.conn.back = false;
    this.s.room = null;
    this.s.conn.welcomed = false; // until the stand-in's own welcome
    this.useTransport(LocalServer);
    this.fx.connect();
    clearInterval(this.timer);
    this.timer = setInterval(() => this.poll(), WATCH_MS);
    this.render();
  }

  async poll() {
    const v = await checkVersion();
    if (!v.reachable || !this.s.conn.offline) return;
    if (v.reload) return location.reload();
    if (!this.s.conn.back) {
      this.s.conn.back = true;
      this.toast('The server is back: rooms and the daily challenge work again.');
    }
    // Never in the middle of a run: at the lobby, the results or home.
    const phase = this.s.room && this.s.room.phase;
    if (phase === 'countdown' || phase === 'racing') return this.render();
    clearInterval(this.timer);
    this.s.conn.offline = false;
    this.s.conn.back = false;
    this.s.room = null;
    this.s.view = 'home';
    this.useTransport(this.Connection);
    this.fx.connect();
    this.render();
  }
}
