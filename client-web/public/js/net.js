// The WebSocket to /ws: hello first, backoff reconnect, ping (README, "How it plays").
// It knows nothing of rooms or rules (handlers.js reacts to the messages), and
// it is a seam: app.js talks to any class with this shape (connect, restart,
// close, send, open, active), so the offline stand-in can be swapped in.

/** Before attempt `n` (from 0): 0.5 s doubling to 10 s, with jitter. */
export function backoff(n, rand = Math.random) {
  const base = Math.min(10000, 500 * 2 ** n);
  return Math.round(base * (0.75 + rand() * 0.5));
}

/**
 * The server's close code when this player was resumed on another
 * connection (another tab or device): reconnecting would take it back and
 * start a tug of war, so the page waits for the person to choose.
 */
export const TAKEN_OVER = 4003;

export class Connection {
  /** onState(state): 'connecting', 'open', 'waiting' (backing off), 'taken'. */
  constructor({ url, hello, onMessage, onState }) {
    Object.assign(this, { url, hello, onMessage, onState });
    this.ws = null;
    this.attempt = 0;
    this.timer = 0;
    this.pinger = 0;
    this.stopped = false;
  }

  connect() {
    clearTimeout(this.timer);
    this.stopped = false;
    this.onState('connecting');
    let ws;
    try {
      // The URL may name the room (/ws?room=CODE) for the load balancer.
      ws = new WebSocket(typeof this.url === 'function' ? this.url() : this.url);
    } catch {
      this.retry();
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      ws.send(JSON.stringify(this.hello()));
      this.onState('open');
      clearInterval(this.pinger);
      // A quiet player (studying the board) must not be taken for a dead connection.
      this.pinger = setInterval(() => this.send({ type: 'ping' }), 15000);
    };
    ws.onmessage = (e) => {
      if (typeof e.data !== 'string') return;
      let msg;
      try {
        msg = JSON.parse(e.data);
      } catch {
        return;
      }
      if (msg && typeof msg.type === 'string') {
        if (msg.type === 'welcome') this.attempt = 0;
        this.onMessage(msg);
      }
    };
    ws.onclose = (e) => {
      if (this.ws !== ws) return;
      clearInterval(this.pinger);
      this.ws = null;
      if (e.code === TAKEN_OVER) {
        // Resumed elsewhere: reconnecting would start a tug of war. The person chooses.
        this.stopped = true;
        this.onState('taken');
      } else if (!this.stopped) this.retry();
    };
  }

  retry() {
    const wait = backoff(this.attempt++);
    this.onState('waiting', wait);
    this.timer = setTimeout(() => this.connect(), wait);
  }

  restart() {
    this.drop();
    this.connect();
  }

  close() {
    this.stopped = true;
    clearTimeout(this.timer);
    this.drop();
  }

  drop() {
    const ws = this.ws;
    this.ws = null;
    if (ws) ws.close();
    clearInterval(this.pinger);
  }

  get active() {
    return !!this.ws && (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING);
  }

  get open() {
    return !!this.ws && this.ws.readyState === WebSocket.OPEN;
  }

  send(msg) {
    if (!this.open) return false;
    this.ws.send(JSON.stringify(msg));
    return true;
  }
}
