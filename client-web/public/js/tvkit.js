// The big screen's parts shared by its panes (tv.js and tvlobby.js, tvrace.js,
// tvafter.js): a part rebuilt only when what it shows changed (`once`,
// `built`), a list fitted to its box ending in "and N more" (`fitRows`), a
// racer's colour dot, the host's name.

import { $, el } from './dom.js';
import { racers, nameOf } from './state.js';

/** What each part was last built from: an unchanged part is not rebuilt (nor measured again). */
export const built = {};

export const hostName = (s) => (racers(s).some((p) => p.id === s.room.host) ? nameOf(s, s.room.host) : 'The host');

export function setText(id, text) {
  const e = $(id);
  if (e.textContent !== text) e.textContent = text;
}

/** Runs `build` when `key` (any JSON) differs from the last time for `part`. */
export function once(part, key, build) {
  const k = JSON.stringify(key);
  if (built[part] === k) return;
  built[part] = k;
  build();
}

export const dot = (colour) => el('span', { class: 'dot', style: `background:${colour}`, 'aria-hidden': 'true' });

/**
 * `items` in `box` (a list, or a table's body), as many as fit its height
 * (and `over`'s, the box that scrolls when they do not), the rest counted
 * in a last line `more(n)`: a screen nobody scrolls shows no cut-off line.
 */
export function fitRows(box, items, more, over = box) {
  box.replaceChildren(...items);
  let shown = items.length;
  while (shown > 1 && over.scrollHeight > over.clientHeight + 1) {
    shown -= 1;
    box.replaceChildren(...items.slice(0, shown), more(items.length - shown));
    // The "and N more" line took a row: one more out if it still does not fit.
  }
}
