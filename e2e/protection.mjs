// The browser tests of player protection (issue 26, items 3 and 5): the help line on
// the log-in page and after log-out, the session bar (local time, time since log-in,
// staked and net since log-in, kept over a reload and a change of table, and the same
// net at the table), the unfinished round's banner (saying it ended once settled), and the
// reality check interrupting play at the round boundary with its figures, holding it
// until answered; the six-monthly prompt to review the limits. The server's clock is
// moved by POST /api/test/clock (an operator's session). Nothing here asserts a time.

import { URL, player, sit, stack, bet, decide, settled, assert, eq, uniqueName } from './lib.mjs';

/** A fresh operator session (the clock moves past any session's idle time). */
async function operatorCookie() {
  const r = await fetch(`${URL}/api/login`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: process.env.FELT_OPERATOR, password: process.env.FELT_OPERATOR_PASSWORD }),
  });
  if (r.status !== 200) throw new Error(`the operator logs in: ${r.status}`);
  return (r.headers.get('set-cookie') || '').split(';')[0];
}

/** Moves the server's clock forward. */
async function advance(secs) {
  const r = await fetch(`${URL}/api/test/clock`, {
    method: 'POST', headers: { 'content-type': 'application/json', cookie: await operatorCookie() },
    body: JSON.stringify({ advance_secs: secs }),
  });
  if (r.status !== 200) throw new Error(`moving the clock: ${r.status} ${await r.text()}`);
}

/** The log-in session as the server has it. */
async function session(page) {
  return page.evaluate(async () => (await fetch('/api/session')).json());
}

/** T 9 (19) against 8 with a 7 in the hole and a T to draw: the player wins 10.00. */
const WIN = 'Tc 7d 9h 8s Ts';

/** Adds the tests to `test(name, fn)`; `shot(page, name)` keeps a picture, `until`
 * polls the page. */
