// A whole PID autotune driven from the dashboard, in a real browser (Debian's Chromium) against
// the built CLI on emulated hardware with the demo blocks: Tune on the Heat PID card, the card's
// progress (cycle k of n, time left), the proposal, Apply, the gains in the blocks, Undo.
// A tuning of the demo fermenter takes hours of plant time. The service runs on the soak's
// virtual clock (scripts/soak/virtual-clock.ts, preloaded with --import): its timers, Date and
// performance.now run on simulated time, which jumps to the next due timer whenever the service
// is idle, up to a rate ceiling. So the relay really runs for hours on the emulated plant (the
// 1-Wire reads, the PWM, the mutex) in a minute or so, and never looks late to itself (a clock
// merely sped up, like libfaketime's rate, makes every stall of the machine a stale sensor).
// Needs `npm run build` and `npm run build:web`.
// tags: slow (a real Chromium, hours of simulated time on the built CLI)
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import t from 'tap';
import { ROOT } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';
import { removeDir, screenshot, simInBrowser } from './browser.js';

const CLOCK = path.join(ROOT, 'dist/scripts/soak/virtual-clock.js');
/** Simulated seconds per real second at most once the tuning runs. */
const RATE = 2000;

for (const f of ['dist/web/index.html', 'dist/scripts/soak/virtual-clock.js'])
  if (!existsSync(path.join(ROOT, f)))
    throw new Error(`${f} is missing: run npm run build and npm run build:web first`);

t.setTimeout(limit(300_000));

const clockDir = mkdtempSync(path.join(os.tmpdir(), 'eb-tune-clock-'));
const clockFile = path.join(clockDir, 'clock.json');
let seq = 0;
/** The virtual clock's rate ceiling (it rereads the file while it runs). */
const setRate = (rate: number) => writeFileSync(clockFile, JSON.stringify({ rate, jumpBy: null, seq: ++seq }));

