// A card says one thing under its controls: the answer to the last thing done on it. A value
// saved said "saved"; a value typed next and refused by the page ("abc", "1e400 C", a unit that
// does not fit, one out of the range) said the refusal beside the field and left the "saved"
// under the card, so the card said both; an edit since a save left the "saved" beside a value
// not saved. The rename's blank name and the tuning's Swing that is not a number did the same.
// Now a refusal replaces what the card said, an edit clears a "saved", and a save clears a
// refusal (web/src/CardFields.tsx useAnswer). The block's own page (its editor, one answer line
// already) left "saved" beside a number typed, a choice or a link picked since: now cleared.
// A real Chromium against the built CLI with the demo blocks; needs `npm run build` and
// `npm run build:web`.
// tags: slow (a real Chromium)
import t, { type Test } from 'tap';
import { limit } from '../helpers/limits.js';
import { demoInBrowser, requireWebBuild } from './browser.js';

requireWebBuild();
t.setTimeout(limit(240_000));
const rig = demoInBrowser(t, 500);
const api = (p: string, body?: unknown) => rig.api(p, body);
const SAVED = /\bsaved\b/;

/** Waits until the card of `id` says `text` anywhere. */
const said = (id: string, text: string) => rig.card(id).getByText(text).first().waitFor();

/** Checks what the card of `id` says now: `want` in its answer line, and no "saved" anywhere on it. */
async function refusedOnly(t: Test, id: string, typed: string, want: string) {
  await said(id, want);
  const says = await rig.cardSays(id);
  t.ok(
    says.length === 1 && says[0]!.includes(want),
    `"${typed}": the card's answer line says "${want}" (${JSON.stringify(says)})`,
  );
  t.notMatch(await rig.card(id).innerText(), SAVED, `"${typed}": the card does not also say "saved"`);
}

/** Types a good value, waits for "saved", and checks that no refusal is left beside it. */
async function saved(t: Test, id: string, typed: string, refused: string[]) {
  await rig.setOnCard(id, typed);
  await rig.card(id).getByRole('status').filter({ hasText: SAVED }).waitFor();
  const text = await rig.card(id).innerText();
  t.same(
    refused.filter((r) => text.includes(r)),
    [],
    `"${typed}" saved: no earlier refusal left (${JSON.stringify(await rig.cardSays(id))})`,
  );
}

t.test('a setpoint\'s refused value replaces "saved"; a good one replaces the refusal', async (t) => {
  await rig.page.goto(`${rig.sim.cli.base}/#/overview`);
  const id = 'Beer Setpoint';
  await rig.card(id).locator('.unit').filter({ hasText: '°C' }).waitFor();
  const cases = [
    ['abc', 'enter a number'],
    ['1e400 C', 'enter a number'],
    ['5 %', 'this field is in °C, not %'],
    ['68 F', 'this field is in °C: 68 F is 20 °C'],
    ['1000', 'between -40 and 150'],
  ] as const;
  const refusals = cases.map(([, want]) => want);
  let good = 18;
  await saved(t, id, String(good), refusals);
  for (const [typed, want] of cases) {
    await rig.setOnCard(id, typed);
    await refusedOnly(t, id, typed, want);
    t.equal(await rig.card(id).getByTestId(`setting-${id}`).inputValue(), typed, 'what was typed stays');
    good += 0.5;
    await saved(t, id, String(good), refusals);
  }
  t.equal((await api('blocks/read', { id })).body.data.storedSetting.value, good, 'the last good value is the setting');
});

t.test('an edit since a save clears its "saved", also one made while the save was on its way', async (t) => {
  const id = 'Beer Setpoint';
  const field = rig.card(id).getByTestId(`setting-${id}`);
  await saved(t, id, '19', []);
  await field.fill('19.5');
  t.same(await rig.cardSays(id), [], 'typing a new value: the card no longer says "saved"');

  // The save held until the field is typed in again: its answer is not said beside the newer value.
  let release = () => undefined as void;
  const held = new Promise<void>((r) => (release = r));
  await rig.page.route(
    '**/blocks/patch',
    async (r) => {
      await held;
      await r.continue();
    },
    { times: 1 },
  );
  const answered = rig.page.waitForResponse((r) => /blocks\/patch$/.test(r.url()));
  await rig.card(id).getByRole('button', { name: 'Set', exact: true }).click();
  await rig.card(id).getByRole('status').filter({ hasText: 'sending' }).waitFor();
  await field.fill('20.5');
  release();
  t.equal((await answered).status(), 200, 'the held save went through');
  // The answer is handled in the page after the response: give it a frame.
  await rig.page.evaluate('new Promise((r) => requestAnimationFrame(() => setTimeout(r, 50)))');
  t.equal(await field.inputValue(), '20.5', 'the newer value stays in the field');
  t.notMatch(await rig.card(id).innerText(), SAVED, 'and "saved" is not said beside it');
  t.equal((await api('blocks/read', { id })).body.data.storedSetting.value, 19.5, 'what was sent was saved');
  await saved(t, id, '20.5', []);
});

