// The operator's wallet in the browser (issue 25): a player arrives by the operator's
// launch link, the page seats them by itself and shows the operator's balance (no
// play money, no top-up, no log-in form), a round's result moves the operator's
// balance to what the page shows, and the operator's refusal (the player's wager
// limit there) reads as a sentence; the session bar and the reality check run as in
// the embedded mode, and the operator blocking the player refuses the next bet with
// its sentence and ends the seat. Run against the wallet-mode server that
// crates/felt-server/tests/browser.rs starts beside the reference operator.
// Screenshots at 390x664 and 1366x768.

import crypto from 'node:crypto';
import { bet, standAll, settled, assert, eq } from './lib.mjs';

const FELT = process.env.FELT_WALLET_URL;
const OPERATOR = process.env.FELT_WALLET_OPERATOR;
const SECRET = process.env.FELT_WALLET_SECRET;
const LINKS = JSON.parse(process.env.FELT_WALLET_LINKS || '{}');

/** Moves the wallet-mode server's clock on (test mode; its staff login). */
async function advance(secs) {
  const login = await fetch(`${FELT}/api/login`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: process.env.FELT_WALLET_STAFF, password: process.env.FELT_WALLET_STAFF_PASSWORD }),
  });
  assert(login.status === 200, `the staff log in: ${login.status}`);
  const cookie = (login.headers.get('set-cookie') || '').split(';')[0];
  const r = await fetch(`${FELT}/api/test/clock`, {
    method: 'POST', headers: { 'content-type': 'application/json', cookie },
    body: JSON.stringify({ advance_secs: secs }),
  });
  assert(r.status === 200, `moving the clock: ${r.status}`);
}

/** The casino's back office blocks `player` (the reference operator, this machine). */
async function blockAtOperator(player) {
  const r = await fetch(`${new URL(OPERATOR).origin}/players/${encodeURIComponent(player)}/blocked`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ blocked: true }),
  });
  assert(r.status === 204, `the operator blocks the player: ${r.status}`);
}

/** The operator's balance of `player`, asked as felt asks it (a signed `balance`). */
async function operatorBalance(player) {
  const body = JSON.stringify({ request_id: crypto.randomBytes(16).toString('hex'), player });
  const t = Math.floor(Date.now() / 1000);
  const v1 = crypto.createHmac('sha256', SECRET).update(`${t}.${body}`).digest('hex');
  const r = await fetch(`${OPERATOR}/balance`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-felt-signature': `t=${t},v1=${v1}` },
    body,
  });
  assert(r.status === 200, `the operator answers balance: ${r.status}`);
  return (await r.json()).balance;
}

/** Waits until the operator's balance of `player` is `want` (its credit is sent after
 * the round ends); returns the last balance read. */
async function operatorBalanceBecomes(player, want) {
  let have = null;
  for (let i = 0; i < 100 && have !== want; i += 1) {
    if (i) await new Promise((r) => setTimeout(r, 100));
    have = await operatorBalance(player);
  }
  return have;
}

