// A Sequence on its block page, as on its card. The card named a line naming a missing block
// ("Instruction 2 links to missing block ..."), the block editor's text area did not; and the
// editor counted instructions from 0 (Active instruction 0, Error instruction 1) where the card and
// the controller's error message count from 1 ("Instruction 2: INVALID_TARGET ..."). Typing an
// active instruction was answered "saved" and not taken (a Sequence takes one from a write only
// with overrideState). Now the text area is marked by the card's rule as it is typed, every
// number shown counts from 1, and a typed instruction is taken (the API's activeInstruction stays
// Brewblox's index from 0); a line too long is named by its number from 1 before it is sent. A real Chromium against the built CLI with the demo blocks; needs
// `npm run build` and `npm run build:web`.
// tags: slow (a real Chromium)
import t from 'tap';
import { limit } from '../helpers/limits.js';
import { demoInBrowser, requireWebBuild } from './browser.js';

requireWebBuild();
t.setTimeout(limit(240_000));
const rig = demoInBrowser(t, 500);
const api = (p: string, body?: unknown) => rig.api(p, body);
const read = async (id: string) => (await api('blocks/read', { id })).body.data;

const SEQ = 'Steps';
const GONE = "Gone 'Setpoint', x=1";

t.before(async () => {
  const made = await api('blocks/create', {
    id: SEQ,
    type: 'Sequence',
    data: {
      enabled: false,
      instructions: ['WAIT', `SET_SETPOINT target='Gone ''Setpoint'', x=1', setting=20C`, 'WAIT'],
    },
  });
  if (made.status !== 201) throw new Error(`not created: ${JSON.stringify(made.body)}`);
});

const page = () => rig.page;
const form = () => page().getByTestId('block-form');
/** The block's page afresh (what was typed on it before is dropped with the page). */
const openBlock = async () => {
  await page().goto(`${rig.sim.cli.base}/#/overview`);
  await page().goto(`${rig.sim.cli.base}/#/block/${SEQ}`);
};
const fact = (label: string) => page().locator(`[data-testid=block-now] dt:text-is("${label}") + dd`);

t.test('the text area marks a line naming a missing block in the words of the card, as it is typed', async (t) => {
  await page().goto(`${rig.sim.cli.base}/#/overview`);
  const onCard = await page()
    .locator(`section.card[data-block="${SEQ}"] .problems`)
    .innerText({ timeout: limit(15_000) });
  t.match(onCard, `Instruction 2 links to missing block "${GONE}"`, 'the card marks it');

  await openBlock();
  const marks = form().getByTestId('dangling-instructions');
  t.equal(
    await marks.innerText({ timeout: limit(15_000) }),
    `Instruction 2 links to missing block "${GONE}"`,
    'the editor marks the same line in the same words',
  );
  const area = form().locator('textarea[name=instructions]');
  t.equal(await area.getAttribute('aria-invalid'), 'true', 'and the text area is marked invalid');

  await area.fill(
    'WAIT\nWAIT\nSET_DIGITAL target=Gone Fan, setting=ON\nSET_SETPOINT target=Beer Setpoint, setting=20C',
  );
  await page().waitForFunction(() =>
    document.querySelector('[data-testid=dangling-instructions]')?.textContent?.includes('Gone Fan'),
  );
  t.equal(
    await marks.innerText(),
    'Instruction 3 links to missing block "Gone Fan"',
    'as typed: the new line, not the one deleted, nor a block that is there',
  );
  await area.fill('WAIT\nSET_SETPOINT target=Beer Setpoint, setting=20C');
  await marks.waitFor({ state: 'detached' });
  t.equal(await area.getAttribute('aria-invalid'), null, 'no mark once no line names a missing block');
});

t.test('a line too long is refused before it is sent, named by its number from 1', async (t) => {
  // The API's 422 names it by its index from 0: data.instructions.1.
  await openBlock();
  const area = form().locator('textarea[name=instructions]');
  await area.fill(`WAIT\n# ${'x'.repeat(600)}`);
  await form().getByRole('button', { name: 'Save changes' }).click();
  t.equal(
    await form().getByTestId('error-instructions').innerText(),
    'Instructions: line 2 has 602 characters, at most 500',
  );
  t.match(await page().getByTestId('editor-answer').innerText(), /^not sent: /);
});

t.test('instruction numbers count from 1 on the page, as on the card; a typed one is taken', async (t) => {
  await openBlock();
  const active = form().locator('input[name=activeInstruction]');
  await active.waitFor();
  t.equal((await read(SEQ)).activeInstruction, 0);
  t.equal(await active.inputValue(), '1', 'the first instruction is instruction 1');
  await active.fill('3');
  await form().getByRole('button', { name: 'Save changes' }).click();
  await page()
    .getByTestId('editor-answer')
    .filter({ hasText: 'saved' })
    .waitFor({ timeout: limit(15_000) });
  t.equal((await read(SEQ)).activeInstruction, 2, 'instruction 3 typed is index 2 in the API, and taken');
  await page().waitForFunction(
    () => (document.querySelector('input[name=activeInstruction]') as HTMLInputElement | null)?.value === '3',
  );

  // Stopped at its second line, which names a missing block: the page says instruction 2, as the card.
  const patched = await api('blocks/patch', {
    id: SEQ,
    type: 'Sequence',
    data: { enabled: true, instructions: ['WAIT_DURATION duration=0s', `SET_SETPOINT target=Nowhere, setting=20C`] },
  });
  t.equal(patched.status, 200);
  await fact('Error at instruction')
    .filter({ hasText: '2' })
    .waitFor({ timeout: limit(15_000) });
  const data = await read(SEQ);
  t.equal(data.errorInstruction, 1, 'the API keeps its index from 0');
  t.match(await fact('Error message').innerText(), /^instruction 2: INVALID_TARGET/);
  await page().goto(`${rig.sim.cli.base}/#/overview`);
  t.match(
    await page()
      .locator(`section.card[data-block="${SEQ}"] .problems`)
      .innerText({ timeout: limit(15_000) }),
    'Instruction 2: INVALID_TARGET',
    'the card says the same number',
  );

  // A line that does not parse: the column of its error counts from 1 too.
  const bad = 'SET_SETPOINT target=Nowhere, setting=20Q';
  await api('blocks/patch', { id: SEQ, type: 'Sequence', data: { instructions: ['WAIT', bad] } });
  await openBlock();
  await fact('Error at column').waitFor({ timeout: limit(15_000) });
  const pos = (await read(SEQ)).errorPos as number;
  t.equal(bad.slice(pos).startsWith('20Q'), true, 'the API counts the column from 0');
  t.equal(await fact('Error at column').innerText(), String(pos + 1));
  t.equal(await fact('Error at instruction').innerText(), '2');
});
