// Two mutexed outputs (a heater and a cooler on one Mutex) at a restart after a kill -9 that left
// both relays on (a DS2408 keeps its latches; `leftOn` in the sim config), on the emulated
// modules through the real drivers. Each actuator waits until its channel is read before writing;
// one whose module is not read yet must not count as off for the mutex. From the moment both
// outputs are known to the service, never both on; and an output that was off is never switched
// on beside one that is on. One found on that is stored off goes off at once, and holds the mutex
// for its extraHoldTime, as if it had been switched off then.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import type { SimDs2408 } from '../../drivers/sim/onewire-ds2408.js';
import { simApp, type SimApp } from './sim-app.js';

const link = (id: string) => ({ __objtype: 'Link', id });
const HOLD_S = 30;

interface Case {
  name: string;
  /** The cooler on a second module, whose first reads fail (it is read seconds after the first). */
  twoBoards: boolean;
  /**
   * How many frames the second module sends garbled (10 when not said; Infinity: it answers
   * writes only, every read fails).
   */
  coolReadFaults?: number;
  heat: { stored: boolean; leftOn: boolean };
  cool: { stored: boolean; leftOn: boolean };
}

const sim = (c: Case) => {
  const d1 = [...(c.heat.leftOn ? [1] : []), ...(c.cool.leftOn && !c.twoBoards ? [2] : [])];
  const boards = [{ name: 'relays', type: 'DS2408', address: '29-0000000000d1', leftOn: d1 }];
  if (c.twoBoards)
    boards.push({ name: 'relays2', type: 'DS2408', address: '29-0000000000d2', leftOn: c.cool.leftOn ? [2] : [] });
  return {
    plant: { ambient: 20, initial: { beer: 20, air: 20 } },
    ds2482: [{ address: 24, variant: 'ds2482-100', channels: [boards] }],
  };
};

const model = (s: SimApp, name: string) =>
  s.app.hardware.sim!.devices().find((d) => d.spec.name === name)!.model as unknown as SimDs2408;

async function actuator(s: SimApp, id: string, board: string, channel: number, on: boolean) {
  const mutexed = {
    mutexId: link('Mutex'),
    extraHoldTime: { __objtype: 'Quantity', unit: 's', value: HOLD_S },
    enabled: true,
  };
  const res = await s.post('blocks/create', {
    id,
    type: 'DigitalActuator',
    data: {
      hwDevice: link(board),
      channel,
      storedState: on ? 'STATE_ACTIVE' : 'STATE_INACTIVE',
      constraints: { mutexed },
    },
  });
  if (res.status !== 201) throw new Error(`${id}: ${res.status} ${JSON.stringify(res.body)}`);
}

/** Stores the blocks, then restarts on modules left as the case says; follows both relays for 60 s. */
async function restart(t: Test, c: Case) {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-mutex-restart-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const clean = { ...c, heat: { ...c.heat, leftOn: false }, cool: { ...c.cool, leftOn: false } };
  const first = await simApp({ sim: sim(clean), dataDir: dir });
  t.teardown(() => first.close());
  await first.post('blocks/discover');
  await first.post('blocks/create', { id: 'Mutex', type: 'Mutex', data: {} });
  const coolBoard = c.twoBoards ? 'DS2408 0000000000d2' : 'DS2408 0000000000d1';
  await actuator(first, 'Heat', 'DS2408 0000000000d1', 1, c.heat.stored);
  await actuator(first, 'Cool', coolBoard, 2, c.cool.stored);
  await first.run(2000);
  await first.close();

  const s = await simApp({ sim: sim(c), dataDir: dir });
  t.teardown(() => s.close());
  // The second module answers, but its first reads fail: it is read a few polls after the first.
  if (c.twoBoards) s.app.hardware.sim!.injectFault('relays2', 'crc', c.coolReadFaults ?? 10);
  const heatOn = () => (model(s, 'relays').activeOutputs() & 1) !== 0;
  const coolOn = () => (model(s, c.twoBoards ? 'relays2' : 'relays').activeOutputs() & 2) !== 0;
  const seenOff = { heat: false, cool: false };
  const log: string[] = [];
  let known = false;
  let coolKnownAt: number | null = null;
  let heatKnownAt: number | null = null;
  let lastBothAt: number | null = null;
  const onAt = { heat: null as number | null, cool: null as number | null };
  const offAt = { heat: null as number | null, cool: null as number | null };
  for (let ms = 100; ms <= 60_000; ms += 100) {
    await s.run(100);
    // The relays show the writes of the tick before this step; `known` is from after that tick.
    const both = heatOn() && coolOn();
    if (both) lastBothAt = ms;
    if (both && (known || seenOff.heat || seenOff.cool)) log.push(`both on at ${ms} ms`);
    for (const [k, on] of [
      ['heat', heatOn()],
      ['cool', coolOn()],
    ] as const) {
      if (!on && !seenOff[k]) offAt[k] = ms;
      if (on && seenOff[k] && onAt[k] === null) onAt[k] = ms;
      if (!on) seenOff[k] = true;
    }
    known = s.data('Heat').state !== null && s.data('Cool').state !== null;
    if (coolKnownAt === null && s.data('Cool').state !== null) coolKnownAt = ms;
    if (heatKnownAt === null && s.data('Heat').state !== null) heatKnownAt = ms;
  }
  t.same(log.slice(0, 3), [], 'never both on once both are known, nor one switched on beside the other');
  return { s, heatOn: heatOn(), coolOn: coolOn(), onAt, offAt, coolKnownAt, heatKnownAt, lastBothAt };
}

