// The browser table's end-to-end tests, in Debian's Chromium (headless) through
// playwright-core. Run by crates/felt-server/tests/browser.rs against a server in
// test mode (FELT_URL) whose tables it names; exits non-zero if any test fails.
//
//   node e2e/run.mjs [NAME-FILTER[|NAME-FILTER...]]
//
// Every amount the page shows for a wager is checked against the books (the
// player's recall, GET /api/history). Nothing here asserts a time.

import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import {
  URL, OUT, launch, player, sit, stack, bet, decide, settled, history, cents, plain, assert, eq, uniqueName, standAll,
  clickAmount,
} from './lib.mjs';
import { protection } from './protection.mjs';
import { limitsTests } from './limits.mjs';
import { walletTests } from './wallet.mjs';

const require = createRequire(import.meta.url);
const AXE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

fs.mkdirSync(OUT, { recursive: true });

const tests = [];
const test = (name, fn) => tests.push({ name, fn });

/** The books' settlements of the player's round `id`: "wager stake net" lines. */
async function booksLines(page, round) {
  const h = await history(page);
  const g = h.games.find((x) => x.round === round);
  assert(g, `round ${round} is in the player's recall`);
  assert(g.status === 'finished', `round ${round} finished (${g.status})`);
  // The books number the round's seats 0.. in the order of its players.
  const seat = g.players.indexOf(h.player);
  assert(seat >= 0, `${h.player} played round ${round}`);
  const lines = g.events.filter((e) => e.event === 'settled' && e.at.seat === seat).map((e) => {
    const w = typeof e.bet === 'object' ? e.bet.side : ['double', 'split', 'main'].includes(e.bet) ? 'main' : e.bet;
    return `${w} ${e.stake} ${plain(cents(e.returned) - cents(e.stake))}`;
  });
  return { lines: lines.sort(), game: g };
}

const RANKS = { Ace: 'A', Ten: 'T', Jack: 'J', Queen: 'Q', King: 'K', Two: '2', Three: '3', Four: '4', Five: '5', Six: '6', Seven: '7', Eight: '8', Nine: '9' };

/** A card as the books write it ({"rank": "Queen", "suit": "Diamonds"}) as "Qd". */
function bookCard(c) {
  if (typeof c === 'string') return c;
  return `${RANKS[c.rank] ?? c.rank}${String(c.suit)[0].toLowerCase()}`;
}

/** The page's settlement lines of the player: "wager stake net". */
function pageLines(rows) {
  return rows.map((r) => `${r.wager} ${r.stake} ${r.net}`).sort();
}

/** Checks the page's settlement lines and balance against the books; returns them. */
async function checkAgainstBooks(p) {
  const shown = await settled(p.page);
  const { rows, round } = shown;
  const { lines, game } = await booksLines(p.page, round);
  eq(pageLines(rows), lines, `round ${round}: the page's settlements equal the books'`);
  eq(shown.balance, game.balance_after, `round ${round}: the page's balance equals the books'`);
  // Won and lost totals add up to the net of the lines.
  const net = rows.reduce((a, r) => a + cents(r.net), 0);
  eq(cents(shown.won) - cents(shown.lost), net, 'won minus lost is the round net');
  eq(cents(game.balance_after) - cents(game.balance_before), net, 'the round net moved the balance');
  // No script error and no refused message (a policy violation is a console error).
  eq(p.errors, [], 'no script error on the page');
  eq(p.frames.filter((f) => f.type === 'error'), [], 'the server refused nothing the page sent');
  return { rows, round, game };
}

// ---- the page's arithmetic ----------------------------------------------------

test('amounts are integer cents: parsing, formatting and chip values', async (b) => {
  const context = await b.newContext();
  const page = await context.newPage();
  await page.goto(URL + '/');
  const r = await page.evaluate(async () => {
    const m = await import('/assets/money.js');
    return {
      cents: ['10.00', '10', '12.5', '0.07', '-3.25', '1.234', 'x', '', '1e3'].map(m.toCents),
      plain: [1250, 5, -325, 0].map(m.plain),
      fmt: [500000, 123456789, -1000].map(m.fmt),
      chips: m.chipValues({ main: { min: '5.00', max: '500.00', increment: '1.00' }, side_bets: [{ min: '1.00' }] }),
      small: m.chipValues({ main: { min: '2.00', max: '10.00', increment: '1.00' }, side_bets: [] }),
      sum: m.plain(['0.10', '0.20'].map(m.toCents).reduce((a, c) => a + c, 0)),
    };
  });
  eq(r.cents, [1000, 1000, 1250, 7, -325, null, null, null, null], 'toCents');
  eq(r.plain, ['12.50', '0.05', '-3.25', '0.00'], 'plain');
  eq(r.fmt, ['5,000.00', '1,234,567.89', '-10.00'], 'fmt');
  eq(r.chips, [100, 500, 1000, 5000, 10000, 50000], 'the chips of a 5 to 500 table with a 1.00 side bet (1 to 500, not 1 to 50)');
  eq(r.small, [200, 500, 1000], 'the chips of a 2 to 10 table');
  eq(r.sum, '0.30', 'no floating point');
  await context.close();
});

// ---- a full round of each game ------------------------------------------------

const GAMES = ['classic', 'lucky-7', 'lucky-lucky', 'blazing-7s', 'blackjack-bonus', 'lucky-ladies'];
for (const game of GAMES) {
  test(`a full round of ${game}, from registering to the settlement lines, equals the books`, async (b) => {
    const p = await player(b, uniqueName('g'));
    // Player 10 9 (19) against a dealer 8 with a 7 in the hole, who draws a ten.
    await stack(game, 'Tc 7d 9h 8s Ts');
    await sit(p, game);
    await p.page.waitForSelector('.circle.bet');
    const betting = await p.page.textContent('#countdown');
    assert(/^Bets close in \d+ s$/.test(betting), `the betting countdown: ${betting}`);
    const limits = await p.page.$$eval('.circle.bet[data-spot="1"]', (els) => els.map((e) => e.dataset.wager));
    const side = {};
    for (const w of limits.filter((x) => x !== 'main')) side[w] = await minOf(p.page, w);
    await bet(p.page, { 1: { main: await minOf(p.page, 'main'), side } });
    await p.page.waitForSelector('.decision[data-decision="stand"]');
    const countdown = await p.page.textContent('#countdown');
    assert(/^Decide in \d+ s$/.test(countdown), `the decision countdown: ${countdown}`);
    // Only the legal decisions are offered, each with its key.
    const words = await p.page.$$eval('.decision', (els) => els.map((e) => e.dataset.decision));
    assert(words.includes('hit') && words.includes('double') && !words.includes('split'), `decisions ${words}`);
    await decide(p.page, 'stand');
    const { rows } = await checkAgainstBooks(p);
    assert(rows.some((r) => r.wager === 'main' && cents(r.net) > 0), 'the main bet won (the dealer busts)');
    eq(await p.page.getAttribute('.seat.mine .card[data-card="Tc"]', 'aria-label'), 'ten of clubs', 'a card is labelled');
    eq(await p.page.getAttribute('#dealer-cards .card[data-card="7d"]', 'aria-label'), 'seven of diamonds', 'the turned hole card');
    // A progressive's meter counts up to the value the books committed.
    for (const m of await p.page.$$('[data-meter]')) {
      const committed = await m.getAttribute('data-value');
      for (let i = 0; i < 100 && (await m.$eval('strong', (e) => e.textContent)).replace(/,/g, '') !== committed; i += 1) {
        await p.page.waitForTimeout(50);
      }
      eq((await m.$eval('strong', (e) => e.textContent)).replace(/,/g, ''), committed, 'the meter reaches its committed value');
    }
    assert(rows.length === 1 + Object.keys(side).length, `a line per wager: ${JSON.stringify(rows)}`);
    eq(p.errors, [], 'no script error');
    await p.context.close();
  });
}

/** The table's minimum for a wager, as the betting circle has it (from the view). */
async function minOf(page, wager) {
  return page.getAttribute(`.circle.bet[data-spot="1"][data-wager="${wager}"]`, 'data-min');
}

// ---- stacked-shoe scenarios ---------------------------------------------------

test('split, resplit and a double for less (Lucky Ladies): each wager on the page equals the books', async (b) => {
  const p = await player(b, uniqueName('split'));
  await stack('ll-split', '8c Th 8d 6s 8h 3c Kc Tc Td 9s');
  await sit(p, 'll-split');
  await bet(p.page, { 1: { main: '10.00' } });
  await decide(p.page, 'split');
  // The pointer is under the hand in play: the first of the split.
  eq(await p.page.getAttribute('.seat.mine .hand.in-play[aria-current="true"]:has(.pointer)', 'data-hand'), '1', 'the hand in play');
  await decide(p.page, 'split'); // the second 8: resplit
  // 8 3 = 11: double for less, 5.00 of the 10.00 bet.
  await p.page.waitForSelector('.decision[data-decision="double-less"]');
  const label = await p.page.textContent('.decision[data-decision="double"]');
  assert(label.includes('10.00'), `the full double's amount is shown: ${label}`);
  await p.page.fill('input.less', '5.00');
  await p.page.click('.decision[data-decision="double-less"]');
  await standAll(p.page);
  const { rows } = await checkAgainstBooks(p);
  const stakes = rows.map((r) => r.stake).sort();
  eq(stakes, ['10.00', '10.00', '15.00'], 'three hands: one doubled for 5.00');
  assert(rows.every((r) => cents(r.net) > 0), 'the dealer busts: every hand wins');
  await p.context.close();
});

