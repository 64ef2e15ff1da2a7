// The dashboard's steering and set-up pages in a real browser (Debian's Chromium) against the
// built CLI on emulated hardware with the demo blocks: temperature units (the datastore
// document), backup download and restore (and a broken file changing nothing), the generic
// block editor creating and editing a type the wizard does not make, enable/disable control and
// starting a setpoint profile. Needs `npm run build` and `npm run build:web`.
// tags: slow (a real Chromium)
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import type { Browser, Page } from 'playwright-core';
import { postJson } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';
import { launchBrowser, removeDir, startSim, type SimService, requireWebBuild, loadDemoBlocks } from './browser.js';

const SID = 'edge-one';

requireWebBuild();

t.setTimeout(limit(300_000));

let sim: SimService;
let browser: Browser;
let page: Page;
/** Every controller call the page made, so a test can tell that invalid input was not sent. */
const sent: string[] = [];

t.before(async () => {
  sim = await startSim();
  await loadDemoBlocks(sim);
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1200, height: 900 }, acceptDownloads: true });
  page.setDefaultTimeout(limit(15_000));
  page.on('request', (r) => {
    if (r.method() === 'POST') sent.push(new URL(r.url()).pathname);
  });
});

t.teardown(async () => {
  await browser?.close().catch(() => undefined);
  await sim?.stop();
  if (sim) removeDir(sim.dataDir);
});

const api = (p: string, body?: unknown) => postJson(`${sim.cli.base}/${SID}/${p}`, body);
const read = async (id: string) => (await api('blocks/read', { id })).body as { data: any };
const card = (id: string) => page.locator(`section.card[data-block="${id}"]`);
const status = (id: string, text: string | RegExp) => card(id).getByRole('status').filter({ hasText: text }).waitFor();
const ids = async () => ((await api('blocks/all/read')).body as Array<{ id: string }>).map((b) => b.id).sort();

async function chooseUnit(unit: 'degC' | 'degF') {
  await page.goto(`${sim.cli.base}/#/setup`);
  // The radio follows the service's answer, so it is clicked, not checked.
  await page.getByTestId('units').locator(`input[value=${unit}]`).click();
  await page
    .getByTestId('units')
    .getByRole('status')
    .filter({ hasText: `now in ${unit === 'degF' ? '°F' : '°C'}` })
    .waitFor();
}

t.test('degF: the page shows °F, a setting typed in °F is stored as °C, and the choice persists', async (t) => {
  await chooseUnit('degF');
  const doc = await postJson(`${sim.cli.base}/history/datastore/get`, { namespace: SID, id: 'units' });
  t.equal(doc.body.value?.temperature, 'degF', 'the datastore units document says degF');

  await page.goto(`${sim.cli.base}/#/overview`);
  await card('Beer Setpoint').getByTestId('headline').filter({ hasText: '°F' }).waitFor();
  await card('Beer Sensor').getByTestId('headline').filter({ hasText: '°F' }).waitFor();
  t.notMatch(await page.locator('section.group[data-role=sensor]').innerText(), '°C', 'no sensor card speaks °C');
  await card('Beer Setpoint').getByTestId('setting-Beer Setpoint').fill('64.4');
  await card('Beer Setpoint').getByRole('button', { name: 'Set' }).click();
  await status('Beer Setpoint', 'saved');
  t.same((await read('Beer Setpoint')).data.storedSetting.unit, 'degF');
  t.ok(Math.abs((await read('Beer Setpoint')).data.storedSetting.value - 64.4) < 0.01, 'REST (in °F) has 64.4');
  // The range check speaks °F too: 400 °F is refused on the page. The range is the field
  // table's (-40 to 150 °C, in the API document), converted by the service's table.
  await card('Beer Setpoint').getByTestId('setting-Beer Setpoint').fill('400');
  await card('Beer Setpoint').getByRole('button', { name: 'Set' }).click();
  await card('Beer Setpoint').getByText('between -40 and 302').waitFor();
  t.ok(
    Math.abs((await read('Beer Setpoint')).data.storedSetting.value - 64.4) < 0.01,
    'an out-of-range °F value was not sent',
  );

  await page.goto(`${sim.cli.base}/#/block/${encodeURIComponent('Beer Setpoint')}`);
  const stored = page.getByTestId('block-form').locator('label', { has: page.locator('input[name=storedSetting]') });
  t.match(await stored.innerText(), '°F', 'the editor labels the setting in °F');
  t.equal(await stored.locator('input').inputValue(), '64.4');

  await page.reload();
  await page.goto(`${sim.cli.base}/#/setup`);
  await page.getByTestId('units').locator('input[value=degF]:checked').waitFor();
  await page.goto(`${sim.cli.base}/#/overview`);
  await card('Beer Setpoint').getByTestId('headline').filter({ hasText: '°F' }).waitFor();
  t.pass('after a reload the page still speaks °F');

  await chooseUnit('degC');
  const back = (await read('Beer Setpoint')).data.storedSetting;
  t.equal(back.unit, 'degC');
  t.ok(Math.abs(back.value - 18) < 0.01, `64.4 °F was stored as 18 °C (got ${back.value})`);
  await page.goto(`${sim.cli.base}/#/overview`);
  await card('Beer Setpoint').getByTestId('headline').filter({ hasText: '°C' }).waitFor();
});

