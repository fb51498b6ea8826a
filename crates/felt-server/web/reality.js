// The log-in session as the player sees it (GET /api/session): a slim bar with the
// local time, the time since log-in, the amount staked and the net since log-in (the
// one session figure of the page: a table shows the same net, through watchSession),
// and the reality check's interval; the reality check itself, a dialog that holds play
// until it is answered (continue, see the history, or log out), shown at the round
// boundary (never while the player has a hand in play); the operator's help line on
// the log-in page; and the player's unfinished round after log-in.

import { api } from './api.js';
import { h, fill, localTimes } from './dom.js';
import { show, toCents } from './money.js';
import { signed } from './results.js';
import { recallPanel } from './panels.js';
import { tableSentence } from './words.js';

const POLL_MS = 10000;

const state = { app: null, data: null, at: 0, poll: null, tick: null, bar: null, dialog: null, unfinishedRound: null };

/** Those shown each reading of the session (a table's own "Session" net). */
const watchers = new Set();

/** Calls `fn(data)` with each reading of GET /api/session, at once if one is held;
 * returns the function that stops it. */
export function watchSession(fn) {
  watchers.add(fn);
  if (state.data) fn(state.data);
  return () => watchers.delete(fn);
}

/** "1:02:09": hours, minutes and seconds. */
export function hms(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  const two = (n) => String(n).padStart(2, '0');
  return `${Math.floor(s / 3600)}:${two(Math.floor((s % 3600) / 60))}:${two(s % 60)}`;
}

/** "1 h 02 min" or "12 min": the time played, in words. */
function spoken(ms) {
  const m = Math.max(0, Math.floor(ms / 60000));
  return m >= 60 ? `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min` : `${m} min`;
}

function elapsed() {
  return state.data ? state.data.elapsed_ms + (Date.now() - state.at) : 0;
}

function netClass(text) {
  const c = toCents(text) ?? 0;
  return c > 0 ? 'won' : c < 0 ? 'lost' : '';
}

/** Starts the bar and the polling for a logged-in player (once). */
export function startSession(app) {
  state.app = app;
  if (state.poll) return;
  ensureBar();
  state.bar.hidden = false;
  refresh();
  state.poll = setInterval(refresh, POLL_MS);
  state.tick = setInterval(drawClock, 1000);
}

/** Stops the bar; returns a sentence on the session that ended ('' if unknown). */
export function stopSession() {
  clearInterval(state.poll);
  clearInterval(state.tick);
  state.poll = null;
  const d = state.data;
  const summary = d
    ? `You logged out after ${hms(elapsed())}: staked ${show(d.staked)}, net ${signed(toCents(d.net) ?? 0)}.`
    : '';
  state.data = null;
  if (state.bar) state.bar.hidden = true;
  if (state.blocked) state.blocked.hidden = true;
  if (state.dialog?.open) state.dialog.close();
  return summary;
}

/** Reads the session now (after a round, or a refused bet) and shows a due check. */
export async function refresh() {
  const r = await api('GET', '/api/session');
  // Ended meanwhile (unused too long, its longest life, logged out elsewhere).
  if (r.status === 401 && state.poll) state.app.sessionEnded(tableSentence({ code: 'session-ended' }));
  if (!r.ok) return;
  state.data = r.data;
  state.at = Date.now();
  draw();
  maybeInterrupt();
}

function ensureBar() {
  if (state.bar) return;
  state.clock = h('time', { id: 'local-time' });
  state.since = h('span', { id: 'since-login' });
  state.staked = h('span', { id: 'login-staked' });
  state.net = h('span', { id: 'login-net' });
  state.interval = h('select', { id: 'reality-interval', 'aria-label': 'Reality check every', onchange: choose });
  state.unfinished = h('p', { id: 'unfinished-round', class: 'unfinished', role: 'status', hidden: true });
  state.bar = h('div', { id: 'session-bar', class: 'session-bar', role: 'group', 'aria-label': 'Your session', hidden: true },
    h('span', {}, h('span', { class: 'sb-label' }, 'Local time '), state.clock),
    h('span', {}, h('span', { class: 'sb-label' }, 'Logged in '), state.since),
    h('span', { class: 'sb-wide' }, 'Staked ', state.staked),
    h('span', {}, h('span', { class: 'sb-label' }, 'Net '), state.net),
    h('label', { class: 'sb-check' }, h('span', { class: 'sb-label' }, 'Check every '), state.interval));
  document.querySelector('header.bar').after(state.bar, state.unfinished);
}

function drawClock() {
  if (!state.data) return;
  state.clock.textContent = new Date().toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  state.since.textContent = hms(elapsed());
  state.since.dataset.ms = String(elapsed());
}

