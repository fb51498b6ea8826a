// The lobby: every table with its game, seats taken and free, limits and live
// progressive meters (refreshed every few seconds), and the previous login.

import { api } from './api.js';
import { httpSentence } from './words.js';
import { h, fill, notice, when } from './dom.js';
import { show } from './money.js';
import { rulesPanel } from './panels.js';
import { limitsPanel } from './limits.js';

/**
 * The six-monthly prompt to review the limits (UKGC RTS 12; docs/server.md): shown in
 * the lobby after a log-in that says a review is due, until the player answers it.
 * Keeping them is written to the books; a change in the Limits panel is a review too.
 */
function reviewPrompt(lastReviewed) {
  const box = h('section', { class: 'review-box card-box', id: 'limits-review', 'aria-labelledby': 'limits-review-title' });
  const done = (said) => {
    sessionStorage.removeItem('felt.review');
    box.remove();
    if (said) notice(said);
  };
  fill(box,
    h('h2', { id: 'limits-review-title' }, 'Time to review your limits'),
    h('p', {}, `You last reviewed your limits on ${when(lastReviewed)}. Please look at them again: are they still right for you?`),
    h('div', { class: 'row' },
      h('button', { type: 'button', class: 'btn primary', id: 'review-open', onclick: () => { done(''); limitsPanel(); } }, 'Review my limits'),
      h('button', {
        type: 'button', class: 'btn', id: 'review-keep', onclick: async () => {
          const r = await api('POST', '/api/limits/review', {});
          if (r.ok) done('Your limits are kept as they are. We will ask again in six months.');
          else notice(httpSentence(r), 'error');
        },
      }, 'Keep them as they are')));
  return box;
}

export class Lobby {
  constructor(main, app) {
    this.main = main;
    this.app = app;
    this.list = h('div', { class: 'tables', id: 'tables', 'aria-live': 'off' });
    const prev = sessionStorage.getItem('felt.previous');
    const kind = sessionStorage.getItem('felt.welcomed');
    const greet =
      kind === 'register'
        ? 'Welcome: your account is open.'
        : prev
          ? `Your previous login: ${when(prev)}.`
          : kind === 'login'
            ? 'This is your first login.'
            : app.me?.last_login
              ? `Logged in since ${when(app.me.last_login)}.`
              : '';
    // The greeting of a log-in is said once: it is gone on the next visit to the lobby.
    sessionStorage.removeItem('felt.welcomed');
    sessionStorage.removeItem('felt.previous');
    fill(
      main,
      h('section', { class: 'page lobby' },
        h('h1', {}, 'Tables'),
        this.greet = h('p', { class: 'previous', id: 'previous-login' }, greet),
        sessionStorage.getItem('felt.review') ? reviewPrompt(sessionStorage.getItem('felt.review')) : null,
        this.list),
    );
    // A newcomer's welcome goes once read.
    if (kind === 'register') this.greetTimer = setTimeout(() => { this.greet.textContent = ''; }, 10000);
    this.load();
    // Seats change with the players; meters are pushed as they move (below).
    this.timer = setInterval(() => this.load(), 3000);
    this.feed = new EventSource('/api/events');
    this.feed.onopen = () => this.load();
    this.feed.onmessage = (m) => {
      let e;
      try {
        e = JSON.parse(m.data);
      } catch (err) {
        return;
      }
      if (e.type === 'meters') this.showMeters(e.meters || []);
      else if (e.type === 'tables') this.load();
    };
  }

  destroy() {
    clearInterval(this.timer);
    clearTimeout(this.greetTimer);
    if (this.feed) this.feed.close();
  }

  /** Updates the meters shown, in place. */
  showMeters(meters) {
    for (const m of meters) {
      for (const el of this.list.querySelectorAll(`[data-meter="${CSS.escape(m.id)}"] .meter-amount`)) {
        el.textContent = show(m.amount);
      }
    }
  }

  async load() {
    const r = await api('GET', '/api/tables');
    if (!r.ok) {
      notice(httpSentence(r), 'error');
      return;
    }
    // The list is built again only when a table changed, and then the keyboard keeps
    // its place: the same button of the same table has the focus again.
    const shown = JSON.stringify(r.data.tables);
    if (shown === this.shown) return;
    this.shown = shown;
    const focused = this.list.contains(document.activeElement) ? document.activeElement : null;
    const place = focused && {
      table: focused.closest('[data-table]')?.dataset.table,
      control: focused.matches('a') ? 'a.btn' : 'button.btn',
    };
    const rows = r.data.tables.map((t) => {
      const free = (t.seats ?? 0) - (t.taken ?? 0);
      const meters = (t.meters || []).map((m) =>
        h('p', { class: 'meter-line', dataset: { meter: m.id } }, 'Progressive ', h('strong', { class: 'meter-amount' }, show(m.amount))));
      return h('article', { class: 'table-card', dataset: { table: t.name } },
        h('h2', {}, t.game_name),
        h('p', { class: 'muted' }, `Table ${t.name}`),
        h('p', {}, `Bets ${show(t.limits.min)} to ${show(t.limits.max)}`),
        // Players at the table now; a seat kept for an absent player is taken, not counted.
        h('p', { class: 'seats-line' }, `${t.present ?? t.taken ?? 0} playing · ${free} of ${t.seats} seats free`),
        meters,
        // Which server deals a table is an operator's detail.
        this.app.me?.role === 'operator'
          ? h('p', { class: 'muted host-line' }, t.host?.live ? `Dealt by server ${t.host.server}` : 'Starting on a server...')
          : t.host?.live ? null : h('p', { class: 'muted host-line' }, 'Opening the table...'),
        t.closed ? h('p', { class: 'muted' }, 'Closed') : null,
        h('div', { class: 'row' },
          t.closed ? null : h('a', { class: 'btn primary', href: `#/table/${t.name}`, 'aria-label': `Play ${t.game_name} at table ${t.name}` }, 'Play'),
          h('button', { type: 'button', class: 'btn', onclick: () => rulesPanel(t.name), 'aria-label': `Rules of ${t.game_name}` }, 'Rules')));
    });
    fill(this.list, rows);
    if (place?.table) {
      const card = [...this.list.querySelectorAll('[data-table]')].find((c) => c.dataset.table === place.table);
      card?.querySelector(place.control)?.focus();
    }
  }
}
