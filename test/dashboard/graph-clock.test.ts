// The graphs' time window ends at the controller's now, not the browser's. History is stamped on
// the controller's clock; a Pi without network time runs hours off the brewer's phone (after an
// hour behind, its clock is taken as right and history stored on it), and a window ending at the
// browser's now left the newest points outside it: "10m" and "1h" were empty while the
// controller recorded every 5 s. The built CLI under a moved clock (libfaketime), a real Chromium.
// Needs `npm run build` and `npm run build:web`.
// tags: slow (a real Chromium, the built CLI under a moved clock)
import type { Browser } from 'playwright-core';
import t from 'tap';
import { limit } from '../helpers/limits.js';
import { launchBrowser, requireWebBuild } from './browser.js';
import { movedController } from './moved-controller.js';

declare const window: { __graphSpan?: [number, number] };

requireWebBuild();
t.setTimeout(limit(120_000));

const HOUR = 3_600_000;

let browser: Browser | undefined;
t.teardown(async () => {
  await browser?.close().catch(() => undefined);
});

t.test("on a controller 10 hours behind the browser, the last 10 minutes are the controller's", async (t) => {
  const { cli, api, controllerNow } = await movedController(t, 'eb-graph-clock-', '-10h');
  await api('blocks/create', { id: 'Beer', type: 'TempSensorMock', data: { 'setting[degC]': 20 } });
  await api('blocks/create', {
    id: 'Beer Setpoint',
    type: 'SetpointSensorPair',
    data: { enabled: true, 'sensorId<>': 'Beer', 'storedSetting[degC]': 18 },
  });
  t.ok(Date.now() - (await controllerNow()) > 9 * HOUR, "the controller's clock is 10 hours behind the browser's");
  const field = 'edge-one/Beer Setpoint/value[degC]';
  const deadline = Date.now() + limit(20_000);
  let points = 0;
  while (points < 2 && Date.now() < deadline) {
    const res = await fetch(`${cli.base}/history/timeseries/ranges`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ fields: [field], duration: '10m' }),
    });
    points = ((await res.json()) as Array<{ values: unknown[] }>)[0]?.values.length ?? 0;
    if (points < 2) await new Promise((r) => setTimeout(r, 250));
  }
  t.ok(points >= 2, `the controller's last 10 minutes hold points (${points})`);

  browser = await launchBrowser();
  const page = await browser.newPage();
  page.setDefaultTimeout(limit(15_000));
  await page.goto(`${cli.base}/#/graphs`);
  await page.getByRole('button', { name: 'show the last 10m' }).click();
  await page.getByTestId('chart').waitFor();
  await page.waitForFunction(() => window.__graphSpan !== undefined);
  const [from, to] = (await page.evaluate(() => window.__graphSpan))!;
  const now = (await controllerNow()) / 1000;
  t.ok(Math.abs(to - now) < 60, `the window ends at the controller's now (${Math.round(to - now)} s from it)`);
  t.ok(from >= to - 600 && from < to, 'and spans at most 10 minutes');
});
