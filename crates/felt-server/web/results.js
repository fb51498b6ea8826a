// The round's results as a player reads them: each settlement as a sentence that names
// its spot and hand and why it won or lost, a badge for each hand (WIN, BLACKJACK,
// PUSH, BUST, SURRENDER), and a moment of its own for a big win (a side bet paying
// 25 to 1 or more) or a progressive jackpot.

import { h } from './dom.js';
import { toCents, fmt } from './money.js';

const BADGES = {
  win: 'WIN', blackjack: 'BLACKJACK', 'even-money': 'EVEN MONEY', lose: 'LOSE', bust: 'BUST',
  push: 'PUSH', surrender: 'SURRENDER', returned: 'RETURNED',
};

/** A hand's badge word for its main wager's outcome. */
export function badgeWord(outcome) {
  return BADGES[outcome] || String(outcome || '').toUpperCase();
}

/** A signed amount: +10.00, -10.00, 0.00. */
export function signed(cents) {
  return cents > 0 ? `+${fmt(cents)}` : cents < 0 ? `-${fmt(-cents)}` : fmt(0);
}

/** The spot and hand of a settlement in `round` ({spot, hand} view objects). */
function placeOf(s, round) {
  const spot = (round?.spots || []).find((x) => x.seat === s.seat && x.spot === s.spot);
  return { spot, hand: spot?.hands?.find((x) => x.hand === s.hand) };
}

/** The dealer's hand in words: "dealer blackjack", "dealer 20". */
function dealerWords(round) {
  const d = round?.dealer;
  if (!d) return 'the dealer';
  if (d.cards?.length === 2 && d.total === 21) return 'dealer blackjack';
  return `dealer ${d.total}`;
}

/** Why a main wager ended as it did. */
function mainWhy(s, hand, round) {
  const d = round?.dealer;
  const pt = hand ? String(hand.total) : 'the hand';
  const dealerBust = d && d.total > 21;
  const dealerBj = d?.cards?.length === 2 && d.total === 21;
  switch (s.outcome) {
    case 'blackjack': return 'Blackjack';
    case 'even-money': return 'Blackjack, even money';
    case 'win': return dealerBust ? `${pt} against a dealer bust with ${d.total}` : `${pt} beats ${dealerWords(round)}`;
    case 'lose': return dealerBj ? `dealer blackjack beats ${pt}` : `${dealerWords(round)} beats ${pt}`;
    case 'bust': return `bust with ${pt}`;
    case 'push': return hand?.status === 'natural' ? 'Blackjack against dealer blackjack, push' : `${pt} ties ${dealerWords(round)}, push`;
    case 'surrender': return 'surrendered, half the bet back';
    default: return 'bet returned';
  }
}

/** Whether a hand was doubled (its stake is above its spot's main bet). */
export function doubled(spot, hand) {
  return Boolean(spot && hand && (toCents(hand.stake) ?? 0) > (toCents(spot.main) ?? 0));
}

/**
 * A settlement as a sentence: "Spot 1, hand 2 (doubled): 19 beats dealer 18, 1 to 1:
 * +20.00", "Spot 1, Lucky Ladies: queen of hearts pair, 200 to 1: +1,000.00".
 */
export function sentence(s, round, sideName) {
  const { spot, hand } = placeOf(s, round);
  const net = toCents(s.net) ?? 0;
  const split = (spot?.hands?.length || 0) > 1;
  let where = `Spot ${s.spot}`;
  let why;
  if (s.wager === 'main') {
    if (split) where += `, hand ${s.hand}`;
    if (doubled(spot, hand)) where += ' (doubled)';
    why = mainWhy(s, hand, round);
  } else if (s.wager === 'insurance') {
    where += ', insurance';
    why = net > 0 ? 'dealer blackjack' : net < 0 ? 'no dealer blackjack' : 'bet returned';
  } else {
    where += `, ${sideName(s.wager)}`;
    why = net > 0 ? (s.line ? String(s.line).replace(/-/g, ' ') : 'win') : net < 0 ? 'no winning hand' : 'bet returned';
    const text = String(s.text || '');
    const at = text.lastIndexOf(`, ${s.pays}: `);
    // The pay line as the server words it ("queen of hearts pair with dealer blackjack").
    if (net > 0 && s.pays && at > 0) why = text.slice(text.indexOf(': ') + 2, at);
  }
  const pays = net > 0 && s.pays ? `, ${s.pays}` : '';
  return `${where}: ${why}${pays}: ${signed(net)}`;
}

/** A big moment of a settlement: {kind: 'jackpot' | 'big', cents} or null. */
export function bigMoment(s) {
  const net = toCents(s.net) ?? 0;
  if (net <= 0 || s.wager === 'main' || s.wager === 'insurance') return null;
  const pays = String(s.pays || '');
  if (/% of meter/.test(pays)) return { kind: 'jackpot', cents: net };
  const odds = /^(\d+) (?:to|for) (\d+)$/.exec(pays);
  if (odds && Number(odds[1]) / Number(odds[2]) >= 25) return { kind: 'big', cents: net };
  return null;
}

const reduced = () => window.matchMedia?.('(prefers-reduced-motion: reduce)').matches;

/**
 * Shows a big win's banner in `host` with its amount counting up, for `ms`; then
 * removes it and calls `done`. Returns a function that ends it at once.
 */
export function celebrate(host, moment, title, ms, done) {
  const amount = h('strong', { class: 'bigwin-amount', dataset: { value: String(moment.cents) } }, fmt(reduced() ? moment.cents : 0));
  const el = h('div', { class: `bigwin ${moment.kind}`, id: 'bigwin', 'aria-hidden': 'true' },
    h('p', { class: 'bigwin-title' }, moment.kind === 'jackpot' ? 'JACKPOT!' : 'BIG WIN!'),
    h('p', { class: 'bigwin-what' }, title),
    amount);
  host.append(el);
  const start = performance.now();
  const span = Math.min(1500, ms / 2);
  const step = (now) => {
    if (!el.isConnected) return;
    const t = Math.min(1, (now - start) / span);
    amount.textContent = fmt(Math.round(moment.cents * (1 - (1 - t) ** 3)));
    if (t < 1) requestAnimationFrame(step);
  };
  if (!reduced()) requestAnimationFrame(step);
  let over = false;
  const end = () => {
    if (over) return;
    over = true;
    clearTimeout(timer);
    el.remove();
    done();
  };
  const timer = setTimeout(end, ms);
  return end;
}
