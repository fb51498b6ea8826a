// Helpers of the browser tests: the browser, players, the test mode's shoes, the
// books as the server recalls them.

import { chromium } from 'playwright-core';

export const URL = process.env.FELT_URL || 'http://127.0.0.1:18080';
export const OUT = process.env.FELT_OUT || 'target/e2e';

export const ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

export async function launch() {
  return chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ARGS });
}

let n = 0;
/** A unique player name. */
export function uniqueName(prefix) {
  n += 1;
  return `${prefix}${process.pid % 10000}${n}`;
}

/** A new browser context whose page registered `name` through the log-in page. */
export async function player(browser, name, viewport = { width: 1280, height: 800 }, pace = 'fast', touch = false) {
  // `touch`: a phone (a touch screen, no mouse hover).
  const context = await browser.newContext({ viewport, isMobile: touch, hasTouch: touch });
  // The tests play at the fast pace unless they ask for the normal one (a player's
  // own choice, once made, is kept across reloads).
  await context.addInitScript((p) => {
    if (!localStorage.getItem('felt.speed')) localStorage.setItem('felt.speed', p);
  }, pace);
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => { errors.push(String(e)); if (process.env.FELT_E2E_DEBUG) console.log('PAGEERROR', e); });
  // A 401 is the log-in page's question "is there a session?", not an error.
  page.on('console', (m) => { if (m.type() === 'error' && !m.text().includes('status of 401')) errors.push(m.text()); });
  const frames = [];
  const sent = [];
  const parse = (f) => { try { return JSON.parse(f.payload); } catch (e) { return { unparsed: String(f.payload) }; } };
  page.on('websocket', (ws) => {
    ws.on('framereceived', (f) => frames.push(parse(f)));
    ws.on('framesent', (f) => sent.push(parse(f)));
  });
  await page.goto(URL + '/');
  await page.fill('#name', name);
  await page.fill('#password', `${name}-secret`);
  await page.click('#register');
  await page.waitForSelector('#tables article');
  return { context, page, name, errors, frames, sent };
}

/** Opens a table from the lobby and sits. */
export async function sit(p, table) {
  await p.page.click(`[data-table="${table}"] a.btn`);
  await p.page.waitForSelector('#sit, .seat.mine');
  if (await p.page.$('#sit')) await p.page.click('#sit');
  await p.page.waitForSelector('.seat.mine');
}

let operatorCookie;
/** The session cookie of the operator FELT_OPERATOR (FELT_OPERATOR_PASSWORD). */
async function operatorSession() {
  if (operatorCookie) return operatorCookie;
  const name = process.env.FELT_OPERATOR;
  const password = process.env.FELT_OPERATOR_PASSWORD;
  const r = await fetch(`${URL}/api/login`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name, password }),
  });
  if (r.status !== 200) throw new Error(`the operator ${name} logs in: ${r.status} ${await r.text()}`);
  operatorCookie = (r.headers.get('set-cookie') || '').split(';')[0];
  return operatorCookie;
}

/** The test mode (an operator's session): the table's next round deals these cards first. */
export async function stack(table, cards) {
  const send = async () => fetch(`${URL}/api/test/tables/${table}/shoe`, {
    method: 'POST', headers: { 'content-type': 'application/json', cookie: await operatorSession() },
    body: JSON.stringify({ cards: cards.split(/\s+/).filter(Boolean) }),
  });
  let r = await send();
  // The session ended (a test moved the server's clock past its idle time): again.
  if (r.status === 401) {
    operatorCookie = null;
    r = await send();
  }
  if (r.status !== 202) throw new Error(`stacking ${table}: ${r.status} ${await r.text()}`);
}

/** Clicks chips onto circles: bets = {spot: {main: '10.00', side: {id: '5.00'}}}. */
export async function bet(page, bets) {
  await page.waitForSelector('#place-bets');
  for (const [spot, b] of Object.entries(bets)) {
    for (const [wager, amount] of [['main', b.main], ...Object.entries(b.side || {})]) {
      await clickAmount(page, spot, wager, amount);
    }
  }
  await page.click('#place-bets');
}

