// Cards drawn with CSS: rank and suit in each corner and a large suit in the middle,
// legible at phone size; each labelled for a screen reader ("seven of hearts").

import { h } from './dom.js';

const RANKS = {
  A: 'ace', 2: 'two', 3: 'three', 4: 'four', 5: 'five', 6: 'six', 7: 'seven',
  8: 'eight', 9: 'nine', T: 'ten', J: 'jack', Q: 'queen', K: 'king',
};
const SUITS = { c: 'clubs', d: 'diamonds', h: 'hearts', s: 'spades' };
const SYMBOLS = { c: '\u2663', d: '\u2666', h: '\u2665', s: '\u2660' };

/** "7h" -> "seven of hearts"; null if not a card. */
export function cardName(code) {
  if (typeof code !== 'string' || code.length !== 2) return null;
  const r = RANKS[code[0]];
  const s = SUITS[code[1]];
  return r && s ? `${r} of ${s}` : null;
}

/** A face-up card. */
export function cardEl(code) {
  const rank = code[0] === 'T' ? '10' : code[0];
  const suit = SYMBOLS[code[1]] || '?';
  const red = code[1] === 'h' || code[1] === 'd';
  return h(
    'div',
    { class: `card ${red ? 'red' : 'black'}`, role: 'img', 'aria-label': cardName(code) || code, dataset: { card: code } },
    h('span', { class: 'corner', 'aria-hidden': 'true' }, h('b', {}, rank), h('i', {}, suit)),
    h('span', { class: 'pip', 'aria-hidden': 'true' }, suit),
  );
}

/** The dealer's hole card, face down. */
export function backEl() {
  return h('div', { class: 'card back', role: 'img', 'aria-label': 'face-down card', dataset: { card: 'back' } });
}

/** A list of cards for a screen reader: "seven of hearts, ten of spades". */
export function cardsText(codes) {
  return (codes || []).map((c) => cardName(c) || c).join(', ');
}

/**
 * The blackjack total of the cards shown so far, for the total that rises card by card
 * while the page paces a step ({total, soft}); the server's total replaces it once
 * the step's last card has landed.
 */
export function totalOf(codes) {
  let total = 0;
  let aces = 0;
  for (const c of codes || []) {
    const r = c[0];
    if (r === 'A') {
      aces += 1;
      total += 1;
    } else total += 'TJQK'.includes(r) ? 10 : Number(r) || 0;
  }
  const soft = aces > 0 && total + 10 <= 21;
  return { total: soft ? total + 10 : total, soft };
}
