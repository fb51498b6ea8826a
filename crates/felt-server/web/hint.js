// The basic-strategy hint, on request only: a Hint button at a decision (at a table
// that gives hints) asks the server (GET /api/tables/NAME/hint) with what the player
// sees (their hand, the dealer's up card, the choices offered) and shows the
// strategy's play with each choice's expected value per 1.00 bet.

import { h, fill, announce } from './dom.js';
import { api } from './api.js';

const WORDS = {
  hit: 'Hit', stand: 'Stand', double: 'Double', split: 'Split', surrender: 'Surrender', decline: 'No, thanks',
};

/** An expected value per 1.00 as the page writes it: `+0.123`, `-0.540`. */
export function ev(x) {
  return `${x >= 0 ? '+' : '-'}${Math.abs(x).toFixed(3)}`;
}

/** The hint box in the action bar. */
export class Hints {
  constructor(box, table) {
    this.box = box;
    this.table = table;
    this.key = null;
    this.shown = null;
  }

  /** The question of view `v` the hint would answer: {key, query}, or null. */
  static question(v) {
    const me = v?.you?.seat;
    const d = (v?.you?.decisions || []).find((x) => !x.answered && (x.choices || []).length);
    const up = v?.round?.dealer?.cards?.[0];
    if (me == null || !d || !up || !v.hints) return null;
    const sp = (v.round.spots || []).find((s) => s.seat === me && s.spot === d.spot);
    const cards = sp?.hands?.find((x) => x.hand === d.hand)?.cards || [];
    if (!cards.length && !d.offer) return null;
    const choices = d.choices.map((c) => c.decision).join(',');
    const query = `hand=${encodeURIComponent((cards.length ? cards : ['As']).join(','))}&up=${encodeURIComponent(up)}&choices=${encodeURIComponent(choices)}`;
    return { key: `${v.round_id}-${d.spot}-${d.hand}-${cards.join('')}-${choices}`, query };
  }

  /** Draws the Hint button (or the hint asked for this decision). */
  draw(v) {
    const q = Hints.question(v);
    if (!q) {
      this.key = null;
      this.shown = null;
      fill(this.box);
      return;
    }
    if (q.key !== this.key) {
      this.key = q.key;
      this.shown = null;
    }
    if (this.shown) {
      fill(this.box, this.shown);
      return;
    }
    fill(this.box, h('button', {
      type: 'button', class: 'btn small hint-button', id: 'hint-button', dataset: { key: 'hint' },
      'aria-keyshortcuts': '?', onclick: () => this.ask(q),
    }, 'Hint', h('kbd', {}, '?')));
  }

  async ask(q) {
    const r = await api('GET', `/api/tables/${encodeURIComponent(this.table)}/hint?${q.query}`);
    if (q.key !== this.key) return;
    let el;
    if (!r.ok || !r.data?.advice) {
      el = h('p', { class: 'hint', id: 'hint' }, 'No hint for this hand.');
    } else if (r.data.insurance) {
      el = h('p', { class: 'hint', id: 'hint' }, 'Basic strategy: no thanks. Without a count, insurance costs more than it returns.');
    } else {
      const best = WORDS[r.data.advice] || r.data.advice;
      el = h('div', { class: 'hint', id: 'hint', dataset: { advice: r.data.advice } },
        h('p', { class: 'hint-best' }, `Basic strategy: ${best}.`),
        h('ul', { class: 'hint-values', 'aria-label': 'Expected value per 1.00 bet' },
          r.data.values.map((x) => h('li', { dataset: { decision: x.decision, ev: String(x.ev) } },
            `${WORDS[x.decision] || x.decision} ${ev(x.ev)}`))),
        h('p', { class: 'muted hint-basis' },
          `Expected value per 1.00 bet${r.data.given_no_blackjack ? ', given the dealer has no blackjack' : ''}.`));
    }
    this.shown = el;
    fill(this.box, el);
    announce(el.textContent);
  }
}
