// Maze Escape: everything the page knows of it, as one object of the shape
// games/index.js sets out. Its rules (./rules.js), drawing (./draw.js) and
// offline board builder (./build.js, the carver) load when first wanted:
// the home page carries none of them.

const SIZES = [
  { size: 'easy', n: 11, label: 'Easy' },
  { size: 'normal', n: 17, label: 'Normal' },
  { size: 'hard', n: 23, label: 'Hard' },
];
const sizeWords = (size) => {
  const s = SIZES.find((x) => x.size === size);
  return s ? `${s.label} ${s.n}×${s.n}` : String(size);
};

export default {
  name: 'maze',
  title: 'Maze Escape',
  short: 'Maze',
  sizes: SIZES,
  unit: 'moves',
  goal: 'exit',
  rewinds: false,
  visited: true,
  rules: () => import('./rules.js'),
  build: () => import('./build.js'),
  draw: () => import('./draw.js'),

  howto: {
    sub: '',
    alt: 'A small maze: green start top left, red exit bottom right',
    steps: [
      [
        'Start on the green square ',
        ['span', 'S', 'key start'],
        ' (top left). Reach the red exit ',
        ['span', 'E', 'key exit'],
        ' (bottom right).',
      ],
      ['Walking into a wall buzzes and does not count.'],
      ['Cells you have crossed stay tinted, so you can see which branches you tried.'],
    ],
    note: 'Efficiency = shortest route ÷ your moves.',
  },
  demo: {
    board: { game: 'maze', n: 5, passages: ['2c2ac', '696c5', '56955', '55455', '393b9'], start: [0, 0], exit: [4, 4] },
    at: { pos: [1, 1] },
    visited: ['0,0', '0,1', '1,1'],
  },
  legend: [{ of: 'board', swatch: 'seen', text: 'cells visited' }],

  reasons: {},
  inTheWay: [],
  go: 'Go! Find the exit.',
  landmark: () => '',
  questions: {},
  after: {},
  news: (g, was) => ({ now: was, say: '' }),
  hud: (g) => [sizeWords(g.board.size), '', `Moves ${g.steps}`],
  hint: () => 'Find the red exit (E), bottom right.',
  controls: () => ({ rewind: false, giveUp: false, again: false }),
  runLabel: () => '',
  replayPills: (f, last) => [`Move ${f.steps} of ${last.steps}`, '', ''],
  seekMore: () => '',

  lineButton: 'Show the shortest route',
  reveal: (rv) => ({ text: `Best possible: ${rv.shortest} moves (the shortest route).`, why: '', ask: '' }),
};
