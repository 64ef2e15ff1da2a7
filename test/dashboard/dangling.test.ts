// Links to a deleted block (what blocks/delete answers as `dangling`) are shown as such. The
// overview's cards said so only of a block's top-level links: a mutex constraint's link to a
// deleted mutex (which keeps the output from switching on) was not on the card, and the editor
// said the missing mutex "is free for it". The editor's link pickers showed an empty choice for a
// missing target (the id was in no option). Now the card names the place and the missing block,
// the pickers show the missing block as chosen, marked missing, with a word beside it, and the
// mutex constraint says the mutex is missing. Deleting a block on its page asked only "Delete X?"
// and then said nothing of the links it left (the answer's `dangling`): the question and the
// page after it now name them; the block list marks the blocks with such a link. Names with
// quotes, markup and emoji. A real Chromium against the built CLI with the demo blocks; needs
// `npm run build` and `npm run build:web`.
// tags: slow (a real Chromium)
import t from 'tap';
import { limit } from '../helpers/limits.js';
import { demoInBrowser, requireWebBuild } from './browser.js';

requireWebBuild();
t.setTimeout(limit(240_000));
const rig = demoInBrowser(t, 500);
const api = (p: string, body?: unknown) => rig.api(p, body);

const SENSOR = 'Brew "Kettle" <b>🍺</b>';
const MUTEX = "Heat/Cool 'Mutex'";

t.before(async () => {
  for (const [existing, desired] of [
    ['Beer Sensor', SENSOR],
    ['Heat Cool Mutex', MUTEX],
  ])
    if ((await api('blocks/rename', { existing, desired })).status !== 200) throw new Error(`${existing} not renamed`);
  const gone = await api('blocks/delete', [{ id: SENSOR }, { id: MUTEX }]);
  if (gone.status !== 200) throw new Error(`not deleted: ${JSON.stringify(gone.body)}`);
});

t.test('the cards name every link to a deleted block, nested ones too', async (t) => {
  await rig.page.goto(`${rig.sim.cli.base}/#/overview`);
  const problems = (id: string) =>
    rig.page.locator(`section.card[data-block="${id}"] .problems`).innerText({ timeout: limit(15_000) });
  t.match(await problems('Beer Setpoint'), `Sensor links to missing block "${SENSOR}"`);
  for (const id of ['Heater', 'Cooler'])
    t.match(await problems(id), `Constraints › Mutex links to missing block "${MUTEX}"`, `${id}: its mutex`);
});

t.test('the block list marks the blocks with a link to a deleted block', async (t) => {
  await rig.page.goto(`${rig.sim.cli.base}/#/block`);
  const entry = (id: string) =>
    rig.page.locator('.blocklist li').filter({ has: rig.page.getByRole('link', { name: id, exact: true }) });
  t.match(await entry('Beer Setpoint').innerText({ timeout: limit(15_000) }), `links to missing block "${SENSOR}"`);
  t.match(await entry('Heater').innerText(), `links to missing block "${MUTEX}"`);
  t.notMatch(await entry('Fridge Sensor').innerText(), 'missing', 'a block with its links whole is not marked');
});

t.test("the editor's pickers show the missing block, marked", async (t) => {
  await rig.page.goto(`${rig.sim.cli.base}/#/block/${encodeURIComponent('Beer Setpoint')}`);
  const sensor = rig.page.locator('select[name=sensorId]');
  await sensor.waitFor();
  t.equal(await sensor.inputValue(), SENSOR, 'the link is shown as it is');
  t.equal(
    await sensor.locator('option:checked').innerText(),
    `${SENSOR} (missing)`,
    'the chosen option says the block is missing',
  );
  t.match(await rig.page.getByTestId('dangling-sensorId').innerText(), `links to missing block "${SENSOR}"`);

  await rig.page.goto(`${rig.sim.cli.base}/#/block/Heater`);
  const mutex = rig.page.locator('select[name="constraints.mutexed.mutexId"]');
  await mutex.waitFor();
  t.equal(await mutex.inputValue(), MUTEX);
  t.equal(await mutex.locator('option:checked').innerText(), `${MUTEX} (missing)`);
  const state = await rig.page.getByTestId('constraint-state-mutexed').innerText();
  t.notMatch(state, 'free', 'a missing mutex is not free');
  t.match(state, `${MUTEX} is missing`);
});

t.test('deleting a block on its page says which links it leaves pointing nowhere', async (t) => {
  await rig.page.goto(`${rig.sim.cli.base}/#/block/${encodeURIComponent('Cool PWM')}`);
  await rig.page.getByTestId('block-form').waitFor();
  let asked = '';
  rig.page.once('dialog', (d) => {
    asked = d.message();
    void d.accept();
  });
  await rig.page.getByRole('button', { name: 'Delete block' }).click();
  const gone = rig.page.getByTestId('block-gone');
  await gone.filter({ hasText: 'Cool PWM' }).waitFor();
  t.match(asked, /Cool PID \(Output\) links to it/, 'the question names the block that links to it');
  t.match(await gone.innerText(), /Block "Cool PWM" was deleted\..*Cool PID \(Output\)/s, 'the answer names it too');

  // Deleted elsewhere (REST) while its page is open: the links left are named from the blocks.
  await rig.page.goto(`${rig.sim.cli.base}/#/block/${encodeURIComponent('Heat PWM')}`);
  await rig.page.getByTestId('block-form').waitFor();
  t.equal((await api('blocks/delete', { id: 'Heat PWM' })).status, 200);
  await gone.filter({ hasText: 'Heat PWM' }).waitFor();
  t.match(await gone.innerText(), /was deleted \(possibly elsewhere\)\..*Heat PID \(Output\)/s);
});
