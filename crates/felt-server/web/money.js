// Amounts: the protocol writes them as decimal strings ("10.00"); arithmetic is done
// on integer cents, never on floating point.

/** "12.50" (or "12", "-3.5") as integer cents; null if it is not an amount. */
export function toCents(text) {
  if (text === null || text === undefined) return null;
  const m = /^(-?)(\d+)(?:\.(\d{1,2}))?$/.exec(String(text).trim());
  if (!m) return null;
  const cents = Number(m[2]) * 100 + Number((m[3] || '').padEnd(2, '0'));
  return m[1] === '-' ? -cents : cents;
}

/** Cents as the protocol's decimal string: 1250 -> "12.50". */
export function plain(cents) {
  const neg = cents < 0;
  const a = Math.abs(cents);
  return `${neg ? '-' : ''}${Math.floor(a / 100)}.${String(a % 100).padStart(2, '0')}`;
}

/** Cents for a person: 500000 -> "5,000.00". */
export function fmt(cents) {
  const neg = cents < 0;
  const a = Math.abs(cents);
  const whole = String(Math.floor(a / 100)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${neg ? '-' : ''}${whole}.${String(a % 100).padStart(2, '0')}`;
}

/** A protocol amount for a person ("5000.00" -> "5,000.00"); "" if none. */
export function show(text) {
  const c = toCents(text);
  return c === null ? '' : fmt(c);
}

/** A chip's face: 500 -> "5", 50 -> "0.50", 250000 -> "2.5K". */
export function chipFace(cents) {
  if (cents >= 100000 && cents % 10000 === 0) return `${cents / 100000}K`;
  if (cents % 100 === 0) return String(cents / 100);
  return plain(cents);
}

/** The usual casino chip values, in cents. */
const USUAL = [50, 100, 200, 500, 1000, 2500, 5000, 10000, 25000, 50000, 100000, 500000];

/**
 * Chip denominations for a table: at most six of the usual casino values that fit its
 * limits (at least the smallest minimum, at most the main bet's maximum, multiples of
 * the increment), spread from the smallest to the largest so that the minimum, a
 * common bet and the maximum each take a few clicks (a 1.00 to 500.00 table gets
 * 1, 5, 10, 50, 100, 500, not 1 to 50).
 */
export function chipValues(limits) {
  const main = limits?.main || {};
  const sides = limits?.side_bets || [];
  const mins = [toCents(main.min), ...sides.map((s) => toCents(s.min))].filter((x) => x > 0);
  const low = mins.length ? Math.min(...mins) : 100;
  const high = toCents(main.max) || 50000;
  const step = toCents(main.increment) || 1;
  const fit = USUAL.filter((v) => v >= low && v <= high && v % Math.min(step, low) === 0);
  if (!fit.length) return [low];
  if (fit.length <= 6) return fit;
  // Six values spaced evenly on a log scale between the smallest and the largest.
  const first = fit[0];
  const last = fit[fit.length - 1];
  const picked = new Set();
  for (let i = 0; i < 6; i += 1) {
    const target = Math.log(first) + (Math.log(last) - Math.log(first)) * (i / 5);
    const free = fit.filter((v) => !picked.has(v));
    free.sort((a, b) => Math.abs(Math.log(a) - target) - Math.abs(Math.log(b) - target));
    picked.add(free[0]);
  }
  return [...picked].sort((a, b) => a - b);
}

/** A chip's colour class by its value (the casino's usual colours). */
export function chipColor(cents) {
  const colors = { 50: 'pink', 100: 'white', 200: 'yellow', 500: 'red', 1000: 'blue', 2500: 'green', 5000: 'orange', 10000: 'black', 25000: 'pink', 50000: 'purple', 100000: 'yellow', 500000: 'brown' };
  return `chip-${colors[cents] || 'grey'}`;
}

/** An amount as the chips that make it, largest first (for a stack in a circle). */
export function chipsOf(cents, values) {
  const out = [];
  let left = cents;
  for (const v of [...values].sort((a, b) => b - a)) {
    while (left >= v && out.length < 40) {
      out.push(v);
      left -= v;
    }
  }
  // A remainder no chip makes (an odd amount): shown by the smallest chip.
  if (left > 0 && values.length) out.push(Math.min(...values));
  return out;
}
