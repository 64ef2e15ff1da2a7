// A Sequence names its targets by block name in the text of its instructions. Links to a deleted
// block were marked on the cards, the block list and the delete question, but a Sequence line
// naming one was not: its card showed nothing, nor did the question before the delete, and the
// sequence failed only when it reached that line, which its card did not show either (a Sequence
// card said nothing of its status). Now the card and the block list name the instruction and
// the missing block, the delete question and the page after it name the lines left naming it, and
// a sequence that stops on a line shows the runtime's error on its card. A rename on the card
// rewrites the lines (as links follow it: Brewblox keeps the target as a link too) and the card
// stays whole. Names with quotes, a comma, markup and emoji. A real Chromium against the built CLI
// with the demo blocks; needs `npm run build` and `npm run build:web`.
// tags: slow (a real Chromium)
import t from 'tap';
import { limit } from '../helpers/limits.js';
import { demoInBrowser, requireWebBuild } from './browser.js';

requireWebBuild();
t.setTimeout(limit(240_000));
const rig = demoInBrowser(t, 500);
const api = (p: string, body?: unknown) => rig.api(p, body);

/** A comma in it: an instruction names it in single quotes, each quote doubled. */
const TARGET = `Brewer's, "Best" <b>🍺</b>`;
const RENAMED = `Tank "A" <i>🧪</i> 'two'`;
const STEPS = 'Brew "Steps" <script>x</script> 🍺';
const ALARM = "Alarm 🚨 'now' <b>";
const quoted = (name: string) => `'${name.replaceAll("'", "''")}'`;

const read = async (id: string) => (await api('blocks/read', { id })).body.data;
const card = (id: string) => rig.page.locator(`section.card[data-block="${id.replaceAll('"', '\\"')}"]`);

t.before(async () => {
  if ((await api('blocks/rename', { existing: 'Beer Setpoint', desired: TARGET })).status !== 200)
    throw new Error('not renamed');
  const seq = (id: string, enabled: boolean, instructions: string[]) =>
    api('blocks/create', { id, type: 'Sequence', data: { enabled, instructions } });
  // Steps waits at its first line; the line naming the block comes after it.
  const steps = await seq(STEPS, true, ['WAIT', `SET_SETPOINT target=${quoted(TARGET)}, setting=19C`]);
  // Alarm is off until the test turns it on; its first line names the block.
  const alarm = await seq(ALARM, false, [`SET_SETPOINT target=${quoted(TARGET)}, setting=19C`, 'WAIT']);
  if (steps.status !== 201 || alarm.status !== 201) throw new Error(`not created: ${JSON.stringify(alarm.body)}`);
});

t.test('a rename on the card rewrites the lines that name the block; the sequence card stays whole', async (t) => {
  await rig.page.goto(`${rig.sim.cli.base}/#/overview`);
  const target = card(TARGET);
  await target.getByRole('button', { name: 'Rename' }).click();
  await target.getByTestId('rename').locator('input').fill(RENAMED);
  await target.getByRole('button', { name: 'Save name' }).click();
  await card(RENAMED).waitFor({ timeout: limit(15_000) });
  t.same((await read(STEPS)).instructions, ['WAIT', `SET_SETPOINT target=${RENAMED}, setting=19.0C`]);
  t.equal((await read(ALARM)).instructions[0], `SET_SETPOINT target=${RENAMED}, setting=19.0C`);
  await card(STEPS).waitFor();
  t.equal(await card(STEPS).locator('.problems').count(), 0, 'no problem on the sequence card');
});

t.test('deleting the block on its page names the instruction lines left naming it', async (t) => {
  await rig.page.goto(`${rig.sim.cli.base}/#/block/${encodeURIComponent(RENAMED)}`);
  await rig.page.getByTestId('block-form').waitFor();
  let asked = '';
  rig.page.once('dialog', (d) => {
    asked = d.message();
    void d.accept();
  });
  await rig.page.getByRole('button', { name: 'Delete block' }).click();
  const gone = rig.page.getByTestId('block-gone');
  await gone.waitFor({ timeout: limit(15_000) });
  t.match(asked, `${STEPS} (Instruction 2)`, 'the question names the line of Steps');
  t.match(asked, `${ALARM} (Instruction 1)`, 'and the line of Alarm');
  const said = await gone.innerText();
  t.match(said, `${STEPS} (Instruction 2)`, 'the page after it names them too');
  t.match(said, `${ALARM} (Instruction 1)`);
});

t.test('the sequence card names the instruction and the missing block before the sequence reaches it', async (t) => {
  await rig.page.goto(`${rig.sim.cli.base}/#/overview`);
  const problems = card(STEPS).locator('.problems');
  t.match(await problems.innerText({ timeout: limit(15_000) }), `Instruction 2 links to missing block "${RENAMED}"`);
  t.equal((await read(STEPS)).status, 'WAITING', 'the sequence has not reached the line');
  t.match(await card(ALARM).locator('.problems').innerText(), `Instruction 1 links to missing block "${RENAMED}"`);

  await rig.page.goto(`${rig.sim.cli.base}/#/block`);
  const entry = rig.page
    .locator('.blocklist li')
    .filter({ has: rig.page.getByRole('link', { name: STEPS, exact: true }) });
  t.match(await entry.innerText({ timeout: limit(15_000) }), `links to missing block "${RENAMED}"`);
});

t.test("a sequence stopped at the line shows the runtime's error on its card", async (t) => {
  t.equal((await api('blocks/patch', { id: ALARM, type: 'Sequence', data: { enabled: true } })).status, 200);
  await rig.page.goto(`${rig.sim.cli.base}/#/overview`);
  const error = card(ALARM).locator('.problems li.error').filter({ hasText: 'INVALID_TARGET' });
  await error.waitFor({ timeout: limit(15_000) });
  const data = await read(ALARM);
  t.equal(data.status, 'ERROR');
  t.equal(data.errorInstruction, 0);
  t.match(await error.innerText(), `Instruction 1: INVALID_TARGET: no block "${RENAMED}" that SET_SETPOINT can use`);
});
