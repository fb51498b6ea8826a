// The app: routes (#/ log in, #/lobby, #/table/NAME), the account bar and the log-in
// page. Each page is an object with a destroy() that closes what it opened.

import { api } from './api.js';
import { httpSentence } from './words.js';
import { h, fill, notice } from './dom.js';
import { show } from './money.js';
import { Lobby } from './lobby.js';
import { Table } from './table.js';
import { recallPanel, initPanel, closePanel } from './panels.js';
import { startSession, stopSession, refresh, helpLine, showUnfinished, showBlocked, roundSettled } from './reality.js';
import { limitsPanel } from './limits.js';

const app = { me: null, page: null };

// The page loaded at a table's address (an operator's launch link lands there): that
// table's page seats the player by itself, once per load.
const landedAt = /^#\/table\/([A-Za-z0-9_-]{1,40})$/.exec(location.hash)?.[1] ?? null;
let launchTaken = false;

/** Whether the table page `name` is the one this load landed at (asked once). */
app.takeLaunch = function takeLaunch(name) {
  if (launchTaken || name !== landedAt) return false;
  launchTaken = true;
  return true;
};

/** With the operator's wallet (players come by its launch links), what a player
 * whose session ended reads instead of the log-in form. */
const RETURN_TO_OPERATOR = 'To play again, go back to the casino\'s site and open a table from there.';

async function loadMe() {
  const r = await api('GET', '/api/me');
  app.me = r.ok ? r.data : null;
  app.meAt = Date.now();
  // Remembered for this tab: the log-in page is not this server's way in.
  if (app.me?.operator_wallet) sessionStorage.setItem('felt.operator', '1');
  drawNav();
  return app.me;
}

/** The balance in the bar (the table updates it from its views). */
app.setBalance = function setBalance(text) {
  if (app.me && text) {
    app.me.balance = text;
    const b = document.getElementById('bar-balance');
    if (b) b.textContent = show(text);
  }
};

function drawNav() {
  const nav = document.getElementById('nav');
  if (!app.me) {
    fill(nav);
    return;
  }
  fill(
    nav,
    h('span', { class: 'who' }, h('span', { class: 'sr-only' }, 'Logged in as '), app.me.player),
    h('span', { class: 'bal' }, 'Balance ', h('strong', { id: 'bar-balance' }, show(app.me.balance))),
    h('a', { href: '#/lobby', class: 'btn ghost' }, 'Lobby'),
    h('button', { type: 'button', class: 'btn ghost', id: 'open-recall', onclick: () => recallPanel() }, 'Recall'),
    h('button', { type: 'button', class: 'btn ghost', id: 'open-limits', onclick: () => limitsPanel() }, 'Limits'),
    h('button', { type: 'button', class: 'btn ghost', onclick: logout }, 'Log out'),
  );
}

/** The session ended (log-out elsewhere, expiry): back to the log-in page, saying so. */
app.sessionEnded = function sessionEnded(text) {
  stopSession();
  closePanel();
  sessionStorage.setItem('felt.ended', text);
  app.me = null;
  drawNav();
  // A change of address routes by itself (hashchange); the same one does not.
  if (location.hash && location.hash !== '#/') location.hash = '#/';
  else route();
};

function logout() {
  return app.logOut(() => api('POST', '/api/logout', {}));
}

/** Logs out through `request` (POST /api/logout, or a reality check's "Log out"): the
 * page is closed first (its socket's end is not news), then the log-in page says how
 * the session went, with the help line. */
app.logOut = async function logOut(request) {
  const summary = stopSession();
  if (app.page) app.page.destroy();
  app.page = null;
  await request();
  const operator = sessionStorage.getItem('felt.operator');
  sessionStorage.clear();
  if (operator) sessionStorage.setItem('felt.operator', operator);
  sessionStorage.setItem('felt.ended', summary || 'You logged out.');
  app.me = null;
  drawNav();
  // A change of address routes by itself (hashchange); the same one does not.
  if (location.hash && location.hash !== '#/') location.hash = '#/';
  else route();
};

/** A table refused a bet for a due reality check, or a round ended: read the session. */
app.sessionChanged = refresh;

/** Round `id` of the player settled at a table: read the session, and a banner that
 * said the round was not finished says it has ended. */
app.roundSettled = (id) => {
  roundSettled(id);
  refresh();
};

