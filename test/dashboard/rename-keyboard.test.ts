// Renaming a block on its card with the keyboard alone, in Debian's Chromium against the built CLI
// on emulated hardware with the demo blocks. Enter on "Rename" took the button away and left the
// focus on the page, so the name typed next went nowhere and Enter saved nothing; and an opened
// rename form could not be closed (no Cancel, Escape did nothing). Now the name field takes the
// focus, Escape or Cancel closes the form and gives the focus back to "Rename".
// Needs `npm run build` and `npm run build:web`.
// tags: slow (a real Chromium)
import t from 'tap';
import { postJson } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';
import { demoInBrowser, requireWebBuild } from './browser.js';

declare const document: { activeElement: { textContent: string | null; tagName: string } | null };

requireWebBuild();
t.setTimeout(limit(120_000));

const rig = demoInBrowser(t);

const card = (id: string) => rig.page.locator(`section.card[data-block=${JSON.stringify(id)}]`);
const focused = () =>
  rig.page.evaluate(() => ({ tag: document.activeElement?.tagName, text: document.activeElement?.textContent }));

t.test('Enter on Rename, type the name, Enter: renamed', async (t) => {
  await rig.page.goto(`${rig.sim.cli.base}/#/overview`);
  await card('Beer Setpoint').getByRole('button', { name: 'Rename' }).focus();
  await rig.page.keyboard.press('Enter');
  // Read at once, as a quick typist's next key would land: the field has the focus in the same task.
  t.same(await focused(), { tag: 'INPUT', text: '' }, 'the name field has the focus as soon as Enter is handled');
  const name = 'Tank "A" 🍺';
  await rig.page.keyboard.type(name);
  await rig.page.keyboard.press('Enter');
  await card(name).waitFor();
  const read = await postJson(`${rig.sim.cli.base}/edge-one/blocks/read`, { id: name });
  t.equal(read.status, 200, 'the block has the name typed');
});

t.test('Escape or Cancel closes the rename form and gives the focus back', async (t) => {
  const heat = card('Heat PID');
  await heat.getByRole('button', { name: 'Rename' }).focus();
  await rig.page.keyboard.press('Enter');
  await heat.getByTestId('rename').waitFor();
  await rig.page.keyboard.type('never saved');
  await rig.page.keyboard.press('Escape');
  await heat.getByTestId('rename').waitFor({ state: 'detached' });
  t.same(await focused(), { tag: 'BUTTON', text: 'Rename' }, 'Escape: the focus is on Rename again');

  await heat.getByRole('button', { name: 'Rename' }).click();
  await heat.getByRole('button', { name: 'Cancel' }).click();
  await heat.getByTestId('rename').waitFor({ state: 'detached' });
  t.equal((await postJson(`${rig.sim.cli.base}/edge-one/blocks/read`, { id: 'Heat PID' })).status, 200, 'not renamed');
});
