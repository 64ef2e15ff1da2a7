// A block's page open while the block is renamed (in another tab, or by another client) follows
// it to its new name, instead of saying it was deleted; a block really deleted is still said so.
// On a phone a long name without spaces wraps in its card and in the block list instead of
// widening every card of its group past the screen. A real Chromium against the built CLI with
// the demo blocks; needs `npm run build` and `npm run build:web`.
// tags: slow (a real Chromium)
import t from 'tap';
import { limit } from '../helpers/limits.js';
import { demoInBrowser, requireWebBuild } from './browser.js';

requireWebBuild();
t.setTimeout(limit(240_000));
const rig = demoInBrowser(t, 500);
const api = (p: string, body?: unknown) => rig.api(p, body);

t.test('the block page follows a rename made elsewhere; a deletion is said', async (t) => {
  await rig.page.goto(`${rig.sim.cli.base}/#/block/${encodeURIComponent('Beer Setpoint')}`);
  await rig.page.getByTestId('block-form').waitFor();
  t.equal((await api('blocks/rename', { existing: 'Beer Setpoint', desired: 'Tank #1 Setpoint' })).status, 200);
  await rig.page.locator('.block-page h2').filter({ hasText: 'Tank #1 Setpoint' }).waitFor();
  t.equal(decodeURIComponent(new URL(rig.page.url()).hash), '#/block/Tank #1 Setpoint', 'the address is the new name');
  t.equal(await rig.page.getByTestId('block-gone').count(), 0, 'not said to be deleted');

  await rig.page.goto(`${rig.sim.cli.base}/#/block/${encodeURIComponent('Cool PWM')}`);
  await rig.page.getByTestId('block-form').waitFor();
  t.equal((await api('blocks/delete', { id: 'Cool PWM' })).status, 200);
  await rig.page.getByTestId('block-gone').filter({ hasText: 'Block "Cool PWM" was deleted' }).waitFor();
});

t.test('on a phone a long name wraps: no card is wider than the screen', async (t) => {
  const long = 'Fermenter_1_Beer_Temperature_Setpoint_A';
  t.equal((await api('blocks/rename', { existing: 'Tank #1 Setpoint', desired: long })).status, 200);
  const phone = await rig.browser.newPage({ viewport: { width: 360, height: 740 } });
  t.teardown(() => phone.close());
  for (const where of ['overview', 'block']) {
    await phone.goto(`${rig.sim.cli.base}/#/${where}`);
    await phone
      .getByText(long, { exact: true })
      .first()
      .waitFor({ timeout: limit(15_000) });
    const width = await phone.evaluate(() => document.documentElement.scrollWidth);
    t.ok(width <= 360, `${where}: the page is ${width} px wide on a 360 px screen`);
  }
});

t.test('a backup load is no rename: the block page stays, its block gone', async (t) => {
  // Another controller's backup, whose nid of Beer Sensor is a sensor named Cellar Sensor: the
  // page took the nid for the block and went to Cellar Sensor, saying Beer Sensor was renamed.
  await rig.page.goto(`${rig.sim.cli.base}/#/block/${encodeURIComponent('Beer Sensor')}`);
  await rig.page.getByTestId('block-form').waitFor();
  const backup = await api('blocks/backup/save');
  const other = JSON.parse(JSON.stringify(backup.body).replaceAll('"Beer Sensor"', '"Cellar Sensor"'));
  t.equal((await api('blocks/backup/load', other)).status, 200);
  await rig.page.getByTestId('block-gone').waitFor();
  t.equal(decodeURIComponent(new URL(rig.page.url()).hash), '#/block/Beer Sensor', 'the address stays');
  t.notMatch(await rig.page.getByTestId('block-gone').innerText(), 'renamed');
});
