// The player's session at a table: when they sat down (the clock shows the time at
// the table) and the net of their settled wagers since, kept in sessionStorage so a
// reload goes on counting; and the table's limits in a line.

import { fmt, show, toCents } from './money.js';
import { signed } from './results.js';

/** Time at the table and the session's net, per table and browser tab. */
export class Session {
  constructor(table) {
    this.key = `felt.session.${table}`;
    let saved = null;
    try {
      saved = JSON.parse(sessionStorage.getItem(this.key) || 'null');
    } catch (e) {
      saved = null;
    }
    this.since = saved?.since ?? null;
    this.net = saved?.net ?? 0;
    this.rounds = saved?.rounds ?? [];
  }

  save() {
    sessionStorage.setItem(this.key, JSON.stringify({ since: this.since, net: this.net, rounds: this.rounds }));
  }

  /** The player sits (or is seated): the clock starts once. */
  start(now) {
    if (this.since !== null) return;
    this.since = now;
    this.net = 0;
    this.rounds = [];
    this.save();
  }

  /** The player left the seat: the session is over. */
  end() {
    this.since = null;
    sessionStorage.removeItem(this.key);
  }

  /** A settled round's net for the player (each round counted once). */
  settle(round, cents) {
    if (this.since === null || this.rounds.includes(round)) return;
    this.rounds.push(round);
    if (this.rounds.length > 50) this.rounds.shift();
    this.net += cents;
    this.save();
  }

  /** "12:04" or "1:02:09": the time at the table; "" before sitting. */
  clock(now) {
    if (this.since === null) return '';
    const s = Math.max(0, Math.floor((now - this.since) / 1000));
    const two = (n) => String(n).padStart(2, '0');
    const hours = Math.floor(s / 3600);
    const rest = `${two(Math.floor((s % 3600) / 60))}:${two(s % 60)}`;
    return hours ? `${hours}:${rest}` : rest;
  }

  /** The session's net as a player reads it: "+25.00", "-10.00". */
  netText() {
    return signed(this.net);
  }
}

/** The table's limits: "Bets 5 to 500 · Lucky Ladies 1 to 25". */
export function limitsText(limits, sideName) {
  if (!limits?.main) return '';
  const range = (l) => `${short(l.min)} to ${short(l.max)}`;
  const parts = [`Bets ${range(limits.main)}`];
  for (const s of limits.side_bets || []) parts.push(`${sideName(s.id)} ${range(s)}`);
  if ((limits.spots || 1) > 1) parts.push(`up to ${limits.spots} spots`);
  return parts.join(' · ');
}

/** An amount without its cents when it has none: "500", "2.50". */
function short(text) {
  const c = toCents(text);
  if (c === null) return show(text);
  return c % 100 === 0 ? fmt(c).replace(/\.00$/, '') : fmt(c);
}
