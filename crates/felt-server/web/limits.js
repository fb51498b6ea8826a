// The Limits panel (docs/server.md, "Player protection"): the limits a player sets
// (GET/PUT /api/limits), each with what is used this period and when it resets, an
// increase or removal pending with the time it may be confirmed, the history of
// changes; and a break or a self-exclusion (POST /api/limits/break), after a
// confirmation. The server's sentences are shown as written.

import { api } from './api.js';
import { h, fill, when, notice, localTimes } from './dom.js';
import { show } from './money.js';
import { httpSentence } from './words.js';
import { openPanel } from './panels.js';
import { endedBy } from './reality.js';

const KINDS = { deposit: 'Deposits', loss: 'Losses', wager: 'Wagers', session: 'Time logged in' };
const PERIODS = { day: '24 hours', week: '7 days', month: '30 days', bet: 'each wager' };

/** A limit's name: "Wagers, 7 days", or "Each single wager" (a wager limit per bet). */
const limitName = (kind, period) => (period === 'bet' ? 'Each single wager' : `${KINDS[kind]}, ${PERIODS[period]}`);
const BREAKS = [[24, '24 hours'], [72, '3 days'], [168, '1 week'], [720, '1 month'], [1008, '6 weeks']];
const EXCLUSIONS = [[183 * 24, '6 months'], [365 * 24, '1 year'], [1826 * 24, '5 years'], [0, 'for good']];

/** The server's sentence, as a sentence. */
function sentence(text) {
  const t = localTimes(text || '');
  return t ? `${t[0].toUpperCase()}${t.slice(1)}.` : '';
}

/** A failed answer: the server's own sentence for a limit or a block, else the page's. */
function failure(r) {
  const code = r?.data?.error;
  if (code === 'limit-reached' || code === 'player-blocked') return sentence(r.data.message);
  return httpSentence(r);
}

const amountText = (l) => (l.kind === 'session' ? `${l.minutes} minutes` : show(l.amount));

function pendingText(l) {
  const p = l.pending;
  if (!p) return '';
  const to = p.remove ? 'removal' : `raise to ${l.kind === 'session' ? `${p.minutes} minutes` : show(p.amount)}`;
  return p.confirmable
    ? `The ${to} may be confirmed now.`
    : `The ${to} takes effect no sooner than ${when(p.effective_at)}, once you confirm it then.`;
}

/** Opens the Limits panel. */
export async function limitsPanel() {
  openPanel('Limits', h('p', {}, 'Loading your limits...'));
  const r = await api('GET', '/api/limits');
  if (!r.ok) {
    openPanel('Limits', h('p', { role: 'alert' }, httpSentence(r)));
    return;
  }
  draw(r.data, '');
}

