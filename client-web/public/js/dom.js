// The DOM helpers. Text always goes in as textContent: names are data, never markup.

export const $ = (id) => document.getElementById(id);

/** `text` becomes textContent, `on*` listeners. */
export function el(tag, props = {}, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (v == null || v === false) continue;
    if (k === 'text') e.textContent = v;
    else if (k === 'class') e.className = v;
    else if (k === 'style') e.style.cssText = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? '' : v);
  }
  for (const kid of kids) if (kid != null) e.append(kid);
  return e;
}

export function announce(text) {
  const a = $('announce');
  // The same words twice in a row must still be read out.
  a.textContent = a.textContent === text ? text + '\u00a0' : text;
}

/** Sets a heads-up pill's text and state class (an empty pill is hidden by CSS). */
export function pill(id, text, cls = '') {
  const e = $(id);
  e.textContent = text;
  e.className = `pill ${cls}`;
}
