// The rules panel (GET /api/tables/NAME/rules: the rules card, every pay table, each
// wager's return to player) and the game recall panel (GET /api/history: the last 10
// games with every card, decision, wager and result), in one modal dialog.

import { api, why } from './api.js';
import { h, fill, when } from './dom.js';
import { show, toCents, fmt } from './money.js';
import { cardName, cardEl, backEl } from './cards.js';

let opener = null;

/** Wires the dialog's close button (once, at start). */
export function initPanel() {
  const d = document.getElementById('panel');
  document.getElementById('panel-close').addEventListener('click', () => d.close());
  d.addEventListener('close', () => {
    if (opener && document.contains(opener)) opener.focus();
    opener = null;
  });
}

/** Whether the panel is open (keys then belong to it, not the table). */
export function panelOpen() {
  return document.getElementById('panel').open;
}

/** Closes the panel if it is open (its content belongs to a session that ended). */
export function closePanel() {
  const d = document.getElementById('panel');
  if (d?.open) d.close();
}

/** Opens the panel with this title and body (or redraws it when open). */
export function openPanel(title, ...body) {
  open(title, ...body);
}

function open(title, ...body) {
  const d = document.getElementById('panel');
  document.getElementById('panel-title').textContent = title;
  fill(document.getElementById('panel-body'), ...body);
  if (!d.open) {
    opener = document.activeElement;
    d.showModal();
  }
  document.getElementById('panel-close').focus();
}

const pct = (x) => (typeof x === 'number' && Number.isFinite(x) ? `${(x * 100).toFixed(2)}%` : 'n/a');

/** The rules panel of a table. */
export async function rulesPanel(table) {
  open('Rules', h('p', {}, 'Loading the rules...'));
  const r = await api('GET', `/api/tables/${encodeURIComponent(table)}/rules`);
  if (!r.ok) {
    open('Rules', h('p', { role: 'alert' }, why(r)));
    return;
  }
  const d = r.data;
  const sheets = Array.isArray(d.side_bets) ? d.side_bets : [];
  const rtpRows = [
    h('tr', {}, h('th', { scope: 'row' }, 'Main game (basic strategy)'), h('td', {}, pct(d.main?.return_to_player))),
    ...sheets.map((s) =>
      h('tr', {}, h('th', { scope: 'row' }, s.name || s.id),
        h('td', {}, typeof s.house_edge === 'number' ? pct(1 - s.house_edge) : 'n/a'))),
  ];
  const payTables = (d.pay_tables || []).map((p) => {
    const sheet = sheets.find((s) => s.id === p.id);
    const name = (hand) => sheet?.outcomes?.find((o) => o.hand === hand)?.name || String(hand).replace(/-/g, ' ');
    return h('section', { class: 'paytable' },
      h('h4', {}, p.name || p.id),
      h('p', { class: 'muted' }, `Bets ${show(p.min)} to ${show(p.max)}`),
      h('table', {},
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Hand'), h('th', { scope: 'col' }, 'Pays'))),
        h('tbody', {}, (p.pays || []).map((line) =>
          h('tr', {}, h('td', {}, name(line.hand)),
            h('td', {}, line.meter_percent != null ? `${line.meter_percent}% of the meter` : `${String(line.odds).replace(':', ' to ')}`))))));
  });
  open(`Rules: ${d.name}`,
    h('h3', {}, 'Return to player'),
    h('table', { class: 'rtp' }, h('tbody', {}, rtpRows)),
    payTables.length ? h('h3', {}, 'Pay tables') : null,
    payTables,
    h('h3', {}, 'The rules card'),
    h('pre', { class: 'rules-card', tabindex: '0' }, d.card));
}

/** A card as the books write it: "7h", or {rank, suit}. */
function cardText(c) {
  if (typeof c === 'string') return cardName(c) || c;
  if (c && typeof c === 'object' && 'rank' in c) return `${c.rank} of ${c.suit}`.toLowerCase();
  return String(c);
}

function who(to, players, ended) {
  if (!to || to.who === 'dealer') return 'Dealer';
  const seat = ended ? players?.[to.seat] || `seat ${to.seat + 1}` : `seat ${to.seat}`;
  const n = (x) => (ended ? x + 1 : x);
  return `${seat}, spot ${n(to.spot)}, hand ${n(to.hand)}`;
}

function decisionText(d) {
  if (typeof d === 'string') return d.replace(/-/g, ' ');
  if (d && typeof d === 'object') {
    const [k, v] = Object.entries(d)[0] || ['?', ''];
    return `${k.replace(/-/g, ' ')} ${typeof v === 'string' ? show(v) : ''}`.trim();
  }
  return String(d);
}

