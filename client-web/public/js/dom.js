// Text always goes in as textContent: names are data, never markup.

export const $ = (id) => document.getElementById(id);

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

export const btn = (text, label, onclick, cls) => el('button', { type: 'button', class: cls, text, 'aria-label': label, onclick });
/** The second (a name) is titled, for when it is cut short. */
export const cells = (vals) => vals.map((v, i) => el('td', { text: String(v), title: i === 1 ? String(v) : null }));
export const note = (colspan, text) => el('tr', {}, el('td', { colspan: String(colspan), class: 'muted', text }));
export const pills = (list) => list.map((p) => (([text, cls]) => el('span', { class: cls ? `pill ${cls}` : 'pill', text }))([].concat(p)));
export const badge = (text, cls) => el('span', { class: cls ? `badge ${cls}` : 'badge', text });
export const tags = (list) => list.map((text) => el('span', { class: 'tag', text }));
export const nm = (text) => el('span', { class: 'nm', text });
export const names = (label, list) => el('span', {}, `${label} (${list.length}): `, ...list.flatMap((n, i) => [i ? ', ' : '', nm(n)]));

/**
 * The site's address for the links others open (the invite link, its QR
 * code, the share lines): the server's --public-url when it has one (a
 * reverse proxy in front), else, for a page opened on this computer, an
 * address a phone on the LAN can open, else the page's own (app.js asks
 * GET /api/urls).
 */
export const siteUrl = (s) => s.ui.siteBase || location.origin;

/** The address /api/urls offers for siteUrl, or null (the page's own). */
export function siteBaseFrom(urls, hostname) {
  const ok = (u) => typeof u === 'string' && /^https?:\/\/[^/]+/.test(u);
  const loopback = /^(localhost|127\.0\.0\.1|\[::1\])$/.test(hostname);
  const url = ok(urls && urls.public) ? urls.public : loopback && Array.isArray(urls && urls.lan) ? urls.lan.find(ok) : null;
  return url ? url.replace(/\/+$/, '') : null;
}

export const auth = (token) => (token ? { authorization: `Bearer ${token}` } : {});

export async function getJson(path, token) {
  const res = await fetch(path, { headers: { accept: 'application/json', ...auth(token) } });
  if (!res.ok) throw new Error(String(res.status));
  return res.json();
}

/** An empty pill is hidden by CSS. */
export function pill(id, text, cls = '') {
  const e = $(id);
  e.textContent = text;
  e.className = `pill ${cls}`;
}
