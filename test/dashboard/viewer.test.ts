// The dashboard for a viewer (issue 45.8), in a real browser: a user made with `edgeblocks user add
// --role viewer` logs in and sees the live overview and every page, without a page error; the page
// says it is read only and offers no "Stop all outputs"; a write it still tries is refused with 403
// naming the role.
// tags: slow (a real Chromium)
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import type { Browser } from 'playwright-core';
import { addUser } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';
import { launchBrowser, removeDir, startSim, type SimService, requireWebBuild } from './browser.js';

requireWebBuild();
t.setTimeout(limit(300_000));

let sim: SimService;
let browser: Browser;
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'eb-dash-viewer-'));
const PASSWORD = 'look but do not touch';

t.before(async () => {
  addUser(dataDir, 'friend', PASSWORD, 'viewer');
  sim = await startSim(['--auth', 'true'], 1000, dataDir);
  browser = await launchBrowser();
});

t.teardown(async () => {
  await browser?.close().catch(() => undefined);
  await sim?.stop();
  removeDir(dataDir);
});

t.test('a viewer sees every page read only, without errors', async (t) => {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${sim.cli.base}/`);
  const form = page.getByTestId('login');
  await form.waitFor({ timeout: limit(15_000) });
  await form.locator('input[name=username]').fill('friend');
  await form.locator('input[name=password]').fill(PASSWORD);
  await form.locator('button[type=submit]').click();
  await page.locator('section.card[data-block="SysInfo"]').waitFor({ timeout: limit(15_000) });
  t.match(await page.getByTestId('read-only').innerText(), /Read only: friend is a viewer/);
  t.equal(await page.getByTestId('control-switch').count(), 0, 'no "Stop all outputs" for a viewer');

  for (const p of ['graphs', 'setup', 'hardware', 'alerts', 'overview']) {
    await page.goto(`${sim.cli.base}/#/${p}`);
    await page.locator('main').waitFor({ timeout: limit(10_000) });
    await page.waitForTimeout(500);
  }
  t.same(errors, [], 'no page error on any page');

  const write = await page.evaluate(async () => {
    const res = await fetch('/edge-one/settings/enabled', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: '{"enabled": false}',
    });
    return { status: res.status, body: (await res.json()) as { message: string } };
  });
  t.equal(write.status, 403);
  t.match(write.body.message, /user friend has the role viewer/);
  await page.close();
});
