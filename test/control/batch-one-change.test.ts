// A batch (blocks/batch/{create,write,patch,delete}, the dashboard's multi-block actions) is one
// change: every item is applied before any block runs, and the blocks run once, after it is
// committed. A batch that fails at an item is undone with nothing run on its first items: no
// output switched, no claim let go. In the runtime, and through the REST batch route of the app
// (real SQLite, emulated hardware) on a manual clock. MQTT has no batch message: each controller
// message is one write. A wall-clock jump is looked for before a batch begins, not inside it,
// and before a single write is applied.
import t, { type Test } from 'tap';
import type { ChangeEvent } from '../../src/runtime/runtime.js';
import type { AnyBlock, IoArray } from '../../src/runtime/types.js';
import { simApp } from '../hardware/sim-app.js';
import { testRuntime } from '../helpers/runtime.js';
import { link, setup } from './setup.js';

const HOUR = 3_600_000;
const degC = (value: number) => ({ __objtype: 'Quantity', unit: 'degC', value });
const seconds = (value: number) => ({ __objtype: 'Quantity', unit: 's', value });

/** A heater on MockPins channel 1, off, held on for a minute once switched on. */
const heaterBlocks = [
  { id: 'pins', type: 'MockPins', data: {} },
  {
    id: 'Heater',
    type: 'DigitalActuator',
    data: {
      hwDevice: link('pins'),
      channel: 1,
      storedState: 'STATE_INACTIVE',
      constraints: { minOn: { duration: seconds(60), enabled: true } },
    },
  },
];

/** The heater asked on, then an item the codec refuses: the batch fails at item 1. */
const failingHeaterBatch = [
  { id: 'Heater', type: 'DigitalActuator', data: { storedState: 'STATE_ACTIVE' } },
  { id: 'Heater', type: 'DigitalActuator', data: { storedState: 'STATE_SOMETIMES' } },
];

/** Every level written to the pins' channels, and every change event, from now on. */
function watch(t: Test, pins: AnyBlock, runtime: { on(e: 'change', f: (ev: ChangeEvent) => void): unknown }) {
  const io = (pins.state as { io: IoArray }).io;
  const write = io.write;
  const writes = t.capture(io, 'write', (ch: number, active: boolean) => write(ch, active));
  const events: ChangeEvent[] = [];
  runtime.on('change', (ev) => events.push(ev));
  return {
    switchedOn: () => writes().filter((w) => w.args[1] === true).length,
    eventsFor: (id: string) => events.filter((ev) => ev.changed.some((b) => b.id === id)).length,
  };
}

t.test('a failed batch switches no output: the heater an earlier item asked on never went on', async (t) => {
  const su = setup();
  for (const b of heaterBlocks) su.runtime.create(b);
  await su.run(2000);
  t.equal(su.pins('pins')[0], false, 'the heater is off');
  const seen = watch(t, su.block('pins'), su.runtime);
  t.throws(() => su.runtime.batch('patch', failingHeaterBatch), /batch item 1 \(id 'Heater'\).*nothing was changed/);
  t.equal(seen.switchedOn(), 0, 'its channel was never written on');
  t.equal(su.data('Heater').storedState, 'STATE_INACTIVE', 'asked off, as before');
  t.equal(seen.eventsFor('Heater'), 0, 'no change event for it');
  await su.run(5000);
  t.equal(su.pins('pins')[0], false, 'still off: no minimum on time was started');
  t.equal(seen.switchedOn(), 0);
});

