// IO channel claims at a restart, on the emulated DS2408 through the real drivers. The other
// claims are taken from the stored links as the blocks load (claims-at-load.test.ts); a
// DigitalActuator's channel on its board was taken only by its first run, so after a restart the
// board's channels read as free (claimedBy null) until the first tick, and for as long as control
// stayed off. Now they are claimed at load, first come first served in the order the blocks were
// made; and with two actuators on one channel the one holding it keeps it across the restart, the
// output never switched by the other (whose dashboard card names the holder), also when a PWM
// made later drives it (the scheduler's order then runs the spare first: claimed in that order,
// the restart handed the channel to the spare, which switched the heater's relay off).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import type { SimDs2408 } from '../../drivers/sim/onewire-ds2408.js';
import type { Block } from '../../web/src/api.js';
import { outputStory } from '../../web/src/explain.js';
import { simApp, type SimApp } from './sim-app.js';
import { leftOnSim } from './relay-boards.js';

const link = (id: string) => ({ __objtype: 'Link', id });
const BOARD = 'DS2408 0000000000d1';

const sim = (leftOn: number[]) => leftOnSim(leftOn);

/** The app on a data dir that outlives it, so that a second one is the restart. */
async function start(t: Test, dataDir: string, leftOn: number[] = []): Promise<SimApp> {
  const s = await simApp({ sim: sim(leftOn), dataDir });
  t.teardown(() => s.close());
  return s;
}

function dataDir(t: Test): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-channel-claims-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const relays = (s: SimApp) =>
  s.app.hardware.sim!.devices().find((d) => d.spec.name === 'relays')!.model as unknown as SimDs2408;
const holder = (s: SimApp, channel: number) =>
  s.data(BOARD).channels.find((c: any) => c.id === channel).claimedBy.id as string | null;

/**
 * The first run, with Heater and Spare on channel 1 and the heater on, is stopped and started
 * again over its data dir: the heater holds the channel before and after, and its relay (on, as
 * the module kept its power) is never switched off. The second run.
 */
async function restartKeepsHeater(t: Test, first: SimApp, dir: string): Promise<SimApp> {
  await first.run(3000);
  t.equal(holder(first, 1), 'Heater', 'the first made holds the channel');
  t.equal(relays(first).activeOutputs() & 1, 1, 'the heater relay is on');
  await first.close();
  const again = await start(t, dir, [1]);
  t.equal(holder(again, 1), 'Heater', 'claimed at load by the same one');
  await again.run(5000);
  t.equal(holder(again, 1), 'Heater', 'and after the ticks');
  t.equal(relays(again).switchedOff & 1, 0, 'the heater relay was never switched off: the spare never drove it');
  t.equal(again.data('Spare').state, null, 'the spare has no output');
  return again;
}

async function actuator(s: SimApp, id: string, channel: number, state: string) {
  const res = await s.post('blocks/create', {
    id,
    type: 'DigitalActuator',
    data: { hwDevice: link(BOARD), channel, storedState: state },
  });
  if (res.status !== 201) throw new Error(`${id}: ${res.status} ${JSON.stringify(res.body)}`);
}

t.test(
  'after a restart the channel is claimed at load, as the first tick claims it, and with control off',
  async (t) => {
    const dir = dataDir(t);
    const first = await start(t, dir);
    await first.post('blocks/discover');
    await actuator(first, 'Heater', 1, 'STATE_ACTIVE');
    await first.run(3000);
    t.equal(holder(first, 1), 'Heater');
    await first.close();

    const again = await start(t, dir, [1]);
    again.app.runtime.paused = true;
    t.equal(holder(again, 1), 'Heater', 'right after the load, before any tick');
    t.ok(
      again.app.runtime.claims().some((c) => c.source === 'Heater' && c.target === BOARD),
      'the claims endpoint names it',
    );
    await again.run(1000);
    t.equal(holder(again, 1), 'Heater', 'still, with control off');
    again.app.runtime.paused = false;
    await again.run(3000);
    t.equal(holder(again, 1), 'Heater', 'and the ticks agree');
    t.equal(again.data('Heater').state, 'STATE_ACTIVE');
  },
);

t.test('two actuators on one channel across a restart: the holder keeps it, the output never switched', async (t) => {
  const dir = dataDir(t);
  const first = await start(t, dir);
  await first.post('blocks/discover');
  await actuator(first, 'Heater', 1, 'STATE_ACTIVE');
  await actuator(first, 'Spare', 1, 'STATE_INACTIVE');
  const again = await restartKeepsHeater(t, first, dir);
  // The spare's card says why, naming the holder (the dashboard's words, on the public JSON).
  const all = (await again.post('blocks/all/read')).body as Block[];
  const spare = all.find((b) => b.id === 'Spare')!;
  const byId = new Map(all.map((b) => [b.id, b]));
  t.same(
    outputStory(spare, byId).why,
    ['Switched by hand: off.', `Channel 1 of ${BOARD} is held by Heater: Spare drives nothing while it does.`],
    "the spare's card names the holder",
  );
  const heater = all.find((b) => b.id === 'Heater')!;
  t.notMatch(outputStory(heater, byId).why.join(' '), /held by/, 'the holder says nothing of it');
});

t.test(
  'with control off, a new actuator or input holds its channel at once; a free channel is not taken',
  async (t) => {
    const s = await start(t, dataDir(t));
    await s.post('blocks/discover');
    await actuator(s, 'Heater', 1, 'STATE_ACTIVE');
    s.app.runtime.paused = true;
    await actuator(s, 'Fan', 2, 'STATE_ACTIVE');
    t.equal(holder(s, 2), 'Fan', 'the new actuator holds channel 2 before any tick');
    const input = await s.post('blocks/create', {
      id: 'Button',
      type: 'DigitalInput',
      data: { hwDevice: link(BOARD), channel: 3 },
    });
    t.equal(input.status, 201);
    t.equal(holder(s, 3), 'Button', 'an input too');
    await actuator(s, 'Spare', 2, 'STATE_INACTIVE');
    t.equal(holder(s, 2), 'Fan', 'a second on channel 2 does not take it');
    t.equal(holder(s, 4), null);
  },
);

t.test(
  'two actuators on one channel, the holder driven by a PWM made later: it keeps it across a restart',
  async (t) => {
    const dir = dataDir(t);
    const first = await start(t, dir);
    await first.post('blocks/discover');
    await actuator(first, 'Heater', 1, 'STATE_INACTIVE');
    await actuator(first, 'Spare', 1, 'STATE_INACTIVE');
    // The PWM is made after both: a load runs it, then the heater it drives, after the spare.
    const pwm = await first.post('blocks/create', {
      id: 'Heater PWM',
      type: 'ActuatorPwm',
      data: { actuatorId: link('Heater'), storedSetting: 100, period: { __objtype: 'Quantity', unit: 's', value: 10 } },
    });
    t.equal(pwm.status, 201, JSON.stringify(pwm.body));
    await restartKeepsHeater(t, first, dir);
  },
);
