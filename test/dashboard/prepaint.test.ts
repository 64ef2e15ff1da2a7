// The prepaint (issue 47, item 8): the first HTML response already holds the overview's cards
// with their numbers, so a slow phone paints them before the page's code runs; the page then
// takes over without a flash and goes live. Block names are user text in that HTML: a name
// made to end the script element or add an element stays text. With auth on and no session the
// page holds no data (the login comes first); with a session it does. A real Chromium against
// the built CLI; needs `npm run build` and `npm run build:web`.
// tags: slow (a real Chromium)
import { existsSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import type { Browser } from 'playwright-core';
import { addUser, postJson, ROOT } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';
import { HARD_NAMES } from '../helpers/names.js';
import { launchBrowser, removeDir, startSim, type SimService } from './browser.js';

const SID = 'edge-one';
const XSS = '</script><img src=x onerror="window.__xss=1">"\'&amp;';
const NAMES = [XSS, ...HARD_NAMES.slice(0, 12), '🍺 Beer 🍷'];

if (!existsSync(path.join(ROOT, 'dist/web-prepaint/prepaint.cjs')))
  throw new Error('dist/web-prepaint is missing: run npm run build:web (npm ci does) before this test');
t.setTimeout(limit(300_000));

let sim: SimService;
let browser: Browser;
const api = (p: string, body?: unknown) => postJson(`${sim.cli.base}/${SID}/${p}`, body);

t.before(async () => {
  sim = await startSim([], 500);
  for (const [i, id] of NAMES.entries()) {
    const res = await api('blocks/create', { id, type: 'TempSensorMock', data: { setting: 10 + i, connected: true } });
    if (res.status !== 201) throw new Error(`${id} was not created: ${JSON.stringify(res.body)}`);
  }
  browser = await launchBrowser();
});

t.teardown(async () => {
  await browser?.close().catch(() => undefined);
  await sim?.stop();
  if (sim) removeDir(sim.dataDir);
});

/** The cards of the first HTML, read by Chromium with scripts off: what a phone paints before the code runs. */
async function staticCards(url: string, headers: Record<string, string> = {}) {
  const context = await browser.newContext({ javaScriptEnabled: false, extraHTTPHeaders: headers });
  try {
    const page = await context.newPage();
    const res = await page.goto(url);
    const cards = await page.evaluate(() =>
      [...document.querySelectorAll('#app section.card')].map((e) => ({
        block: e.getAttribute('data-block'),
        name: e.querySelector('a.name')?.textContent ?? null,
        headline: e.querySelector('.big')?.textContent ?? '',
      })),
    );
    return {
      cards,
      images: await page.locator('img').count(),
      state: await page.locator('#prepaint-state').count(),
      cacheControl: res?.headers()['cache-control'],
    };
  } finally {
    await context.close();
  }
}

t.test('the first HTML holds every card with its name and a number, and names stay text', async (t) => {
  const first = await staticCards(`${sim.cli.base}/`);
  for (const id of NAMES) {
    const card = first.cards.find((c) => c.block === id);
    t.equal(card?.name, id, `the card of ${JSON.stringify(id)} is under its own name`);
    t.match(card?.headline, /^\d+\.\d °C$/, `the card of ${JSON.stringify(id)} shows its reading`);
  }
  t.equal(first.images, 0, 'a name with an <img> in it adds no element');
  t.equal(first.state, 1, 'the state it shows comes with it, for the page to take over');
  t.equal(first.cacheControl, 'no-store', 'a page with the blocks of this moment is never reused from a cache');
});

t.test('the page takes over without a flash, runs no script from a name, and goes live', async (t) => {
  const page = await browser.newPage();
  // Notes every moment the page showed no card once it had one, and whether the loading line showed.
  await page.addInitScript({
    content: `window.__gaps = 0; window.__boot = false; window.__cards = false;
new MutationObserver(() => {
  if (document.querySelectorAll('#app section.card').length > 0) window.__cards = true;
  else if (window.__cards) window.__gaps++;
  if (document.querySelector('#app .boot') || /Waiting for the controller/.test(document.body?.textContent ?? '')) window.__boot = true;
}).observe(document, { childList: true, subtree: true, characterData: true });`,
  });
  // The page's code is held back, as a slow phone's download would: the cards must be painted
  // while it waits. Comparing paint and boot times alone raced (the paint's time is when the frame
  // was presented, which under load can come after code that ran in the next task).
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route(/\/assets\/index-[^/]*\.js$/, async (route) => {
    await held;
    await route.continue();
  });
  await page.goto(`${sim.cli.base}/`, { waitUntil: 'commit' });
  await page.waitForFunction(() => performance.getEntriesByName('first-contentful-paint').length > 0, undefined, {
    timeout: limit(15_000),
  });
  t.equal(
    await page.evaluate(() => performance.getEntriesByName('edgeblocks-boot').length),
    0,
    "the first paint came while the page's code was still loading",
  );
  t.ok(
    await page.locator('section.card[data-block="Brew \\"Kettle\\""] .big').isVisible(),
    'and it showed the cards with their numbers',
  );
  release();
  // The app's header (the prepaint's has no test ids) says it rendered over the prepaint.
  await page.getByTestId('online').waitFor({ timeout: limit(15_000) });
  await page.locator('section.card[data-block="Brew \\"Kettle\\""] button.link').waitFor({ timeout: limit(15_000) });
  const seen = (await page.evaluate('({ gaps: __gaps, boot: __boot, xss: window.__xss })')) as {
    gaps: number;
    boot: boolean;
    xss?: number;
  };
  t.equal(seen.gaps, 0, 'the cards never left the page while it took over');
  t.equal(seen.boot, false, 'no loading line or "Waiting for the controller" was shown');
  t.equal(seen.xss, undefined, 'no script from a block name ran');
  t.equal(await page.locator('#app img').count(), 0, 'no element from a block name');
  t.equal(await page.locator('#prepaint-state').count(), 0, 'the page took the state over');
  t.equal(await page.locator('header').count(), 1, 'one header: the prepaint left nothing behind');
  t.equal(
    await page.locator('section.card[data-block="Brew \\"Kettle\\""]').count(),
    1,
    'one card per block after the takeover',
  );
  t.equal(
    await page.locator('section.card a.name').filter({ hasText: 'onerror' }).first().textContent(),
    XSS,
    'the name is shown as it is after the takeover',
  );

  const res = await api('blocks/patch', { id: '🍺 Beer 🍷', type: 'TempSensorMock', data: { setting: 77.5 } });
  t.equal(res.status, 200, JSON.stringify(res.body));
  await page.waitForFunction(
    () => document.querySelector('section.card[data-block="🍺 Beer 🍷"] .big')?.textContent === '77.5 °C',
    undefined,
    { timeout: limit(15_000) },
  );
  t.pass('a change after the page opened shows on its card: the page is live');
  const order = (await page.evaluate(`({
    paint: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null,
    boot: performance.getEntriesByName('edgeblocks-boot')[0]?.startTime ?? null,
  })`)) as { paint: number | null; boot: number | null };
  t.ok(
    order.paint !== null && order.boot !== null && order.paint < order.boot,
    `the prepaint was painted before the page's code began (${JSON.stringify(order)})`,
  );
  await page.close();
});

t.test('with auth on, the first HTML holds no data before the login, and the cards after it', async (t) => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'eb-dash-prepaint-auth-'));
  addUser(dataDir, 'brewer', 'mash at 67 degrees');
  const authSim = await startSim(['--auth', 'true'], 1000, dataDir);
  t.teardown(async () => {
    await authSim.stop();
    removeDir(dataDir);
  });
  const before = await fetch(`${authSim.cli.base}/`);
  const html = await before.text();
  t.equal(before.status, 200);
  t.notMatch(html, /section class="card|prepaint-state|"blocks"/, 'no card and no state before the login');
  t.equal((await staticCards(`${authSim.cli.base}/`)).cards.length, 0, 'Chromium shows no card before the login');

  const login = await fetch(`${authSim.cli.base}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'brewer', password: 'mash at 67 degrees' }),
  });
  t.equal(login.status, 200, 'logged in');
  const cookie = login.headers
    .getSetCookie()
    .find((c) => c.startsWith('Authorization='))!
    .split(';')[0]!;
  const after = await staticCards(`${authSim.cli.base}/`, { cookie });
  t.ok(after.cards.length > 0, 'with a session the first HTML holds the cards');
  t.ok(
    after.cards.some((c) => /\d/.test(c.headline)),
    'and their numbers',
  );
  const forged = await staticCards(`${authSim.cli.base}/`, { cookie: 'Authorization=forged' });
  t.equal(forged.cards.length, 0, 'a cookie that is no session gets no data');
});
