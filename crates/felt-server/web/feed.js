// A shared table reads like one: who each seat is (the status line names the player
// whose turn it is), a short feed of what the others did (hit, doubled, split, busted,
// won), and what a countdown waits for. Built from the server's views only: the
// events of each frame and the seats' names.

import { h, fill } from './dom.js';
import { toCents, fmt } from './money.js';

/** The lines the feed keeps. */
const FEED_LINES = 4;

/** A decision as the feed tells it ("Ana hits"). */
function decided(d) {
  const word = typeof d === 'string' ? d : Object.keys(d || {})[0];
  return {
    hit: 'hits', stand: 'stands', double: 'doubles', split: 'splits', surrender: 'surrenders',
    insure: 'takes insurance', 'even-money': 'takes even money', decline: 'declines',
  }[word] || word;
}

/** The name of the player at `seat` in view `v` (`roster`: who played it in the round). */
export function seatName(v, seat, roster) {
  return roster?.(v.round_id, seat) || (v.seats || []).find((s) => s.seat === seat)?.player || `Seat ${seat}`;
}

/** What a running countdown waits for, as its label ("Ana decides in"). */
export function timerWords(v, timerFor, mine, roster) {
  if (timerFor === 'decision') {
    const seat = v?.round?.turn?.seat;
    if (!mine && seat) return `${seatName(v, seat, roster)} decides in`;
    return 'Decide in';
  }
  if (timerFor === 'offer') return mine ? 'Answer in' : 'Insurance answers in';
  if (timerFor === 'betting') return 'Bets close in';
  if (timerFor === 'next-round') return 'Next round in';
  return 'Time left';
}

/** The feed of the others' play at a table. */
export class Feed {
  constructor(box) {
    this.box = box;
    this.lines = [];
    this.seen = new Set();
    box.setAttribute('role', 'log');
    box.setAttribute('aria-label', 'What the others did');
  }

  /** Adds what frame `v` (shown whole: its cards have landed) tells of the others. */
  note(v, me, roster) {
    if (typeof v.seq !== 'number' || this.seen.has(v.seq)) return;
    this.seen.add(v.seq);
    if (this.seen.size > 512) this.seen = new Set([v.seq]);
    for (const e of v.events || []) {
      const seat = e.at?.seat;
      if (!seat || seat === me) continue;
      const who = seatName(v, seat, roster);
      let text = null;
      if (e.event === 'decided') text = `${who} ${decided(e.decision)}`;
      else if (e.event === 'timed-out') text = `${who}'s time ran out`;
      else if (e.event === 'settled' && e.outcome === 'bust') text = `${who} busts`;
      else if (e.event === 'settled') {
        const net = (toCents(e.returned) ?? 0) - (toCents(e.stake) ?? 0);
        if (net > 0) text = `${who} wins ${fmt(net)}${e.outcome === 'blackjack' ? ' with blackjack' : ''}`;
      }
      if (text) this.lines.push(text);
    }
    this.lines = this.lines.slice(-FEED_LINES);
    this.draw();
  }

  draw() {
    this.box.hidden = !this.lines.length;
    fill(this.box, h('ul', { class: 'feed-lines' },
      this.lines.map((t, i) => h('li', { class: i === this.lines.length - 1 ? 'newest' : '' }, t))));
  }
}
