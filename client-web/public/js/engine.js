// The engine for the message handlers and actions the home page loads:
// the rules (rules.js, every game's) and the prediction (predict.js). They
// load with the room screens, never with the home page (README, "Size"), so
// the handlers reach them here once loaded: app.js holds a message carrying a
// board (and what follows it) until load() has resolved (`inbox` below),
// and nothing else here runs on a board.

/** rules.js, once loaded. */
export let rules = null;
/** predict.js's Predictor, once loaded. */
export let Predictor = null;

let loading = null;

/** Loads the engine once; a failure (the network went) is asked again by the next call. */
export function load() {
  loading ||= Promise.all([import('./rules.js'), import('./predict.js')]).then(
    ([r, p]) => {
      rules = r;
      Predictor = p.Predictor;
    },
    (e) => {
      loading = null;
      throw e;
    },
  );
  return loading;
}

/** The messages that carry a board, read by the engine (engine.js). */
const BOARDS = new Set(['countdown', 'race_start', 'snapshot']);

/**
 * Messages handled in the order they came, one carrying a board (and
 * whatever follows it) held until the engine is here: `ready()` says whether
 * it is, `load()` brings it (a promise; failed, the next message asks again),
 * `each(m)` handles one, `after()` follows every delivery (app.js renders).
 * Returns the function to give each message to (or null: the engine came).
 */
export function inbox({ ready, load, each, after }) {
  const held = [];
  const receive = (m) => {
    if (m) held.push(m);
    while (held.length) {
      if (!ready() && BOARDS.has(held[0] && held[0].type)) {
        load().then(
          () => receive(null),
          () => {},
        );
        break;
      }
      each(held.shift());
    }
    after();
  };
  return receive;
}
