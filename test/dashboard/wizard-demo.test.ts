// Issue 50.6: the wizard on the demo after "Your first fermentation" (docs/first-fermentation.md,
// its demo commands run as written): the default prefix clashes with nothing (step 5 made
// "Ferment Profile"), the GPIO channel is offered by its configured name ("fan"), and the chain
// is created with those defaults. Needs `npm run build` and `npm run build:web`.
// tags: slow (a real Chromium)
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import type { Browser } from 'playwright-core';
import { postJson, startDemo } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';
import { shellBlocks } from '../helpers/markdown.js';
import { needTools } from '../helpers/tools.js';
import { fridgeNames } from '../../web/src/wizard.js';
import { launchBrowser, removeDir, requireWebBuild } from './browser.js';

needTools('bash', 'curl');
requireWebBuild();
t.setTimeout(limit(180_000));

t.test('the wizard after first-fermentation step 5 on the demo', async (t) => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'eb-wizard-demo-'));
  t.teardown(() => removeDir(dataDir));
  const demo = await startDemo(['--port', '0', '--https-port', '0', '--mqtt-port', '0', '--data-dir', dataDir], {}, t);
  const api = (p: string, body?: unknown) => postJson(`${demo.base}/edge-one/${p}`, body);
  const steps = shellBlocks('docs/first-fermentation.md').filter((b) => b.run === 'demo');
  const script = ['set -euo pipefail', 'curl() { command curl --fail-with-body --max-time 30 "$@"; echo; }']
    .concat(steps.map((b) => b.code))
    .join('\n')
    .replaceAll('localhost:5000', `127.0.0.1:${demo.port}`);
  const ran = spawnSync('bash', ['-c', script], { encoding: 'utf8', timeout: limit(60000), killSignal: 'SIGKILL' });
  t.equal(ran.status, 0, `the page's demo commands ran: ${ran.stderr}`);
  t.equal((await api('blocks/read', { id: 'Ferment Profile' })).status, 200, 'step 5 made Ferment Profile');

  const browser: Browser = await launchBrowser();
  t.teardown(() => browser.close().catch(() => undefined));
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  await page.goto(`${demo.base}/#/setup`);
  const wizard = page.getByTestId('wizard');
  await wizard
    .locator('select[name=heat] option')
    .nth(1)
    .waitFor({ state: 'attached', timeout: limit(15000) });

  const prefix = await wizard.locator('input[name=prefix]').inputValue();
  t.equal(prefix, 'Ferment 2', 'the default prefix is the first free one');
  for (const name of Object.values(fridgeNames(prefix)))
    t.equal((await api('blocks/read', { id: name })).status, 404, `${name} is free`);
  t.notMatch(await wizard.innerText(), /names in use/, 'no "names in use" with the defaults');

  const pins = (await api('blocks/read', { id: 'GpioPins' })).body.data;
  const fan = pins.lines.find((l: { name: string }) => l.name === 'fan');
  t.ok(fan, "the demo's GPIO line fan");
  const heaters = await wizard.locator('select[name=heat] option').allInnerTexts();
  t.ok(heaters.includes(`fan (GpioPins channel ${fan.channel})`), `fan offered by its name: ${heaters.join(' | ')}`);
  t.notOk(
    heaters.some((h) => h.startsWith('GpioPins channel')),
    'no GPIO channel offered by number alone',
  );

  await wizard.locator('select[name=beerSensor]').selectOption('Beer Sensor');
  await wizard.locator('select[name=fridgeSensor]').selectOption('Fridge Sensor');
  await wizard.locator('select[name=heat]').selectOption(`GpioPins#${fan.channel}`);
  await wizard.locator('select[name=cool]').selectOption('DS2408 00000000d001#2');
  await page.getByTestId('wizard-create').click();
  await page
    .getByTestId('wizard-log')
    .getByText(/^done:/)
    .waitFor({ timeout: limit(20000) });
  const heat = (await api('blocks/read', { id: 'Ferment 2 Heat Actuator' })).body;
  t.equal(heat.data.hwDevice.id, 'GpioPins', 'the chain was made with the default prefix, on the fan line');
});
