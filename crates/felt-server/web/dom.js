// A small element builder (no innerHTML of data: text is always set as text).

/** An element: h('button', {class: 'x', onclick: f, 'aria-label': 'y'}, child...). */
export function h(tag, attrs = {}, ...children) {
  const svg = tag.startsWith('svg:');
  const el = svg
    ? document.createElementNS('http://www.w3.org/2000/svg', tag.slice(4))
    : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.setAttribute('class', v);
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k === 'text') el.textContent = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** Replaces an element's children. */
export function fill(el, ...children) {
  el.replaceChildren();
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** Says something to a screen reader (the page's polite live region). */
export function announce(text) {
  const live = document.getElementById('live');
  if (!live || !text) return;
  const p = document.createElement('p');
  p.textContent = text;
  live.append(p);
  while (live.childElementCount > 12) live.firstElementChild.remove();
}

/** A short message in the page's notice line (errors, refusals). */
export function notice(text, kind = 'info') {
  const n = document.getElementById('notice');
  if (!n) return;
  n.textContent = text || '';
  n.dataset.kind = kind;
  n.hidden = !text;
}

/** "2026-11-23T21:04:11Z" as a date and time in the reader's zone. */
export function when(iso) {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? String(iso) : d.toLocaleString();
}

/**
 * A server's sentence with each time in it (RFC 3339 UTC: "until 2026-11-27T10:00:00Z",
 * "it resets at ...") written in the reader's zone, as the rest of the page writes times.
 */
export function localTimes(text) {
  return String(text ?? '').replace(/\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z/g, (iso) => when(iso));
}