t.test(
  'backup: the download loads through the API, a restore brings back a deleted block, a broken file changes nothing',
  async (t) => {
    await page.goto(`${sim.cli.base}/#/setup`);
    const backup = page.getByTestId('backup');
    const [dl] = await Promise.all([
      page.waitForEvent('download'),
      backup.getByRole('button', { name: 'Download backup' }).click(),
    ]);
    const file = await dl.path();
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    t.ok(
      saved.blocks.some((b: { id: string }) => b.id === 'Cool PID'),
      'the file holds the blocks',
    );
    const direct = await api('blocks/backup/load', saved);
    t.equal(direct.status, 200, `the API's backup/load accepts the downloaded file: ${JSON.stringify(direct.body)}`);

    const before = await ids();
    t.equal((await api('blocks/delete', { id: 'Cool PID' })).status, 200);
    const userBlocks = (list: Array<{ nid: number }>) => list.filter((b) => b.nid >= 100).length;
    const onController = userBlocks((await api('blocks/all/read')).body);
    const inFile = userBlocks(saved.blocks);
    t.equal(inFile, onController + 1);
    const asked = new Promise<string>((resolve) =>
      page.once('dialog', (d) => {
        resolve(d.message());
        void d.accept();
      }),
    );
    await backup.locator('input[type=file]').setInputFiles(file);
    t.match(
      await asked,
      `Replace the ${onController} blocks on this controller with the ${inFile} blocks in `,
      'the confirm says how many blocks are replaced by how many',
    );
    await backup
      .getByRole('status')
      .filter({ hasText: /^loaded / })
      .waitFor();
    t.same(await ids(), before, 'every block is back');
    t.equal((await read('Cool PID')).data.outputId.id, 'Cool PWM', 'with its links');
    await page.goto(`${sim.cli.base}/#/overview`);
    await card('Cool PID').waitFor();

    await page.goto(`${sim.cli.base}/#/setup`);
    const dir = path.dirname(file);
    const truncated = path.join(dir, 'truncated.json');
    writeFileSync(truncated, readFileSync(file, 'utf8').slice(0, 200));
    const loadsBefore = sent.filter((p) => p.endsWith('/blocks/backup/load')).length;
    await backup.locator('input[type=file]').setInputFiles(truncated);
    await backup.getByRole('status').filter({ hasText: 'not valid JSON' }).waitFor();
    t.match(await backup.getByRole('status').innerText(), 'Nothing was changed');
    t.equal(
      sent.filter((p) => p.endsWith('/blocks/backup/load')).length,
      loadsBefore,
      'a file that is not JSON is not sent',
    );

    const broken = path.join(dir, 'broken.json');
    writeFileSync(broken, JSON.stringify({ ...saved, blocks: [{ id: 'Odd', type: 'NoSuchType', data: {} }] }));
    page.once('dialog', (d) => void d.accept());
    await backup.locator('input[type=file]').setInputFiles(broken);
    await backup.getByRole('status').filter({ hasText: 'NoSuchType' }).waitFor();
    const said = await backup.getByRole('status').innerText();
    t.match(said, /unknown block type/, `the server's words: ${said}`);
    t.match(said, '422');
    t.same(await ids(), before, 'the blocks are unchanged');
    t.equal((await read('Cool PID')).data.outputId.id, 'Cool PWM');
  },
);

