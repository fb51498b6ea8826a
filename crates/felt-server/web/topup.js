// Play money that never dead-ends: when the balance cannot cover the table's minimum
// bet the dock says so plainly and offers the operator's top-up (POST /api/top-up),
// or says when the next one is possible.

import { h, fill, notice, announce } from './dom.js';
import { api } from './api.js';
import { show, toCents } from './money.js';
import { httpSentence } from './words.js';

/** The minimum bet the balance of view `v` cannot cover, or null. */
export function shortOf(v) {
  const min = toCents(v?.limits?.main?.min);
  const bal = toCents(v?.you?.balance);
  if (v?.you?.seat == null || min === null || bal === null) return null;
  return bal < min ? v.limits.main.min : null;
}

/** The top-up offer in the dock. */
export class TopUp {
  constructor(box, table, app) {
    this.box = box;
    this.table = table;
    this.app = app;
    this.busy = false;
  }

  /** Draws the offer for view `v` (hidden while the balance covers the minimum). */
  draw(v) {
    const min = shortOf(v);
    if (min === null) {
      this.box.hidden = true;
      fill(this.box);
      return;
    }
    const offer = this.app.me?.top_up;
    const wait = offer ? Math.max(0, offer.next_in_secs - (Date.now() - (this.app.meAt || 0)) / 1000) : 0;
    const say = h('p', { class: 'topup-why', id: 'topup-why' },
      `Your balance of ${show(v.you.balance)} cannot cover this table's minimum bet of ${show(min)}.`);
    let act = null;
    if (this.app.me?.operator_wallet) {
      act = h('p', { class: 'muted', id: 'topup-operator' }, 'Add money to your account at the casino\'s site, then bet again.');
    } else if (!offer) act = h('p', { class: 'muted' }, 'This server gives no play-money top-ups.');
    else if (wait > 0) act = h('p', { class: 'muted', id: 'topup-wait' }, `Your next top-up is possible in ${Math.ceil(wait / 60)} minute(s).`);
    else {
      act = h('button', {
        type: 'button', class: 'btn primary', id: 'topup-button', dataset: { key: 'topup' }, disabled: this.busy,
        onclick: () => this.ask(),
      }, `Add ${show(offer.amount)} play money`);
    }
    this.box.hidden = false;
    fill(this.box, say, act);
  }

  async ask() {
    this.busy = true;
    const r = await api('POST', '/api/top-up', { table: this.table });
    this.busy = false;
    // The answer is told first: the table's view may show the new balance before
    // the account is read again.
    if (r.ok) {
      const text = `${show(r.data.deposited)} play money added: your balance is ${show(r.data.balance)}.`;
      notice(text);
      announce(text);
    } else {
      // The server's refusals of a top-up are written for the player (too soon: when).
      const m = r.data?.message;
      notice(m ? `${m[0].toUpperCase()}${m.slice(1)}.` : httpSentence(r), 'error');
    }
    const me = await api('GET', '/api/me');
    if (me.ok) {
      this.app.me = me.data;
      this.app.meAt = Date.now();
      this.app.setBalance(me.data.balance);
    }
  }
}