test('a surrender after a split (Lucky Ladies)', async (b) => {
  const p = await player(b, uniqueName('surr'));
  // 8 8 against a dealer 9 (ten in the hole: 19); the first hand draws a 6 (14).
  await stack('ll-surrender', '8c Th 8d 9s 6c Tc');
  await sit(p, 'll-surrender');
  await bet(p.page, { 1: { main: '10.00' } });
  await decide(p.page, 'split');
  const label = await p.page.textContent('.decision[data-decision="surrender"]');
  assert(label.includes('5.00'), `the surrender shows what comes back: ${label}`);
  await decide(p.page, 'surrender');
  await standAll(p.page);
  const { rows } = await checkAgainstBooks(p);
  assert(rows.some((r) => r.net === '-5.00'), `a surrendered hand loses half: ${JSON.stringify(rows)}`);
  await p.context.close();
});

test('insurance won against a dealer blackjack (Classic)', async (b) => {
  const p = await player(b, uniqueName('ins'));
  await stack('c-insurance', 'Tc Kd 9h Ah');
  await sit(p, 'c-insurance');
  await bet(p.page, { 1: { main: '10.00' } });
  await p.page.waitForSelector('.decision[data-decision="insurance"]');
  const label = await p.page.textContent('.decision[data-decision="insurance"]');
  assert(label.includes('5.00'), `the insurance amount is shown: ${label}`);
  await decide(p.page, 'insurance');
  const { rows } = await checkAgainstBooks(p);
  const ins = rows.find((r) => r.wager === 'insurance');
  eq([ins?.stake, ins?.net], ['5.00', '10.00'], 'insurance 5.00 pays 2 to 1');
  await p.context.close();
});

test('insurance asked of two spots at once: one insured for less, one declined', async (b) => {
  const p = await player(b, uniqueName('offers'));
  // Spot 1: 10 9, spot 2: 9 8, against an ace up with a king in the hole.
  await stack('c-offers', 'Tc 9c Kd 9h 8h Ah');
  await sit(p, 'c-offers');
  await bet(p.page, { 1: { main: '10.00' }, 2: { main: '20.00' } });
  await p.page.waitForSelector('.decisions[data-spot="2"] .decision[data-decision="decline"]');
  eq(await p.page.$$eval('.decisions', (els) => els.map((e) => e.dataset.spot)), ['1', '2'], 'both spots are asked');
  // Spot 1 insures 3.00 of the 5.00 it may; the first answer is kept until the second.
  await p.page.fill('.decisions[data-spot="1"] input.less', '3.00');
  await p.page.click('.decisions[data-spot="1"] .decision[data-decision="insurance-less"]');
  await p.page.waitForSelector('.decisions[data-spot="1"]', { state: 'detached' });
  await p.page.keyboard.press('n');
  const { rows } = await checkAgainstBooks(p);
  eq(rows.map((r) => `${r.spot} ${r.wager} ${r.stake} ${r.net}`).sort(),
    ['1 insurance 3.00 6.00', '1 main 10.00 -10.00', '2 main 20.00 -20.00'], 'insurance for less won on spot 1 only');
  assert(p.frames.some((f) => f.type === 'accepted'), 'the first answer was kept (accepted)');
  await p.context.close();
});

test('even money on a blackjack against an ace (Classic)', async (b) => {
  const p = await player(b, uniqueName('even'));
  await stack('c-even', 'Ac Kd Kh As');
  await sit(p, 'c-even');
  await bet(p.page, { 1: { main: '10.00' } });
  await decide(p.page, 'even-money');
  const { rows } = await checkAgainstBooks(p);
  eq(rows.map((r) => r.net), ['10.00'], 'even money: +10.00 on the 10.00 bet');
  await p.context.close();
});

test('Lucky 7: three suited sevens', async (b) => {
  const p = await player(b, uniqueName('l7'));
  // 7 7 against a dealer 5 (ten in the hole); the next card, a third suited 7, ends
  // the Lucky 7 bet (L7-4).
  await stack('l7-sevens', '7h Th 7h 5c 7h 9s');
  await sit(p, 'l7-sevens');
  await bet(p.page, { 1: { main: '5.00', side: { 'lucky-7': '1.00' } } });
  await decide(p.page, 'hit');
  await standAll(p.page);
  const { rows } = await checkAgainstBooks(p);
  const l7 = rows.find((r) => r.wager === 'lucky-7');
  assert(l7 && cents(l7.net) >= 100 * 100, `three suited sevens pay big: ${JSON.stringify(l7)}`);
  const text = await p.page.textContent('.settlement.mine[data-wager="lucky-7"]');
  assert(text.includes('first three cards 7s of one suit, 500 to 1: +500.00'), `the line names the hand and its pay: ${text}`);
  await p.context.close();
});

test('Blazing 7s: the jackpot, shown at once, and the meter reset', async (b) => {
  const p = await player(b, uniqueName('b7'));
  await stack('b7-jackpot', '7s 9c 7s Th 7s');
  await sit(p, 'b7-jackpot');
  const before = await p.page.getAttribute('[data-meter="blazing-7s"]', 'data-value');
  await bet(p.page, { 1: { main: '10.00', side: { 'blazing-7s': '1.00' } } });
  await decide(p.page, 'hit');
  const { rows, game } = await checkAgainstBooks(p);
  const jackpot = rows.find((r) => r.wager === 'blazing-7s');
  assert(jackpot && cents(jackpot.net) > cents(before), `the jackpot (${jackpot?.net}) is the meter (${before})`);
  // The jackpot has its celebration, the amount counting up to the award; the meter
  // drops to its reset only after it.
  await p.page.waitForSelector('#bigwin.jackpot');
  eq(await p.page.getAttribute('#bigwin .bigwin-amount', 'data-value'), String(cents(jackpot.net)), 'the banner counts up to the award');
  const during = await p.page.getAttribute('[data-meter="blazing-7s"]', 'data-value');
  assert(cents(during) >= cents(before), `the meter holds while the jackpot is celebrated: ${during}`);
  await p.page.screenshot({ path: path.join(OUT, 'jackpot-desktop.png') });
  await p.page.waitForSelector('#bigwin', { state: 'detached' });
  // The meter is back at its reset after the award, shown at once.
  const meter = await p.page.getAttribute('[data-meter="blazing-7s"]', 'data-value');
  const shown = await p.page.textContent('[data-meter="blazing-7s"] strong');
  const lobby = await p.page.evaluate(async () => (await (await fetch('/api/tables')).json()).tables.find((t) => t.name === 'b7-jackpot').meters[0]);
  eq(meter, lobby.reset, 'the meter shows its reset value');
  eq(shown.replace(/,/g, ''), lobby.reset, 'the reset is shown at once');
  // The books: the award took the meter, which was reset to the value the page shows.
  const award = game.events.find((e) => e.event === 'meter' && e.why === 'award');
  const reset = game.events.find((e) => e.event === 'meter' && e.why === 'reset');
  assert(award && reset, `the books award and reset the meter: ${JSON.stringify(game.events.filter((e) => e.event === 'meter'))}`);
  eq(jackpot.net, plain(cents(award.change.before) - cents(award.change.after)), 'the jackpot is the award the books took from the meter');
  eq(meter, reset.change.after, 'the page shows the meter the books reset');
  await p.context.close();
});

test('Lucky Ladies: queen of hearts pair with a dealer blackjack', async (b) => {
  const p = await player(b, uniqueName('ll'));
  await stack('ll-queens', 'Qh Ac Qh Kd');
  await sit(p, 'll-queens');
  await bet(p.page, { 1: { main: '10.00', side: { 'lucky-ladies': '5.00' } } });
  // A dealer ace up: even money is not offered (no blackjack), insurance is.
  await p.page.waitForSelector('.decision[data-decision="decline"], #totals');
  if (await p.page.$('.decision[data-decision="decline"]')) await decide(p.page, 'decline');
  const { rows } = await checkAgainstBooks(p);
  const ll = rows.find((r) => r.wager === 'lucky-ladies');
  eq(ll?.net, '5000.00', 'queen of hearts pair with dealer blackjack pays 1000 to 1');
  const text = await p.page.textContent('.settlement.mine[data-wager="lucky-ladies"]');
  assert(text.includes('+5,000.00') && text.includes('1000 to 1'), `the line: ${text}`);
  await p.context.close();
});

// ---- two players, hidden information ------------------------------------------

