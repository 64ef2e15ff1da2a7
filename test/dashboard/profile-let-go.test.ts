// A setpoint whose profile was turned off by another path than the profile card's Pause or Stop
// (here deleted over the API) has no setting: Brewblox's settingMode CLAIMED keeps it off until the
// brewer sets one. Its card showed its old setting by hand in the Setting field, as if that were
// in use; it now shows the field empty ("none") and the old setting as not used, the same after
// the service restarts, and a setting typed there takes over. The built CLI on emulated hardware
// with its data dir kept across the restart, a real Chromium.
// Needs `npm run build` and `npm run build:web`.
// tags: slow (a real Chromium, the built CLI restarted)
import type { Browser, Page } from 'playwright-core';
import t from 'tap';
import { postJson } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';
import { until } from '../helpers/until.js';
import { desktopPage, launchBrowser, removeDir, requireWebBuild, startSim, type SimService } from './browser.js';

requireWebBuild();
t.setTimeout(limit(120_000));

const SID = 'edge-one';

t.test(
  'a setpoint its deleted profile let go: the card shows no setting, after a restart too, until one is set',
  async (t) => {
    let sim: SimService = await startSim();
    const dataDir = sim.dataDir;
    t.teardown(async () => {
      await sim.stop();
      removeDir(dataDir);
    });
    let browser: Browser | undefined = await launchBrowser();
    t.teardown(async () => {
      await browser?.close().catch(() => undefined);
    });
    const api = (p: string, body?: unknown) => postJson(`${sim.cli.base}/${SID}/${p}`, body);
    const setpoint = async () => (await api('blocks/read', { id: 'Setpoint' })).body.data;
    for (const body of [
      { id: 'Sensor', type: 'TempSensorMock', data: { 'setting[degC]': 14 } },
      {
        id: 'Setpoint',
        type: 'SetpointSensorPair',
        data: { enabled: true, 'sensorId<>': 'Sensor', 'storedSetting[degC]': 20 },
      },
      {
        id: 'Profile',
        type: 'SetpointProfile',
        data: {
          enabled: true,
          'targetId<>': 'Setpoint',
          start: new Date(Date.now() - 3_600_000).toISOString(),
          points: [
            { time: 0, 'temperature[degC]': 12 },
            { time: 86_400, 'temperature[degC]': 12 },
          ],
        },
      },
    ])
      t.equal((await api('blocks/create', body)).status, 201, `${body.id} created`);

    const open = async (): Promise<Page> => {
      const page = await desktopPage(browser!);
      await page.goto(`${sim.cli.base}/#/overview`);
      return page;
    };
    let page = await open();
    let card = page.locator('section.card[data-block="Setpoint"]');
    await card.getByTestId('manual-note').filter({ hasText: 'while Profile drives it' }).waitFor();

    t.equal((await api('blocks/delete', { id: 'Profile' })).status, 200, 'the profile deleted over the API');
    const letGo = async (when: string) => {
      await card.getByTestId('let-go-note').waitFor();
      const field = card.getByTestId('setting-Setpoint');
      t.equal(await field.inputValue(), '', `${when}: the Setting field is empty, not the old 20`);
      t.equal(await field.getAttribute('placeholder'), 'none', `${when}: it says none`);
      t.match(await card.getByTestId('let-go-note').innerText(), 'earlier setting by hand, 20.0 °C, is not used');
      t.match(await card.locator('.problems').innerText(), 'inactive since the block that drove it let go');
      const d = await setpoint();
      t.same([d.claimedBy.id, d.setting.value, d.settingMode], [null, null, 'CLAIMED'], `${when}: what the API says`);
    };
    await letGo('let go');

    // The service restarts on the same data dir; the page is opened again.
    await page.close();
    await sim.stop();
    sim = await startSim([], 1000, dataDir);
    page = await open();
    card = page.locator('section.card[data-block="Setpoint"]');
    await letGo('after a restart');

    // The brewer takes over: a setting typed there is used (settingMode STORED).
    await card.getByTestId('setting-Setpoint').fill('8');
    await card.getByRole('button', { name: 'Set' }).click();
    await card.locator('.answer').filter({ hasText: 'Setpoint holds 8.0 °C' }).waitFor();
    await until(async () => (await setpoint()).setting.value === 8, 'the setpoint to hold 8 °C');
    t.equal((await setpoint()).settingMode, 'STORED');
    await card.getByTestId('let-go-note').waitFor({ state: 'detached' });
    t.equal(await card.getByTestId('setting-Setpoint').inputValue(), '8', 'the field shows the setting in use');
    await browser.close();
    browser = undefined;
  },
);
