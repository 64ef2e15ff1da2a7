// More forms where two features meet: the autotune's Swing and Band on a PID card, typed while
// the temperature unit is switched in another tab, are converted with the rest of the page (they
// kept their number under the new unit and were sent as °F); a setpoint the service refuses
// keeps what was typed beside the error (the stored value came back); an open graph follows a
// unit switch (it kept drawing the °C fields, which stop at the switch), and keeps the time
// before the switch in the new unit (it started at the switch).
// A real Chromium against the built CLI with the demo blocks; needs `npm run build` and `npm run build:web`.
// tags: slow (a real Chromium)
import t from 'tap';
import { limit } from '../helpers/limits.js';
import { demoInBrowser, type Plotted, requireWebBuild } from './browser.js';

requireWebBuild();
t.setTimeout(limit(240_000));
const rig = demoInBrowser(t, 500);
const api = (p: string, body?: unknown) => rig.api(p, body);
const card = (id: string) => rig.page.locator(`section.card[data-block="${id}"]`);

t.test('a graph across a unit switch draws the time before it too, in the new unit', async (t) => {
  t.teardown(async () => {
    // The next graph test starts from the fields drawn by default: off the graph page (which
    // remembers its fields at each change), then the unit back and the fields forgotten.
    await rig.page.goto(`${rig.sim.cli.base}/#/overview`);
    await rig.unitElsewhere('degC');
    await rig.page.evaluate(() => localStorage.removeItem('edgeblocks.graph.fields'));
  });
  const celsius = 'edge-one/Beer Sensor/value[degC]';
  const fahrenheit = 'edge-one/Beer Sensor/value[degF]';
  // The sensor's line alone, chosen before (the fields the graph remembers).
  await rig.page.goto(`${rig.sim.cli.base}/#/overview`);
  await rig.page.evaluate((f) => localStorage.setItem('edgeblocks.graph.fields', JSON.stringify([f])), celsius);
  await rig.page.goto(`${rig.sim.cli.base}/#/graphs`);
  await rig.page.reload();
  const picker = rig.page.getByTestId('field-picker');
  await picker.locator(`input[data-field="${celsius}"]:checked`).waitFor({ state: 'attached' });
  // Some °C points drawn before the switch.
  const drawn = (field: string): Promise<Array<[number, number]> | null> =>
    rig.page.evaluate((f) => {
      const p = window.__graphPlotted as Plotted | undefined;
      const i = p ? p.fields.indexOf(f) : -1;
      if (!p || i < 0) return null;
      return p.cols[0].map((time, row) => [time, p.cols[i + 1]![row]]).filter(([, v]) => v !== null) as Array<
        [number, number]
      >;
    }, field);
  await rig.page
    .waitForFunction(
      (f) => {
        const p = window.__graphPlotted as Plotted | undefined;
        const i = p ? p.fields.indexOf(f) : -1;
        if (i < 0) return false;
        const times = p!.cols[0].filter((_, row) => p!.cols[i + 1]![row] !== null);
        return times.length >= 3 && times.at(-1)! - times[0]! >= 20;
      },
      celsius,
      { timeout: limit(60_000) },
    )
    .catch(async (e) => {
      throw new Error(
        `${e}: ${JSON.stringify(await drawn(celsius))} ${await rig.page.evaluate(() => JSON.stringify(window.__graphPlotted?.fields))}`,
      );
    });
  const before = (await drawn(celsius))!;
  const last = before.at(-1)![0];
  const values = before.map(([, v]) => v);
  const low = (Math.min(...values) * 9) / 5 + 32 - 1e-6;
  const high = (Math.max(...values) * 9) / 5 + 32 + 1e-6;
  await rig.unitElsewhere('degF');
  await picker.locator(`input[data-field="${fahrenheit}"]:checked`).waitFor({ state: 'attached' });
  // The graph goes on in °F: the °C points from before the switch stay on it, converted, in the
  // one line of the sensor (not a gap before the switch, not °C numbers on a °F axis).
  // (The graph asks again on the grid of its window: a point may move to the step around it.)
  // This test runs first: nothing was recorded in °F before this switch.
  const first = before[0]![0];
  const earlier = async () => ((await drawn(fahrenheit)) ?? []).filter(([time]) => time <= last - 10);
  const reaches = async () => ((await earlier())[0]?.[0] ?? Infinity) <= first + 10;
  for (let i = 0; i < 40 && !(await reaches()); i++) await new Promise((r) => setTimeout(r, 250));
  const kept = await earlier();
  t.ok(
    await reaches(),
    `the °F line holds the time before the switch (${first} to ${last}): ${JSON.stringify((await drawn(fahrenheit))?.slice(0, 3))}`,
  );
  t.same(
    kept.filter(([, v]) => v < low || v > high),
    [],
    `the points before the switch are the °C ones in °F (${values[0]} °C drawn between ${low} and ${high})`,
  );
  t.equal(await picker.locator(`input[data-field="${celsius}"]:checked`).count(), 0, 'no line in °C beside it');
  // The CSV holds the values as recorded, each column under the name of its unit.
  const [download] = await Promise.all([
    rig.page.waitForEvent('download'),
    rig.page.getByRole('button', { name: 'Export CSV' }).click(),
  ]);
  const csv = Buffer.concat(await (await download.createReadStream())!.toArray()).toString('utf8');
  t.equal(csv.split('\n')[0], `time,${fahrenheit},${celsius}`, 'the CSV has the °F column and the °C one beside it');
});

