// A running valve whose board stops answering reads (every frame it sends garbled) while it still
// takes writes: its end switches read nothing, so where it is is not known. It still goes where
// it is told (a change of what is stored drives it that way), but its motor is not left driving
// blind for ever: VALVE_BLIND_DRIVE_MS after the reads were lost (or the direction last changed)
// the bridge is released. Its state and valveState are null meanwhile. When the reads come back it
// drives toward what is desired again at once. The board's device-missing alert says why. Moved to
// another start channel while driven blind, it counts the bound afresh on the new bridge. On the emulated DS2408 valve board, real drivers.
import t from 'tap';
import { VALVE_BLIND_DRIVE_MS } from '../../src/blocks/motor-valve.js';
import { simApp } from './sim-app.js';
import { oneWireSim } from './relay-boards.js';

const BOARD = 'DS2408 0000000000d2';
const SIM = oneWireSim([
  {
    name: 'valves',
    type: 'DS2408',
    address: '29-0000000000d2',
    valves: { '1': { travelSeconds: 6 }, '5': { travelSeconds: 6 } },
  },
]);

t.test(
  'a valve whose end switches stop reading: told to open it opens, then its motor stops; reads back, it drives',
  async (t) => {
    const s = await simApp({ sim: SIM });
    t.teardown(() => s.close());
    s.app.alerts.start();
    await s.post('blocks/discover');
    await s.run(2000);
    await s.post('blocks/patch', { id: BOARD, type: 'DS2408', data: { connectMode: 'CONNECT_VALVE' } });
    const res = await s.post('blocks/create', {
      id: 'Valve B',
      type: 'MotorValve',
      data: { 'hwDevice<>': BOARD, channel: 1, storedState: 'STATE_INACTIVE' },
    });
    t.equal(res.status, 201);
    await s.run(3000);
    const sim = s.app.hardware.sim!;
    const model = sim.valves().find((v) => v.valve.start === 1)!;
    const direction = () => model.valve.direction(model.device.activeOutputs());
    t.equal(s.data('Valve B').valveState, 'VALVE_CLOSED', 'closed and read before the reads fail');

    sim.injectFault('valves', 'crc', Number.POSITIVE_INFINITY);
    await s.run(3000);
    t.equal(s.data(BOARD).connected, false, 'the board no longer reads');
    t.equal(s.data('Valve B').state, null, 'the valve state is unknown');
    t.equal(s.data('Valve B').valveState, null);

    await s.post('blocks/patch', { id: 'Valve B', type: 'MotorValve', data: { storedState: 'STATE_ACTIVE' } });
    await s.run(2000);
    t.equal(direction(), 1, 'told to open while unread, it drives open');
    await s.run(8000);
    t.equal(model.valve.position, 1, 'and gets there (its own end stop halts it)');
    const directions: number[] = [];
    for (let at = 0; at < VALVE_BLIND_DRIVE_MS + 5000; at += 1000) {
      await s.run(1000);
      directions.push(direction());
    }
    t.equal(directions[directions.length - 1], 0, 'its position unknown, the motor is not left driving for ever');
    t.ok(
      directions.slice(-5).every((d) => d === 0),
      'it stays stopped while the reads fail',
    );
    t.equal(s.data('Valve B').state, null);
    const alerts = (await s.get('alerts')).body.active as Array<{ kind: string; blockId: string; text: string }>;
    t.ok(
      alerts.some((a) => a.kind === 'device-missing' && a.blockId === BOARD),
      `an alert names the board (${alerts.map((a) => a.text).join('; ')})`,
    );

    sim.injectFault('valves', 'clear');
    await s.run(3000);
    t.equal(s.data('Valve B').valveState, 'VALVE_OPEN', 'the reads back, it reads open');
    t.equal(s.data('Valve B').state, 'STATE_ACTIVE');
    t.equal(direction(), 1, 'and drives open again (the drive stays on at the end stop)');

    // Lost again and told to close: it closes, as it would running.
    sim.injectFault('valves', 'crc', Number.POSITIVE_INFINITY);
    await s.run(3000);
    await s.post('blocks/patch', { id: 'Valve B', type: 'MotorValve', data: { storedState: 'STATE_INACTIVE' } });
    await s.run(8000);
    t.equal(model.valve.position, 0, 'told to close while unread, it closes');
  },
);

t.test('a valve driven blind and moved to another start channel counts its bound afresh there', async (t) => {
  const s = await simApp({ sim: SIM });
  t.teardown(() => s.close());
  await s.post('blocks/discover');
  await s.run(2000);
  await s.post('blocks/patch', { id: BOARD, type: 'DS2408', data: { connectMode: 'CONNECT_VALVE' } });
  await s.post('blocks/create', {
    id: 'Valve B',
    type: 'MotorValve',
    data: { 'hwDevice<>': BOARD, channel: 1, storedState: 'STATE_INACTIVE' },
  });
  await s.run(3000);
  const sim = s.app.hardware.sim!;
  const at = (start: number) => {
    const model = sim.valves().find((v) => v.valve.start === start)!;
    return () => model.valve.direction(model.device.activeOutputs());
  };
  const [first, second] = [at(1), at(5)];
  sim.injectFault('valves', 'crc', Number.POSITIVE_INFINITY);
  await s.run(3000);
  await s.post('blocks/patch', { id: 'Valve B', type: 'MotorValve', data: { storedState: 'STATE_ACTIVE' } });
  await s.run(VALVE_BLIND_DRIVE_MS - 10_000);
  t.equal(first(), 1, 'driven open blind on its first bridge');
  await s.post('blocks/patch', { id: 'Valve B', type: 'MotorValve', data: { channel: 5 } });
  await s.run(2000);
  t.equal(first(), 0, 'the bridge it left is stopped');
  t.equal(second(), 1, 'the new bridge is driven open');
  await s.run(20_000);
  t.equal(second(), 1, 'past the bound counted from the first bridge, the new one still drives');
  await s.run(VALVE_BLIND_DRIVE_MS);
  t.equal(second(), 0, 'and stops within the bound counted on the new bridge');
});
