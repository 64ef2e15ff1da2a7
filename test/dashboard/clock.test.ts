// The dashboard says when the controller's wall clock jumped (issue 44, item 7): the built CLI
// under a moved clock (libfaketime); a jump of 3 days shows a notice that control kept its time,
// and a start on a clock 6 months behind the last time seen shows that it waits for network
// time. Needs `npm run build` and `npm run build:web`.
// tags: slow (a real Chromium, the built CLI under a moved clock)
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import t from 'tap';
import { startCli, type RunningCli } from '../helpers/cli.js';
import { killAndWait } from '../helpers/children.js';
import { movedClock } from '../helpers/faketime.js';
import { limit } from '../helpers/limits.js';
import { launchBrowser, requireWebBuild } from './browser.js';

requireWebBuild();
t.setTimeout(limit(120_000));

let browser: Browser | undefined;
t.teardown(async () => {
  await browser?.close().catch(() => undefined);
});

t.test('a notice when the clock jumped, and while it is behind the last time seen', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'eb-dash-clock-'));
  const clock = movedClock(dir);
  const start = (): Promise<RunningCli> =>
    startCli(
      ['--hardware', 'sim', '--data-dir', path.join(dir, 'data'), '--mqtt-port', '0', '--emit-interval', '500'],
      clock.env,
      t,
    );
  let cli = await start();
  browser = await launchBrowser();
  const page = await browser.newPage();
  page.setDefaultTimeout(limit(15_000));
  await page.goto(`${cli.base}/`);
  await page.getByTestId('online').filter({ hasText: 'online' }).waitFor();
  t.equal(await page.getByTestId('clock-jump').count(), 0, 'no notice while the clock runs evenly');

  clock.move('+3d');
  const jump = page.getByTestId('clock-jump');
  await jump.waitFor();
  t.match(await jump.innerText(), /clock jumped 3d \d+s forward .*kept their time/, 'the notice names the jump');

  await killAndWait(cli.child, 'SIGTERM');
  clock.move('-180d');
  cli = await start();
  await page.goto(`${cli.base}/`);
  const behind = page.getByTestId('clock-behind');
  await behind.waitFor();
  t.match(await behind.innerText(), /behind the last time it saw .*waiting for network time/, 'and says it waits');
  clock.move('+3d'); // the present, as the first run last saw it
  await behind.waitFor({ state: 'detached', timeout: limit(15_000) });
  await jump.waitFor();
  t.match(await jump.innerText(), /jumped 183d \d+s forward/, 'then the jump to the present');
  await killAndWait(cli.child, 'SIGTERM');
});