// The start (modules, the database, sockets) runs at real speed, as the soak does it.
setRate(1);
t.teardown(() => removeDir(clockDir));
const rig = simInBrowser(t, {
  extra: ['--emit-interval', '30000'],
  env: {
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${pathToFileURL(CLOCK).href}`.trim(),
    SOAK_CLOCK_FILE: clockFile,
  },
});
const api = rig.api;
const read = async (id: string) => ((await api('blocks/read', { id })).body as { data: Record<string, any> }).data;
const gains = (d: Record<string, any>) => [d.kp.value, d.ti.value, d.td.value];

t.test('Tune, progress, proposal, Apply and Undo on the demo fermenter', async (t) => {
  for (let i = 0; i < 100 && (await read('Beer Setpoint')).value?.value == null; i++)
    await new Promise((r) => setTimeout(r, 200));
  const heatBefore = gains(await read('Heat PID'));
  const coolBefore = gains(await read('Cool PID'));

  await rig.page.goto(rig.sim.cli.base);
  const card = rig.page.locator('section.card[data-block="Heat PID"]');
  const panel = card.getByTestId('tuning');
  await panel.waitFor();
  t.equal(await panel.getAttribute('data-state'), 'IDLE');

  setRate(RATE);
  const wallStart = Date.now();
  await card.getByRole('button', { name: 'Tune', exact: true }).click();
  // A counted cycle with the time left: the relay has run at least a warm-up and a full cycle.
  const progress = card.getByTestId('tuning-progress').filter({ hasText: /cycle [1-9] of 4, about .+ left/ });
  await progress.waitFor({ timeout: limit(120_000) });
  const progressText = await progress.innerText();
  t.match(progressText, /^Tuning: cycle [1-3] of 4, about [\d.]+ (h|min|s) left \([\d.]+ (h|min) so far\)$/);
  t.pass(`progress seen: ${progressText}`);
  t.equal(await card.getByRole('button', { name: 'Stop tuning' }).count(), 1, 'Stop is offered while it runs');

  const result = card.getByTestId('tuning-result');
  await result.waitFor({ timeout: limit(180_000) });
  const wallSeconds = (Date.now() - wallStart) / 1000;
  // Back to real speed: the rest is clicks.
  setRate(1);
  const proposed = await read('Heat PID');
  t.equal(proposed.tuning.state, 'PROPOSED', proposed.tuning.message);
  const r = proposed.tuning.result;
  const elapsed = proposed.tuning.elapsed.value as number;
  t.ok(
    elapsed >= 2 * 3600,
    `the relay ran for hours of plant time (${(elapsed / 3600).toFixed(1)} h in ${wallSeconds.toFixed(0)} s)`,
  );
  t.equal(proposed.tuning.cycle, 4, 'four steady cycles measured');
  t.ok(r.kp.value > 0 && r.pairKp.value < 0, 'gains for the heater and the cooler, with their signs');
  t.ok(r.fit >= 80, `the model explains the swing (${r.fit} %)`);
  t.same(gains(proposed), heatBefore, 'proposed, not imposed: the gains are unchanged');
  t.equal(
    await card.getByTestId('tuning-message').count(),
    0,
    'the proposal is said once, in words (not again as the API message with degC and APPLY)',
  );
  t.notMatch(await card.innerText(), /degC|APPLY|DISCARD/, 'no API terms on the card');
  const text = await result.innerText();
  t.match(text, new RegExp(`Proposed: Kp ${Math.round(r.kp.value * 100) / 100}\\b`), 'the card shows the proposed kp');
  t.match(text, /Cool PID: Kp -[\d.]+/, "and the pair's");
  t.match(text, /Measured a period of [\d.]+ (h|min)/);
  t.match(
    text,
    new RegExp(
      `One shortest run of the output with a minimum on time moves it about ${Math.round(r.shortestRun.value * 100) / 100} \\S+: expect swings of up to`,
    ),
    "what one compressor run does (the demo's cooler has a minimum on time)",
  );
  await screenshot(rig.page, 'autotune-proposed');

  await card.getByRole('button', { name: 'Apply gains' }).click();
  await panel.and(rig.page.locator('[data-state="APPLIED"]')).waitFor();
  await card.getByTestId('tuning-message').filter({ hasText: 'applied to Heat PID and Cool PID' }).waitFor();
  const heat = await read('Heat PID');
  const cool = await read('Cool PID');
  t.same(gains(heat), [r.kp.value, r.ti.value, r.td.value], 'the Heat PID runs the proposed gains');
  t.same(gains(cool), [r.pairKp.value, r.pairTi.value, r.pairTd.value], 'and the Cool PID its own');
  t.same(
    [heat.tuning.previous.kp.value, heat.tuning.previous.pairKp.value],
    [heatBefore[0], coolBefore[0]],
    'the old gains are kept for Undo',
  );

  // Another tuning, started and stopped from the card: Undo is still there for the applied gains.
  await card.getByRole('button', { name: 'Tune', exact: true }).click();
  await panel.and(rig.page.locator('[data-state="RUNNING"]')).waitFor();
  t.equal(await card.getByRole('button', { name: 'Undo tuning' }).count(), 0, 'no Undo while a tuning runs');
  await card.getByRole('button', { name: 'Stop tuning' }).click();
  await panel.and(rig.page.locator('[data-state="ABORTED"]')).waitFor();
  await card.getByRole('button', { name: 'Undo tuning' }).click();
  await card.getByTestId('tuning-message').filter({ hasText: 'undone: back to kp 60' }).waitFor();
  await panel.and(rig.page.locator('[data-state="IDLE"]')).waitFor();
  t.equal(await card.getByRole('button', { name: 'Undo tuning' }).count(), 0, 'undone once, Undo is gone');
  t.same(gains(await read('Heat PID')), heatBefore, 'Undo puts the Heat PID gains back');
  t.same(gains(await read('Cool PID')), coolBefore, "and the Cool PID's");
  await card.getByRole('button', { name: 'Tune', exact: true }).waitFor();
  t.pass('Tune is offered again');
  t.end();
});
