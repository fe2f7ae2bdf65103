// Offline solo practice (issue 18): when the server cannot be reached, or
// the player asks, the page swaps its connection for the local stand-in
// server (offline/localserver.js), which builds boards in the browser and
// judges every move exactly as the server would. Nothing offline is ranked
// or sent anywhere; its bests are kept marked as offline. While offline it
// watches /version.json: when the server answers, the page says so and goes
// back online once the player is out of the offline room (reloading first
// when the server now serves another client version, so a cached page never
// speaks an old protocol). A race begun offline ends offline, its results
// on screen and its best kept: going online happens after it, never through it.

import { LocalServer } from './offline/localserver.js';
import { checkVersion } from './offline/sw-register.js';

/** How often an offline page asks whether the server is back. */
const WATCH_MS = 3000;

export class Offline {
  constructor({ s, fx, useTransport, Connection, render, toast }) {
    Object.assign(this, { s, fx, useTransport, Connection, render, toast });
    this.timer = 0;
    /** "The server is back" waits for the race it would cover to end. */
    this.owed = false;
  }

  /** Solo practice from now on comes from the local stand-in server. */
  start() {
    if (this.s.conn.offline) return;
    this.s.conn.offline = true;
    this.s.conn.back = false;
    this.owed = false;
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
    // Never out of the offline room: its race, its results and what comes
    // after them (a rematch, a new board) are the stand-in's. Leaving it
    // (home) is when the page goes online; a reload would drop it too.
    if (this.s.room) {
      if (!this.s.conn.back) {
        this.s.conn.back = true;
        this.owed = true;
      }
      // Said over the results or the lobby, never over a race's hint (the
      // header's pill says it meanwhile).
      const phase = this.s.room.phase;
      if (this.owed && phase !== 'countdown' && phase !== 'racing') {
        this.owed = false;
        this.toast('The server is back: leave this room to play online again.');
      }
      return this.render();
    }
    if (v.reload) return location.reload();
    clearInterval(this.timer);
    this.owed = false;
    this.s.conn.offline = false;
    this.s.conn.back = false;
    this.useTransport(this.Connection);
    this.fx.connect();
    this.toast('The server is back: rooms and the daily challenge work again.');
    this.render();
  }
}
