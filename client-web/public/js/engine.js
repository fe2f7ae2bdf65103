// The engine for the message handlers and actions the home page loads:
// the rules (rules.js, every game's) and the prediction (predict.js). They
// load with the room screens, never with the home page (README, "Size"), so
// the handlers reach them here once loaded: app.js holds a message carrying a
// board (and what follows it) until load() has resolved, and nothing else
// here runs on a board.

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
