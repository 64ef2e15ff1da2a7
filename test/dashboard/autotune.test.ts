// The PID autotune from the dashboard, in a real browser (Debian's Chromium) against the built
// CLI on emulated hardware with the demo blocks: Tune on the Heat PID card starts a tuning of the
// heat/cool pair on the controller, the card shows the progress (cycle k of n) and Stop, the
// paired Cool PID's card says it is being tuned with it, Stop ends it and the card says why.
// At real speed: a whole tuning, Apply and Undo are in autotune-run.test.ts (on a virtual clock).
// Needs `npm run build` and `npm run build:web`.
// tags: slow (a real Chromium)
import t from 'tap';
import { limit } from '../helpers/limits.js';
import { demoInBrowser, requireWebBuild, screenshot } from './browser.js';

requireWebBuild();

t.setTimeout(limit(180_000));
const rig = demoInBrowser(t);

const api = rig.api;
const read = async (id: string) => ((await api('blocks/read', { id })).body as { data: Record<string, any> }).data;

t.test('Tune on the PID card: progress, the pair, Stop', async (t) => {
  // The beer must read before a tuning can start.
  for (let i = 0; i < 100 && (await read('Beer Setpoint')).value?.value == null; i++)
    await new Promise((r) => setTimeout(r, 200));
  const before = await read('Heat PID');
  t.equal((await api('blocks/patch', { id: 'Heat PID', type: 'Pid', data: { tuning: { cycles: 3 } } })).status, 200);

  await rig.page.goto(rig.sim.cli.base);
  const card = rig.page.locator('section.card[data-block="Heat PID"]');
  const panel = card.getByTestId('tuning');
  await panel.waitFor();
  t.equal(await panel.getAttribute('data-state'), 'IDLE');
  // A swing the band cannot hold is refused with the reason, and the band is there to widen.
  await card.getByLabel('Swing').fill('1.5');
  await card.getByRole('button', { name: 'Tune', exact: true }).click();
  await card.locator('.answer.bad').filter({ hasText: 'must be at least 2 times the amplitude' }).waitFor();
  t.equal((await read('Heat PID')).tuning.state, 'IDLE', 'nothing started');
  await card.getByLabel('Band').fill('3');
  await card.getByRole('button', { name: 'Tune', exact: true }).click();
  await card.getByTestId('tuning-progress').waitFor();
  const wide = await read('Heat PID');
  t.same([wide.tuning.amplitude.value, wide.tuning.band.value], [1.5, 3], 'started with both typed in');
  await card.getByRole('button', { name: 'Stop tuning' }).click();
  await card.locator('[data-testid=tuning][data-state=ABORTED]').waitFor();
  await card.getByLabel('Swing').fill('0.4');
  await card.getByRole('button', { name: 'Tune', exact: true }).click();
  const progress = card.getByTestId('tuning-progress');
  await progress.waitFor();
  t.match(await progress.innerText(), /Tuning: cycle 0 of 3/, 'progress shows the cycle count');
  // Before a first cycle there is no estimate (timeLeft's value is null): no "about — left".
  t.match(
    await progress.innerText(),
    /^Tuning: cycle 0 of 3 \([\d.]+ (s|min) so far\)$/,
    'no time left before a first cycle',
  );
  t.equal(await card.getByRole('button', { name: 'Stop tuning' }).count(), 1, 'a Stop button while it runs');
  const running = await read('Heat PID');
  t.equal(running.tuning.state, 'RUNNING', 'the click started it on the controller');
  t.equal(running.tuning.amplitude.value, 0.4, 'with the swing typed in');
  // In the brewer's words and units, as every number on the card: no API unit names.
  t.match(
    await card.getByTestId('tuning-message').innerText(),
    /^relay running: the output switches [\d.]+ °C either side of [\d.]+ °C$/,
  );

  const pair = rig.page.locator('section.card[data-block="Cool PID"]').getByTestId('tuning');
  await pair.filter({ hasText: 'Being tuned with Heat PID' }).waitFor();
  t.pass('the pair says it is being tuned with Heat PID, and offers no Tune of its own');
  t.equal(await pair.getByRole('button').count(), 0);
  await screenshot(rig.page, 'autotune-running');

  await card.getByRole('button', { name: 'Stop tuning' }).click();
  await card.locator('[data-testid=tuning][data-state=ABORTED]').waitFor();
  await card.getByTestId('tuning-message').filter({ hasText: 'stopped by the user' }).waitFor();
  const stopped = await read('Heat PID');
  t.equal(stopped.tuning.state, 'ABORTED');
  t.same(
    [stopped.kp.value, stopped.ti.value, stopped.td.value],
    [before.kp.value, before.ti.value, before.td.value],
    'gains unchanged',
  );
  await card.getByRole('button', { name: 'Tune', exact: true }).waitFor();
  await pair.filter({ hasNotText: 'Being tuned' }).waitFor();
  t.pass('Tune is offered again and the pair is released');

  // A refusal is shown with the server's reason.
  await api('blocks/patch', { id: 'Heat PID', type: 'Pid', data: { enabled: false } });
  await card.getByRole('button', { name: 'Tune', exact: true }).click();
  await card.locator('.answer.bad').filter({ hasText: 'Heat PID is disabled' }).waitFor();
  t.pass('a refused Tune shows why');
  t.end();
});
