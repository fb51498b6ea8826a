// What a screen reader is told of the cards, in the order they land: each card once
// (the player's own and the dealer's), with the hand's total after it; the dealer's
// hole card as it turns, and each draw with the dealer's total at that card.

import { cardName } from './cards.js';

/** Counts of each card in a list ("7h" -> 2). */
function counts(cards) {
  const m = new Map();
  for (const c of cards || []) m.set(c, (m.get(c) || 0) + 1);
  return m;
}

/** The cards of `now` not in `before` (a multiset difference), in the order of `now`. */
function added(before, now) {
  const left = new Map(before);
  const out = [];
  for (const c of now || []) {
    const n = left.get(c) || 0;
    if (n > 0) left.set(c, n - 1);
    else out.push(c);
  }
  return out;
}

/** The dealer's total in words after a card. */
function dealerTotal(d) {
  if (d.total > 21) return `busts with ${d.total}`;
  if (d.cards?.length === 2 && d.total === 21) return 'blackjack';
  return `${d.soft ? 'soft ' : ''}${d.total}`;
}

/** Tells each card once as it lands: `say(text)` for each. */
export class CardSpeech {
  constructor(say) {
    this.say = say;
    this.round = null;
    this.seen = new Map();
  }

  /** The cards new in view `v` of the dealer's and of seat `me`'s spots. */
  tell(v, me) {
    const r = v.round;
    if (!r || v.round_id == null) return;
    if (this.round !== v.round_id) {
      this.round = v.round_id;
      this.seen = new Map();
      this.turned = false;
    }
    const d = r.dealer;
    if (d) {
      for (const c of added(this.seen.get('d') || new Map(), d.cards)) {
        if (d.hole === 'turned' && !this.turned) {
          this.turned = true;
          this.say(`Dealer turns the hole card: ${cardName(c)}, ${dealerTotal(d)}.`);
        } else if (!this.seen.get('d')?.size) {
          this.say(`Dealer shows ${cardName(c)}.`);
        } else {
          this.say(`Dealer draws ${cardName(c)}: ${dealerTotal(d)}.`);
        }
        this.seen.set('d', counts(d.cards));
      }
      this.seen.set('d', counts(d.cards));
    }
    for (const sp of (r.spots || []).filter((s) => s.seat === me)) {
      const key = `s${sp.spot}`;
      const all = (sp.hands || []).flatMap((hd) => hd.cards || []);
      const fresh = added(this.seen.get(key) || new Map(), all);
      for (const c of fresh) {
        const hd = (sp.hands || []).find((x) => (x.cards || []).includes(c));
        const many = (sp.hands || []).length > 1;
        const total = hd.status === 'natural' ? 'blackjack' : hd.total > 21 ? `bust with ${hd.total}` : `${hd.soft ? 'soft ' : ''}${hd.total}`;
        const which = `Your spot ${sp.spot}${many ? `, hand ${hd.hand}` : ''}`;
        this.say(hd.cards.length > 1 ? `${which}: ${cardName(c)}, ${total}.` : `${which}: ${cardName(c)}.`);
      }
      this.seen.set(key, counts(all));
    }
  }
}
