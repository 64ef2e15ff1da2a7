// A DS2408 relay board that answers on its bus but garbles every reply (a noisy bus, a long cable,
// a failing chip) is not "disconnected": its card on the Overview says its replies fail their
// checks, from the status the service itself sends (hardware.onewire.garbled), both once the
// event stream is live and in the page's first render, from the state index.html came with,
// before any stream message. The built CLI on the emulated DS2482 and DS2408 (the board's frames
// garbled through the simulator), real Chromium.
// tags: slow (a real Chromium)
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import t from 'tap';
import { postJson } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';
import { until } from '../helpers/until.js';
import { oneWireSim } from '../hardware/relay-boards.js';
import { desktopPage, launchBrowser, removeDir, requireWebBuild, startSim, type SimService } from './browser.js';

const BOARD = 'DS2408 0000000000d1';
const GARBLED = 'device answers but its replies fail their checks (CRC): a noisy bus, a long cable or a failing chip';

requireWebBuild();
t.setTimeout(limit(300_000));

let sim: SimService;
let browser: Browser;
const dir = mkdtempSync(path.join(os.tmpdir(), 'eb-garbled-card-'));
const api = (p: string, body?: unknown) => postJson(`${sim.cli.base}/edge-one/${p}`, body);

t.before(async () => {
  const simConfig = path.join(dir, 'sim.json');
  writeFileSync(
    simConfig,
    JSON.stringify(oneWireSim([{ name: 'relays', type: 'DS2408', address: '29-0000000000d1' }])),
  );
  sim = await startSim(['--sim-config', simConfig], 500, path.join(dir, 'data'));
  if ((await api('blocks/discover')).status !== 200) throw new Error('discover failed');
  await until(
    async () => (await api('blocks/read', { id: BOARD })).body?.data?.connected === true,
    'the board to read',
  );
  const fault = await api('sim/devices/relays/fault', { fault: 'crc', count: 'always' });
  if (fault.status !== 200) throw new Error(`fault: ${JSON.stringify(fault.body)}`);
  await until(
    async () => {
      const status = (await (await fetch(`${sim.cli.base}/edge-one/system/status`)).json()) as any;
      return (status.hardware?.onewire?.garbled ?? []).length === 1;
    },
    'the status to list the board as garbled',
    15_000,
  );
  browser = await launchBrowser();
});

t.teardown(async () => {
  await browser?.close().catch(() => undefined);
  await sim?.stop();
  removeDir(dir);
});

const problems = (page: import('playwright-core').Page) =>
  page.locator(`section.card[data-block="${BOARD}"] ul.problems li`).allTextContents();

t.test('the card says the board answers with damaged replies, not that it is disconnected', async (t) => {
  const page = await desktopPage(browser);
  t.teardown(() => page.close());
  await page.goto(`${sim.cli.base}/`);
  const card = page.locator(`section.card[data-block="${BOARD}"]`);
  await card.locator('ul.problems li.error').filter({ hasText: GARBLED }).waitFor();
  const said = await problems(page);
  t.ok(
    said.some((p) => p.includes(GARBLED)),
    `the garbled sentence: ${JSON.stringify(said)}`,
  );
  t.notOk(
    said.some((p) => /disconnected/.test(p)),
    'not "disconnected"',
  );
  t.match(await card.getAttribute('class'), /\berror\b/, 'still an error');
});

t.test('the first render, before any message of the event stream, says the same', async (t) => {
  const page = await desktopPage(browser);
  t.teardown(() => page.close());
  // The event stream never answers: what the page shows comes from the state index.html came with.
  let held = 0;
  await page.route('**/events*', () => void held++);
  await page.goto(`${sim.cli.base}/`);
  const card = page.locator(`section.card[data-block="${BOARD}"]`);
  await card.locator('ul.problems').waitFor();
  const said = await problems(page);
  t.ok(
    said.some((p) => p.includes(GARBLED)),
    `the garbled sentence in the first render: ${JSON.stringify(said)}`,
  );
  t.notOk(
    said.some((p) => /disconnected/.test(p)),
    'not "disconnected"',
  );
  t.ok(held > 0, `the event stream was asked for and held (${held})`);
  t.match(await card.getAttribute('class'), /\berror\b/, 'an error');
});

t.test(
  'the prepaint (the HTML before the code runs) marks the card an error and does not say disconnected',
  async (t) => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    t.teardown(() => context.close());
    const page = await context.newPage();
    await page.goto(`${sim.cli.base}/`);
    const card = page.locator(`#app section.card[data-block="${BOARD}"]`);
    t.match(await card.getAttribute('class'), /\berror\b/, 'an error');
    t.notMatch(await card.textContent(), /disconnected/, 'no "disconnected" in it');
  },
);
