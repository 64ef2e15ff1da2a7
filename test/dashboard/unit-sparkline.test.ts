// A sensor card's sparkline across a temperature unit switch: it keeps the hour before the switch,
// converted (it drew only the points since the switch, or for up to a minute the °C curve under
// a °F headline). A demo of its own: nothing else switches the unit first.
// A real Chromium against the built CLI with the demo blocks; needs `npm run build` and `npm run build:web`.
// tags: slow (a real Chromium)
import t from 'tap';
import { limit } from '../helpers/limits.js';
import { demoInBrowser, requireWebBuild } from './browser.js';

requireWebBuild();
t.setTimeout(limit(240_000));
const rig = demoInBrowser(t, 500);
const card = (id: string) => rig.page.locator(`section.card[data-block="${id}"]`);

t.test("a sensor card's sparkline across a unit switch keeps the hour before it, in the new unit", async (t) => {
  t.teardown(() => rig.unitElsewhere('degC'));
  const spark = card('Beer Sensor').getByTestId('sparkline');
  const points = async () => Number((await spark.getAttribute('data-points').catch(() => null)) ?? 0);
  // A few points of the last hour in °C (the page asks again when it loads).
  for (let i = 0; i < 60 && (await points()) < 3; i++) {
    await rig.page.goto(`${rig.sim.cli.base}/#/overview`);
    await rig.page.reload();
    await card('Beer Sensor').waitFor();
    await spark.waitFor({ timeout: 2000 }).catch(() => undefined);
    if ((await points()) < 3) await new Promise((r) => setTimeout(r, 1000));
  }
  const before = await points();
  t.ok(before >= 3, `a sparkline of ${before} points in °C`);
  t.match(await spark.getAttribute('aria-label'), /: 19\.0 to 19\.0$/, 'in °C');
  await rig.unitElsewhere('degF');
  await rig.page
    .waitForFunction(
      () =>
        document
          .querySelector('section.card[data-block="Beer Sensor"] [data-testid="sparkline"]')
          ?.getAttribute('aria-label')
          ?.endsWith(': 66.2 to 66.2'),
      undefined,
      { timeout: limit(15_000) },
    )
    .catch(() => undefined);
  t.match(
    await spark.getAttribute('aria-label').catch(() => null),
    /: 66\.2 to 66\.2$/,
    'drawn in °F (19 °C is 66.2 °F)',
  );
  t.ok((await points()) >= before, `the points from before the switch are kept: ${await points()} of ${before}`);
});
