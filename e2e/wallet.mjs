// The operator's wallet in the browser (issue 25): a player arrives by the operator's
// launch link, the page seats them by itself and shows the operator's balance (no
// play money, no top-up, no log-in form), a round's result moves the operator's
// balance to what the page shows, and the operator's refusal (the player's wager
// limit there) reads as a sentence. Run against the wallet-mode server that
// crates/felt-server/tests/browser.rs starts beside the reference operator.
// Screenshots at 390x664 and 1366x768.

import crypto from 'node:crypto';
import { bet, standAll, settled, assert, eq } from './lib.mjs';

const FELT = process.env.FELT_WALLET_URL;
const OPERATOR = process.env.FELT_WALLET_OPERATOR;
const SECRET = process.env.FELT_WALLET_SECRET;
const LINKS = JSON.parse(process.env.FELT_WALLET_LINKS || '{}');

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
