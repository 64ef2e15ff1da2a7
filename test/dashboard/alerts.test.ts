// Issue 26 on the dashboard, in a real browser (Debian's Chromium) against the built CLI on
// emulated hardware: a pulled probe puts a banner in words on every page and a row on the
// alerts page, Acknowledge stops it, the events are listed, a rule edit round-trips through
// GET|PUT alerts/rules, a bad value is refused with the field named, and the banner goes
// when the probe is back. Needs `npm run build` and `npm run build:web`.
// tags: slow (a real Chromium)
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import type { Browser, Page } from 'playwright-core';
import { postJson } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';
import { getJson } from '../alerts/http.js';
import { beerSensor, plug } from '../alerts/sim-service.js';
import { launchBrowser, removeDir, startSim, type SimService, requireWebBuild, desktopPage } from './browser.js';

/** The part of the page's `document` the in-page functions use (the tests compile without the DOM library). */
declare const document: { querySelector(selector: string): unknown };

requireWebBuild();

t.setTimeout(limit(300_000));

let sim: SimService;
let browser: Browser;
let page: Page;
let dir: string;

t.before(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'eb-dash-alerts-'));
  const config = path.join(dir, 'config.json');
  writeFileSync(
    config,
    JSON.stringify({ alerts: { checkIntervalMs: 200, rules: { sensorNull: { after: 1 }, resolveAfter: 1 } } }),
  );
  sim = await startSim(['--config', config], 1000, path.join(dir, 'data'));
  browser = await launchBrowser();
  page = await desktopPage(browser);
});

t.teardown(async () => {
  await browser?.close().catch(() => undefined);
  await sim?.stop();
  if (dir) removeDir(dir);
});

const api = () => `${sim.cli.base}/edge-one`;