/** Pushes the wallet tests onto the runner's list (`test(name, fn)` of e2e/run.mjs). */
export function walletTests(test, { shot }) {
  test('wallet (phone): the session bar and a reality check run as in the embedded mode; the operator blocking the player refuses the next bet and ends the seat', async (b) => {
    assert(FELT && LINKS.protection, 'the wallet-mode server and its launch links');
    const { player, link } = LINKS.protection;
    const context = await b.newContext({ viewport: { width: 390, height: 664 }, isMobile: true, hasTouch: true });
    await context.addInitScript(() => localStorage.setItem('felt.speed', 'fast'));
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(link);
    await page.waitForSelector('.seat.mine');
    // The session bar: the time since the launch, what was staked and the net.
    await page.waitForSelector('#session-bar:not([hidden]) #since-login');
    assert((await page.textContent('#local-time')).trim() !== '', 'the local time is shown');
    // A reality check every minute (this server allows 1 to 60).
    await page.waitForSelector('#reality-interval option[value="1"]', { state: 'attached' });
    const chosen = page.waitForResponse((r) => r.url().endsWith('/api/session/reality-check'));
    await page.selectOption('#reality-interval', '1');
    eq((await (await chosen).json()).reality_check.interval_mins, 1, 'the interval chosen');
    await bet(page, { 1: { main: '10.00' } });
    await standAll(page);
    const shown = await settled(page);
    await advance(61);
    await page.waitForSelector('#reality-check[open]');
    eq(await page.textContent('#reality-staked'), '10.00', 'staked since the launch');
    const net = await page.getAttribute('#reality-net', 'data-value');
    eq(net, (Number(shown.balance) - 250).toFixed(2), 'the net is the operator\'s balance less the start');
    await shot(page, 'wallet-reality-check-phone');
    await page.click('#reality-continue');
    await page.waitForSelector('#reality-check:not([open])', { state: 'attached' });
    // The casino blocks the player: the next bet is refused with its sentence, and
    // the seat is left.
    await blockAtOperator(player);
    await bet(page, { 1: { main: '10.00' } });
    await page.waitForSelector('#notice[data-kind="error"]:not([hidden])');
    const said = await page.textContent('#notice');
    assert(/^The casino refused this bet: the player is blocked/.test(said), `the refusal: ${said}`);
    await page.waitForSelector('.seat.mine', { state: 'detached' });
    // The seat gone (the same view cleared the chips), the notice still says why.
    const still = await page.textContent('#notice');
    assert(/^The casino refused this bet: the player is blocked/.test(still), `the notice once the seat is left: ${still}`);
    await shot(page, 'wallet-blocked-phone');
    eq(await operatorBalance(player), shown.balance, 'the refused bet took nothing');
    eq(errors, [], 'no script error on the page');
    await context.close();
  });

  for (const [label, viewport] of [
    ['phone', { width: 390, height: 664 }],
    ['desktop', { width: 1366, height: 768 }],
  ]) {
    test(`wallet (${label}): launched by the operator's link, seated by the page, the operator's balance and refusal`, async (b) => {
      assert(FELT && LINKS[label], 'the wallet-mode server and its launch links (FELT_WALLET_URL, FELT_WALLET_LINKS)');
      const { player, table, link } = LINKS[label];
      const context = await b.newContext({ viewport });
      await context.addInitScript(() => localStorage.setItem('felt.speed', 'fast'));
      const page = await context.newPage();
      const errors = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      await page.goto(link);
      // The token left the address bar; the page is at the table, and sits by itself.
      eq(new URL(page.url()).hash, `#/table/${table}`, 'the launch lands at the table');
      assert(!page.url().includes('token'), `no token in the address: ${page.url()}`);
      await page.waitForSelector('.seat.mine');
      const start = await operatorBalance(player);
      await page.waitForSelector(`#balance[data-value="${start}"]`);
      eq(await page.$('#topup-button'), null, 'no top-up button');
      const nav = await page.textContent('#nav');
      assert(!/register/i.test(nav), `no registering: ${nav}`);

      await bet(page, { 1: { main: '10.00' } });
      await standAll(page);
      const shown = await settled(page);
      eq(await operatorBalanceBecomes(player, shown.balance), shown.balance, 'the page shows the operator\'s balance after the round');
      const after = await page.textContent('#notice');
      assert(!/taking your stake/.test(after), `the casino's answer clears "a moment": ${after}`);
      await shot(page, `wallet-${label}`);

      // The operator's wager limit (15.00) refuses the next 10.00: its sentence.
      await bet(page, { 1: { main: '10.00' } });
      await page.waitForSelector('#notice[data-kind="error"]:not([hidden])');
      const said = await page.textContent('#notice');
      assert(/^The casino refused this bet: the wager limit of 15\.00 is reached/.test(said), `the refusal: ${said}`);
      eq(await operatorBalance(player), shown.balance, 'the refused bet took nothing');
      await shot(page, `wallet-refused-${label}`);

      // Logged out, the player is sent back to the operator, not to a log-in form.
      await page.click('#nav button:has-text("Log out")');
      await page.waitForSelector('#return-to-operator');
      eq(await page.$('#name'), null, 'no log-in form');
      eq(errors, [], 'no script error on the page');
      await context.close();
    });
  }
}