t.test("the autotune's swing and band typed while the unit is switched elsewhere are converted", async (t) => {
  t.teardown(async () => {
    await rig.unitElsewhere('degC');
    await api('blocks/patch', { id: 'Heat PID', type: 'Pid', data: { enabled: true } });
  });
  // Disabled, a Tune is refused after the page sent it: what it sent is what is checked.
  t.equal((await api('blocks/patch', { id: 'Heat PID', type: 'Pid', data: { enabled: false } })).status, 200);
  await rig.page.goto(`${rig.sim.cli.base}/#/overview`);
  const panel = card('Heat PID').getByTestId('tuning');
  const swing = panel.locator('label', { hasText: 'Swing' });
  const band = panel.locator('label', { hasText: 'Band' });
  await swing.locator('.unit').filter({ hasText: 'Δ°C' }).waitFor();
  await band.locator('.unit').filter({ hasText: 'Δ°C' }).waitFor();
  await swing.locator('input').fill('1,5');
  await band.locator('input').fill('4');
  await rig.unitElsewhere('degF');
  await swing.locator('.unit').filter({ hasText: 'Δ°F' }).waitFor();
  await band.locator('.unit').filter({ hasText: 'Δ°F' }).waitFor();
  t.equal(await swing.locator('input').inputValue(), '2.7', 'a swing typed as 1,5 Δ°C is 2.7 Δ°F');
  t.equal(await band.locator('input').inputValue(), '7.2', 'a band typed as 4 Δ°C is 7.2 Δ°F');
  const sent = rig.page.waitForRequest((r) => r.method() === 'POST' && /blocks\/patch$/.test(r.url()));
  await panel.getByRole('button', { name: 'Tune', exact: true }).click();
  const body = (await sent).postDataJSON() as { data: { tuning: Record<string, unknown> } };
  t.same(body.data.tuning, { command: 'START', amplitude: 2.7, band: 7.2 }, 'sent in the unit the service speaks');
  await card('Heat PID').locator('.answer.bad').filter({ hasText: 'Heat PID is disabled' }).waitFor();
});

t.test('a setpoint the service refuses keeps what was typed alongside the error', async (t) => {
  // The service's own refusal (a setting out of its range), answered to the card's next patch.
  const refusal = await api('blocks/patch', {
    id: 'Beer Setpoint',
    type: 'SetpointSensorPair',
    data: { storedSetting: 1000 },
  });
  t.equal(refusal.status, 422);
  await rig.page.route('**/blocks/patch', (r) => r.fulfill({ status: refusal.status, json: refusal.body }), {
    times: 1,
  });
  const c = card('Beer Setpoint');
  const setting = c.getByTestId('setting-Beer Setpoint');
  // The page speaks °C again (the test before switched it back).
  await c.locator('.unit').filter({ hasText: '°C' }).waitFor();
  await setting.fill('18,5');
  await c.getByRole('button', { name: 'Set' }).click();
  await c.getByRole('status').filter({ hasText: '(422)' }).waitFor();
  t.equal(await setting.inputValue(), '18,5', 'the typed value stays with the error');
  await c.getByRole('button', { name: 'Set' }).click();
  await c.getByRole('status').filter({ hasText: 'saved' }).waitFor();
  t.equal(
    (await api('blocks/read', { id: 'Beer Setpoint' })).body.data.storedSetting.value,
    18.5,
    'and can be sent again',
  );
});

t.test('an open graph follows a unit switched elsewhere: its temperatures go on in the new unit', async (t) => {
  t.teardown(() => rig.unitElsewhere('degC'));
  const celsius = 'edge-one/Beer Setpoint/value[degC]';
  const fahrenheit = 'edge-one/Beer Setpoint/value[degF]';
  await rig.recorded(celsius);
  await rig.page.goto(`${rig.sim.cli.base}/#/graphs`);
  const picker = rig.page.getByTestId('field-picker');
  await picker.locator(`input[data-field="${celsius}"]:checked`).waitFor({ state: 'attached' });
  await rig.page.getByTestId('chart').locator('canvas').waitFor();
  const asked = rig.page.waitForRequest(
    (r) => r.url().endsWith('/history/timeseries/ranges') && (r.postData() ?? '').includes(fahrenheit),
  );
  await rig.unitElsewhere('degF');
  await picker.locator(`input[data-field="${fahrenheit}"]:checked`).waitFor({ state: 'attached' });
  t.ok(
    ((await asked).postDataJSON() as { fields: string[] }).fields.includes(fahrenheit),
    'the °F fields are asked for',
  );
  // The °C names are asked for too (their points from before the switch are drawn in the °F
  // lines, the next test), but none is drawn as a line of its own.
  await rig.page.waitForFunction((f) => (window.__graphPlotted as Plotted | undefined)?.fields.includes(f), fahrenheit);
  const fields = await rig.page.evaluate(() => (window.__graphPlotted as Plotted).fields);
  t.notOk(
    fields.some((f) => /\[(delta_)?degC\]$/.test(f) && f.startsWith('edge-one/')),
    `no field of this controller in °C is drawn: ${fields.join(', ')}`,
  );
  t.equal(await picker.locator(`input[data-field="${celsius}"]:checked`).count(), 0, 'the °C field is no longer drawn');
});
