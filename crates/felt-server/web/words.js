// What the page says when the server refuses something: each error code of
// docs/protocol.md (table socket and HTTP) as a sentence written for a player, with
// what to do. The server's own message is never shown raw, except the sentences of a
// limit the player set or of their break, which name the limit and when it ends.

import { show } from './money.js';
import { localTimes } from './dom.js';

const TABLE = {
  'bad-message': 'The page sent something the table did not understand: reload the page and try again.',
  'unknown-type': 'The page sent something the table did not understand: reload the page and try again.',
  'too-large': 'That message was too long for the table: reload the page and try again.',
  version: 'This page is older than the table: reload the page.',
  hello: 'The page lost its place at the table: reload the page.',
  'no-table': 'There is no such table: pick one in the lobby.',
  'table-closed': 'This table is closed: pick another one in the lobby.',
  'not-seated': 'Take a seat first.',
  'seat-taken': 'Someone just took that seat: pick a free one.',
  'seated-elsewhere': 'You are sitting at another table: go back to it and press "Leave table" first.',
  'already-seated': 'You already have a seat at this table.',
  'not-betting': 'Bets are closed for this round: bet again when the next round opens.',
  'already-bet': 'Your bets for this round are already in.',
  'other-round': 'That was for a round that is over: the table has moved on.',
  'already-applied': 'That answer was already taken.',
  'bad-action-id': 'The page sent something the table did not understand: reload the page and try again.',
  'not-your-turn': 'It is not your turn yet: wait for the pointer under your hand.',
  'not-this-hand': 'That hand is not the one in play: decide on the hand with the pointer.',
  'insufficient-funds': 'Your balance does not cover that: nothing was done, and your hand plays on. Choose another action.',
  'balance-changed': 'Your balance changed since this round opened: your bet was not taken. Bet again in the next round.',
  'rate-limited': 'That was too fast: wait a moment and try again.',
  busy: 'The table is very busy: nothing was done. Try again in a moment.',
  forbidden: 'That is not allowed for your account.',
  'session-ended': 'Your session ended (you logged out, or it was unused too long): log in again to play.',
  'too-many-sockets': 'You have too many tables open: close one of them (8 at most) and this table will connect.',
  away: 'The table is moving: reconnecting...',
  'reality-check': 'A reality check is waiting for your answer: continue or log out, then bet.',
  'wallet-unavailable': 'The casino\'s wallet did not answer in time: nothing was staked. Try again in a moment.',
  'wallet-pending': 'Your last bet is waiting for the casino\'s answer: wait a moment, then try again.',
  'session-expired': 'Your session at the casino has ended: go back to the casino\'s site and open the table from there.',
};

const HTTP = {
  'bad-login': 'That name and password are wrong: check them, or register a new name.',
  'no-session': 'You are not logged in: log in to play.',
  'name-taken': 'That name is taken: choose another one, or log in if it is yours.',
  throttled: 'Too many tries from this address: wait a few minutes and try again.',
  busy: 'The server is very busy: nothing was done. Try again in a moment.',
  'cross-origin': 'This request came from another site and was refused: open felt from its own address.',
  'bad-content-type': 'The page sent something the server does not take: reload the page and try again.',
  'bad-request': 'The server could not read that: check what you typed and try again.',
  books: 'The casino cannot read its books right now: try again in a minute.',
  'bad-name': 'That name will not do: use at most 32 letters, digits, "-" or "_".',
  'bad-password': 'That password will not do: use 8 to 256 characters, not a common password, not your name, and not one character over and over.',
  network: 'The server cannot be reached: check your connection and try again.',
  'account-locked': 'This account is locked after too many failed log-ins: ask the operator to lift the lock, or wait until it ends.',
};

/** The engine's own refusals (`refused`), as a player reads them. */
function refusal(message) {
  const m = String(message || '');
  const cover = /balance of (\d+\.\d\d) does not cover (\d+\.\d\d)/.exec(m);
  if (cover) return `Your balance (${show(cover[1])}) does not cover ${show(cover[2])}: bet less.`;
  const range = /not an allowed amount \((\d+\.\d\d) to (\d+\.\d\d)\)/.exec(m);
  if (range) return `Choose an amount from ${show(range[1])} to ${show(range[2])}.`;
  if (/above the table's limit/.test(m)) return 'Your balance is above the most a seat may hold when it bets: take some out before you bet again.';
  const below = /(?:minimum|at least) (?:is )?(\d+\.\d\d)/.exec(m);
  if (below) return `That is below the table's minimum (${show(below[1])}): add chips.`;
  const above = /(?:maximum|at most) (?:is )?(\d+\.\d\d)/.exec(m);
  if (above) return `That is above the table's maximum (${show(above[1])}): take chips off.`;
  return 'The dealer cannot take that: it is not allowed by the table\'s rules right now (see Rules).';
}

/** A refusal frame of the table socket ({code, message}) as a player's sentence. */
export function tableSentence(err) {
  if (err?.code === 'refused') return refusal(err.message);
  // The operator's wallet refused a stake: its reason, in the casino's words.
  const operator = /^(you are not insured: )?the operator refused it: (.+)$/.exec(String(err?.message || ''));
  if (operator && ['insufficient-funds', 'limit-reached', 'player-blocked'].includes(err.code)) {
    return `${operator[1] ? 'You are not insured: ' : ''}The casino refused this bet: ${operator[2]}.`;
  }
  // A limit the player set, or their break: the server's sentence names it and when it ends.
  if (err?.code === 'limit-reached' || err?.code === 'player-blocked') return serverSentence(err.message);
  // A session ended by a break, an exclusion, the operator or a password change: the
  // server's sentence says which (and until when).
  if (err?.code === 'session-ended' && /break|exclu|operator|password/.test(err.message || '')) return serverSentence(err.message);
  return TABLE[err?.code] || 'The table refused that: try again, or reload the page.';
}

/** The server's own sentence (limits and breaks), capitalised, with its full stop. */
function serverSentence(message) {
  const m = localTimes(message || '');
  return m ? `${m[0].toUpperCase()}${m.slice(1)}.` : 'A limit you set stops this.';
}

/** A failed HTTP answer ({status, data: {error, message}}) as a player's sentence. */
export function httpSentence(res) {
  const code = res?.data?.error;
  // A limit, a break, or a lock-out: the server's sentence says which and until when.
  if (['limit-reached', 'player-blocked', 'account-locked'].includes(code) && res.data.message) return serverSentence(res.data.message);
  if (HTTP[code]) return HTTP[code];
  if (TABLE[code]) return TABLE[code];
  if (res?.status === 400) return 'The server could not read that: check what you typed and try again.';
  if (res?.status === 429) return 'Too many tries: wait a little and try again.';
  if (res?.status >= 500) return 'The server has a problem right now: try again in a minute.';
  return 'That did not work: try again in a moment.';
}