t.test('a failed batch lets go of no claim: the setpoint stays driven by the profile', async (t) => {
  const su = setup();
  su.runtime.create({ id: 'Sensor', type: 'TempSensorMock', data: { setting: degC(12) } });
  su.runtime.create({
    id: 'Setpoint',
    type: 'SetpointSensorPair',
    data: { enabled: true, sensorId: link('Sensor'), storedSetting: degC(20) },
  });
  const wall = su.clock.wall()!;
  su.runtime.create({
    id: 'Profile',
    type: 'SetpointProfile',
    data: {
      enabled: true,
      targetId: link('Setpoint'),
      start: new Date(wall - HOUR).toISOString(),
      points: [
        { time: 0, temperature: degC(15) },
        { time: 7200, temperature: degC(5) },
      ],
    },
  });
  await su.run(3000);
  const driven = () => ({
    by: su.data('Setpoint').claimedBy,
    mode: su.data('Setpoint').settingMode,
    setting: Math.round(su.data('Setpoint').setting * 10) / 10,
  });
  t.same(driven(), { by: 'Profile', mode: 'CLAIMED', setting: 10 }, 'driven at 10 degC');
  su.clock.advance(1500); // the profile is due, and the loop has not run it yet
  t.throws(() =>
    su.runtime.batch('patch', [
      { id: 'Profile', type: 'SetpointProfile', data: { enabled: false } },
      { id: 'Setpoint', type: 'SetpointSensorPair', data: { storedSetting: 'warm' } },
    ]),
  );
  t.same(driven(), { by: 'Profile', mode: 'CLAIMED', setting: 10 }, 'at once after the failed batch: still driven');
  t.equal(su.data('Profile').enabled, true);
  await su.run(1000);
  t.same(driven(), { by: 'Profile', mode: 'CLAIMED', setting: 10 }, 'and after the next tick');
});

t.test('REST: a failed batch/patch switches no output and sends no change', async (t) => {
  const s = await simApp();
  t.teardown(() => s.close());
  for (const b of heaterBlocks) t.equal((await s.post('blocks/create', b)).status, 201, `${b.id} created`);
  await s.run(2000);
  const seen = watch(t, s.app.runtime.find('pins')!, s.app.runtime);
  const r = await s.post('blocks/batch/patch', failingHeaterBatch);
  t.equal(r.status, 422, JSON.stringify(r.body));
  t.match(r.body.message, /batch item 1 \(id 'Heater'\)/);
  t.equal(seen.switchedOn(), 0, 'its channel was never written on');
  t.equal(seen.eventsFor('Heater'), 0, 'no change event for it');
  await s.run(5000);
  t.equal(seen.switchedOn(), 0, 'still never on');
  t.equal(s.data('Heater').state, 'STATE_INACTIVE');
});

t.test('REST: the old Pause batch (setpoint first, then the profile off) holds the setting', async (t) => {
  const s = await simApp({ start: 1000 });
  t.teardown(() => s.close());
  const wall = s.clock.wall()!;
  const create = async (body: unknown) => t.equal((await s.post('blocks/create', body)).status, 201);
  await create({ id: 'Sensor', type: 'TempSensorMock', data: { setting: degC(12) } });
  await create({
    id: 'Setpoint',
    type: 'SetpointSensorPair',
    data: { enabled: true, sensorId: link('Sensor'), storedSetting: degC(20) },
  });
  await create({
    id: 'Profile',
    type: 'SetpointProfile',
    data: {
      enabled: true,
      targetId: link('Setpoint'),
      start: new Date(wall - HOUR).toISOString(),
      points: [
        { time: 0, temperature: degC(15) },
        { time: 7200, temperature: degC(5) },
      ],
    },
  });
  await s.run(3000);
  t.equal(s.data('Setpoint').claimedBy.id, 'Profile');
  s.clock.advance(1500); // the profile is due, and the loop has not run it yet
  const r = await s.post('blocks/batch/patch', [
    { id: 'Setpoint', type: 'SetpointSensorPair', data: { storedSetting: degC(11) } },
    { id: 'Profile', type: 'SetpointProfile', data: { enabled: false } },
  ]);
  t.equal(r.status, 200, JSON.stringify(r.body));
  await s.run(2000);
  const d = s.data('Setpoint');
  t.same(
    { by: d.claimedBy.id, mode: d.settingMode, setting: d.setting.value },
    { by: null, mode: 'STORED', setting: 11 },
    'held at 11 in its own setting',
  );
});