t.test(
  'a pulled probe: banner, list, acknowledge, history; a rule edit round-trips; a bad rule is refused in words',
  async (t) => {
    const sensor = await beerSensor(api(), limit(15000));
    for (const [id, type, data] of [
      ['pins', 'MockPins', {}],
      ['Heater', 'DigitalActuator', { 'hwDevice<>': 'pins', channel: 1 }],
    ] as const) {
      const made = await postJson(`${api()}/blocks/create`, { id, type, data });
      t.equal(made.status, 201, `${id} created`);
    }
    const key = `sensor-null:${sensor.nid}`;
    // New sensors read null until their first conversion: with a 1 s rule that is an alert of its own, resolved once they read.
    // Every sensor reads first (on a busy machine one may still be converting while no alert has fired yet), then no alert is active.
    const sensorsRead = async () =>
      (
        (await postJson(`${api()}/blocks/all/read`)).body as Array<{
          type: string;
          data: { value?: { value: unknown } };
        }>
      )
        .filter((b) => b.type === 'TempSensorOneWire')
        .every((b) => b.data.value?.value != null);
    for (let i = 0; i < 150 && !(await sensorsRead()); i++) await new Promise((r) => setTimeout(r, 100));
    for (let i = 0; i < 150; i++) {
      const { active } = (await (await fetch(`${api()}/alerts`)).json()) as { active: unknown[] };
      if (!active.length) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await page.goto(`${sim.cli.base}/#/overview`);
    await page.getByTestId('online').filter({ hasText: 'online' }).waitFor();
    const early = page.getByTestId('alert-banner');
    t.equal(
      await early.count(),
      0,
      `no banner while nothing is wrong${(await early.count()) ? `: ${await early.innerText()}` : ''}`,
    );

    await plug(api(), false);
    const banner = page.getByTestId('alert-banner');
    await banner.locator(`[data-alert="${key}"]`).waitFor();
    const words = await banner.innerText();
    t.match(words, 'Sensor not reading', 'the banner says what is wrong');
    t.match(words, sensor.id, 'and names the sensor');
    t.match(words, /for \d+ s/, 'and for how long');

    await banner.getByRole('link', { name: 'Show alerts' }).click();
    const row = page.getByTestId('alerts-active').locator(`tr[data-alert="${key}"]`);
    await row.waitFor();
    t.match(await row.innerText(), sensor.id, 'the alerts page lists it');
    await page
      .getByTestId('alerts-history')
      .locator('tr[data-event=fired]')
      .filter({ hasText: sensor.id })
      .first()
      .waitFor();
    t.pass('the history shows the fired event');

    await row.getByRole('button', { name: 'Acknowledge' }).click();
    await page.getByTestId('alerts-active').getByRole('status').filter({ hasText: 'acknowledged' }).waitFor();
    await row.filter({ hasText: 'acknowledged' }).waitFor();
    const after = await getJson(`${api()}/alerts`);
    t.equal(after.active.find((a: any) => a.key === key)?.acknowledged, true, 'the service has it acknowledged');
    await page.getByTestId('alerts-history').locator('tr[data-event=acknowledged]').first().waitFor();
    await banner.filter({ hasText: '(acknowledged)' }).waitFor();
    t.pass('the banner says it was acknowledged');

    const rules = page.getByTestId('alert-rules');
    // A rule added since the release before (sequenceError) is stored only once it is set: that
    // release refuses a rules document with a key it does not know, and after a rollback ran
    // every rule at its default (an output's on-time alert off).
    await rules.locator('input[name=sensorNullAfter]').fill('50');
    await rules.getByRole('button', { name: 'Save rules' }).click();
    await rules.getByRole('status').filter({ hasText: 'saved' }).waitFor();
    const untouched = await getJson(`${api()}/alerts/rules`);
    t.equal(untouched.document?.sensorNull?.after, 50, 'the changed rule is stored');
    t.notOk('sequenceError' in (untouched.document ?? {}), 'a rule added since, left as it was, is not written');
    await rules.locator('input[name=sensorNullAfter]').fill('45');
    await rules.locator('input[name=remindHours]').fill('2');
    t.equal(await rules.locator('input[name=noSettingAfter]').inputValue(), '300', 'the no-setting rule is shown');
    await rules.locator('input[name=noSettingAfter]').fill('900');
    t.equal(await rules.locator('input[name=sequenceErrorAfter]').inputValue(), '60', 'the sequence rule is shown');
    await rules.locator('input[name=sequenceErrorAfter]').fill('120');
    await rules.locator('input[name="onAfter:Heater"]').fill('600');
    await rules.getByRole('button', { name: 'Save rules' }).click();
    await rules.getByRole('status').filter({ hasText: 'saved' }).waitFor();
    const stored = await getJson(`${api()}/alerts/rules`);
    t.equal(stored.rules.sensorNull.after, 45, 'sensor null time stored');
    t.equal(stored.rules.remindHours, 2, 'remind interval stored');
    t.same(stored.rules.noSetting, { enabled: true, after: 900 }, 'the no-setting time stored');
    t.same(stored.rules.sequenceError, { enabled: true, after: 120 }, 'the sequence time stored');
    t.equal(stored.rules.blocks.Heater.onAfter, 600, 'the output rule stored per block');
    t.equal(stored.rules.setpointBand.band, 2, 'an untouched default stays');
    await page.reload();
    // Preact sets `value` as a property, so the attribute selector cannot see it.
    await page.waitForFunction(
      () => (document.querySelector('input[name=sensorNullAfter]') as { value?: string } | null)?.value === '45',
    );
    t.equal(
      await rules.locator('input[name="onAfter:Heater"]').inputValue(),
      '600',
      'the form reads the stored rules back',
    );

    await rules.locator('input[name=band]').fill('-1');
    await rules.getByRole('button', { name: 'Save rules' }).click();
    const refused = await rules.getByRole('status').filter({ hasText: 'not saved' }).innerText();
    t.match(refused, 'setpointBand.band', 'the refusal names the field');
    t.match(refused, /greater than 0/, 'and says what is wrong');
    t.equal((await getJson(`${api()}/alerts/rules`)).rules.setpointBand.band, 2, 'nothing was stored');

    await plug(api(), true);
    await banner.waitFor({ state: 'detached', timeout: limit(15000) });
    t.pass('the banner goes when the probe is back');
  },
);
