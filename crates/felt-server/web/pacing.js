// The dealer's pace: each `view` frame's events are released card by card, so the
// round is told in the order it happens. A frame's cards land one at a time (the hole
// card flips in place, the dealer's total rises with each card); the frame's own state
// (results, totals, balance, decisions, meters) is shown only after its last card. A
// frame that arrives while another plays waits its turn; a resync shows the latest
// state at once. The server's events are already in order: the page only paces them.

import { totalOf } from './cards.js';

/** A dealt card's place: 'd' (the dealer) or 'SEAT-SPOT-HAND'. */
export function targetOf(to) {
  return to?.who === 'dealer' ? 'd' : `${to?.seat}-${to?.spot}-${to?.hand}`;
}

/** The steps of a frame's events that put a card on the felt, in order. */
export function cardSteps(events) {
  const out = [];
  for (const e of events || []) {
    if (e.event === 'dealt' && !e.side_bet_only) out.push({ target: targetOf(e.to), down: e.face_up === false });
    else if (e.event === 'hole-card-turned') out.push({ target: 'd', flip: true, card: e.card });
  }
  return out;
}

/** Keeps the first cards of a hand and gives it the total of those alone. */
function cut(hand, hidden) {
  hand.cards = hand.cards.slice(0, Math.max(0, hand.cards.length - hidden));
  Object.assign(hand, totalOf(hand.cards));
}

/**
 * `view` as it looks when `done` of its card `steps` have landed: later cards are not
 * there yet, totals count the cards shown, and what the frame decides (settlements,
 * balance, decisions, meters, a hand's status) is still as `before` showed it.
 */
export function partial(view, steps, done, before) {
  const rest = steps.slice(done);
  const hidden = {};
  for (const s of rest) if (!s.down && !s.flip) hidden[s.target] = (hidden[s.target] || 0) + 1;
  const v = structuredClone(view);
  const r = v.round;
  const d = r?.dealer;
  if (d) {
    // The hole card, wherever the dealing order puts it, is not shown until it turns.
    const flip = rest.find((s) => s.flip);
    const at = flip ? d.cards.indexOf(flip.card) : -1;
    if (at >= 0) d.cards.splice(at, 1);
    if (hidden.d || flip) cut(d, hidden.d || 0);
    if (flip) d.hole = 'face-down';
    else if (rest.some((s) => s.down && s.target === 'd')) d.hole = 'none';
  }
  for (const sp of r?.spots || []) {
    for (const hd of sp.hands || []) {
      const n = hidden[`${sp.seat}-${sp.spot}-${hd.hand}`];
      if (n) {
        cut(hd, n);
        hd.status = 'open';
        hd.settled = false;
      }
    }
  }
  if (r) {
    r.turn = null;
    // Not over until its last card has landed.
    if (r.phase === 'done' || r.phase === 'settlement') r.phase = 'dealer';
  }
  const same = before?.round_id === view.round_id;
  v.settlements = same ? before.settlements || [] : [];
  v.meters = before?.meters || view.meters;
  v.in_play = true;
  v.pacing = true;
  // The frame's timer (the next round's, say) starts once its cards have landed.
  v.timer = null;
  v.landed = steps[done - 1];
  if (v.you) {
    v.you.decisions = [];
    if (before?.you?.balance) v.you.balance = before.you.balance;
  }
  return v;
}

/** Plays frames at the dealer's pace: show(view, final) draws each state. */
export class Pacer {
  /** `pace()`: {dealer, deal, settle} in ms (settings.js). */
  constructor(show, pace) {
    this.show = show;
    this.pace = pace;
    this.queue = [];
    this.timer = null;
    this.shown = null;
  }

  /** Whether a frame is still being told. */
  get busy() {
    return this.timer !== null || this.queue.length > 0;
  }

  /** A frame to tell after those before it. */
  push(view) {
    this.queue.push(view);
    if (this.timer === null) this.next();
  }

  /** Drops what is queued and shows `view` at once (a reconnection, a resync). */
  skip(view) {
    clearTimeout(this.timer);
    this.timer = null;
    this.queue = [];
    this.land(view);
  }

  stop() {
    clearTimeout(this.timer);
    this.timer = null;
    this.queue = [];
  }

  land(view) {
    this.shown = view;
    this.show(view, true);
  }

  next() {
    this.timer = null;
    // Far behind (a tab in the background): the latest state at once.
    if (this.queue.length > 4) this.queue.splice(0, this.queue.length - 1, { ...this.queue.at(-1), events: [] });
    const view = this.queue.shift();
    if (!view) return;
    const steps = this.shown ? cardSteps(view.events) : [];
    if (!steps.length) {
      this.land(view);
      this.next();
      return;
    }
    const before = this.shown;
    let done = 0;
    const step = () => {
      done += 1;
      this.show(partial(view, steps, done, before), false);
      const p = this.pace();
      const after = steps[done];
      if (after) {
        this.timer = setTimeout(step, after.target === 'd' ? p.dealer : p.deal);
      } else {
        this.timer = setTimeout(() => {
          this.timer = null;
          this.land(view);
          this.next();
        }, p.settle);
      }
    };
    step();
  }
}
