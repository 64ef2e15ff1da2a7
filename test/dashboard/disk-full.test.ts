// The dashboard says when the disk is full (issue 23, item 7): the built CLI with its data dir on
// a 2 MiB tmpfs, filled to the last byte; a refused change (507) marks it full, the page shows a
// banner, and the banner goes once space is back. Needs root (mount), `npm run build` and
// `npm run build:web`.
// tags: slow (a real Chromium)
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { fill, smallDisk } from '../helpers/small-disk.js';
import type { Browser } from 'playwright-core';
import { postJson } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';
import { launchBrowser, startSim, type SimService, requireWebBuild } from './browser.js';

requireWebBuild();
t.setTimeout(limit(120_000));

const disk = smallDisk('eb-dash-fulldisk-');
const mountPoint = disk.mountPoint;
let sim: SimService | undefined;
let browser: Browser | undefined;
t.teardown(async () => {
  await browser?.close().catch(() => undefined);
  await sim?.stop();
  disk.unmount();
});

t.test('a banner while the disk is full, gone when space is back', async (t) => {
  const dataDir = path.join(mountPoint, 'data');
  mkdirSync(dataDir);
  sim = await startSim(['--history', 'off'], 500, dataDir);
  browser = await launchBrowser();
  const page = await browser.newPage();
  page.setDefaultTimeout(limit(15_000));
  await page.goto(`${sim.cli.base}/`);
  await page.getByTestId('online').filter({ hasText: 'online' }).waitFor();
  t.equal(await page.getByTestId('disk-full').count(), 0, 'no banner while there is space');

  const filler = path.join(mountPoint, 'filler');
  fill(filler);
  const refused = await postJson(`${sim.cli.base}/edge-one/blocks/create`, {
    id: 'On full disk',
    type: 'TempSensorMock',
    data: {},
  });
  t.equal(refused.status, 507, 'a create is refused with 507');
  const banner = page.getByTestId('disk-full');
  await banner.waitFor();
  t.match(await banner.innerText(), /Disk full since .*changes cannot be stored/, 'the banner says so');

  rmSync(filler);
  await banner.waitFor({ state: 'detached', timeout: limit(15_000) });
  t.pass('the banner is gone once space is back');
  t.equal(
    (await postJson(`${sim.cli.base}/edge-one/blocks/create`, { id: 'After', type: 'TempSensorMock', data: {} }))
      .status,
    201,
    'and changes are stored again',
  );
});