/** Clicks chips onto one circle until it holds `amount` (largest chips first). */
export async function clickAmount(page, spot, wager, amount) {
  const want = cents(amount);
  const chips = (await page.$$eval('.chip', (els) => els.map((e) => e.dataset.chip))).map(cents).sort((a, b) => b - a);
  let have = cents(await page.getAttribute(`.circle.bet[data-spot="${spot}"][data-wager="${wager}"]`, 'data-amount'));
  let guard = 0;
  while (have < want && guard < 60) {
    guard += 1;
    const c = chips.find((x) => x <= want - have);
    if (!c) throw new Error(`no chip fits ${amount} on ${wager}`);
    await page.click(`.chip[data-chip="${plain(c)}"]`);
    await page.click(`.circle.bet[data-spot="${spot}"][data-wager="${wager}"]`);
    have = cents(await page.getAttribute(`.circle.bet[data-spot="${spot}"][data-wager="${wager}"]`, 'data-amount'));
  }
  if (have !== want) throw new Error(`${wager} on spot ${spot}: ${plain(have)}, not ${amount}`);
}

/** Clicks a decision button (waits for it). */
export async function decide(page, decision) {
  const sel = `.decision[data-decision="${decision}"]`;
  await page.waitForSelector(sel);
  await page.click(sel);
}

/** The results panel once the round is settled: shown as the round ends, or kept into
 * the next betting window (a short pause between rounds can pass while the page paces
 * the dealer's cards, so the next window may already be open). */
const SETTLED = '#results[data-done="true"], #results[data-kept="true"]';

/** Plays the hand in play by standing until the round is settled (an insurance or
 * even-money offer, on a shoe not stacked, is declined). */
export async function standAll(page) {
  const done = SETTLED;
  const asked = '.decision[data-decision="stand"], .decision[data-decision="decline"]';
  for (let i = 0; i < 12; i += 1) {
    if (await page.$(done)) return;
    const answer = await page.$(asked);
    if (answer) await answer.click().catch(() => {});
    await page.waitForSelector(`${done}, ${asked}`);
  }
}

/** Waits for the round's end; returns what the page shows of it, read at once. */
export async function settled(page) {
  await page.waitForSelector(SETTLED.split(', ').map((s) => `${s} #totals`).join(', '));
  return page.evaluate(() => ({
    rows: [...document.querySelectorAll('.settlement.mine')].map((e) => ({ ...e.dataset, text: e.textContent })),
    round: Number(document.getElementById('results').dataset.round),
    won: document.querySelector('#totals .won').dataset.value,
    lost: document.querySelector('#totals .lost').dataset.value,
    balance: document.getElementById('balance').dataset.value,
  }));
}

/** The player's recall (the books, through GET /api/history). */
export async function history(page, n = 10) {
  return page.evaluate(async (k) => (await fetch(`/api/history?n=${k}`)).json(), n);
}

/** "12.50" -> 1250. */
export function cents(t) {
  if (t === null || t === undefined || t === '') return 0;
  const m = /^(-?)(\d+)(?:\.(\d{1,2}))?$/.exec(String(t));
  if (!m) throw new Error(`not an amount: ${t}`);
  const c = Number(m[2]) * 100 + Number((m[3] || '').padEnd(2, '0'));
  return m[1] ? -c : c;
}

export function plain(c) {
  const a = Math.abs(c);
  return `${c < 0 ? '-' : ''}${Math.floor(a / 100)}.${String(a % 100).padStart(2, '0')}`;
}

export function assert(cond, message) {
  if (!cond) throw new Error(`assertion failed: ${message}`);
}

export function eq(a, b, message) {
  const sa = JSON.stringify(a);
  const sb = JSON.stringify(b);
  if (sa !== sb) throw new Error(`${message}: ${sa} != ${sb}`);
}
