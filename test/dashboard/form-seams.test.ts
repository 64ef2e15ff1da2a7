// Forms where two features meet, as a brewer meets them: a rename with a blank name says so (it
// did nothing); an editor with a value typed in keeps it when the block is renamed in another
// tab (the page followed the rename and dropped it). A real Chromium against the built CLI with
// the demo blocks; needs `npm run build` and `npm run build:web`.
// tags: slow (a real Chromium)
import t from 'tap';
import { limit } from '../helpers/limits.js';
import { demoInBrowser, requireWebBuild } from './browser.js';

requireWebBuild();
t.setTimeout(limit(240_000));
const rig = demoInBrowser(t, 500);
const api = (p: string, body?: unknown) => rig.api(p, body);
const card = (id: string) => rig.page.locator(`section.card[data-block="${id}"]`);
const read = async (id: string) => (await api('blocks/read', { id })).body.data;

t.test('a rename with a blank name says so', async (t) => {
  await rig.page.goto(`${rig.sim.cli.base}/#/overview`);
  const c = card('Fridge Sensor');
  await c.getByRole('button', { name: 'Rename' }).click();
  await c.getByTestId('rename').locator('input').fill('   ');
  await c.getByRole('button', { name: 'Save name' }).click();
  await c.getByTestId('rename').getByText('not renamed: the new name is empty').waitFor();
  t.equal((await api('blocks/read', { id: 'Fridge Sensor' })).status, 200, 'still named Fridge Sensor');
});

t.test('a value typed in the editor is kept when the block is renamed in another tab', async (t) => {
  await rig.page.goto(`${rig.sim.cli.base}/#/block/${encodeURIComponent('Beer Setpoint')}`);
  const form = rig.page.getByTestId('block-form');
  await form.locator('input[name=storedSetting]').fill('21.5');
  t.equal((await api('blocks/rename', { existing: 'Beer Setpoint', desired: 'Tank Setpoint' })).status, 200);
  await rig.page.locator('.block-page h2').filter({ hasText: 'Tank Setpoint' }).waitFor();
  t.equal(await form.locator('input[name=storedSetting]').inputValue(), '21.5', 'the typed value is still there');
  await form.getByRole('button', { name: 'Save changes' }).click();
  await rig.page.getByTestId('editor-answer').filter({ hasText: 'saved' }).waitFor();
  t.equal((await read('Tank Setpoint')).storedSetting.value, 21.5, 'and saved under the new name');
});
