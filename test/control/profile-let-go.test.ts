// A fermentation profile that stops driving its setpoint, by any path: the card's Pause and Stop
// hand the setting over (web/src/Profile.tsx), every other path lets go. The setpoint then
// follows Brewblox's safety ratchet (reference §4.3, the 2022-09 stored/desired decision): it is
// no longer driven, keeps settingMode CLAIMED and has no setting until the brewer sets one, and
// it reads the same before and after a restart on the same data dir. Through the REST API of the
// app (real SQLite), on a manual clock.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { ManualClock } from '../../src/runtime/clock.js';
import { q, simApp, type SimApp } from '../hardware/sim-app.js';
import { testRuntime } from '../helpers/runtime.js';

const WALL = Date.UTC(2026, 0, 1);
const HOUR = 3_600_000;
const link = (id: string) => ({ __objtype: 'Link', id });
const degC = (value: number) => ({ __objtype: 'Quantity', unit: 'degC', value });

/** 15 -> 5 degC over two hours, started an hour ago: 10 degC now. */
const profile = (data: Record<string, unknown> = {}) => ({
  id: 'Profile',
  type: 'SetpointProfile',
  data: {
    enabled: true,
    targetId: link('Setpoint'),
    start: new Date(WALL - HOUR).toISOString(),
    points: [
      { time: 0, temperature: degC(15) },
      { time: 7200, temperature: degC(5) },
    ],
    ...data,
  },
});

/** What the setpoint card and every client read of the setpoint. */
function truth(s: SimApp) {
  const d = s.data('Setpoint');
  return {
    driver: d.claimedBy?.id ?? null,
    settingMode: d.settingMode,
    // To a tenth of a degree: a profile's ramp moves on while the test runs.
    setting: q(d.setting) === null ? null : Math.round(q(d.setting)! * 10) / 10,
    storedSetting: q(d.storedSetting),
  };
}

const LET_GO = { driver: null, settingMode: 'CLAIMED', setting: null, storedSetting: 20 };

async function fermenter(t: Test): Promise<{ s: SimApp; restart(): Promise<SimApp> }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-let-go-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  let s = await simApp({ dataDir });
  t.teardown(() => s.close());
  const create = async (body: unknown) => t.equal((await s.post('blocks/create', body)).status, 201);
  await create({ id: 'Sensor', type: 'TempSensorMock', data: { setting: degC(12) } });
  await create({
    id: 'Setpoint',
    type: 'SetpointSensorPair',
    data: { enabled: true, sensorId: link('Sensor'), storedSetting: degC(20), filter: 'FILTER_NONE' },
  });
  await create(profile());
  await s.run(3000);
  t.same(truth(s), { driver: 'Profile', settingMode: 'CLAIMED', setting: 10, storedSetting: 20 }, 'driven at 10 degC');
  return {
    get s() {
      return s;
    },
    async restart() {
      await s.close();
      s = await simApp({ dataDir });
      await s.run(3000);
      return s;
    },
  } as { s: SimApp; restart(): Promise<SimApp> };
}

const paths: [string, (s: SimApp) => Promise<{ status: number }>][] = [
  ['deleted', (s) => s.post('blocks/delete', { id: 'Profile' })],
  [
    'Enabled unticked (patch)',
    (s) => s.post('blocks/patch', { id: 'Profile', type: 'SetpointProfile', data: { enabled: false } }),
  ],
  ['written with enabled false', (s) => s.post('blocks/write', profile({ enabled: false }))],
  [
    'linked to another setpoint',
    async (s) => {
      await s.post('blocks/create', {
        id: 'Other',
        type: 'SetpointSensorPair',
        data: { enabled: true, storedSetting: degC(18) },
      });
      return s.post('blocks/patch', { id: 'Profile', type: 'SetpointProfile', data: { targetId: link('Other') } });
    },
  ],
  [
    'disabled by a Sequence',
    (s) =>
      s.post('blocks/create', {
        id: 'Crash',
        type: 'Sequence',
        data: { enabled: true, instructions: ['DISABLE target=Profile', 'WAIT'] },
      }),
  ],
  [
    'turned off by a backup load',
    async (s) => {
      const backup = (await s.post('blocks/backup/save')).body;
      for (const b of backup.blocks) if (b.id === 'Profile') b.data.enabled = false;
      return s.post('blocks/backup/load', backup);
    },
  ],
];

/**
 * On, but with no setting to give: the profile does nothing (reference §5.2), so the setpoint
 * stays driven at the last setting it gave. That claim is not stored: after a restart the
 * setpoint has no setting, as Brewblox's after a reboot.
 */
const idle: [string, (s: SimApp) => Promise<{ status: number }>][] = [
  // A write carries the whole state: without `start` the profile is not started (the card offers Start).
  [
    'written without a start',
    (s) => s.post('blocks/write', { ...profile(), data: { ...profile().data, start: undefined } }),
  ],
  [
    'its points removed',
    (s) => s.post('blocks/patch', { id: 'Profile', type: 'SetpointProfile', data: { points: [] } }),
  ],
  [
    'set to start tomorrow',
    (s) =>
      s.post('blocks/patch', {
        id: 'Profile',
        type: 'SetpointProfile',
        data: { start: new Date(WALL + 24 * HOUR).toISOString() },
      }),
  ],
];