t.test('a wall-clock jump seen as a batch begins is stored and reported, though the batch fails', async (t) => {
  const { runtime, clock, persistence } = testRuntime();
  const wall = clock.wall()!;
  runtime.create({ id: 'Setpoint', type: 'SetpointSensorPair', data: { enabled: true, storedSetting: degC(20) } });
  runtime.create({
    id: 'Profile',
    type: 'SetpointProfile',
    data: {
      enabled: true,
      targetId: link('Setpoint'),
      start: new Date(wall - HOUR).toISOString(),
      points: [
        { time: 0, temperature: degC(15) },
        { time: 7200, temperature: degC(5) },
      ],
    },
  });
  clock.advance(1000);
  runtime.tick();
  const start = () => runtime.read({ id: 'Profile' }).json().data.start;
  const events: ChangeEvent[] = [];
  runtime.on('change', (ev) => events.push(ev));
  clock.jumpWall(3 * HOUR); // NTP steps the clock; the next thing the controller does is a batch
  t.throws(() =>
    runtime.batch('patch', [
      { id: 'Setpoint', type: 'SetpointSensorPair', data: { storedSetting: degC(11) } },
      { id: 'Setpoint', type: 'SetpointSensorPair', data: { storedSetting: 'warm' } },
    ]),
  );
  const moved = new Date(wall - HOUR + 3 * HOUR).toISOString().replace('.000', '');
  t.equal(start(), moved, 'the profile keeps its place: its start moved by the jump');
  t.ok(
    events.some((ev) => ev.origin === 'clock' && ev.changed.some((b) => b.id === 'Profile')),
    'the move is reported, as the clock change it is',
  );
  const again = testRuntime({ persistence, clock });
  t.equal(again.runtime.read({ id: 'Profile' }).json().data.start, moved, 'and stored: the same after a restart');
});

t.test('a write that is the first to see a wall-clock jump keeps the start it was sent', async (t) => {
  const { runtime, clock, persistence } = testRuntime();
  const wall = clock.wall()!;
  runtime.create({ id: 'Setpoint', type: 'SetpointSensorPair', data: { enabled: true, storedSetting: degC(20) } });
  const profile = (start: number) => ({
    id: 'Profile',
    type: 'SetpointProfile',
    data: {
      enabled: true,
      targetId: link('Setpoint'),
      start: new Date(start).toISOString(),
      points: [
        { time: 0, temperature: degC(15) },
        { time: 7200, temperature: degC(5) },
      ],
    },
  });
  runtime.create(profile(wall - HOUR));
  clock.advance(1000);
  runtime.tick();
  clock.jumpWall(3 * HOUR); // NTP steps the clock; the next thing is a brewer restarting the profile "now"
  const now = clock.wall()!;
  const sent = new Date(now).toISOString().replace('.000', '');
  runtime.write(profile(now));
  t.equal(runtime.read({ id: 'Profile' }).json().data.start, sent, 'the start sent, not moved by the jump');
  const again = testRuntime({ persistence, clock });
  t.equal(again.runtime.read({ id: 'Profile' }).json().data.start, sent, 'and stored so');
});

t.test('a backup load that is the first to see a wall-clock jump keeps the start it holds', async (t) => {
  const { runtime, clock, persistence } = testRuntime();
  const wall = clock.wall()!;
  runtime.create({ id: 'Setpoint', type: 'SetpointSensorPair', data: { enabled: true, storedSetting: degC(20) } });
  clock.advance(1000);
  runtime.tick();
  const backup = runtime.backupSave();
  clock.jumpWall(3 * HOUR); // NTP steps the clock; the next thing is a backup loaded with a profile started "now"
  const sent = new Date(wall + 3 * HOUR + 1000).toISOString().replace('.000', '');
  const profile = {
    id: 'Profile',
    nid: 200,
    type: 'SetpointProfile',
    data: {
      enabled: true,
      targetId: link('Setpoint'),
      start: sent,
      points: [
        { time: 0, temperature: degC(15) },
        { time: 7200, temperature: degC(5) },
      ],
    },
  };
  await runtime.backupLoad({ ...backup, blocks: [...backup.blocks, profile] });
  t.equal(runtime.read({ id: 'Profile' }).json().data.start, sent, 'the start the backup holds, not moved by the jump');
  const again = testRuntime({ persistence, clock });
  t.equal(again.runtime.read({ id: 'Profile' }).json().data.start, sent, 'and stored so');
});
