// Temporary: plays a few rounds by hand-like moves and takes pictures (not committed).
import { launch, player, sit, bet, uniqueName } from './lib.mjs';
const [w, hgt, table, spots] = [Number(process.argv[2]), Number(process.argv[3]), process.argv[4], Number(process.argv[5] || 1)];
const b = await launch();
const p = await player(b, uniqueName('me'), { width: w, height: hgt }, 'fast', w < 600);
await sit(p, table);
let shot = 0;
const pic = async (what) => { shot += 1; await p.page.screenshot({ path: `/tmp/play/${table}-${w}-${shot}-${what}.png` }); };
for (let round = 0; round < 3; round += 1) {
  await p.page.waitForSelector('#place-bets');
  const sides = await p.page.$$eval('.circle.bet[data-spot="1"]', (els) => els.map((e) => e.dataset.wager).filter((x) => x !== 'main'));
  const bets = {};
  for (let s = 1; s <= spots; s += 1) { bets[s] = { main: '10.00', side: Object.fromEntries(sides.map((x) => [x, '1.00'])) }; }
  if (round === 0) await bet(p.page, bets); else { await p.page.click('#rebet'); await pic('rebet'); await p.page.click('#place-bets'); }
  for (let i = 0; i < 30; i += 1) {
    const el = await p.page.waitForSelector('.decision, #results[data-done="true"]', { timeout: 20000 });
    if (await p.page.$('#results[data-done="true"]') && !(await p.page.$('.decision'))) break;
    await p.page.waitForTimeout(400);
    const ds = await p.page.$$eval('.decision', (els) => els.map((e) => e.dataset.decision));
    if (!ds.length) continue;
    await pic(ds.join('_').slice(0, 40));
    const pick = ds.includes('split') ? 'split' : ds.includes('decline') ? 'decline' : ds.includes('hit') && Math.random() < 0.4 ? 'hit' : ds.includes('stand') ? 'stand' : ds[0];
    await p.page.click(`.decision[data-decision="${pick}"]`).catch(() => {});
  }
  await p.page.waitForTimeout(1500);
  await pic('result');
}
console.log('errors', p.errors);
await b.close();
