// A browser at a table whose server is killed plays on: run by
// crates/felt/tests/browser_failover.rs with two `felt serve` processes on one
// PostgreSQL behind a load balancer (FELT_URL). The table is dealt by the server whose
// process id is FELT_KILL_PID (its id: FELT_VICTIM); mid-decision this script kills it
// with SIGKILL. The page must show that it reconnects, come back to the same round
// with the same cards and the decision still asked, now dealt by the other server
// (FELT_SURVIVOR), finish it with the amounts the books hold, and play the next round
// there. Exits non-zero on any failure. Nothing here asserts a time.
//
//   node e2e/failover.mjs

import path from 'node:path';
import fs from 'node:fs';
import {
  OUT, launch, player, sit, stack, bet, decide, settled, history, cents, plain, assert, eq, uniqueName, standAll,
} from './lib.mjs';

const TABLE = process.env.FELT_TABLE || 'fo';
const VICTIM_PID = Number(process.env.FELT_KILL_PID);
const VICTIM = process.env.FELT_VICTIM;
const SURVIVOR = process.env.FELT_SURVIVOR;
assert(VICTIM_PID > 0 && VICTIM && SURVIVOR, 'FELT_KILL_PID, FELT_VICTIM and FELT_SURVIVOR are set');
fs.mkdirSync(OUT, { recursive: true });

/** The lobby's word on the table: `{host, taken, players}`. */
async function lobbyRow(page) {
  const lobby = await page.evaluate(async () => (await fetch('/api/tables')).json());
  const row = lobby.tables.find((t) => t.name === TABLE);
  assert(row, `the lobby lists ${TABLE}: ${JSON.stringify(lobby)}`);
  return row;
}

/** The round the page was last told of. */
function lastRound(frames) {
  const v = frames.filter((f) => f.type === 'view' && f.round_id).pop();
  return v ? v.round_id : null;
}

/** The page's cards of the player's hand. */
async function myCards(page) {
  return page.$$eval('.seat.mine .card[data-card]', (els) => els.map((e) => e.dataset.card));
}

/** The page's settlement of the round against the player's recall (the books). */
async function checkAgainstBooks(p, wantNet) {
  const shown = await settled(p.page);
  const h = await history(p.page);
  const g = h.games.find((x) => x.round === shown.round);
  assert(g, `round ${shown.round} is in the player's recall`);
  eq(g.status, 'finished', `round ${shown.round} finished in the books`);
  const net = shown.rows.reduce((a, r) => a + cents(r.net), 0);
  eq(plain(net), wantNet, `round ${shown.round}: the page's net`);
  eq(plain(cents(g.balance_after) - cents(g.balance_before)), wantNet, `round ${shown.round}: the books' net`);
  eq(shown.balance, g.balance_after, `round ${shown.round}: the page's balance equals the books'`);
  return shown.round;
}

const browser = await launch();
let failed = false;
try {
  const p = await player(browser, uniqueName('fo'));
  const before = await lobbyRow(p.page);
  eq([before.host?.server, before.host?.live], [VICTIM, true], 'the table is dealt by the server to be killed');

  // Player 10 6 against the dealer's 7 9: the player decides; a hit draws 5 (21), the
  // dealer draws a ten and busts.
  await stack(TABLE, 'Tc 7d 6h 9s 5c Ts');
  await sit(p, TABLE);
  await bet(p.page, { 1: { main: '10.00' } });
  await p.page.waitForSelector('.decision[data-decision="hit"]');
  const round = lastRound(p.frames);
  const cards = await myCards(p.page);
  eq(cards, ['Tc', '6h'], 'the hand before the kill');
  const sockets = p.frames.filter((f) => f.type === 'welcome').length;

  // The table's server dies mid-decision.
  process.kill(VICTIM_PID, 'SIGKILL');
  await p.page.waitForSelector('#banner:not([hidden])');
  const banner = await p.page.textContent('#banner');
  assert(/reconnecting/.test(banner), `the page says it reconnects: ${banner}`);
  await p.page.screenshot({ path: path.join(OUT, 'failover-reconnecting.png') });

  // The other server takes the table from the books; the page comes back to it.
  await p.page.waitForSelector('#banner', { state: 'hidden', timeout: 60000 });
  await p.page.waitForSelector('.decision[data-decision="hit"]', { timeout: 60000 });
  assert(p.frames.filter((f) => f.type === 'welcome').length > sockets, 'the page was welcomed again');
  eq(lastRound(p.frames), round, 'the same round, resumed');
  eq(await myCards(p.page), cards, 'the same cards, not dealt again');
  const after = await lobbyRow(p.page);
  eq([after.host?.server, after.host?.live], [SURVIVOR, true], 'the lobby says the other server deals the table now');
  eq([after.taken, after.players?.[0]?.player], [1, p.name], 'the lobby shows the player still seated');

  await decide(p.page, 'hit');
  await p.page.waitForSelector('.seat.mine .card[data-card="5c"]');
  await standAll(p.page);
  eq(await checkAgainstBooks(p, '10.00'), round, 'the resumed round settled: 21 against a dealer who busts');
  await p.page.screenshot({ path: path.join(OUT, 'failover-resumed.png') });

  // And plays on at the new host: 20 against the dealer's 16, who draws a ten.
  await stack(TABLE, 'Tc 7d Th 9s Ts');
  await bet(p.page, { 1: { main: '5.00' } });
  await decide(p.page, 'stand');
  const next = await checkAgainstBooks(p, '5.00');
  assert(next > round, `a new round after the resumed one (${next} after ${round})`);

  // Only the move was refused, never an action of the player's.
  const refused = p.frames.filter((f) => f.type === 'error' && f.code !== 'away');
  eq(refused, [], 'the server refused nothing the page sent');
  eq(p.errors.filter((e) => !/WebSocket/.test(e)), [], 'no script error on the page');
  console.log(`ok   a browser followed table ${TABLE} from ${VICTIM} to ${SURVIVOR}: round ${round} resumed and settled, round ${next} played`);
  await p.context.close();
} catch (e) {
  failed = true;
  console.log(`FAIL the browser failover\n     ${String(e?.stack || e).split('\n').slice(0, 8).join('\n     ')}`);
  for (const ctx of browser.contexts()) {
    for (const pg of ctx.pages()) {
      try { await pg.screenshot({ path: path.join(OUT, 'failover-fail.png') }); } catch (e2) { /* gone */ }
    }
  }
}
await browser.close();
process.exit(failed ? 1 : 0);