const cases: Array<Case & { expect: (t: Test, r: Awaited<ReturnType<typeof restart>>) => void }> = [
  {
    name: 'one module, both left on, both stored on: one goes off and waits',
    twoBoards: false,
    heat: { stored: true, leftOn: true },
    cool: { stored: true, leftOn: true },
    expect: (t, r) => {
      t.equal([r.heatOn, r.coolOn].filter(Boolean).length, 1, 'one of them on');
      const waiting = r.heatOn ? 'Cool' : 'Heat';
      t.equal(r.s.data(waiting).constraints.mutexed.limiting, true, 'the other waits for the mutex');
    },
  },
  {
    name: 'one module, both left on, the heater stored on, the cooler off',
    twoBoards: false,
    heat: { stored: true, leftOn: true },
    cool: { stored: false, leftOn: true },
    expect: (t, r) => {
      t.ok(r.heatOn && !r.coolOn, 'the heater on, the cooler off');
      t.equal(r.offAt.heat, null, 'the heater never switched off');
    },
  },
  {
    name: 'one module, both left on, the heater stored off, the cooler on',
    twoBoards: false,
    heat: { stored: false, leftOn: true },
    cool: { stored: true, leftOn: true },
    expect: (t, r) => {
      t.ok(!r.heatOn && r.coolOn, 'the cooler on, the heater off');
      t.equal(r.offAt.cool, null, 'the cooler never switched off');
    },
  },
  {
    name: 'two modules, the second read late, both left on, both stored on',
    twoBoards: true,
    // Its writes (the cooler is written off once the heater is read) use up garbled frames too.
    coolReadFaults: 20,
    heat: { stored: true, leftOn: true },
    cool: { stored: true, leftOn: true },
    expect: (t, r) => {
      t.ok(r.coolKnownAt !== null && r.coolKnownAt > 1500, `the cooler's module read late (${r.coolKnownAt} ms)`);
      t.equal([r.heatOn, r.coolOn].filter(Boolean).length, 1, 'one of them on');
    },
  },
  {
    name: 'two modules, the second read late: the heater found off, the cooler left on, both stored on',
    twoBoards: true,
    heat: { stored: true, leftOn: false },
    cool: { stored: true, leftOn: true },
    expect: (t, r) => {
      t.ok(!r.heatOn && r.coolOn, 'the cooler kept on, the heater waits');
      t.equal(r.offAt.cool, null, 'the cooler never switched off');
    },
  },
  {
    name: 'two modules, the second read late: the heater found off and stored on, the cooler left on and stored off',
    twoBoards: true,
    heat: { stored: true, leftOn: false },
    cool: { stored: false, leftOn: true },
    expect: (t, r) => {
      t.ok(r.heatOn && !r.coolOn, 'the heater on in the end, the cooler off');
      const gap = r.onAt.heat! - r.offAt.cool!;
      t.ok(gap >= HOLD_S * 1000, `the heater waited out the cooler's hold time (${gap} ms after the cooler went off)`);
    },
  },
  {
    name: 'two modules, the second never read: the heater found off and stored on, the cooler left on and stored off',
    twoBoards: true,
    coolReadFaults: Number.POSITIVE_INFINITY,
    heat: { stored: true, leftOn: false },
    cool: { stored: false, leftOn: true },
    expect: (t, r) => {
      t.equal(r.coolKnownAt, null, "the cooler's module never read");
      t.ok(r.heatOn && !r.coolOn, 'the heater on in the end, the cooler off');
      const gap = r.onAt.heat! - r.offAt.cool!;
      t.ok(gap >= HOLD_S * 1000, `the heater waited out the cooler's hold time (${gap} ms after the cooler went off)`);
    },
  },
  {
    name: 'two modules, the second never read: both left on, both stored on',
    twoBoards: true,
    coolReadFaults: Number.POSITIVE_INFINITY,
    heat: { stored: true, leftOn: true },
    cool: { stored: true, leftOn: true },
    expect: (t, r) => {
      t.equal(r.coolKnownAt, null, "the cooler's module never read");
      t.ok(r.heatKnownAt !== null, 'the heater read');
      t.ok(r.heatOn && !r.coolOn, 'the heater kept on, the cooler off');
      t.equal(r.offAt.heat, null, 'the heater never switched off');
      const both = r.lastBothAt === null ? 0 : r.lastBothAt - r.heatKnownAt!;
      t.ok(both <= 2000, `both on for at most 2 s after the heater was read (${both} ms)`);
    },
  },
];

for (const c of cases) t.test(c.name, async (t) => c.expect(t, await restart(t, c)));