t.test('a PWM\'s refused setting replaces "saved" too', async (t) => {
  const id = 'Card PWM';
  t.equal(
    (await api('blocks/create', { id, type: 'ActuatorPwm', data: { enabled: true, storedSetting: 0 } })).status,
    201,
  );
  t.teardown(() => api('blocks/delete', { id }));
  await rig.page.goto(`${rig.sim.cli.base}/#/overview`);
  const cases = [
    ['150', 'between 0 and 100'],
    ['1e400 %', 'enter a number'],
    ['20 °C', 'this field is in %, not °C'],
  ] as const;
  const refusals = cases.map(([, want]) => want);
  let good = 40;
  await saved(t, id, String(good), refusals);
  for (const [typed, want] of cases) {
    await rig.setOnCard(id, typed);
    await refusedOnly(t, id, typed, want);
    good += 5;
    await saved(t, id, `${good} %`, refusals);
  }
  t.equal((await api('blocks/read', { id })).body.data.storedSetting, good, 'the last good value is the setting');
});

t.test('a blank rename after a save: the card says the refusal alone', async (t) => {
  await rig.page.goto(`${rig.sim.cli.base}/#/overview`);
  const sp = 'Beer Setpoint';
  await saved(t, sp, '18', []);
  await rig.card(sp).getByRole('button', { name: 'Rename' }).click();
  await rig.card(sp).getByTestId('rename').locator('input').fill('   ');
  await rig.card(sp).getByRole('button', { name: 'Save name' }).click();
  await refusedOnly(t, sp, '   ', 'not renamed: the new name is empty');
  await rig.card(sp).getByRole('button', { name: 'Cancel' }).click();
  t.same(await rig.cardSays(sp), [], 'closed, the rename form takes its refusal with it');
  await saved(t, sp, '18.5', ['not renamed']);
  t.equal((await api('blocks/read', { id: sp })).status, 200, 'nothing renamed');
});

t.test('a Swing that is not a number replaces the answer of a toggle', async (t) => {
  await rig.page.goto(`${rig.sim.cli.base}/#/overview`);
  const id = 'Cool PID';
  const enabled = rig.card(id).getByLabel('Control enabled');
  t.teardown(() => api('blocks/patch', { id, type: 'Pid', data: { enabled: true } }));
  // A click, not uncheck(): the box shows the block's state, which changes with the answer.
  await enabled.click();
  await rig.card(id).getByRole('status').filter({ hasText: SAVED }).waitFor();
  t.equal(await enabled.isChecked(), false, 'the PID is disabled');
  await rig.card(id).getByTestId('tuning').waitFor();
  await rig.card(id).getByLabel('Swing').fill('abc');
  await rig.card(id).getByRole('button', { name: 'Tune', exact: true }).click();
  await refusedOnly(t, id, 'abc', 'not started: Swing: "abc" is not a number');
  await enabled.click();
  await rig.card(id).getByRole('status').filter({ hasText: SAVED }).waitFor();
  t.notMatch(await rig.card(id).innerText(), /not started/, 'the next save clears the refusal');
});

t.test('the block\'s page: an edit since a save clears its "saved" (a number, a choice, a link)', async (t) => {
  const id = 'Beer Setpoint';
  await rig.page.goto(`${rig.sim.cli.base}/#/block/${encodeURIComponent(id)}`);
  const form = rig.page.getByTestId('block-form');
  const answer = rig.page.getByTestId('editor-answer');
  const save = async () => {
    await form.getByRole('button', { name: 'Save changes' }).click();
    await answer.filter({ hasText: SAVED }).waitFor();
  };
  await form.locator('input[name=storedSetting]').fill('19');
  await save();
  await form.locator('input[name=storedSetting]').fill('19.5');
  t.equal(await answer.count(), 0, 'a number typed: "saved" is gone');
  await save();
  const filter = form.locator('select[name=filter]');
  const other = await filter.evaluate(
    (s: { value: string; options: ArrayLike<{ value: string }> }) =>
      Array.from(s.options).find((o) => o.value && o.value !== s.value)!.value,
  );
  await filter.selectOption(other);
  t.equal(await answer.count(), 0, 'another choice picked: "saved" is gone');
  await save();
  await form.locator('select[name=sensorId]').selectOption('Fridge Sensor');
  t.equal(await answer.count(), 0, 'another link picked: "saved" is gone');
  await form.locator('input[name=storedSetting]').fill('abc');
  await form.getByRole('button', { name: 'Save changes' }).click();
  await answer.filter({ hasText: 'not sent' }).waitFor();
  t.notMatch(await answer.innerText(), SAVED, 'a refusal is said alone');
  t.equal((await api('blocks/read', { id })).body.data.sensorId.id, 'Beer Sensor', 'nothing sent');
});