for (const [how, act] of idle) {
  t.test(`a profile ${how}: the setpoint holds the last setting it gave, until a restart`, async (t) => {
    const f = await fermenter(t);
    t.ok([200, 201].includes((await act(f.s)).status), how);
    await f.s.run(3000);
    const held = truth(f.s);
    t.same(held, { driver: 'Profile', settingMode: 'CLAIMED', setting: held.setting, storedSetting: 20 });
    t.ok(held.setting !== null && Math.abs(held.setting - 10) <= 0.1, `held at about 10 degC (${held.setting})`);
    t.same(truth(await f.restart()), LET_GO, 'after a restart: no setting until the profile gives one');
  });
}

for (const [how, act] of paths) {
  t.test(`a profile ${how}: the setpoint is let go, the same before and after a restart`, async (t) => {
    const f = await fermenter(t);
    t.ok([200, 201].includes((await act(f.s)).status), how);
    await f.s.run(3000);
    t.same(truth(f.s), LET_GO, 'not driven, no setting, its own setting kept for the brewer');
    const again = await f.restart();
    t.same(truth(again), LET_GO, 'after a restart: the same');
    // The brewer takes over by setting it (a patch with storedSetting returns it to STORED).
    t.equal(
      (
        await again.post('blocks/patch', {
          id: 'Setpoint',
          type: 'SetpointSensorPair',
          data: { storedSetting: degC(8) },
        })
      ).status,
      200,
    );
    await again.run(1000);
    t.same(
      truth(again),
      { driver: null, settingMode: 'STORED', setting: 8, storedSetting: 8 },
      'set by hand: held at 8',
    );
  });
}

t.test('a setpoint let go reads no setting at the next tick, not at its own next update', async (t) => {
  const { runtime, clock } = testRuntime({ clock: new ManualClock(0, WALL) });
  runtime.create({ id: 'Sensor', type: 'TempSensorMock', data: { setting: degC(12) } });
  runtime.create({
    id: 'Setpoint',
    type: 'SetpointSensorPair',
    data: { enabled: true, sensorId: link('Sensor'), storedSetting: degC(20) },
  });
  runtime.create(profile());
  clock.advance(1500);
  runtime.tick();
  const read = () => runtime.read({ id: 'Setpoint' }).json().data as Record<string, any>;
  t.equal(read().claimedBy.id, 'Profile');
  runtime.delete({ id: 'Profile' });
  runtime.tick(); // at the same time: the setpoint's own 1 Hz update is not due
  t.equal(read().claimedBy.id, null);
  t.equal(read().setting.value, null, 'no driver and no setting, read together');
});

// The card's Pause and Stop hand the profile's setting to the setpoint in one batch. A batch is
// one change: no block runs between its items. When the runtime ran the blocks that were due
// after each item, a profile still on after the setpoint's write (due: a busy controller's loop
// runs late) claimed the setpoint back (settingMode CLAIMED) before being turned off, and the
// beer was left with no setting; the card's order (off first) only worked around it. Either
// order now holds.
t.test('a hand-over batch with the profile due holds, in either order', async (t) => {
  for (const order of ['setpoint, then profile off', 'profile off, then setpoint'] as const) {
    const { runtime, clock } = testRuntime({ clock: new ManualClock(0, WALL) });
    runtime.create({ id: 'Sensor', type: 'TempSensorMock', data: { setting: degC(12) } });
    runtime.create({
      id: 'Setpoint',
      type: 'SetpointSensorPair',
      data: { enabled: true, sensorId: link('Sensor'), storedSetting: degC(20) },
    });
    runtime.create(profile());
    clock.advance(1500);
    runtime.tick();
    clock.advance(1500); // the profile is due, and the loop has not run it yet
    const hold = { id: 'Setpoint', type: 'SetpointSensorPair', data: { storedSetting: degC(11) } };
    const off = { id: 'Profile', type: 'SetpointProfile', data: { enabled: false } };
    const answer = runtime.batch('patch', order.startsWith('setpoint') ? [hold, off] : [off, hold]);
    const answered = answer.find((b) => b.id === 'Setpoint')!.data as Record<string, any>;
    t.equal(answered.setting.value, 11, `${order}: the batch's answer shows the setting the blocks ran to`);
    clock.advance(1000);
    runtime.tick();
    const d = runtime.read({ id: 'Setpoint' }).json().data as Record<string, any>;
    t.equal(d.claimedBy.id, null, `${order}: the setpoint is free`);
    t.equal(d.settingMode, 'STORED', `${order}: in its own setting`);
    t.equal(d.setting.value, 11, `${order}: held at 11`);
  }
});
