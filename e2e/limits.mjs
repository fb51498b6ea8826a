// The Limits panel and the refusals of a limit, in the browser (issue 26): a limit
// set from the panel refuses a bet at the table with the sentence that names it and
// when it resets; a raise shows as pending with the time it may take effect; a break
// asks for a confirmation and then holds. Screenshots at 390x664 and 1366x768.

import fs from 'node:fs';
import path from 'node:path';
import { OUT, player, sit, bet, assert, eq, uniqueName } from './lib.mjs';

async function shot(page, name) {
  const file = path.join(OUT, `${name}.png`);
  await page.screenshot({ path: file });
  fs.mkdirSync('docs/img', { recursive: true });
  fs.copyFileSync(file, path.join('docs/img', `${name}.png`));
}

/** Sets a limit from the open Limits panel. */
async function setLimit(page, kind, period, amount) {
  await page.selectOption('#limit-kind', kind);
  await page.selectOption('#limit-period', period);
  await page.fill('#limit-amount', amount);
  await page.click('#limit-set');
}

/** Pushes the Limits tests onto the runner's list (`test(name, fn)` of e2e/run.mjs). */
export function limitsTests(test) {
  for (const [label, viewport, table] of [
    ['phone', { width: 390, height: 664 }, 'limits-p'],
    ['desktop', { width: 1366, height: 768 }, 'limits-d'],
  ]) {
    test(`limits (${label}): a loss limit set in the panel refuses a bet with its sentence, and a raise is pending with its time`, async (b) => {
      const p = await player(b, uniqueName(`lim${label[0]}`), viewport);
      await p.page.click('#open-limits');
      await p.page.waitForSelector('#limits-none');
      await setLimit(p.page, 'loss', 'day', '5.00');
      await p.page.waitForSelector('#limits-table tr[data-kind="loss"][data-period="day"]');
      await p.page.click('#panel-close');
      await sit(p, table);
      // The top bar keeps every button on the screen (Limits among them).
      const bar = await p.page.$$eval('#nav .btn', (els) => els.map((e) => [e.textContent, e.getBoundingClientRect().right <= innerWidth]));
      assert(bar.length === 4 && bar.every(([, fits]) => fits), `the bar's buttons fit: ${bar}`);
      // The top bar at the table, looked at (target/e2e only).
      await p.page.screenshot({ path: path.join(OUT, `limits-table-${label}.png`) });
      await bet(p.page, { 1: { main: '10.00' } });
      await p.page.waitForSelector('#notice[data-kind="error"]:not([hidden])');
      const said = await p.page.textContent('#notice');
      assert(said.startsWith('This would pass your 24-hour loss limit of 5.00 (5.00 left); it resets at ') && !/\d{4}-\d\d-\d\dT/.test(said), `the refusal, its time local: ${said}`);
      // A raise waits 24 hours: the panel says from when.
      await p.page.click('#open-limits');
      await p.page.waitForSelector('#limits-table');
      await setLimit(p.page, 'loss', 'day', '50.00');
      await p.page.waitForSelector('.limits-pending:has-text("takes effect no sooner than")');
      const row = await p.page.textContent('#limits-table tr[data-kind="loss"][data-period="day"]');
      assert(row.includes('5.00') && row.includes('raise to 50.00'), `the row: ${row}`);
      const history = await p.page.$$eval('#limits-history li', (els) => els.length);
      eq(history, 2, 'both changes in the history');
      await shot(p.page, `limits-${label}`);
      // A break asks first, then holds: the session ends at once, and the log-in
      // page says why.
      await p.page.selectOption('#block-choice', 'break:24');
      await p.page.click('#block-start');
      await p.page.waitForSelector('#block-confirm');
      await p.page.click('#block-confirm');
      await p.page.waitForSelector('#login-note:has-text("taking a break")');
      const ended = await p.page.textContent('#login-note');
      assert(ended.startsWith('You are taking a break until '), `the break: ${ended}`);
      // Logged in again: the balance and history are there, and the page says from
      // the start why no bet is taken, with the end time.
      await p.page.fill('#name', p.name);
      await p.page.fill('#password', `${p.name}-secret`);
      await p.page.click('#login');
      await p.page.waitForSelector('#blocked-banner:not([hidden])');
      const blocked = await p.page.textContent('#blocked-banner');
      // The end time in the reader's zone, as the page writes every time (not the
      // server's UTC form).
      assert(/^You are taking a break until .+: no bets until then\.$/.test(blocked) && !/\d{4}-\d\d-\d\dT/.test(blocked), `the banner: ${blocked}`);
      assert(!/\d{4}-\d\d-\d\dT/.test(ended), `the log-in note's time is local: ${ended}`);
      // The session bar names each figure, on the phone too.
      const labels = await p.page.$$eval('#session-bar .sb-label', (els) => els.map((e) => [e.textContent.trim(), e.getBoundingClientRect().width > 8]));
      assert(labels.length === 4 && labels.every(([, seen]) => seen), `the session bar's labels are seen: ${JSON.stringify(labels)}`);
      await shot(p.page, `limits-blocked-${label}`);
      eq(p.errors, [], 'no script error');
      await p.context.close();
    });
  }
}
