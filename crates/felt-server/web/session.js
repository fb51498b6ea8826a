// The player's time at a table: when they sat down (the clock shows the time at the
// table), kept in sessionStorage so a reload goes on counting; and the table's limits
// in a line. The session's net is the log-in session's (reality.js, GET /api/session).

import { fmt, show, toCents } from './money.js';

/** Time at the table, per table and browser tab. */
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
  }

  /** The player sits (or is seated): the clock starts once. */
  start(now) {
    if (this.since !== null) return;
    this.since = now;
    sessionStorage.setItem(this.key, JSON.stringify({ since: this.since }));
  }

  /** The player left the seat: the time at the table is over. */
  end() {
    this.since = null;
    sessionStorage.removeItem(this.key);
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