function draw() {
  const d = state.data;
  drawClock();
  state.staked.textContent = show(d.staked);
  state.net.textContent = signed(toCents(d.net) ?? 0);
  state.net.className = netClass(d.net);
  state.net.dataset.value = d.net;
  for (const fn of watchers) fn(d);
  const rc = d.reality_check;
  if (state.interval.dataset.choices !== rc.choices.join(',') || Number(state.interval.value) !== rc.interval_mins) {
    state.interval.dataset.choices = rc.choices.join(',');
    fill(state.interval, ...rc.choices.map((m) => h('option', { value: String(m), selected: m === rc.interval_mins }, `${m} min`)));
    state.interval.value = String(rc.interval_mins);
  }
}

async function choose() {
  const r = await api('PUT', '/api/session/reality-check', { interval_mins: Number(state.interval.value) });
  if (r.ok) {
    state.data = r.data;
    state.at = Date.now();
  }
  if (state.data) draw();
}

/** The check interrupts at the round boundary: not while the player's hand plays. */
function maybeInterrupt() {
  const d = state.data;
  if (!d?.reality_check?.due || state.app?.page?.busy?.()) return;
  showDialog(d);
}

function showDialog(d) {
  if (!state.dialog) {
    state.dialog = h('dialog', { id: 'reality-check', class: 'reality', 'aria-labelledby': 'reality-title' });
    // Escape does not dismiss it: play resumes only after an answer.
    state.dialog.addEventListener('cancel', (e) => e.preventDefault());
    document.body.append(state.dialog);
  }
  const login = new Date(d.login_ms).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  const played = d.elapsed_ms + (Date.now() - state.at);
  const go = h('button', { type: 'button', class: 'btn primary', id: 'reality-continue', onclick: answerContinue }, 'Continue playing');
  fill(state.dialog,
    h('h2', { id: 'reality-title' }, 'Reality check'),
    h('p', {}, `You have been playing for ${spoken(played)}, since you logged in at ${login}.`),
    h('dl', { class: 'reality-figures' },
      h('dt', {}, 'Time played'), h('dd', { id: 'reality-time' }, hms(played)),
      h('dt', {}, 'Staked'), h('dd', { id: 'reality-staked' }, show(d.staked)),
      h('dt', {}, 'Net result'), h('dd', { id: 'reality-net', class: netClass(d.net), dataset: { value: d.net } }, signed(toCents(d.net) ?? 0))),
    h('p', { class: 'muted' }, 'Your next bet waits for your answer.'),
    h('p', { class: 'help-line' }, d.help_line),
    h('div', { class: 'row' },
      go,
      h('button', { type: 'button', class: 'btn', id: 'reality-history', onclick: () => recallPanel() }, 'See history'),
      h('button', { type: 'button', class: 'btn', id: 'reality-logout', onclick: answerLogOut }, 'Log out')));
  if (!state.dialog.open) state.dialog.showModal();
  go.focus();
}

async function answerContinue() {
  const r = await api('POST', '/api/session/reality-check', { answer: 'continue' });
  if (r.ok) {
    state.data = r.data;
    state.at = Date.now();
    draw();
  }
  state.dialog.close();
  if (!r.ok) refresh();
}

function answerLogOut() {
  return state.app.logOut(() => api('POST', '/api/session/reality-check', { answer: 'log-out' }));
}

/** The operator's responsible-gambling message, for the log-in page. */
export function helpLine() {
  const p = h('p', { class: 'help-line', id: 'help-line' });
  api('GET', '/api/help-line').then((r) => {
    if (r.ok) p.textContent = r.data.help_line;
  });
  return p;
}

/** The player's unfinished round, said after log-in (the page goes to its table). */
export function showUnfinished(u) {
  ensureBar();
  const table = u.table ? ` at ${u.table}` : '';
  state.unfinishedRound = Number(u.round);
  fill(state.unfinished,
    `Your round ${u.round}${table} is not finished and holds ${show(u.stake)} of your stake: ${u.next}. `,
    okButton());
  state.unfinished.dataset.state = 'unfinished';
  state.unfinished.hidden = false;
}

/** Round `id` settled: a banner that said it was not finished says it has ended. */
export function roundSettled(id) {
  if (state.unfinishedRound === null || Number(id) !== state.unfinishedRound) return;
  state.unfinishedRound = null;
  if (state.unfinished.hidden) return;
  fill(state.unfinished, `Your round ${id} has ended: its result is at the table. `, okButton());
  state.unfinished.dataset.state = 'ended';
}

function okButton() {
  return h('button', { type: 'button', class: 'btn ghost', onclick: () => { state.unfinished.hidden = true; } }, 'OK');
}

/** The session was ended by the server for `text` (a break the player took): the
 * page goes to the log-in page, saying so. */
export function endedBy(text) {
  state.app?.sessionEnded(text);
}

/** A break or exclusion that holds, said after log-in with when it ends (the player
 * may look at the balance and history; no bet is taken). */
export function showBlocked(text) {
  text = localTimes(text);
  ensureBar();
  if (!state.blocked) {
    state.blocked = h('p', { id: 'blocked-banner', class: 'unfinished', role: 'status' });
    state.unfinished.before(state.blocked);
  }
  fill(state.blocked, text);
  state.blocked.hidden = false;
}