test('two players and a watcher: each sees the others\' cards; no frame holds the hole card before it is turned', async (b) => {
  const a = await player(b, uniqueName('ann'));
  const c = await player(b, uniqueName('bob'));
  // Ann 9 8, Bob 10 7; the dealer's hole card is the only queen of diamonds dealt.
  await stack('two', '9c Tc Qd 8c 7d 5s 9h');
  await sit(a, 'two');
  await sit(c, 'two');
  // A third player watches without a seat.
  const w = await player(b, uniqueName('eve'));
  await w.page.waitForSelector('[data-table="two"]');
  const seats = await w.page.textContent('[data-table="two"]');
  assert(seats.includes('2 playing · 5 of 7 seats free'), `the lobby's seats: ${seats}`);
  await w.page.click('[data-table="two"] a.btn');
  await w.page.waitForSelector('#sit');
  const seatA = Number(await a.page.getAttribute('.seat.mine', 'data-seat'));
  const seatC = Number(await c.page.getAttribute('.seat.mine', 'data-seat'));
  await bet(a.page, { 1: { main: '10.00' } });
  await bet(c.page, { 1: { main: '10.00' } });
  // Each page shows the other's first cards.
  await a.page.waitForSelector(`.seat[data-seat="${seatC}"] .card[data-card="Tc"]`);
  await c.page.waitForSelector(`.seat[data-seat="${seatA}"] .card[data-card="9c"]`);
  for (const p of [a, c]) {
    const back = await p.page.getAttribute('#dealer-cards .card.back', 'aria-label');
    eq(back, 'face-down card', 'the hole card is drawn face down');
  }
  await Promise.all([standAll(a.page), standAll(c.page)]);
  await dealt(a.page);
  await a.page.screenshot({ path: path.join(OUT, 'two-players-desktop.png') });
  await checkAgainstBooks(a);
  await checkAgainstBooks(c);
  const round = Number(await a.page.getAttribute('#results', 'data-round'));
  const { game } = await booksLines(a.page, round);
  // The recall shows the hole card as dealt face down, without its value while the
  // shoe is in play, and as the dealer turned it.
  const hole = game.events.find((e) => e.event === 'dealt' && e.face_up === false);
  assert(hole && !('card' in hole), 'the recall hides the face-down card while its shoe is in play');
  const turn = game.events.find((e) => e.event === 'hole-card-turned');
  assert(turn, 'the recall shows the hole card turned');
  // The stacked shoe made it the only queen of diamonds dealt: any "Qd" is the hole card.
  const code = bookCard(turn.card);
  eq(code, 'Qd', "the books' hole card");
  const needle = `"${code}"`;
  for (const p of [a, c, w]) {
    let before = 0;
    let turned = false;
    // Every frame the page received, of any type, up to the one that turns the card.
    for (const f of p.frames) {
      const s = JSON.stringify(f);
      if (f.type === 'view' && f.round_id === round && f.events?.some((e) => e.event === 'hole-card-turned')) turned = true;
      if (turned) break;
      before += 1;
      assert(!s.includes(needle), `a frame before the turn holds the hole card: ${s.slice(0, 400)}`);
      for (const e of f.events || []) if (e.face_up === false) assert(!('card' in e), 'a face-down card has no card');
    }
    assert(before >= 3, `frames before the turn were read (${before})`);
    assert(turned, 'the turn was seen');
    // The other player's seat (each seat, for the watcher) shows their cards.
    for (const other of p === a ? [seatC] : p === c ? [seatA] : [seatA, seatC]) {
      const shown = await p.page.$$eval(`.seat[data-seat="${other}"] .card`, (els) => els.map((e) => e.dataset.card));
      assert(shown.length >= 2, `seat ${other}'s cards are shown: ${shown}`);
    }
  }
  // Bob leaves: Ann's page shows his seat free.
  await c.page.click('#leave');
  await a.page.waitForSelector(`.seat.free[data-seat="${seatC}"]`);
  await a.context.close();
  await c.context.close();
  await w.context.close();
});

// ---- resuming ----------------------------------------------------------------

test('a reload mid-decision resumes the hand', async (b) => {
  const p = await player(b, uniqueName('rel'));
  await stack('reload', 'Tc 7d 6h 9s 5c Ts');
  await sit(p, 'reload');
  await bet(p.page, { 1: { main: '10.00' } });
  await p.page.waitForSelector('.decision[data-decision="hit"]');
  await p.page.reload();
  // The seat, the cards and the decision are back.
  await p.page.waitForSelector('.seat.mine .card[data-card="6h"]');
  await decide(p.page, 'hit');
  await p.page.waitForSelector('.seat.mine .card[data-card="5c"]');
  await standAll(p.page);
  const { rows } = await checkAgainstBooks(p);
  eq(rows.map((r) => r.net), ['10.00'], '21 against a dealer who busts');
  await p.context.close();
});

test('a dropped socket shows the banner, reconnects with last_seq and resumes the hand', async (b) => {
  const p = await player(b, uniqueName('drop'));
  await p.page.addInitScript(() => {
    const Native = window.WebSocket;
    window.__sockets = [];
    window.WebSocket = class extends Native {
      constructor(...a) { super(...a); window.__sockets.push(this); }
    };
  });
  const sent = [];
  p.page.on('websocket', (ws) => ws.on('framesent', (f) => sent.push(String(f.payload))));
  await p.page.reload();
  await p.page.waitForSelector('#tables article');
  await stack('drop', 'Tc 7d 6h 9s 5c Ts');
  await sit(p, 'drop');
  await bet(p.page, { 1: { main: '10.00' } });
  await p.page.waitForSelector('.decision[data-decision="hit"]');
  await p.page.evaluate(() => window.__sockets[window.__sockets.length - 1].close());
  await p.page.waitForSelector('#banner:not([hidden])');
  await p.page.waitForSelector('#banner', { state: 'hidden' });
  const hellos = sent.map((s) => JSON.parse(s)).filter((m) => m.type === 'hello');
  assert(hellos.length >= 2 && hellos[hellos.length - 1].last_seq > 0, `the reconnection says last_seq: ${JSON.stringify(hellos)}`);
  const welcome = p.frames.filter((f) => f.type === 'welcome').pop();
  eq(welcome.resumed, true, 'the server resumed the stream');
  await decide(p.page, 'hit');
  await standAll(p.page);
  await checkAgainstBooks(p);
  await p.context.close();
});

test('two spots, each with its own bet and hand', async (b) => {
  const p = await player(b, uniqueName('spots'));
  // Spot 1: 10 9, spot 2: 9 10; the dealer 8 with a 7 in the hole draws a ten.
  await stack('spots', 'Tc 9c 7d 9h Tc 8s Ts');
  await sit(p, 'spots');
  await bet(p.page, { 1: { main: '10.00' }, 2: { main: '25.00' } });
  await standAll(p.page);
  const { rows } = await checkAgainstBooks(p);
  eq(rows.map((r) => `${r.spot} ${r.stake} ${r.net}`).sort(), ['1 10.00 10.00', '2 25.00 25.00'], 'each spot settled on its own');
  await p.context.close();
});