export function protection(test, { shot, until }) {
  test('the log-in page shows the help line; the session bar keeps the time since log-in and the net over a reload and a change of table', async (b) => {
    const p = await player(b, uniqueName('sess'), { width: 1366, height: 768 });
    const { page } = p;
    await page.waitForSelector('#session-bar:not([hidden]) #since-login');
    await until(page, () => /^\d+:\d\d:\d\d$/.test(document.getElementById('since-login').textContent), null, 'the time since log-in');
    assert((await page.textContent('#local-time')).trim() !== '', 'the local time is shown');
    eq(await page.getAttribute('#login-net', 'data-value'), '0.00', 'nothing played yet');
    await stack('rc-desk', WIN);
    await sit(p, 'rc-desk');
    await bet(page, { 1: { main: '10.00' } });
    await decide(page, 'stand');
    await settled(page);
    await until(page, () => document.getElementById('login-net').dataset.value === '10.00', null, 'the net after the round');
    // The table's own net is the same figure, since log-in.
    await until(page, () => document.getElementById('session-net').dataset.value === '10.00', null, 'the table\'s net');
    const s = await session(page);
    eq([s.staked, s.net], ['10.00', '10.00'], 'the bar shows the books\' figures');
    eq(await page.textContent('#login-staked'), '10.00', 'the amount staked');
    const before = Number(await page.getAttribute('#since-login', 'data-ms'));
    // A reload and another table: the same session, still counting from the log-in.
    await page.reload();
    await page.waitForSelector('#session-bar:not([hidden]) #since-login[data-ms]');
    await page.goto(`${URL}/#/table/rc-desk2`);
    await page.waitForSelector('#sit, .seat.mine');
    await until(page, () => document.getElementById('login-net').dataset.value === '10.00', null, 'the net after the reload');
    const after = Number(await page.getAttribute('#since-login', 'data-ms'));
    assert(after >= before, `the time since log-in went on (${before} then ${after} ms), not from the table`);
    await shot(page, 'session-bar-desktop');
    eq(p.errors, [], 'no script error');
    await p.context.close();
    // The log-in page, before any session, shows the operator's help line.
    const ctx = await b.newContext({ viewport: { width: 390, height: 664 } });
    const fresh = await ctx.newPage();
    await fresh.goto(`${URL}/`);
    await until(fresh, () => /GAMBLER/.test(document.getElementById('help-line')?.textContent || ''), null, 'the help line');
    await shot(fresh, 'login-help-line-phone');
    await ctx.close();
  });

  test('a player whose round is unfinished is told at log-in and taken to its table', async (b) => {
    const name = uniqueName('unf');
    const p = await player(b, name, { width: 1366, height: 768 });
    await stack('rc-u', WIN);
    await sit(p, 'rc-u');
    await bet(p.page, { 1: { main: '10.00' } });
    await p.page.waitForSelector('.decision[data-decision="stand"]');
    // The browser is closed mid-hand; the player logs in again from the lobby's address.
    await p.context.close();
    const context = await b.newContext({ viewport: { width: 1366, height: 768 } });
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`${URL}/#/lobby`);
    await page.fill('#name', name);
    await page.fill('#password', `${name}-secret`);
    await page.click('#login');
    await page.waitForSelector('#unfinished-round:not([hidden])');
    const said = await page.textContent('#unfinished-round');
    assert(said.includes('at rc-u') && said.includes('holds 10.00'), `the unfinished round said: ${said}`);
    await until(page, () => location.hash === '#/table/rc-u', null, 'the page to go to the table');
    // Its hand waits for the decision: the player finishes the round there.
    await decide(page, 'stand');
    await settled(page);
    // Settled, the banner no longer says the round is not finished: it says it ended.
    await page.waitForSelector('#unfinished-round[data-state="ended"]:not([hidden])');
    const ended = await page.textContent('#unfinished-round');
    assert(ended.includes('has ended') && !ended.includes('not finished'), `the banner once the round settled: ${ended}`);
    await shot(page, 'unfinished-round-desktop');
    eq(errors, [], 'no script error');
    await context.close();
  });

  for (const [label, viewport, table] of [['desktop', { width: 1366, height: 768 }, 'rc-d'], ['phone', { width: 390, height: 664 }, 'rc-p']]) {
    test(`a reality check interrupts at the round boundary with its figures and holds play until answered (${label})`, async (b) => {
      const p = await player(b, uniqueName(`rc${label[0]}`), viewport, 'fast', label === 'phone');
      const { page } = p;
      // The player chooses a check every minute (this server allows 1 to 60).
      await page.waitForSelector('#reality-interval option[value="1"]', { state: 'attached' });
      const chosen = page.waitForResponse((r) => r.url().endsWith('/api/session/reality-check'));
      await page.selectOption('#reality-interval', '1');
      eq((await (await chosen).json()).reality_check.interval_mins, 1, 'the interval chosen');
      await stack(table, WIN);
      await sit(p, table);
      await bet(page, { 1: { main: '10.00' } });
      await page.waitForSelector('.decision[data-decision="stand"]');
      // The minute passes mid-hand: the page's next reading finds the check due, and
      // it waits for the round's end.
      await advance(61);
      await page.waitForResponse((r) => r.url().endsWith('/api/session'));
      assert(!(await page.$('#reality-check[open]')), 'no check while the hand is in play');
      await decide(page, 'stand');
      await settled(page);
      await page.waitForSelector('#reality-check[open]');
      eq(await page.textContent('#reality-staked'), '10.00', 'staked since log-in');
      eq(await page.getAttribute('#reality-net', 'data-value'), '10.00', 'the net result');
      const [hh, mm, ss] = (await page.textContent('#reality-time')).split(':').map(Number);
      assert(hh * 3600 + mm * 60 + ss >= 60, 'the time played, past the interval');
      const s = await session(page);
      eq([s.staked, s.net, s.reality_check.due], ['10.00', '10.00', true], 'the figures are the books\'');
      assert(await page.evaluate(() => document.getElementById('reality-check').matches(':modal')), 'it holds the page');
      await shot(page, `reality-check-${label}`);
      // Escape does not dismiss it; the history opens over it.
      await page.keyboard.press('Escape');
      assert(await page.$('#reality-check[open]'), 'still asked after Escape');
      await page.click('#reality-history');
      await page.waitForSelector('#panel[open] details.recall');
      await page.click('#panel-close');
      assert(await page.$('#reality-check[open]'), 'still asked after the history');
      if (label === 'desktop') {
        await page.click('#reality-continue');
        await until(page, () => !document.getElementById('reality-check').open, null, 'the check to close');
        // Play resumes: the next bet is taken.
        await stack(table, WIN);
        await bet(page, { 1: { main: '10.00' } });
        await page.waitForSelector('.decision[data-decision="stand"]');
        await decide(page, 'stand');
        await settled(page);
      } else {
        await page.click('#reality-logout');
        await page.waitForSelector('#login-note');
        const note = await page.textContent('#login-note');
        assert(note.startsWith('You logged out after') && note.includes('net +10.00'), `the log-out note: ${note}`);
        await until(page, () => /GAMBLER/.test(document.getElementById('help-line')?.textContent || ''), null, 'the help line at log-out');
        eq((await session(page)).error, 'no-session', 'the session is closed');
        await shot(page, 'logged-out-phone');
      }
      eq(p.errors, [], 'no script error');
      eq(p.frames.filter((f) => f.type === 'error'), [], 'the table refused nothing the page sent');
      await p.context.close();
    });
  }

  test('three wrong passwords lock the account: the log-in page says so and until when, the right password is refused too', async (b) => {
    const p = await player(b, uniqueName('lock'), { width: 390, height: 664 });
    const { page, name } = p;
    await page.click('#nav button:has-text("Log out")');
    await page.waitForSelector('#login');
    const attempt = async (password) => {
      await page.fill('#name', name);
      await page.fill('#password', password);
      const answer = page.waitForResponse((r) => r.url().endsWith('/api/login'));
      await page.click('#login');
      const r = await answer;
      await until(page, () => document.getElementById('login-error')?.textContent !== '', null, 'the log-in answer');
      return [r.status(), await page.textContent('#login-error')];
    };
    for (let i = 0; i < 3; i += 1) {
      const [status, said] = await attempt(`wrong-password-${i}`);
      eq(status, 401, `failure ${i + 1}`);
      assert(said.startsWith('That name and password are wrong'), `failure ${i + 1}: ${said}`);
    }
    const [status, said] = await attempt(`${name}-secret`);
    eq(status, 403, 'locked: the right password is refused');
    assert(/^This account is locked after too many failed log-ins, until .+: ask the operator to lift it\.$/.test(said) && !/\d{4}-\d\d-\d\dT/.test(said), `the lock, its end in local time: ${said}`);
    await shot(page, 'locked-phone');
    // (The browser logs the refused log-in's 403 itself.)
    eq(p.errors.filter((e) => !e.includes('status of 403')), [], 'no script error');
    await p.context.close();
  });

  // Last of the main server's tests: it moves the server's clock on by six months.
  test('six months after the last review, the lobby asks the player to review their limits; keeping them is written to the books and ends the prompt', async (b) => {
    const p = await player(b, uniqueName('rev'), { width: 390, height: 664 });
    const { page } = p;
    eq(await page.$('#limits-review'), null, 'no prompt for a new account');
    await advance(182 * 86400 + 60);
    // The session has timed out: log in again.
    await page.reload();
    await page.waitForSelector('#login');
    await page.fill('#name', p.name);
    await page.fill('#password', `${p.name}-secret`);
    await page.click('#login');
    await page.waitForSelector('#limits-review');
    const asked = await page.textContent('#limits-review');
    assert(asked.includes('You last reviewed your limits on') && asked.includes('still right for you'), `the prompt: ${asked}`);
    await shot(page, 'limits-review-phone');
    await page.click('#review-keep');
    await page.waitForSelector('#limits-review', { state: 'detached' });
    await until(page, () => /kept as they are/.test(document.getElementById('notice')?.textContent || ''), null, 'the answer');
    const log = await (await fetch(`${URL}/api/operator/audit?subject=${encodeURIComponent(p.name)}`, { headers: { cookie: await operatorCookie() } })).json();
    eq(log.entries.filter((e) => e.action === 'review-limits' && e.actor === p.name).length, 1, 'the review is in the audit log');
    // The lobby again: no prompt.
    await page.goto(`${URL}/#/lobby`);
    await page.reload();
    await page.waitForSelector('#tables article');
    eq(await page.$('#limits-review'), null, 'answered: no prompt');
    eq(p.errors, [], 'no script error');
    await p.context.close();
  });
}