/** The page of a player the operator launched, once the session is over. */
function returnPage(main) {
  const ended = sessionStorage.getItem('felt.ended');
  sessionStorage.removeItem('felt.ended');
  fill(main, h('section', { class: 'page' }, h('div', { class: 'login card-box', id: 'return-to-operator' },
    h('h1', {}, 'Blackjack tables'),
    ended ? h('p', { class: 'login-note', id: 'login-note', role: 'status' }, ended) : null,
    h('p', {}, RETURN_TO_OPERATOR),
    helpLine())));
  return { destroy() {} };
}

function loginPage(main) {
  if (sessionStorage.getItem('felt.operator')) return returnPage(main);
  const name = h('input', { id: 'name', name: 'name', autocomplete: 'username', required: true, maxlength: 32 });
  const pass = h('input', { id: 'password', name: 'password', type: 'password', autocomplete: 'current-password', required: true, minlength: 8 });
  const limit = h('input', { id: 'reg-limit', name: 'reg-limit', inputmode: 'decimal', placeholder: 'e.g. 100.00' });
  const err = h('p', { class: 'form-error', role: 'alert', id: 'login-error' });
  // Why the last session ended, until the next log-in (the page may be drawn twice
  // as it ends: a socket's word and an answer's).
  const ended = sessionStorage.getItem('felt.ended');
  const note = ended ? h('p', { class: 'login-note', id: 'login-note', role: 'status' }, ended) : null;
  const submit = async (kind) => {
    err.textContent = '';
    const body = { name: name.value, password: pass.value };
    // A limit set at registration applies from the first bet (docs/server.md).
    if (kind === 'register' && limit.value.trim()) body.limits = [{ kind: 'loss', period: 'day', amount: limit.value.trim() }];
    const r = await api('POST', kind === 'register' ? '/api/register' : '/api/login', body);
    if (!r.ok) {
      err.textContent = httpSentence(r);
      return;
    }
    sessionStorage.removeItem('felt.ended');
    sessionStorage.setItem('felt.previous', r.data.previous_login || '');
    sessionStorage.setItem('felt.welcomed', kind);
    // Six months since the limits were last looked at: the lobby asks for a review.
    if (r.data.limits_review) sessionStorage.setItem('felt.review', r.data.limits_review.last_reviewed);
    else sessionStorage.removeItem('felt.review');
    await loadMe();
    // Back to the page asked for before logging in (a table's link), else the lobby.
    const after = sessionStorage.getItem('felt.after');
    sessionStorage.removeItem('felt.after');
    // An unfinished round holding the player's stake: said, and its table opened.
    const open = (r.data.unfinished || []).find((u) => u.table);
    if (open) showUnfinished(open);
    // A break or exclusion that holds: said with its end, above everything else.
    if (r.data.blocked) showBlocked(`${r.data.blocked[0].toUpperCase()}${r.data.blocked.slice(1)}.`);
    location.hash = open ? `#/table/${open.table}` : after && after.startsWith('#/table/') ? after : '#/lobby';
  };
  const form = h(
    'form',
    { class: 'login card-box', onsubmit: (e) => { e.preventDefault(); submit(e.submitter?.value || 'login'); } },
    h('h1', {}, 'Blackjack tables'),
    note,
    h('p', {}, 'Log in, or register a new name (you start with play money).'),
    h('label', { for: 'name' }, 'Name'), name,
    h('label', { for: 'password' }, 'Password (at least 8 characters)'), pass,
    h('label', { for: 'reg-limit' }, 'When registering: a limit on your losses per 24 hours (optional; more limits in Limits)'), limit,
    err,
    helpLine(),
    h('div', { class: 'row' },
      h('button', { type: 'submit', class: 'btn primary', value: 'login', id: 'login' }, 'Log in'),
      h('button', { type: 'submit', class: 'btn', value: 'register', id: 'register' }, 'Register')),
  );
  fill(main, h('section', { class: 'page' }, form));
  name.focus();
  return { destroy() {} };
}

async function route() {
  notice('');
  if (app.page) app.page.destroy();
  app.page = null;
  const main = document.getElementById('main');
  const hash = location.hash || '#/';
  if (!app.me) await loadMe();
  if (app.me) startSession(app);
  if (!app.me) {
    if (hash !== '#/') {
      sessionStorage.setItem('felt.after', hash);
      history.replaceState(null, '', '#/');
    }
    app.page = loginPage(main);
    return;
  }
  const t = /^#\/table\/([A-Za-z0-9_-]{1,40})$/.exec(hash);
  if (t) {
    app.page = new Table(main, t[1], app);
  } else {
    if (hash !== '#/lobby') history.replaceState(null, '', '#/lobby');
    app.page = new Lobby(main, app);
  }
  main.focus({ preventScroll: true });
}

window.addEventListener('hashchange', route);
initPanel();
route();
