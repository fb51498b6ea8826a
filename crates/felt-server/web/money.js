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

/**
 * Chip denominations for a table: the usual casino values that fit its limits (at
 * least the smallest minimum, at most the main bet's maximum, multiples of the
 * increment), at most six.
 */
export function chipValues(limits) {
  const main = limits?.main || {};
  const sides = limits?.side_bets || [];
  const mins = [toCents(main.min), ...sides.map((s) => toCents(s.min))].filter((x) => x > 0);
  const low = mins.length ? Math.min(...mins) : 100;
  const high = toCents(main.max) || 50000;
  const step = toCents(main.increment) || 1;
  const usual = [50, 100, 200, 500, 1000, 2500, 5000, 10000, 25000, 50000, 100000, 500000];
  let fit = usual.filter((v) => v >= low && v <= high && v % Math.min(step, low) === 0);
  if (!fit.length) fit = [low];
  return fit.slice(0, 6);
}