function draw(page, said) {
  const status = h('p', { class: 'form-error', role: 'alert', id: 'limits-error' }, said);
  const send = async (method, path, body) => {
    const r = await api(method, path, body);
    if (!r.ok) {
      status.textContent = failure(r);
      return;
    }
    // A break or exclusion ends the session at once (docs/server.md): the log-in page
    // says why; logging in again shows the balance and history.
    if (path === '/api/limits/break' && r.data.blocked) {
      endedBy(`${sentence(r.data.blocked.message)} You are logged out; log in again to see your balance and history.`);
      return;
    }
    draw(r.data, '');
    notice('Your limits are saved.');
  };
  const blocked = page.blocked
    ? h('p', { class: 'limits-blocked', id: 'limits-blocked', role: 'status' }, sentence(page.blocked.message))
    : null;
  const rows = page.limits.map((l) =>
    h('tr', { dataset: { kind: l.kind, period: l.period } },
      h('th', { scope: 'row' }, limitName(l.kind, l.period)),
      h('td', { 'data-label': 'Amount' }, l.amount === null && l.minutes === null ? 'none' : amountText(l)),
      // A single-wager limit sums nothing (its used is null) and never resets.
      h('td', { 'data-label': 'Used this period' }, l.used === null ? 'n/a' : l.kind === 'session' ? `${l.used} minutes` : show(l.used)),
      h('td', { 'data-label': 'Resets' }, l.resets_at ? when(l.resets_at) : ''),
      h('td', { class: 'limits-pending', 'data-label': 'Pending' }, pendingText(l),
        l.pending?.confirmable
          ? h('button', {
            type: 'button', class: 'btn small', onclick: () => send('PUT', '/api/limits', {
              limits: [l.pending.remove
                ? { kind: l.kind, period: l.period, remove: true }
                : l.kind === 'session'
                  ? { kind: l.kind, period: l.period, minutes: l.pending.minutes }
                  : { kind: l.kind, period: l.period, amount: l.pending.amount }],
            }),
          }, 'Confirm')
          : null)));
  const kind = h('select', { id: 'limit-kind' }, Object.entries(KINDS).map(([k, t]) => h('option', { value: k }, t)));
  const period = h('select', { id: 'limit-period' }, Object.entries(PERIODS).map(([k, t]) => h('option', { value: k }, t)));
  // Only the wager limit has a single-wager form.
  const fit = () => {
    const single = period.querySelector('option[value="bet"]');
    single.disabled = kind.value !== 'wager';
    if (single.disabled && period.value === 'bet') period.value = 'day';
  };
  kind.addEventListener('change', fit);
  fit();
  const amount = h('input', { id: 'limit-amount', inputmode: 'decimal', placeholder: '50.00', size: 8 });
  const ask = (remove) => {
    const l = { kind: kind.value, period: period.value };
    if (remove) l.remove = true;
    else if (kind.value === 'session') l.minutes = Number.parseInt(amount.value, 10);
    else l.amount = amount.value.trim();
    return send('PUT', '/api/limits', { limits: [l] });
  };
  const form = h('form', { class: 'limits-form', onsubmit: (e) => { e.preventDefault(); ask(false); } },
    h('label', { for: 'limit-kind' }, 'Limit'), kind,
    h('label', { for: 'limit-period' }, 'per'), period,
    h('label', { for: 'limit-amount' }, 'Amount (minutes for time)'), amount,
    h('button', { type: 'submit', class: 'btn primary', id: 'limit-set' }, 'Set'),
    h('button', { type: 'button', class: 'btn', id: 'limit-remove', onclick: () => ask(true) }, 'Remove'));
  const history = page.history.slice().reverse().map((c) =>
    h('li', {}, `${when(c.requested_at)}: ${limitName(c.kind, c.period)}: `,
      c.amount === null ? 'removed' : c.kind === 'session' ? `${c.amount / 60} minutes` : show((c.amount / 100).toFixed(2)),
      c.effective_at !== c.requested_at ? ` (from ${when(c.effective_at)})` : ''));
  openPanel('Limits',
    blocked,
    h('p', { class: 'muted' }, 'A lower or new limit applies at once. A higher limit or a removal waits 24 hours, then needs your confirmation. The lowest limit that applies wins.'),
    page.limits.length
      ? h('table', { id: 'limits-table' },
        h('thead', {}, h('tr', {}, ['Limit', 'Amount', 'Used this period', 'Resets', 'Pending'].map((t) => h('th', { scope: 'col' }, t)))),
        h('tbody', {}, rows))
      : h('p', { id: 'limits-none' }, 'You have set no limits.'),
    page.blocked ? null : form,
    status,
    page.blocked ? null : blockForm(send),
    history.length ? h('h3', {}, 'History') : null,
    history.length ? h('ul', { id: 'limits-history' }, history) : null);
}

/** A break or a self-exclusion, asked for twice (it cannot be undone). */
function blockForm(send) {
  const choice = h('select', { id: 'block-choice' },
    BREAKS.map(([hrs, t]) => h('option', { value: `break:${hrs}` }, `A break of ${t}`)),
    EXCLUSIONS.map(([hrs, t]) => h('option', { value: `self-excluded:${hrs}` }, `Exclude myself ${hrs ? `for ${t}` : t}`)));
  const box = h('div', { class: 'limits-block' });
  const confirm = () => {
    const [kind, hrs] = choice.value.split(':');
    const body = Number(hrs) ? { kind, hours: Number(hrs) } : { kind, for_good: true };
    const label = choice.selectedOptions[0].textContent;
    fill(box,
      h('p', { role: 'alert' }, `${label}: from now you cannot bet, and this cannot be shortened or undone. The round you play finishes first.`),
      h('button', { type: 'button', class: 'btn primary', id: 'block-confirm', onclick: () => send('POST', '/api/limits/break', body) }, 'Yes, start it now'),
      h('button', { type: 'button', class: 'btn', onclick: () => fill(box, ...start()) }, 'Cancel'));
  };
  const start = () => [
    h('h3', {}, 'Take a break'),
    h('label', { for: 'block-choice' }, 'Stop playing'), choice,
    h('button', { type: 'button', class: 'btn', id: 'block-start', onclick: confirm }, 'Continue'),
  ];
  fill(box, ...start());
  return box;
}