t.test(
  'the generic editor creates and edits a type the wizard does not make, and catches bad input first',
  async (t) => {
    await page.goto(`${sim.cli.base}/#/block`);
    await page.locator('section.panel', { hasText: 'New block' }).locator('select').selectOption('ActuatorOffset');
    const form = page.getByTestId('block-form');
    await form.locator('input[name=id]').fill('Test Offset');
    await form.locator('select[name=targetId]').selectOption('Beer Setpoint');
    await form.locator('select[name=referenceId]').selectOption('Beer Setpoint');
    await form.locator('input[name=storedSetting]').fill('1.5');
    t.match(
      await form.locator('label', { has: page.locator('input[name=storedSetting]') }).innerText(),
      'Δ°C',
      'a new quantity field names its unit',
    );
    await form.getByRole('button', { name: 'Create block' }).click();
    // Created: the page moves on to the block's own editor, which says so.
    await page.locator('h2', { hasText: 'Test Offset' }).waitFor();
    await page.getByTestId('editor-answer').filter({ hasText: 'created Test Offset' }).waitFor();
    let made = await read('Test Offset');
    t.equal(made.data.targetId.id, 'Beer Setpoint');
    t.equal(made.data.storedSetting.value, 1.5);

    const edit = page.getByTestId('block-form');
    await edit.locator('input[name=storedSetting]').fill('-2.25');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await page.getByTestId('editor-answer').filter({ hasText: 'saved' }).waitFor();
    made = await read('Test Offset');
    t.equal(made.data.storedSetting.value, -2.25, 'the edit reached the server');

    const patches = sent.filter((p) => p.endsWith('/blocks/patch')).length;
    await edit.locator('input[name=storedSetting]').fill('two degrees');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await page.getByTestId('error-storedSetting').waitFor();
    t.match(await page.getByTestId('error-storedSetting').innerText(), 'Setting: "two degrees" is not a number');
    t.match(await page.getByTestId('editor-answer').innerText(), /^not sent: Setting/);
    t.equal(await edit.locator('input[name=storedSetting]').getAttribute('aria-invalid'), 'true');
    t.equal(sent.filter((p) => p.endsWith('/blocks/patch')).length, patches, 'nothing was sent');
    t.equal((await read('Test Offset')).data.storedSetting.value, -2.25, 'the server still has the last good value');
    t.equal(
      (await api('blocks/delete', { id: 'Test Offset' })).status,
      200,
      'removed again (it claims the beer setpoint)',
    );

    // A Sequence: its instructions are lines of a text area; a whole-number field refuses 1.5.
    await page.goto(`${sim.cli.base}/#/block`);
    await page.locator('section.panel', { hasText: 'New block' }).locator('select').selectOption('Sequence');
    const seq = page.getByTestId('block-form');
    await seq.locator('input[name=id]').fill('Test Sequence');
    await seq.locator('textarea[name=instructions]').fill('# warm up slowly\nWAIT_DURATION duration=1h\n');
    await seq.locator('input[name=activeInstruction]').fill('1.5');
    const creates = sent.filter((p) => p.endsWith('/blocks/create')).length;
    await seq.getByRole('button', { name: 'Create block' }).click();
    await page.getByTestId('error-activeInstruction').filter({ hasText: 'not a whole number' }).waitFor();
    t.equal(sent.filter((p) => p.endsWith('/blocks/create')).length, creates, 'not sent');
    // Counted from 1, as the card counts them (sequence-editor.test.ts): 0 is no instruction.
    await seq.locator('input[name=activeInstruction]').fill('0');
    await seq.getByRole('button', { name: 'Create block' }).click();
    await page.getByTestId('error-activeInstruction').filter({ hasText: 'between 1 and' }).waitFor();
    await seq.locator('input[name=activeInstruction]').fill('2');
    await seq.getByRole('button', { name: 'Create block' }).click();
    await page.getByTestId('editor-answer').filter({ hasText: 'created Test Sequence' }).waitFor();
    t.equal((await read('Test Sequence')).data.activeInstruction, 1, 'instruction 2 is index 1 in the API');
    t.same(
      (await read('Test Sequence')).data.instructions,
      ['# warm up slowly', 'WAIT_DURATION duration=1h'],
      'one instruction per line',
    );
    t.equal(
      await page.getByTestId('block-form').locator('textarea[name=instructions]').inputValue(),
      '# warm up slowly\nWAIT_DURATION duration=1h',
      'and shown that way',
    );
  },
);