function betText(b) {
  if (typeof b === 'string') return b.replace(/-/g, ' ');
  if (b && typeof b === 'object') return Object.values(b).join(' ').replace(/-/g, ' ');
  return String(b);
}

/** One event of a recalled game as a line; null for bookkeeping. */
function eventLine(e, players, ended) {
  switch (e.event) {
    case 'dealt':
      return `${who(e.to, players, ended)}: ${e.card ? cardText(e.card) : 'a face-down card'}${e.face_up === false && e.card ? ' (face down)' : ''}`;
    case 'hole-card-turned':
      return `Dealer turns the hole card: ${cardText(e.card)} (total ${e.total})`;
    case 'decided':
      return `${who(e.at, players, ended)}: ${decisionText(e.decision)}`;
    case 'timed-out':
      return `${who(e.at, players, ended)}: the timer ran out`;
    case 'stood':
      return `${who(e.at, players, ended)}: stands on ${e.total}`;
    case 'dealer-done':
      return `Dealer ${e.busted ? 'busts with' : 'stands on'} ${e.total}`;
    case 'peeked':
      return `Dealer peeks: ${e.natural ? 'blackjack' : 'no blackjack'}`;
    case 'settled': {
      const net = (toCents(e.returned) ?? 0) - (toCents(e.stake) ?? 0);
      const line = e.line ? `, ${String(e.line).replace(/-/g, ' ')}` : '';
      const pays = e.pays && net > 0 ? `, ${typeof e.pays === 'string' ? e.pays : JSON.stringify(e.pays)}` : '';
      return `${who(e.at, players, ended)}: ${betText(e.bet)} ${show(e.stake)}: ${String(e.outcome).replace(/-/g, ' ')}${line}${pays}: ${net > 0 ? '+' : ''}${fmt(net)}`;
    }
    default:
      return null;
  }
}

/** The cards of a recalled game as pictures: each place (the dealer, each hand) with
 * the cards dealt to it in order, a face-down card as a back until it is turned. */
function hands(events, players, ended) {
  const places = new Map();
  const place = (to) => {
    const name = who(to, players, ended);
    if (!places.has(name)) places.set(name, []);
    return places.get(name);
  };
  for (const e of events || []) {
    if (e.event === 'dealt' && !e.side_bet_only) {
      // A face-down card is a back until the dealer turns it.
      place(e.to).push(e.face_up === false ? null : e.card);
    } else if (e.event === 'hole-card-turned') {
      const d = place({ who: 'dealer' });
      const down = d.indexOf(null);
      if (down >= 0) d[down] = e.card;
      else d.push(e.card);
    }
  }
  const code = (c) => (typeof c === 'string' ? c : c && typeof c === 'object' ? cardCode(c) : null);
  return [...places].map(([name, cards]) => h('div', { class: 'recall-hand' },
    h('p', { class: 'recall-place' }, name),
    h('div', { class: 'cards' }, cards.map((c) => (code(c) ? cardEl(code(c)) : backEl())))));
}

const RANK_CODES = { ace: 'A', two: '2', three: '3', four: '4', five: '5', six: '6', seven: '7', eight: '8', nine: '9', ten: 'T', jack: 'J', queen: 'Q', king: 'K' };

/** A card as the books write it ({rank: "Queen", suit: "Diamonds"}) as "Qd". */
function cardCode(c) {
  const r = RANK_CODES[String(c.rank).toLowerCase()] ?? String(c.rank);
  return `${r}${String(c.suit)[0].toLowerCase()}`;
}

/** The recall panel: the player's last 10 games. */
export async function recallPanel() {
  open('Game recall', h('p', {}, 'Loading your last games...'));
  const r = await api('GET', '/api/history?n=10');
  if (!r.ok) {
    open('Game recall', h('p', { role: 'alert' }, why(r)));
    return;
  }
  const games = r.data.games || [];
  if (!games.length) {
    open('Game recall', h('p', {}, 'No games yet.'));
    return;
  }
  const items = games.map((g) => {
    const ended = g.status !== 'open';
    const lines = (g.events || []).map((e) => eventLine(e, g.players, ended)).filter(Boolean);
    const bal = g.balance_before != null && g.balance_after != null ? ` · balance ${show(g.balance_before)} to ${show(g.balance_after)}` : '';
    const at = g.started_at ? ` · ${when(g.started_at)}` : '';
    return h('details', { class: 'recall', dataset: { round: g.round } },
      h('summary', {}, `Round ${g.round} · ${g.game}${at} · ${g.status}${bal}`),
      h('div', { class: 'recall-hands' }, hands(g.events, g.players, ended)),
      h('ol', { class: 'recall-lines' }, lines.map((l) => h('li', {}, l))));
  });
  open('Game recall', h('p', { class: 'muted' }, `Your last ${games.length} games, newest first.`), items);
}

