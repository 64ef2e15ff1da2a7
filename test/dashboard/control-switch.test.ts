// The "Stop all outputs" switch of an open page follows control as the service has it, in Debian's
// Chromium against the built CLI on emulated hardware: stopped or resumed elsewhere (another
// tab, a phone, curl), the page says so and offers the other button, instead of showing what
// it read when it opened (a page that said "all outputs are off" while they ran again).
// Needs `npm run build` and `npm run build:web`.
// tags: slow (a real Chromium)
import t from 'tap';
import { limit } from '../helpers/limits.js';
import { requireWebBuild, simInBrowser } from './browser.js';

requireWebBuild();
t.setTimeout(limit(120_000));

const rig = simInBrowser(t, { demo: false });

/** Control set by another client than the page (PUT settings/enabled, as curl or a second tab does). */
async function setElsewhere(enabled: boolean): Promise<void> {
  const res = await fetch(`${rig.sim.cli.base}/edge-one/settings/enabled`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ enabled }),
  });
  if (res.status !== 200) throw new Error(`PUT settings/enabled: ${res.status} ${await res.text()}`);
}

t.test('control stopped and resumed elsewhere: the open page follows', async (t) => {
  await rig.page.goto(`${rig.sim.cli.base}/#/overview`);
  const sw = rig.page.getByTestId('control-switch');
  await sw.getByRole('button', { name: 'Stop all outputs' }).waitFor();

  await setElsewhere(false);
  await sw.getByRole('button', { name: 'Resume control' }).waitFor();
  t.match(await sw.innerText(), 'Control is stopped: all outputs are off.', 'the page says control is stopped');

  // The page's own answer is about its own click: one made here, then undone elsewhere, goes.
  await sw.getByRole('button', { name: 'Resume control' }).click();
  await sw.getByRole('status').filter({ hasText: 'Control resumed' }).waitFor();
  await setElsewhere(false);
  await sw.getByRole('button', { name: 'Resume control' }).waitFor();
  t.equal(await sw.getByRole('status').count(), 0, '"Control resumed" is not left beside a stopped control');

  await setElsewhere(true);
  await sw.getByRole('button', { name: 'Stop all outputs' }).waitFor();
  t.notMatch(await sw.innerText(), 'Control is stopped', 'no longer says the outputs are off');
  t.same(await (await fetch(`${rig.sim.cli.base}/edge-one/settings/enabled`)).json(), { enabled: true });
});
