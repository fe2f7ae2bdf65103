// Ghost, the two-run vault puzzle: everything the page knows of it, as one
// object of the shape games/index.js sets out. Its rules (./rules.js),
// drawing (./draw.js) and offline board builder (./build.js) load when first
// wanted: the home page carries none of them.

/** ./rules.js once loaded: the hooks below are asked only of a game in play, which its rules made. */
let R = null;

const NO_WAY = 'This run cannot reach the flag: your ghost never stands on the plate, so the gate stays shut.';

/** canStillWin, remembered for the position it was asked about (the HUD renders often). */
let doomedAt = { key: '', yes: false };
function doomed(g) {
  const key = `${g.board.seed}|${g.run}|${g.pos}|${g.steps}|${g.replayed}`;
  if (doomedAt.key !== key) doomedAt = { key, yes: !R.canStillWin(g) };
  return doomedAt.yes;
}

const gateWords = (open) => [open ? 'Gate open' : 'Gate shut', open ? 'open' : 'shut'];

export default {
  name: 'ghost',
  title: 'Ghost',
  short: 'Ghost',
  sizes: [
    { size: 'small', n: 6, label: 'Small' },
    { size: 'medium', n: 7, label: 'Medium' },
    { size: 'large', n: 8, label: 'Large' },
  ],
  unit: 'steps',
  goal: 'flag',
  rewinds: true,
  visited: false,
  rules: () => import('./rules.js').then((m) => (R = m)),
  build: () => import('./build.js'),
  draw: () => import('./draw.js'),

  howto: {
    sub: '(vault puzzle)',
    alt: 'A small vault: start S, plate P, gate G in a wall, flag beyond it',
    steps: [
      [
        'The ',
        ['b', 'gate'],
        ' ',
        ['span', 'G', 'key gate'],
        ' blocks the way to the ',
        ['b', 'flag'],
        '. It opens only while someone stands on the ',
        ['b', 'plate'],
        ' ',
        ['span', 'P', 'key plate'],
        '.',
      ],
      [['b', 'Run one:'], ' walk to the plate. Every step is recorded.'],
      ['Press ', ['b', 'Rewind and run again'], '. You start over, and a ', ['b', 'ghost'], ' replays run one beside you.'],
      [['b', 'Run two:'], ' once the ghost stands on the plate, the gate opens. Go through and reach the flag.'],
    ],
    note: 'Both runs share one step budget. Fewest steps is the best score.',
  },
  demo: {
    board: {
      game: 'ghost',
      n: 6,
      cells: ['...#..', '...#..', '......', '...#..', '...#..', '...#..'],
      start: [0, 0],
      flag: [0, 5],
      plate: [5, 0],
      gate: [2, 3],
    },
    at: { pos: [2, 2], ghost: [5, 0] },
    visited: null,
  },
  legend: [{ of: 'racer', swatch: 'faint', text: 'their ghost (run one, replayed)' }],

  reasons: { gate_closed: 'The gate is shut: nobody is standing on the plate.', rewind_used: 'The rewind is used up.' },
  inTheWay: ['gate_closed'],
  go: 'Go! Run one: walk to the plate.',
  landmark: (b, p) => (R.onPlate(b, p) ? 'plate' : ''),
  questions: {
    rewind: {
      // The ghost replays run one: it would never open the gate.
      ask: (g) => g.run === 1 && !R.onPlate(g.board, g.pos),
      say: 'You are not on the plate: your ghost will never open the gate. Rewind anyway?',
      words: [
        'You are not on the plate. Your ghost will walk run one again and never stand on the plate, so the gate will never open. Rewind anyway?',
        'Rewind anyway',
        'Keep walking',
      ],
    },
  },
  after: { rewind: 'Rewind. Run two: your ghost replays run one.' },
  /** In run two the live region says when the gate opens or shuts (`was`: the gate as last said). */
  news(g, was) {
    if (g.run !== 2) return { now: was, say: '' };
    const open = R.gateOpen(g);
    return { now: open, say: open === was ? '' : open ? 'Gate open.' : 'Gate shut.' };
  },
  hud(g) {
    const left = Math.max(0, g.board.allowance - g.steps);
    return [
      `Run ${g.run} of 2`,
      gateWords(R.gateOpen(g)),
      [`Steps ${g.steps} · ${left} left`, left <= 3 && g.status === 'playing' ? 'low' : ''],
    ];
  },
  hint(g, { alone }) {
    if (g.run === 1 && R.onPlate(g.board, g.pos)) return 'You hold the plate: press Rewind and run again.';
    if (g.run === 1) return 'Run one: walk to the plate (P), then press Rewind.';
    if (doomed(g)) return alone ? NO_WAY + ' Give up, or try this board again.' : NO_WAY + ' Give up to end it.';
    return R.gateOpen(g) ? 'The gate is open: go through to the flag.' : 'Run two: the gate (G) opens when your ghost stands on the plate.';
  },
  /** The race's buttons while the run is on: the rewind in run one; in run two, Give up, and Try again alone once it cannot win. */
  controls: (g, { alone }) => ({ rewind: g.run === 1, giveUp: g.run === 2, again: g.run === 2 && alone && doomed(g) }),
  runLabel: (r) => (r.run && r.status === 'racing' ? `run ${r.run} · ` : ''),
  replayPills: (f, last) => [`Step ${f.steps} of ${last.steps}`, `Run ${f.run} of 2`, gateWords(f.gateOpen)],
  seekMore: (f) => `, run ${f.run}`,

  lineButton: 'Watch the optimal line',
  /**
   * The best possible in plain words, and, when the vault builder's own count
   * (`par`, which chose the vault and its step budget) differs from it, why:
   * shown on demand, since most players only want the number (RULES.md, "Two
   * pars"). {text, why, ask} (why and ask empty when there is nothing to explain).
   */
  reveal(rv) {
    const ask = `Why not the builder's ${rv.par}?`;
    if (rv.true_par == null) {
      const why = `The vault builder gave up looking for a checked vault and kept its last try, counted as ${rv.par} steps: it may have no solution.`;
      return { text: 'Best possible: unknown.', why, ask: 'Why unknown?' };
    }
    const text = `Best possible: ${rv.true_par} steps.`;
    if (rv.true_par > rv.par) {
      const why = `The vault builder counted ${rv.par} steps, as if the gate opened the moment your ghost reached the plate. It opens only once the ghost already stands there, a step later, so ${rv.true_par} is the fewest any run can take.`;
      return { text, why, ask };
    }
    if (rv.true_par < rv.par) {
      const why = `The vault builder counted ${rv.par} steps for the plain two-run line. A shorter one exists (holding the plate yourself and stepping through the gate can beat it): ${rv.true_par} is the fewest.`;
      return { text, why, ask };
    }
    return { text, why: '', ask: '' };
  },
};