t.test('enable and disable control from the overview', async (t) => {
  await page.goto(`${sim.cli.base}/#/overview`);
  // A toggle follows the service's answer: it shows the new state once the server has it.
  const toggle = async (id: string, label: string, on: boolean) => {
    const box = card(id).locator('label.toggle', { hasText: label }).locator('input');
    await box.click();
    await card(id)
      .locator('label.toggle', { hasText: label })
      .locator(on ? 'input:checked' : 'input:not(:checked)')
      .waitFor();
    await status(id, 'saved');
  };
  await toggle('Heat PID', 'control enabled', false);
  t.equal((await read('Heat PID')).data.enabled, false, 'the server has the PID disabled');
  await card('Heat PID').getByTestId('headline').filter({ hasText: 'disabled' }).waitFor();
  await toggle('Heat PID', 'control enabled', true);
  t.equal((await read('Heat PID')).data.enabled, true, 'and enabled again');
  await card('Heat PID').getByTestId('headline').filter({ hasText: '%' }).waitFor();

  await toggle('Beer Setpoint', 'enabled', false);
  t.equal((await read('Beer Setpoint')).data.enabled, false, 'the setpoint is disabled');
  await toggle('Beer Setpoint', 'enabled', true);
  t.equal((await read('Beer Setpoint')).data.enabled, true, 'and enabled again');
});

t.test('a setpoint profile starts and stops from its card', async (t) => {
  const made = await api('blocks/create', {
    id: 'Test Profile',
    type: 'SetpointProfile',
    data: {
      enabled: false,
      targetId: { __objtype: 'Link', id: 'Beer Setpoint' },
      points: [
        { time: 0, temperature: 19 },
        { time: 86400, temperature: 21 },
      ],
    },
  });
  if (made.status !== 201) throw new Error(`the test profile was not created: ${JSON.stringify(made.body)}`);
  await page.goto(`${sim.cli.base}/#/overview`);
  const profile = card('Test Profile');
  await profile.getByTestId('headline').filter({ hasText: 'stopped' }).waitFor();
  const clicked = Date.now();
  await profile.getByRole('button', { name: 'Start profile now' }).click();
  await status('Test Profile', 'profile started');
  const started = (await read('Test Profile')).data;
  t.equal(started.enabled, true, 'the server runs the profile');
  const start = typeof started.start === 'number' ? started.start * 1000 : Date.parse(started.start);
  t.ok(Math.abs(start - clicked) < limit(60_000), `it starts now (${started.start})`);
  await profile.getByTestId('headline').filter({ hasText: '°C' }).waitFor();
  t.match(await profile.getByTestId('headline').innerText(), /^19\.\d °C/, 'the card shows the profile setting');
  await profile.getByRole('button', { name: 'Stop' }).click();
  await status('Test Profile', 'profile stopped');
  t.equal((await read('Test Profile')).data.enabled, false);
});