test('an operator closes the table: the page says so in its banner', async (b) => {
  const p = await player(b, uniqueName('closed'));
  await sit(p, 'closing');
  await p.page.waitForSelector('.circle.bet');
  const op = await b.newContext();
  const opPage = await op.newPage();
  await opPage.goto(URL + '/');
  const status = await opPage.evaluate(async ([name, password]) => {
    const login = await fetch('/api/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name, password }) });
    if (!login.ok) return `login ${login.status}`;
    const close = await fetch('/api/operator/tables/closing/close', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    return close.status;
  }, [process.env.FELT_OPERATOR, process.env.FELT_OPERATOR_PASSWORD]);
  eq(status, 202, 'the operator closes the table');
  await p.page.waitForSelector('#banner:not([hidden])');
  const banner = await p.page.textContent('#banner');
  assert(/closed by operator/.test(banner), `the banner: ${banner}`);
  const lobby = await p.page.evaluate(async () => (await (await fetch('/api/tables')).json()).tables.find((t) => t.name === 'closing').closed);
  eq(lobby, true, 'the lobby has the table closed');
  await op.close();
  await p.context.close();
});

test('log out, log in: the lobby shows the previous login', async (b) => {
  const p = await player(b, uniqueName('back'));
  await p.page.click('text=Log out');
  await p.page.waitForSelector('#login');
  await p.page.fill('#name', p.name);
  await p.page.fill('#password', 'not the password');
  await p.page.click('#login');
  await p.page.waitForSelector('#login-error:not(:empty)');
  const err = await p.page.textContent('#login-error');
  assert(/wrong/.test(err), `a wrong password is said: ${err}`);
  await p.page.fill('#password', `${p.name}-secret`);
  await p.page.click('#login');
  await p.page.waitForSelector('#tables article');
  const prev = await p.page.textContent('#previous-login');
  assert(/^Your previous login: .*\d/.test(prev), `the previous login: ${prev}`);
  await p.context.close();
});

// ---- the dealer's pace, results that stay, sound, refusals -----------------------

/** Records every state the page shows of the dealer and the results (a probe run by
 * a MutationObserver in the page, so no state between two reads is missed). */
async function probe(p) {
  await p.page.addInitScript(() => {
    window.__probe = [];
    const look = () => {
      const d = document.getElementById('dealer-cards');
      if (!d) return;
      const rec = {
        t: Math.round(performance.now()),
        dealer: [...d.querySelectorAll('.card')].map((e) => e.dataset.card).join(' '),
        total: document.getElementById('dealer-total')?.textContent || '',
        results: document.querySelectorAll('#results .settlement.mine').length,
        badges: document.querySelectorAll('.seat.mine .badge').length,
        balance: document.getElementById('balance')?.textContent || '',
        status: document.getElementById('phase')?.textContent || '',
      };
      const last = window.__probe[window.__probe.length - 1];
      if (!last || ['dealer', 'total', 'results', 'badges', 'balance'].some((k) => last[k] !== rec[k])) window.__probe.push(rec);
    };
    new MutationObserver(look).observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
    // When a decision was clicked, read in the page (a busy machine may answer the
    // test's own clock read after the dealer's first card).
    document.addEventListener('click', (e) => {
      if (e.target.closest?.('.decision')) window.__clicked = performance.now();
    }, true);
  });
  await p.page.reload();
  await p.page.waitForSelector('#tables article');
}

test('the normal pace: the hole card flips in place, the dealer draws one card at a time, results come after the last card', async (b) => {
  const p = await player(b, uniqueName('pace'), { width: 1366, height: 768 }, 'normal');
  await probe(p);
  // Player 10 9 (19); the dealer 8 up, 7 in the hole (15), draws a ten: busts with 25.
  await stack('pace', 'Tc 7d 9h 8s Ts');
  await sit(p, 'pace');
  await bet(p.page, { 1: { main: '10.00' } });
  await decide(p.page, 'stand');
  const clicked = await p.page.evaluate(() => window.__clicked);
  // A picture of the paced dealer's turn: the hole card turned, the draw to come.
  await p.page.waitForSelector('#dealer-cards .card[data-card="7d"]');
  await p.page.waitForTimeout(250);
  await p.page.screenshot({ path: path.join(OUT, 'paced-dealer-desktop.png') });
  await checkAgainstBooks(p);
  await p.page.screenshot({ path: path.join(OUT, 'result-desktop.png') });
  const all = await p.page.evaluate(() => window.__probe);
  // The deal is paced as well, however soon after the page joined the table it comes
  // (the page once showed at once every frame within 0.4 s of its welcome): the hole
  // card lies alone before the up card lands.
  assert(all.some((r) => r.dealer === 'back'), `the deal lands card by card: ${JSON.stringify(all)}`);
  const recs = all.filter((r) => r.t >= clicked - 5);
  assert(recs.length, `the probe saw the dealer's turn: ${clicked} ${JSON.stringify(all)}`);
  const at = (pred, what) => {
    const r = recs.find(pred);
    assert(r, `${what} was shown: ${JSON.stringify(recs)}`);
    return r;
  };
  // The hole card turns where it lay: the up card stays first throughout.
  assert(recs.every((r) => !r.dealer || r.dealer.startsWith('8s')), `the up card never moves: ${recs.map((r) => r.dealer)}`);
  const turned = at((r) => r.dealer === '8s 7d', 'the turned hole card alone');
  eq(turned.total, 'Dealer 15', 'the total of the two cards shown');
  const drawn = at((r) => r.dealer === '8s 7d Ts', 'the drawn card');
  eq(drawn.total, 'Dealer busts with 25', 'the total rises with the card');
  const result = at((r) => r.results > 0 || r.badges > 0, 'a result');
  assert(drawn.t - turned.t >= 400, `a card about every 0.6 s: the draw ${drawn.t - turned.t} ms after the turn`);
  assert(result.t > drawn.t, `the result (${result.t}) after the last card (${drawn.t})`);
  assert(recs.filter((r) => r.t < drawn.t).every((r) => r.results === 0 && r.badges === 0 && !/Round over/.test(r.status)),
    `no result before the last card: ${JSON.stringify(recs)}`);
  const before = recs.filter((r) => r.t < result.t).map((r) => r.balance);
  assert(new Set(before).size === 1, `the balance moves only with the result: ${before}`);
  eq(p.errors, [], 'no script error');
  await p.context.close();
});

test('results stay on the felt until the next deal; a newcomer at that seat sees none of them', async (b) => {
  const a = await player(b, uniqueName('stay'));
  const n = await player(b, uniqueName('new'));
  // Ann: 10 10 (20) against a dealer 8 with a 9 in the hole (17): a win.
  await stack('stay', 'Tc 9d Th 8s');
  await sit(a, 'stay');
  // The newcomer watches, without a seat.
  await n.page.click('[data-table="stay"] a.btn');
  await n.page.waitForSelector('#sit');
  await bet(a.page, { 1: { main: '10.00' } });
  await decide(a.page, 'stand');
  const { rows } = await checkAgainstBooks(a);
  const seat = await a.page.getAttribute('.seat.mine', 'data-seat');
  eq(await a.page.textContent('.seat.mine .badge'), 'WIN', 'the hand wears its result');
  const line = await a.page.textContent('.settlement.mine');
  eq(line, 'Spot 1: 20 beats dealer 17, 1 to 1: +10.00', 'the line names the spot and why');
  eq(await a.page.textContent('.seat.mine .circle.main .circle-net'), '+10.00', 'the circle shows what it paid');
  // The next round opens for bets: the results are still there.
  await a.page.waitForSelector('#place-bets');
  eq(await a.page.getAttribute('#results', 'data-kept'), 'true', 'the last round is kept while betting');
  assert(await a.page.$('.settlement.mine'), 'the result line is still shown while betting');
  assert(await a.page.$('.seat.mine .badge'), 'the badge is still on the felt while betting');
  assert(await a.page.$('#totals'), 'the won and lost totals are kept');
  eq(rows.length, 1, 'one line');
  // Ann leaves; the newcomer takes her seat at once.
  await stack('stay', 'Tc 9d Th 8s');
  await a.page.click('#leave');
  await n.page.waitForSelector(`[data-key="sit-${seat}"]`);
  await n.page.click(`[data-key="sit-${seat}"]`);
  await n.page.waitForSelector('.seat.mine');
  await n.page.waitForTimeout(300);
  eq(await n.page.$$eval('.seat.mine .card, .seat.mine .badge', (els) => els.length), 0, 'no card or badge of Ann under the newcomer');
  eq(await n.page.$$eval('.settlement.mine, #totals', (els) => els.length), 0, 'no result of Ann as the newcomer\'s');
  const live = await n.page.textContent('#live');
  assert(!/Round won|beats dealer/.test(live), `the screen reader says no result of Ann's: ${live}`);
  eq(n.errors, [], 'no script error');
  await a.context.close();
  await n.context.close();
});

test('refusals are sentences for a player; an ended session goes back to the log-in page', async (b) => {
  const p = await player(b, uniqueName('words'));
  const said = await p.page.evaluate(async () => {
    const w = await import('/assets/words.js');
    const codes = ['bad-message', 'unknown-type', 'too-large', 'version', 'hello', 'no-table', 'table-closed', 'not-seated',
      'seat-taken', 'seated-elsewhere', 'already-seated', 'not-betting', 'already-bet', 'other-round', 'already-applied',
      'bad-action-id', 'not-your-turn', 'not-this-hand', 'insufficient-funds', 'balance-changed', 'rate-limited', 'busy',
      'forbidden', 'session-ended', 'too-many-sockets', 'away'];
    // docs/protocol.md's HTTP error codes (and the page's own `network`).
    const httpCodes = ['bad-request', 'bad-name', 'bad-password', 'no-session', 'bad-login', 'forbidden', 'cross-origin',
      'name-taken', 'bad-content-type', 'throttled', 'books', 'busy', 'network'];
    const unknownTable = w.tableSentence({ code: 'no-such-code', message: 'raw server words' });
    const unknownHttp = w.httpSentence({ status: 418, data: { error: 'no-such-code', message: 'raw server words' } });
    return {
      all: codes.map((code) => [code, w.tableSentence({ code, message: 'raw server words' })])
        .concat(httpCodes.map((code) => [code, w.httpSentence({ status: 418, data: { error: code, message: 'raw server words' } })])),
      generic: codes.filter((code) => w.tableSentence({ code }) === unknownTable)
        .concat(httpCodes.filter((code) => w.httpSentence({ status: 418, data: { error: code } }) === unknownHttp)),
      cover: w.tableSentence({ code: 'refused', message: 'the balance of 127.00 does not cover 450.00' }),
      other: w.tableSentence({ code: 'refused', message: 'seat 1 spot 1 already holds this bet' }),
      http: w.httpSentence({ status: 401, data: { error: 'bad-login', message: 'the name or the password is wrong' } }),
    };
  });
  for (const [code, text] of said.all) {
    assert(/^[A-Z].*[.]{1,3}$/.test(text) && !text.includes('raw server words'), `${code}: ${text}`);
  }
  eq(said.generic, [], 'every error code has its own sentence');
  eq(said.cover, 'Your balance (127.00) does not cover 450.00: bet less.', 'a balance that does not cover a bet');
  assert(!said.other.includes('seat 1'), `an engine refusal is not shown raw: ${said.other}`);
  assert(/wrong/.test(said.http), `a wrong password: ${said.http}`);
  // Seated at one table, the player tries to sit at another.
  await sit(p, 'words-a');
  // To the lobby by its address (the top bar's links ask to leave the seat first).
  await p.page.evaluate(() => { location.hash = '#/lobby'; });
  await p.page.waitForSelector('#tables article');
  await p.page.click('[data-table="words-b"] a.btn');
  await p.page.waitForSelector('#sit');
  await p.page.click('#sit');
  await p.page.waitForSelector('#notice:not([hidden])');
  eq(await p.page.textContent('#notice'), 'You are sitting at another table: go back to it and press "Leave table" first.', 'seated elsewhere');
  // The session ends (a log-out from another tab): the page goes to the log-in page and says why.
  const out = await p.page.evaluate(async () => (await fetch('/api/logout', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status);
  eq(out, 204, 'logged out');
  await p.page.waitForSelector('#login-note', { timeout: 10000 });
  const note = await p.page.textContent('#login-note');
  assert(/session ended/.test(note), `the log-in page says the session ended: ${note}`);
  await p.context.close();
});

test('a server that speaks only protocol version 1 (a rolling upgrade): the page says hello again in version 1 and plays, its views carrying the limits', async (b) => {
  const p = await player(b, uniqueName('v1'));
  const hellos = [];
  // Between the page and the server, a server not yet upgraded: version 2 refused.
  await p.page.routeWebSocket(/\/ws$/, (ws) => {
    const server = ws.connectToServer();
    ws.onMessage((m) => {
      const v = JSON.parse(m);
      if (v.type === 'hello') hellos.push(v.version);
      if (v.type === 'hello' && v.version !== 1) {
        ws.send(JSON.stringify({ type: 'error', seq: 0, code: 'version', message: 'this server speaks protocol version 1' }));
        return;
      }
      server.send(m);
    });
    // Its welcome has no table part: that is in each of its views.
    server.onMessage((m) => {
      const v = JSON.parse(m);
      if (v.type === 'welcome') { delete v.game; delete v.limits; delete v.hints; }
      ws.send(JSON.stringify(v));
    });
  });
  // (The route takes hold in a page loaded after it.)
  await p.page.reload();
  await p.page.waitForSelector('#tables article');
  await stack('old-server', 'Tc 7d 9h 8s Ts');
  await sit(p, 'old-server');
  await bet(p.page, { 1: { main: '10.00' } });
  await decide(p.page, 'stand');
  const shown = await settled(p.page);
  assert(shown.balance, 'the round settles');
  eq(hellos.slice(0, 2), [2, 1], 'version 2 first, then version 1 after the refusal');
  const limits = await p.page.textContent('#limits');
  assert(/^Bets 5 to 500/.test(limits), `the limits read from the version 1 views: ${limits}`);
  eq(p.errors, [], 'no script error');
  await p.context.close();
});

test('sound is off until turned on (no AudioContext before), and the sound and pace settings are remembered', async (b) => {
  const p = await player(b, uniqueName('snd'));
  await p.page.addInitScript(() => {
    window.__audio = 0;
    const Native = window.AudioContext;
    window.AudioContext = class extends Native {
      constructor(...a) { super(...a); window.__audio += 1; }
    };
  });
  await p.page.reload();
  await p.page.waitForSelector('#tables article');
  await stack('sound', 'Tc 7d 9h 8s Ts');
  await sit(p, 'sound');
  eq(await p.page.getAttribute('#sound', 'aria-pressed'), 'false', 'sound is off at first');
  await bet(p.page, { 1: { main: '10.00' } });
  await decide(p.page, 'stand');
  await checkAgainstBooks(p);
  eq(await p.page.evaluate(() => window.__audio), 0, 'no AudioContext while sound is off');
  await p.page.click('#sound');
  eq(await p.page.getAttribute('#sound', 'aria-pressed'), 'true', 'sound on');
  assert(await p.page.evaluate(() => window.__audio) >= 1, 'the page makes its sounds once sound is on');
  await p.page.fill('#volume', '30');
  await p.page.selectOption('#speed', 'normal');
  await p.page.reload();
  await p.page.waitForSelector('#sound');
  eq(await p.page.getAttribute('#sound', 'aria-pressed'), 'true', 'sound on after a reload');
  eq(await p.page.inputValue('#volume'), '30', 'the volume after a reload');
  eq(await p.page.inputValue('#speed'), 'normal', 'the pace after a reload');
  await axe(p.page, 'the table with its settings');
  eq(p.errors, [], 'no script error');
  await p.context.close();
});

for (const [label, viewport] of [['desktop', { width: 1366, height: 768 }], ['phone', { width: 390, height: 664 }]]) {
  test(`pictures at ${label} size: a big win's banner, a paced dealer turn, a result on the felt`, async (b) => {
    const p = await player(b, uniqueName(`pic${label[0]}`), viewport, 'normal');
    const table = `pic-${label}`;
    // Queen of hearts pair (20; Lucky Ladies 125 to 1) against a dealer 8 with a 7 in
    // the hole, who draws a 2 (17).
    await stack(table, 'Qh 7d Qh 8s 2c');
    await sit(p, table);
    await bet(p.page, { 1: { main: '10.00', side: { 'lucky-ladies': '1.00' } } });
    await p.page.waitForSelector('#bigwin.big');
    await p.page.waitForTimeout(1600);
    await p.page.screenshot({ path: path.join(OUT, `bigwin-${label}.png`) });
    eq(await p.page.textContent('#bigwin .bigwin-amount'), '125.00', 'the banner counts up to the win');
    await p.page.waitForSelector('#bigwin', { state: 'detached' });
    await decide(p.page, 'stand');
    await p.page.waitForSelector('#dealer-cards .card[data-card="7d"]');
    await p.page.waitForTimeout(200);
    await p.page.screenshot({ path: path.join(OUT, `paced-dealer-${label}.png`), fullPage: label === 'phone' });
    const { rows } = await checkAgainstBooks(p);
    await dealt(p.page);
    await p.page.screenshot({ path: path.join(OUT, `result-${label}.png`), fullPage: label === 'phone' });
    const texts = await p.page.$$eval('.settlement.mine', (els) => els.map((e) => e.textContent));
    assert(texts.includes('Spot 1: 20 beats dealer 17, 1 to 1: +10.00'), `the main line: ${texts}`);
    assert(texts.some((t) => /^Spot 1, Lucky Ladies: queen of hearts pair, 125 to 1: \+125\.00$/.test(t)), `the side line: ${texts}`);
    eq(rows.length, 2, 'two lines');
    await axe(p.page, `the ${label} table with its results`);
    const wide = await p.page.evaluate(() => document.documentElement.scrollWidth);
    assert(wide <= viewport.width, `no sideways scrolling at ${viewport.width} px: ${wide}`);
    await p.context.close();
  });
}

// ---- keyboard and accessibility -----------------------------------------------

async function tabTo(page, selector, max = 80) {
  for (let i = 0; i < max; i += 1) {
    await page.keyboard.press('Tab');
    if (await page.evaluate((s) => document.activeElement?.matches(s), selector)) return;
  }
  throw new Error(`Tab never reached ${selector}`);
}

test('a round with the keyboard alone', async (b) => {
  const p = await player(b, uniqueName('keys'));
  await stack('keys', 'Tc 7d 9h 8s Ts');
  await p.page.goto(`${URL}/#/lobby`);
  await p.page.waitForSelector('[data-table="keys"]');
  await tabTo(p.page, '[data-table="keys"] a.btn');
  // Another player sits at another table: the lobby's list is built again, and the
  // keyboard keeps its place on the same button.
  const other = await player(b, uniqueName('keys-other'));
  await sit(other, 'keys-other');
  await p.page.waitForSelector('[data-table="keys-other"] .seats-line >> text=/^1 playing/');
  const still = await p.page.evaluate(() => document.activeElement?.matches('[data-table="keys"] a.btn'));
  assert(still, 'the focus stays on the Play button of table keys when the lobby changes');
  await other.context.close();
  await p.page.keyboard.press('Enter');
  await p.page.waitForSelector('#sit');
  await tabTo(p.page, '#sit');
  await p.page.keyboard.press('Enter');
  await p.page.waitForSelector('.circle.bet[data-spot="1"][data-wager="main"]');
  await p.page.keyboard.press('1');
  await tabTo(p.page, '.circle.bet[data-spot="1"][data-wager="main"]');
  await p.page.keyboard.press('Enter');
  await p.page.keyboard.press('Enter');
  const amount = await p.page.getAttribute('.circle.bet[data-spot="1"][data-wager="main"]', 'data-amount');
  assert(cents(amount) > 0, `chips placed with Enter: ${amount}`);
  await p.page.keyboard.press('b');
  await p.page.waitForSelector('.decision[data-decision="stand"]');
  await p.page.keyboard.press('s');
  const { rows } = await checkAgainstBooks(p);
  // The result is said to a screen reader.
  const live = await p.page.textContent('#live');
  assert(live.includes(rows[0].text.split(':')[0]) && /Round won/.test(live), `the live region: ${live}`);
  assert(/Your spot 1: ten of clubs\.Your spot 1: nine of hearts, 19\./.test(live), `cards announced one by one: ${live}`);
  // The next round: R puts the last bets back on the circles, and nothing is bet
  // until the player places them.
  await p.page.waitForSelector('#rebet:not([disabled])');
  await stack('keys', 'Tc 7d 9h 8s Ts');
  const sentBefore = p.sent.filter((m) => m.type === 'bet').length;
  await p.page.keyboard.press('r');
  const again = await p.page.getAttribute('.circle.bet[data-spot="1"][data-wager="main"]', 'data-amount');
  eq(again, amount, 'Rebet places the last main bet');
  eq(p.sent.filter((m) => m.type === 'bet').length, sentBefore, 'no bet is sent without the player');
  await p.page.keyboard.press('b');
  await p.page.waitForSelector('.decision[data-decision="stand"]');
  eq(p.sent.filter((m) => m.type === 'bet').length, sentBefore + 1, 'B sends the bet');
  await p.page.keyboard.press('s');
  await checkAgainstBooks(p);
  await p.context.close();
});

/** Waits until the cards' deal animations have ended (for a picture). */
async function dealt(page) {
  // (Not waitForFunction: the page's policy forbids the eval it polls with.)
  for (let i = 0; i < 100; i += 1) {
    const still = await page.evaluate(() => document.getAnimations()
      .some((a) => a.playState === 'running' && a.effect?.getTiming().iterations !== Infinity));
    if (!still) return;
    await page.waitForTimeout(50);
  }
}

async function axe(page, what) {
  // A card fading in is measured at its passing colours: wait for the deal to end.
  await dealt(page);
  await page.evaluate(AXE);
  const r = await page.evaluate(async () => {
    const res = await window.axe.run(document, { resultTypes: ['violations'] });
    return res.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
  });
  const bad = r.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  eq(bad, [], `axe on ${what}: no serious or critical violation`);
}

test('axe-core finds no serious or critical violation; screenshots at desktop and phone size', async (b) => {
  for (const [label, viewport] of [['desktop', { width: 1280, height: 800 }], ['phone', { width: 390, height: 844 }]]) {
    const p = await player(b, uniqueName(`ax${label[0]}`), viewport);
    await axe(p.page, `the ${label} lobby`);
    const meter = await p.page.evaluate(async () => (await (await fetch('/api/tables')).json()).tables.find((t) => t.name === 'blazing-7s').meters[0].amount);
    await p.page.waitForSelector('[data-table="blazing-7s"] .meter-amount');
    const lobbyMeter = await p.page.textContent('[data-table="blazing-7s"] .meter-amount');
    eq(lobbyMeter.replace(/,/g, ''), meter, 'the lobby shows the live meter');
    await p.page.screenshot({ path: path.join(OUT, `lobby-${label}.png`) });
    const table = `axe-${label}`;
    await stack(table, '8c Tc 8d 6s');
    await sit(p, table);
    await p.page.waitForSelector('.circle.bet');
    await axe(p.page, `the ${label} table, betting`);
    await bet(p.page, { 1: { main: '10.00', side: { 'lucky-ladies': '5.00' } } });
    await p.page.waitForSelector('.decision[data-decision="split"]');
    await dealt(p.page);
    await axe(p.page, `the ${label} table, deciding`);
    await p.page.screenshot({ path: path.join(OUT, `table-${label}.png`), fullPage: label === 'phone' });
    const wide = await p.page.evaluate(() => document.documentElement.scrollWidth);
    assert(wide <= viewport.width, `no sideways scrolling at ${viewport.width} px: ${wide}`);
    await p.page.click('#open-rules');
    await p.page.waitForSelector('.rules-card');
    const rtp = await p.page.$$eval('table.rtp tr', (rs) => rs.map((r) => r.textContent));
    assert(rtp.length === 2 && rtp.every((r) => /\d+\.\d\d%$/.test(r)) && /Lucky Ladies/.test(rtp[1]), `each wager's return to player: ${rtp}`);
    const pays = await p.page.textContent('.paytable');
    assert(pays.includes('queen of hearts pair with dealer blackjack') && pays.includes('1000 to 1'), `the pay table: ${pays}`);
    await axe(p.page, `the ${label} rules panel`);
    await p.page.screenshot({ path: path.join(OUT, `rules-${label}.png`) });
    await p.page.keyboard.press('Escape');
    await decide(p.page, 'stand');
    await p.page.waitForSelector('#results[data-done="true"]');
    await p.page.click('#open-recall');
    await p.page.waitForSelector('details.recall');
    await p.page.click('details.recall summary');
    await axe(p.page, `the ${label} recall panel`);
    const lines = await p.page.$$eval('details.recall[open] li', (els) => els.map((e) => e.textContent));
    assert(lines.some((l) => l.includes('eight of clubs')) && lines.some((l) => /stand/.test(l)), `the recall has every card and decision: ${lines}`);
    assert(lines.some((l) => /main.*10\.00/.test(l)), `the recall has the wager: ${lines}`);
    await p.page.screenshot({ path: path.join(OUT, `recall-${label}.png`) });
    eq(p.errors, [], 'no script error');
    await p.context.close();
  }
});


// ---- one screen, bets as a player places them, told to a screen reader -----------

/** Checks that the page does not scroll and that every element of `selectors` is
 * inside the viewport and on top there (not clipped by a scrolled box, not covered). */
async function inView(page, what, selectors) {
  const r = await page.evaluate((sels) => {
    const out = { scroll: document.documentElement.scrollHeight, height: innerHeight, wide: document.documentElement.scrollWidth, width: innerWidth, counts: {}, bad: [] };
    for (const sel of sels) {
      const els = [...document.querySelectorAll(sel)];
      out.counts[sel] = els.length;
      for (const el of els) {
        const b = el.getBoundingClientRect();
        const inside = b.width > 0 && b.height > 0 && b.top >= 0 && b.left >= 0 && b.bottom <= innerHeight && b.right <= innerWidth;
        const hit = inside ? document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2) : null;
        if (!inside || !hit || !(el === hit || el.contains(hit))) {
          out.bad.push(`${sel} at ${Math.round(b.left)},${Math.round(b.top)} to ${Math.round(b.right)},${Math.round(b.bottom)}${hit ? ` (on top: ${hit.className || hit.tagName})` : ''}`);
        }
      }
    }
    return out;
  }, selectors);
  assert(r.scroll <= r.height, `${what}: the page does not scroll (${r.scroll} px in a ${r.height} px window)`);
  assert(r.wide <= r.width, `${what}: no sideways scrolling (${r.wide} px in ${r.width})`);
  for (const sel of selectors) assert(r.counts[sel] > 0, `${what}: ${sel} is on the page`);
  eq(r.bad, [], `${what}: everything inside the viewport and on top`);
}

/** Records every line the page's live region says (window.__said), from a reload on. */
async function listen(p) {
  await p.page.addInitScript(() => {
    window.__said = [];
    const start = () => new MutationObserver((ms) => {
      for (const m of ms) for (const n of m.addedNodes) window.__said.push(n.textContent);
    }).observe(document.getElementById('live'), { childList: true });
    if (document.getElementById('live')) start();
    else document.addEventListener('DOMContentLoaded', start);
  });
  await p.page.reload();
  await p.page.waitForSelector('#tables article');
}

const SIZES = [['phone-s', 390, 664], ['phone', 390, 844], ['laptop', 1366, 768], ['desktop', 1920, 1080]];
for (const [label, width, height] of SIZES) {
  test(`one screen at ${width}x${height}: dealer, both spots, countdown and buttons in view at an insurance offer and a decision`, async (b) => {
    const phone = width < 600;
    const p = await player(b, uniqueName(`fit${label[0]}`), { width, height }, 'fast', phone);
    const table = `fit-${label}`;
    // Spot 1: 8 3 (11), spot 2: 9 7 (16), against an ace up with a 7 in the hole (soft 18).
    await stack(table, '8c 9c 7d 3h 7s Ah');
    await sit(p, table);
    await p.page.waitForSelector('.circle.bet[data-spot="2"]');
    await bet(p.page, { 1: { main: '25.00' }, 2: { main: '10.00' } });
    const offer = '.decisions[data-spot="2"] .decision[data-decision="decline"]';
    await p.page.waitForSelector(offer);
    await dealt(p.page);
    // Every button of each offer (on a phone the amount box for less is kept for a
    // single offer: with two it is not drawn).
    const seen = ['#dealer-cards .card', '.seat.mine .hand', '.seat.mine .circle', '#countdown', '#phase', '.decisions > .decision'];
    await inView(p.page, `${label}, insurance asked of both spots`, phone ? seen : [...seen, '.less-box']);
    // The offer is told with its choices, and the focus is on the action bar.
    const live = await p.page.textContent('#live');
    assert(live.includes('Insurance? The dealer shows an ace. Spot 1: Insurance 12.50, or No, thanks.')
      && live.includes('Spot 2: Insurance 5.00, or No, thanks.'), `each offer told with its choices: ${live}`);
    assert(await p.page.evaluate(() => Boolean(document.activeElement?.closest('#controls .decisions'))), 'the focus is on the offer');
    const keys = await p.page.isVisible('#keys');
    eq(keys, !phone, phone ? 'no keyboard hint on a touch screen' : 'the keyboard hint on a desktop');
    await axe(p.page, `the ${label} table at an insurance offer`);
    await p.page.screenshot({ path: path.join(OUT, `fit-insurance-${label}.png`) });
    await p.page.click('.decisions[data-spot="1"] .decision[data-decision="decline"]');
    await p.page.click(offer);
    await p.page.waitForSelector('.decision[data-decision="double"]');
    await dealt(p.page);
    await inView(p.page, `${label}, a decision`, seen);
    // The other seats (free ones included) sit above the player's own: none between
    // the hands and the buttons.
    const above = await p.page.evaluate(() => {
      const mine = document.querySelector('.seat.mine').getBoundingClientRect();
      return [...document.querySelectorAll('.seat:not(.mine)')].map((e) => e.getBoundingClientRect())
        .filter((r) => r.height > 0).every((r) => r.bottom <= mine.top + 1);
    });
    assert(above, `${label}: no seat between the player's hands and the buttons`);
    await axe(p.page, `the ${label} table at a decision`);
    await p.page.screenshot({ path: path.join(OUT, `fit-decision-${label}.png`) });
    await standAll(p.page);
    await checkAgainstBooks(p);
    await p.page.waitForSelector('#place-bets');
    await dealt(p.page);
    await inView(p.page, `${label}, the results kept while betting`, ['.circle.bet', '.seat.mine .badge', '.chip', '#place-bets', '#countdown']);
    await axe(p.page, `the ${label} table with the results while betting`);
    await p.page.screenshot({ path: path.join(OUT, `fit-betting-${label}.png`) });
    await p.context.close();
  });
}

test('chips: values that fit the limits, stacks in the circles, undo, double, greyed chips, a rebet scaled to the balance', async (b) => {
  const p = await player(b, uniqueName('chip'));
  await sit(p, 'chips');
  await p.page.waitForSelector('.chip');
  const limits = await p.page.evaluate(async () => (await (await fetch('/api/tables')).json()).tables.find((t) => t.name === 'chips'));
  const chips = (await p.page.$$eval('.chip', (els) => els.map((e) => e.dataset.chip))).map(cents);
  const max = cents(limits.limits.max);
  // The maximum takes at most five clicks (not ten 50s at a 500 maximum), a tenth of
  // it at most three, at most six chips.
  const clicks = (amount) => {
    let n = 0;
    for (let left = amount; left > 0 && n < 50; n += 1) left -= chips.filter((c) => c <= left).at(-1) ?? left;
    return n;
  };
  assert(chips.length <= 6, `at most six chips: ${chips.map(plain)}`);
  assert(clicks(max) <= 5, `the maximum ${plain(max)} takes ${clicks(max)} clicks of ${chips.map(plain)}`);
  assert(clicks(max / 10) <= 3, `a bet of ${plain(max / 10)} takes ${clicks(max / 10)} clicks`);
  // A stack in the circle, undo, double.
  await clickAmount(p.page, 1, 'main', '15.00');
  const stackOf = () => p.page.$$eval('.circle.bet[data-spot="1"][data-wager="main"] .disc', (els) => els.map((e) => Number(e.dataset.chip)));
  const discs = await stackOf();
  eq(discs.reduce((a, c) => a + c, 0), 1500, `the stack in the circle makes 15.00 (${discs})`);
  const amount = () => p.page.getAttribute('.circle.bet[data-spot="1"][data-wager="main"]', 'data-amount');
  await p.page.click('#double-bet');
  eq(await amount(), '30.00', 'Double doubles the circle');
  await p.page.click('#undo');
  eq(await amount(), '15.00', 'Undo takes the double back');
  await p.page.keyboard.press('u');
  assert(cents(await amount()) < 1500, 'U takes the last chip back');
  await p.page.click('#clear');
  // Chips the balance cannot cover are greyed out.
  const balance = cents(await p.page.getAttribute('#balance', 'data-value'));
  const spots = await p.page.$$eval('.circle.bet[data-wager="main"]', (els) => els.length);
  let laid = 0;
  for (let spot = 1; spot <= spots && balance - laid > 5000; spot += 1) {
    const put = Math.min(max, balance - laid - 2000);
    await clickAmount(p.page, spot, 'main', plain(put - (put % 500)));
    laid += put - (put % 500);
  }
  const free = balance - laid;
  const greyed = await p.page.$$eval('.chip', (els) => els.map((e) => [Number(e.dataset.chip.replace('.', '')), e.disabled]));
  for (const [c, off] of greyed) eq(off, c > free, `the chip ${plain(c)} with ${plain(free)} free is ${c > free ? 'greyed' : 'open'}`);
  assert(greyed.some(([, off]) => off), 'some chip is greyed');
  await p.page.click('#clear');
  // A rebet over the balance is laid scaled down, and said.
  const last = [1, 2, 3].map((spot) => ({ spot, main: plain(max), side: {} }));
  await p.page.evaluate((l) => localStorage.setItem('felt.last.chips', JSON.stringify(l)), last);
  await p.page.reload();
  await p.page.waitForSelector('#rebet:not([disabled])');
  await p.page.click('#rebet');
  const total = (await p.page.$$eval('.circle.bet', (els) => els.map((e) => e.dataset.amount))).reduce((a, x) => a + cents(x), 0);
  assert(total > 0 && total <= balance, `the rebet laid ${plain(total)} within the balance ${plain(balance)}`);
  const said = await p.page.textContent('#notice');
  assert(/does not cover your last bets/.test(said), `the player is told: ${said}`);
  eq(p.sent.filter((m) => m.type === 'bet').length, 0, 'nothing bet without the player');
  eq(p.errors, [], 'no script error');
  await p.context.close();
});

test('chips left on the layout are bet as the window closes, with a warning 5 s before; nothing carried to the next round', async (b) => {
  const p = await player(b, uniqueName('close'));
  await listen(p);
  await stack('bets-close', 'Tc 7d 9h 8s Ts');
  await sit(p, 'bets-close');
  // A window with time enough to lay the chips (the table's is 8 s).
  await freshWindow(p.page);
  await clickAmount(p.page, 1, 'main', '10.00');
  // No click on Place bets: the chips are bet as the window closes.
  await p.page.waitForSelector('.decision[data-decision="stand"]', { timeout: 15000 });
  const bets = p.sent.filter((m) => m.type === 'bet');
  eq(bets.map((m) => m.spots), [[{ spot: 1, main: '10.00', side: {} }]], 'the chips on the layout were sent as the bet');
  const said = await p.page.evaluate(() => window.__said.filter((t) => /seconds left|betting closes/i.test(t)));
  assert(said.some((t) => /5 seconds left to place your bets/.test(t)), `a warning at 5 s: ${said}`);
  assert(said.some((t) => /your chips on the layout \(10\.00\) are bet/.test(t)), `the player is told: ${said}`);
  await decide(p.page, 'stand');
  await checkAgainstBooks(p);
  // The next window opens with an empty layout.
  await p.page.waitForSelector('.circle.bet');
  eq(await p.page.getAttribute('.circle.bet[data-spot="1"][data-wager="main"]', 'data-amount'), '0.00', 'nothing carried into the next round');
  await p.page.click('#leave');
  await p.context.close();
});

/** Waits for a betting window with at least 6 s left (the short windows' tables). */
async function freshWindow(page) {
  for (let i = 0; i < 40; i += 1) {
    const t = await page.textContent('#countdown');
    if (/Bets close in ([6-9]|\d\d) s/.test(t) && await page.$('.circle.bet')) return;
    await page.waitForTimeout(250);
  }
  throw new Error('no betting window with 6 s left');
}

test('chips that cannot be bet when the window closes (a side bet alone) are cleared, and the player is told', async (b) => {
  const p = await player(b, uniqueName('void'));
  await sit(p, 'bets-void');
  await freshWindow(p.page);
  await clickAmount(p.page, 1, 'lucky-ladies', '1.00');
  await p.page.waitForSelector('#notice:has-text("were not bet")', { timeout: 15000 });
  const said = await p.page.textContent('#notice');
  eq(said, 'The betting closed and your chips were not bet: spot 1: a side bet needs a main bet on its spot. The layout is cleared.', 'the player is told plainly');
  eq(p.sent.filter((m) => m.type === 'bet').length, 0, 'nothing was sent');
  const left = await p.page.$$eval('.circle.bet', (els) => els.map((e) => e.dataset.amount));
  assert(left.every((a) => a === '0.00'), `the layout is cleared: ${left}`);
  eq(p.errors, [], 'no script error');
  await p.page.click('#leave');
  await p.context.close();
});

test('a screen reader is told each card once as it lands, the dealer total card by card, the turn with its choices, then the results; the focus never drops to the body', async (b) => {
  const p = await player(b, uniqueName('sr'), { width: 1280, height: 800 }, 'normal');
  await listen(p);
  // Player 10 9 (19) against a dealer 8 with a 7 in the hole (15), who draws a ten (25).
  await stack('speech', 'Tc 7d 9h 8s Ts');
  await p.page.click('[data-table="speech"] a.btn');
  await p.page.waitForSelector('#sit');
  await p.page.focus('#sit');
  await p.page.keyboard.press('Enter');
  await p.page.waitForSelector('.seat.mine');
  const after = await p.page.evaluate(() => document.activeElement?.tagName);
  assert(after && after !== 'BODY', `the focus stays in the page after sitting: ${after}`);
  await bet(p.page, { 1: { main: '10.00' } });
  await p.page.waitForSelector('.decision[data-decision="stand"]');
  const focus = await p.page.evaluate(() => document.activeElement?.closest('#controls') !== null && document.activeElement?.dataset?.decision);
  assert(focus, 'the focus moves to the action bar at the turn');
  await p.page.keyboard.press('s');
  await checkAgainstBooks(p);
  const after2 = await p.page.evaluate(() => document.activeElement?.tagName);
  assert(after2 && after2 !== 'BODY', `the focus stays in the page after answering: ${after2}`);
  const said = await p.page.evaluate(() => window.__said);
  const expect = [
    'Your spot 1: ten of clubs.',
    'Your spot 1: nine of hearts, 19.',
    'Dealer shows eight of spades.',
    "Your turn. Spot 1: 19 against the dealer's 8: Hit, Stand, Double 10.00.",
    'Dealer turns the hole card: seven of diamonds, 15.',
    'Dealer draws ten of spades: busts with 25.',
  ];
  const at = expect.map((t) => said.indexOf(t));
  assert(at.every((i) => i >= 0), `every card and the turn are told: ${JSON.stringify(said)}`);
  eq([...at].sort((x, y) => x - y), at, `in the order they land: ${JSON.stringify(said)}`);
  for (const t of expect) eq(said.filter((x) => x === t).length, 1, `told once: ${t}`);
  const result = said.findIndex((t) => /Round won/.test(t));
  assert(result > at.at(-1), `the results after the last card: ${JSON.stringify(said)}`);
  const cardsSaid = said.filter((t) => /(eight of spades|seven of diamonds|ten of spades)/.test(t) && !/Round won|beats|against/.test(t));
  eq(cardsSaid.length, 3, `each dealer card told once: ${JSON.stringify(cardsSaid)}`);
  await p.context.close();
});

test('the recall panel: card pictures and the time of each round; the time at the table and the net since log-in there', async (b) => {
  const p = await player(b, uniqueName('rc'));
  await stack('speech', 'Tc 7d 9h 8s Ts');
  await sit(p, 'speech');
  const limits = await p.page.textContent('#limits');
  assert(/^Bets 5 to 500/.test(limits), `the table's limits at the table: ${limits}`);
  await bet(p.page, { 1: { main: '10.00' } });
  await decide(p.page, 'stand');
  const { rows } = await checkAgainstBooks(p);
  const net = rows.reduce((a, r) => a + cents(r.net), 0);
  // The table's net is the log-in session's, as the session bar shows it (one figure).
  await until(p.page, (n) => document.getElementById('session-net')?.dataset.value === n, plain(net), 'the table\'s net since log-in');
  eq(await p.page.getAttribute('#login-net', 'data-value'), plain(net), 'the session bar shows the same net');
  assert(/^\d\d:\d\d$/.test(await p.page.textContent('#session-clock')), 'the session clock shows the time at the table');
  await p.page.click('#open-recall');
  await p.page.waitForSelector('details.recall');
  const first = 'details.recall:first-of-type';
  const when = await p.page.textContent(`${first} summary`);
  assert(/\d{1,2}:\d\d/.test(when), `the round's time: ${when}`);
  await p.page.click(`${first} summary`);
  const pics = await p.page.$$eval(`${first} .recall-hand .card`, (els) => els.map((e) => e.dataset.card));
  for (const c of ['Tc', '9h', '8s', '7d', 'Ts']) assert(pics.includes(c), `the recall pictures ${c}: ${pics}`);
  await axe(p.page, 'the recall panel with pictures');
  await p.page.screenshot({ path: path.join(OUT, 'recall-pictures-desktop.png') });
  await p.page.keyboard.press('Escape');
  await p.page.click('#leave');
  await p.context.close();
});

// ---- play money, a shared table, the hint (issue 24: 8, 9, 11) ---------------------

/** Copies a screenshot into docs/img (the docs show what these tests see). */
async function shot(page, name) {
  const file = path.join(OUT, `${name}.png`);
  await page.screenshot({ path: file });
  fs.mkdirSync('docs/img', { recursive: true });
  fs.copyFileSync(file, path.join('docs/img', `${name}.png`));
}

/** Waits until `fn(arg)` is true in the page, polling (not waitForFunction: the page's
 * policy forbids the eval it polls with). */
async function until(page, fn, arg, what = 'the page to change') {
  for (let i = 0; i < 300; i += 1) {
    if (await page.evaluate(fn, arg)) return;
    await page.waitForTimeout(50);
  }
  throw new Error(`waited in vain for ${what}`);
}

test('top-up at 0.00: the page says the balance cannot cover the minimum, and the top-up brings the chips back', async (b) => {
  for (const [label, viewport] of [['desktop', { width: 1366, height: 768 }], ['phone', { width: 390, height: 844 }]]) {
    const p = await player(b, uniqueName(`broke${label[0]}`), viewport, 'fast', label === 'phone');
    const table = `broke-${label[0]}`;
    // Both spots of 500.00 lose: 16 and 16 against the dealer's 19.
    await stack(table, 'Tc Td 9s 6c 6d Ts');
    await sit(p, table);
    await bet(p.page, { 1: { main: '500.00' }, 2: { main: '500.00' } });
    await standAll(p.page);
    await p.page.waitForSelector('#topup-button');
    eq(await p.page.textContent('#balance'), '0.00', 'the balance is spent');
    const why = await p.page.textContent('#topup-why');
    assert(why.includes('0.00') && why.includes('minimum bet of 5.00'), `said plainly: ${why}`);
    await until(p.page, () => document.querySelector('#phase')?.textContent.includes('below the minimum'));
    const enabled = await p.page.$$eval('.chip', (els) => els.filter((e) => !e.disabled).length);
    eq(enabled, 0, 'no chip at 0.00');
    // The betting countdown stays whole beside the long status (a phone once cut it).
    await p.page.waitForSelector('#countdown:not(:empty)');
    const cut = await p.page.evaluate(() => {
      // The text's own extent (a box may be narrower than the text it lets overflow),
      // against the window and the dock that clips it.
      const r = document.createRange();
      r.selectNodeContents(document.querySelector('#countdown'));
      const t = r.getBoundingClientRect();
      const dock = document.querySelector('#dock').getBoundingClientRect();
      const box = document.querySelector('#countdown').parentElement.getBoundingClientRect();
      return t.width === 0 || t.right > Math.min(window.innerWidth, dock.right) + 0.5 || t.right > box.right + 0.5;
    });
    eq(cut, false, 'the countdown inside the window');
    await shot(p.page, `topup-${label}`);
    await p.page.click('#topup-button');
    await until(p.page, () => document.querySelector('#balance')?.textContent === '1,000.00');
    await p.page.waitForSelector('#topup', { state: 'hidden' });
    const chips = await p.page.$$eval('.chip', (els) => els.filter((e) => !e.disabled).length);
    assert(chips > 0, 'the chips are back');
    await until(p.page, () => document.querySelector('#notice')?.textContent.includes('play money added'));
    // The books hold it as a deposit: the recall's balance moved by no round.
    const me = await p.page.evaluate(async () => (await fetch('/api/me')).json());
    eq(me.balance, '1000.00', 'the books\' balance');
    assert(me.top_up.next_in_secs > 0, 'the next top-up waits');
    eq(p.errors, [], 'no script error');
    await p.context.close();
  }
});

test('a shared table: "Ana decides" and the feed of the others\' play, seen by the other player', async (b) => {
  const a = await player(b, uniqueName('ana'), { width: 1366, height: 768 });
  const c = await player(b, uniqueName('bob'), { width: 390, height: 844 }, 'fast', true);
  // Ana 9 5 hits a 2; Bob 5 6 doubles onto a 9; the dealer 7 with a queen in the hole.
  await stack('social', '9c 5c Qh 5d 6h 7s 2c 9d');
  await sit(a, 'social');
  await sit(c, 'social');
  await bet(a.page, { 1: { main: '10.00' } });
  await bet(c.page, { 1: { main: '10.00' } });
  await a.page.waitForSelector('.decision[data-decision="hit"]');
  // Bob, waiting, reads whose turn it is and why the countdown runs.
  await until(c.page, (n) => document.querySelector('#phase')?.textContent === `${n} decides.`, a.name);
  await until(c.page, (n) => document.querySelector('#countdown')?.textContent.startsWith(`${n} decides in`), a.name);
  await decide(a.page, 'hit');
  await until(c.page, (n) => document.querySelector('#feed')?.textContent.includes(`${n} hits`), a.name);
  await decide(a.page, 'stand');
  await c.page.waitForSelector('.decision[data-decision="double"]');
  const feed = await c.page.$$eval('#feed li', (els) => els.map((e) => e.textContent));
  eq(feed, [`${a.name} hits`, `${a.name} stands`], 'Bob\'s feed');
  await shot(c.page, 'feed-phone');
  await decide(c.page, 'double');
  await until(a.page, (n) => document.querySelector('#feed')?.textContent.includes(`${n} wins 20.00`), c.name);
  const seen = await a.page.$$eval('#feed li', (els) => els.map((e) => e.textContent));
  eq(seen, [`${c.name} doubles`, `${c.name} wins 20.00`], 'Ana\'s feed');
  await shot(a.page, 'feed-desktop');
  // No feed line is the player's own.
  assert(!seen.some((l) => l.includes(a.name)), `Ana's own play is not in her feed: ${seen}`);
  eq([...a.errors, ...c.errors], [], 'no script error');
  await a.context.close();
  await c.context.close();
});

test('leaving asks first; a player who leaves on their turn is stood at once; the Lobby link leaves the seat', async (b) => {
  const a = await player(b, uniqueName('lea'));
  const c = await player(b, uniqueName('sta'));
  // Ana 16 and Bob 17 against the dealer's 17 (a 9 in the hole).
  await stack('leaver', 'Tc Td 9s 6c 7d 8h');
  await sit(a, 'leaver');
  await sit(c, 'leaver');
  // Between rounds the Lobby link asks before it leaves the seat: Stay keeps it.
  await a.page.click('header a[href="#/lobby"].btn');
  await a.page.waitForSelector('#confirm-leave');
  await a.page.click('#confirm-no');
  await a.page.waitForSelector('.seat.mine');
  await bet(a.page, { 1: { main: '10.00' } });
  await bet(c.page, { 1: { main: '10.00' } });
  await a.page.waitForSelector('.decision[data-decision="stand"]');
  // The decision timer is 120 s: Bob's turn comes at once only if Ana's hand stood.
  await a.page.click('#leave');
  const q = await a.page.textContent('#confirm-text');
  assert(q.includes('stand at once'), `the question: ${q}`);
  await a.page.click('#confirm-yes');
  await a.page.waitForSelector('#tables article');
  await c.page.waitForSelector('.decision[data-decision="stand"]', { timeout: 15000 });
  await until(c.page, (n) => document.querySelector('#feed')?.textContent.includes(`${n}'s time ran out`), a.name);
  await decide(c.page, 'stand');
  await settled(c.page);
  // Ana sits elsewhere at once (she left her seat).
  await sit(a, 'social');
  eq([...a.errors, ...c.errors], [], 'no script error');
  await a.context.close();
  await c.context.close();
});

test('the hint on request shows each choice\'s expected value, as felt-math computes it', async (b) => {
  const want = JSON.parse(process.env.FELT_HINT_EXPECT || '{}');
  assert(Object.keys(want).length, 'the expected values (FELT_HINT_EXPECT) are given');
  for (const [label, viewport] of [['desktop', { width: 1366, height: 768 }], ['phone', { width: 390, height: 844 }]]) {
    const p = await player(b, uniqueName(`hint${label[0]}`), viewport, 'fast', label === 'phone');
    const table = `hint-${label[0]}`;
    // Hard 16 against a ten (a 7 in the hole).
    await stack(table, 'Tc 7c 6d Ts');
    await sit(p, table);
    await bet(p.page, { 1: { main: '10.00' } });
    await p.page.waitForSelector('.decision[data-decision="stand"]');
    assert(!(await p.page.$('#hint')), 'no hint until asked');
    await p.page.click('#hint-button');
    await p.page.waitForSelector('#hint li');
    const shown = await p.page.$$eval('#hint li', (els) => els.map((e) => ({ d: e.dataset.decision, ev: Number(e.dataset.ev), text: e.textContent })));
    const offered = await p.page.$$eval('.decision[data-decision]', (els) => els.map((e) => e.dataset.decision));
    eq(shown.map((x) => x.d).sort(), offered.filter((d) => want[d] !== undefined).sort(), 'a value for each choice offered');
    for (const x of shown) {
      assert(Math.abs(x.ev - want[x.d]) < 1e-12, `${x.d}: ${x.ev} is felt-math's ${want[x.d]}`);
      assert(x.text.endsWith(`${want[x.d] >= 0 ? '+' : '-'}${Math.abs(want[x.d]).toFixed(3)}`), `written: ${x.text}`);
    }
    const best = shown.reduce((m, x) => (x.ev > m.ev ? x : m));
    eq(await p.page.getAttribute('#hint', 'data-advice'), best.d, 'the advice is the best value');
    await shot(p.page, `hint-${label}`);
    await decide(p.page, 'stand');
    await settled(p.page);
    eq(p.errors, [], 'no script error');
    await p.context.close();
  }
});

limitsTests(test);
protection(test, { shot, until });
walletTests(test, { shot });

// ---- the runner ---------------------------------------------------------------

// Several filters: `a|b` runs the tests whose name holds either.
const filters = (process.argv[2] || '').split('|');
const browser = await launch();
let failed = 0;
for (const t of tests.filter((x) => filters.some((f) => x.name.includes(f)))) {
  const start = Date.now();
  try {
    await Promise.race([
      t.fn(browser),
      new Promise((_, rej) => setTimeout(() => rej(new Error('the test took over 90 s')), 90000)),
    ]);
    console.log(`ok   ${t.name} (${Date.now() - start} ms)`);
  } catch (e) {
    failed += 1;
    console.log(`FAIL ${t.name}\n     ${String(e?.stack || e).split('\n').slice(0, 6).join('\n     ')}`);
    for (const ctx of browser.contexts()) {
      for (const pg of ctx.pages()) {
        try { await pg.screenshot({ path: path.join(OUT, `fail-${tests.indexOf(t)}.png`) }); } catch (e2) { /* gone */ }
      }
      await ctx.close().catch(() => {});
    }
  }
}
await browser.close();
console.log(failed ? `${failed} browser test(s) failed` : 'every browser test passed');
process.exit(failed ? 1 : 0);
