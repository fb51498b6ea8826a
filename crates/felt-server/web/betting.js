// The bets a player lays on the circles before sending them: chips added one at a
// time (each circle stops at its wager's maximum, the whole at the balance), undone
// one at a time, doubled at once, the last round's bets put back (scaled down to the
// balance), and the chips drawn as stacks. Amounts are integer cents.

import { h } from './dom.js';
import { toCents, fmt, chipsOf, chipColor, chipFace } from './money.js';

/** A stack of chips making `cents` (at most eight drawn; the amount says the rest). */
export function chipStack(cents, values) {
  const chips = chipsOf(cents, values);
  const shown = chips.slice(0, 8).reverse();
  return h('span', { class: 'stack', 'aria-hidden': 'true', dataset: { chips: chips.length } },
    shown.map((v, i) => h('span', { class: `disc ${chipColor(v)}`, dataset: { chip: v } },
      i === shown.length - 1 ? chipFace(v) : '')));
}

/** The cents on every circle of `spots`. */
function totalOf(spots) {
  let t = 0;
  for (const p of Object.values(spots)) {
    t += p.main;
    for (const c of Object.values(p.side)) t += c;
  }
  return t;
}

/** The bets being laid: {spot: {main, side: {id: cents}}}, with an undo history. */
export class Layout {
  constructor() {
    this.spots = {};
    this.history = [];
  }

  /** Every chip on the layout, in cents. */
  total() {
    return totalOf(this.spots);
  }

  /** The amount on one circle. */
  on(spot, wager) {
    const p = this.spots[spot];
    if (!p) return 0;
    return wager === 'main' ? p.main : p.side[wager] || 0;
  }

  empty() {
    return this.total() === 0;
  }

  remember() {
    this.history.push(structuredClone(this.spots));
    if (this.history.length > 100) this.history.shift();
  }

  set(spot, wager, cents) {
    const p = this.spots[spot] || { main: 0, side: {} };
    if (wager === 'main') p.main = cents;
    else p.side[wager] = cents;
    this.spots[spot] = p;
  }

  /**
   * Adds a chip to a circle: null if done, else why not ('max': the circle is at its
   * wager's maximum; 'balance': the balance does not cover it).
   */
  add(spot, wager, chip, max, balance) {
    const now = this.on(spot, wager);
    const next = Math.min(now + chip, max);
    if (next === now) return 'max';
    if (this.total() - now + next > balance) return 'balance';
    this.remember();
    this.set(spot, wager, next);
    return null;
  }

  /** Takes back the last change; false if there is none. */
  undo() {
    const last = this.history.pop();
    if (!last) return false;
    this.spots = last;
    return true;
  }

  clear() {
    if (!this.empty()) this.remember();
    this.spots = {};
  }

  /** Drops everything, history included (the bet was sent, or the window closed). */
  reset() {
    this.spots = {};
    this.history = [];
  }

  /**
   * Doubles every circle (each at most its maximum): null if done, 'balance' if the
   * balance does not cover the doubled bets (nothing changes), 'empty'.
   */
  double(maxOf, balance) {
    if (this.empty()) return 'empty';
    const next = structuredClone(this.spots);
    for (const p of Object.values(next)) {
      p.main = Math.min(p.main * 2, maxOf('main'));
      for (const id of Object.keys(p.side)) p.side[id] = Math.min(p.side[id] * 2, maxOf(id));
    }
    if (totalOf(next) > balance) return 'balance';
    this.remember();
    this.spots = next;
    return null;
  }

  /**
   * Lays `last` (the last bets sent: [{spot, main, side}] in protocol amounts) again,
   * within `balance`: spots in order, each wager at most what is left (a multiple of its
   * increment), a wager that would fall under its minimum left off (a side bet is left
   * off with its main). Returns {asked, laid} in cents.
   */
  rebet(last, balance, limitOf) {
    this.remember();
    this.spots = {};
    let left = balance;
    let asked = 0;
    const fit = (want, wager) => {
      const lim = limitOf(wager);
      const step = toCents(lim?.increment) || 1;
      const cut = Math.min(want, left);
      const amount = cut - (cut % step);
      return amount >= (toCents(lim?.min) ?? 0) && amount > 0 ? amount : 0;
    };
    for (const s of last || []) {
      const main = toCents(s.main) ?? 0;
      const sides = Object.entries(s.side || {}).map(([id, a]) => [id, toCents(a) ?? 0]);
      asked += main + sides.reduce((a, [, c]) => a + c, 0);
      const m = fit(main, 'main');
      if (!m) continue;
      left -= m;
      this.set(s.spot, 'main', m);
      for (const [id, want] of sides) {
        const c = fit(want, id);
        if (c) {
          left -= c;
          this.set(s.spot, id, c);
        }
      }
    }
    return { asked, laid: this.total() };
  }

  /** The `bet` message's spots, or {error} (a side bet without its main, a main under the minimum). */
  message(minMain) {
    const spots = [];
    for (const [spot, p] of Object.entries(this.spots)) {
      const side = {};
      for (const [id, c] of Object.entries(p.side)) if (c > 0) side[id] = c;
      if (p.main === 0 && Object.keys(side).length) return { error: `Spot ${spot}: a side bet needs a main bet on its spot.` };
      if (p.main > 0 && p.main < minMain) return { error: `Spot ${spot}: the minimum main bet is ${fmt(minMain)}.` };
      if (p.main > 0) spots.push({ spot: Number(spot), main: p.main, side });
    }
    if (!spots.length) return { error: 'Click a chip onto a betting circle first.' };
    return { spots };
  }
}
