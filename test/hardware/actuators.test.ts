// Outputs through the blocks: DigitalActuator on DS2408, DS2413 and GPIO channels switches the
// emulated latches and lines, and through them the plant; everything goes safe at stop.
import t from 'tap';
import { ChannelCapability } from '../../src/blocks/shared/enums.js';
import { q, simApp, type SimApp } from './sim-app.js';

const SIM = {
  plant: { ambient: 20, initial: { beer: 20, air: 20 } },
  ds2482: [
    {
      address: 24,
      variant: 'ds2482-800',
      channels: [
        [
          { name: 'air', type: 'DS18B20', address: '28-0000000000a1', sense: 'air' },
          { name: 'relays', type: 'DS2408', address: '29-0000000000d1', outputs: { '1': 'heater', '2': 'cooler' } },
          { name: 'pair', type: 'DS2413', address: '3a-0000000000e1', outputs: { '2': 'cooler' } },
        ],
      ],
    },
  ],
  gpio: [
    { name: 'backup heater', line: 5, direction: 'out', activeLow: true, drives: 'heater' },
    { name: 'pump', line: 6, direction: 'out', safeState: true },
    { name: 'door', line: 13, direction: 'in', level: 0 },
  ],
};
const RELAYS = 'DS2408 0000000000d1';
const PAIR = 'DS2413 0000000000e1';
const AIR = 'Sensor 00a1';

async function discovered(): Promise<SimApp> {
  const s = await simApp({ sim: SIM });
  await s.post('blocks/discover');
  await s.run(2000);
  return s;
}

const actuator = (id: string, hw: string, channel: number, state: string, extra: Record<string, unknown> = {}) => ({
  id,
  type: 'DigitalActuator',
  data: { 'hwDevice<>': hw, channel, storedState: state, ...extra },
});

t.test('DigitalActuator on a DS2408 channel switches the latch and the plant heater', async (t) => {
  const s = await discovered();
  t.teardown(() => s.close());
  const sim = s.app.hardware.sim!;
  const model = () =>
    sim.devices().find((d) => d.spec.name === 'relays')!.model as unknown as { activeOutputs(): number };
  t.equal((await s.post('blocks/create', actuator('Heater', RELAYS, 1, 'STATE_ACTIVE'))).status, 201);
  await s.run(1500);
  t.equal(model().activeOutputs(), 0b1, 'latch 1 on (pin pulled low), the rest off');
  t.equal(sim.plantStatus().heaterOn, true, 'the plant sees the heater');
  t.equal(s.data('Heater').state, 'STATE_ACTIVE', 'state read back from the polled pins');
  t.equal(s.data(RELAYS).channels[0].claimedBy.id, 'Heater', 'channel claimed');
  const air0 = q(s.data(AIR).value)!;
  await s.run(60_000, 250);
  const air1 = q(s.data(AIR).value)!;
  t.ok(air1 > air0 + 1, `chamber air warms under the heater: ${air0} -> ${air1}`);
  t.ok(Math.abs(air1 - sim.plant.air) <= 1 / 16, 'the sensor follows the plant');

  await s.post('blocks/patch', { id: 'Heater', type: 'DigitalActuator', data: { storedState: 'STATE_INACTIVE' } });
  await s.run(1000);
  t.equal(model().activeOutputs(), 0, 'latch off again');
  t.equal(sim.plantStatus().heaterOn, false);
  t.equal(s.data('Heater').state, 'STATE_INACTIVE');

  // Inverted actuator: active = latch off.
  await s.post('blocks/create', actuator('Cooler', RELAYS, 2, 'STATE_INACTIVE', { invert: true }));
  await s.run(1500);
  t.equal(model().activeOutputs(), 0b10, 'inverted: inactive drives the latch on');
  t.equal(s.data('Cooler').state, 'STATE_INACTIVE');

  // Deleting an actuator switches its channel off; the other channel keeps its latch.
  await s.post('blocks/patch', { id: 'Heater', type: 'DigitalActuator', data: { storedState: 'STATE_ACTIVE' } });
  await s.run(1500);
  t.equal(model().activeOutputs(), 0b11);
  await s.post('blocks/delete', { id: 'Heater' });
  await s.run(500);
  t.equal(model().activeOutputs(), 0b10, 'heater latch off after delete');
});

t.test('DigitalActuator on a DS2413 channel', async (t) => {
  const s = await discovered();
  t.teardown(() => s.close());
  const sim = s.app.hardware.sim!;
  await s.post('blocks/create', actuator('Cooler', PAIR, 2, 'STATE_ACTIVE'));
  await s.run(1500);
  t.equal((await s.get('sim/devices/pair')).body.activeChannels.join(), '2', 'PIO B on');
  t.equal(sim.plantStatus().coolerOn, true);
  t.equal(s.data('Cooler').state, 'STATE_ACTIVE');
  t.equal(s.data(PAIR).channels.length, 2);
});

t.test('GPIO lines through GpioPins, with activeLow', async (t) => {
  const s = await discovered();
  t.teardown(() => s.close());
  const sim = s.app.hardware.sim!;
  const pins = s.data('GpioPins');
  t.same(
    pins.lines.map((l: any) => [l.channel, l.name, l.line, l.direction, l.activeLow]),
    [
      [1, 'backup heater', 5, 'out', true],
      [2, 'pump', 6, 'out', false],
      [3, 'door', 13, 'in', false],
    ],
    'each channel shows its line',
  );
  // Outputs: digital, and the software PWM's 80 and 100 Hz (FastPwm); the input: digital input.
  const { DIGITAL_OUTPUT, PWM_80HZ, PWM_100HZ, DIGITAL_INPUT } = ChannelCapability;
  const output = DIGITAL_OUTPUT | PWM_80HZ | PWM_100HZ;
  t.same(
    pins.channels.map((c: any) => c.capabilities),
    [output, output, DIGITAL_INPUT],
    'outputs and input',
  );
  t.equal(sim.gpio.physical(5), 1, 'an idle active-low output sits high');
  t.equal(sim.gpio.physical(6), 1, 'pump opened at its safe state (on)');

  await s.post('blocks/create', actuator('Backup Heater', 'GpioPins', 1, 'STATE_ACTIVE'));
  await s.run(1500);
  t.equal(sim.gpio.physical(5), 0, 'active-low: active drives the line low');
  t.equal(s.data('Backup Heater').state, 'STATE_ACTIVE', 'read back through the line');
  t.equal(sim.plantStatus().heaterOn, true);
  t.equal(s.data('GpioPins').lines[0].active, true);

  await s.post('blocks/patch', {
    id: 'Backup Heater',
    type: 'DigitalActuator',
    data: { storedState: 'STATE_INACTIVE' },
  });
  await s.run(1500);
  t.equal(sim.gpio.physical(5), 1);
  t.equal(sim.plantStatus().heaterOn, false);

  t.equal(s.data('GpioPins').lines[2].active, false, 'door input low');
  t.equal((await s.post('sim/gpio/door/level', { level: 1 })).status, 200);
  await s.run(1500);
  t.equal(s.data('GpioPins').lines[2].active, true, 'input level read through the block');
});

t.test('an input line cannot drive an output: 422 naming its direction (issue 24.7)', async (t) => {
  const s = await discovered();
  t.teardown(() => s.close());
  const refused = `channel 3 of 'GpioPins' cannot drive an output: GPIO line "door" (line 13) has direction 'in'`;
  const create = await s.post('blocks/create', actuator('Door Heater', 'GpioPins', 3, 'STATE_INACTIVE'));
  t.equal(create.status, 422, JSON.stringify(create.body));
  t.match(create.body.message, refused);
  t.equal((await s.post('blocks/read', { id: 'Door Heater' })).status, 404, 'nothing created');
  t.equal((await s.post('blocks/create', actuator('Heater', 'GpioPins', 1, 'STATE_INACTIVE'))).status, 201);
  const patch = await s.post('blocks/patch', { id: 'Heater', type: 'DigitalActuator', data: { channel: 3 } });
  t.equal(patch.status, 422);
  t.match(patch.body.message, refused);
  t.equal(s.data('Heater').channel, 1, 'the actuator keeps its channel');
  const pwm = await s.post('blocks/create', {
    id: 'Door PWM',
    type: 'FastPwm',
    data: { 'hwDevice<>': 'GpioPins', channel: 3, storedSetting: 0 },
  });
  t.equal(pwm.status, 422);
  t.match(pwm.body.message, refused);
});

t.test(
  'safe state at stop: latches off and GPIO lines at their safe state before the offline state goes out',
  async (t) => {
    const s = await discovered();
    const sim = s.app.hardware.sim!;
    await s.post('blocks/create', actuator('Heater', RELAYS, 1, 'STATE_ACTIVE'));
    await s.post('blocks/create', actuator('Cooler', PAIR, 1, 'STATE_ACTIVE'));
    await s.post('blocks/create', actuator('Backup Heater', 'GpioPins', 1, 'STATE_ACTIVE'));
    await s.post('blocks/create', actuator('Pump', 'GpioPins', 2, 'STATE_INACTIVE'));
    await s.run(2000);
    const relays = sim.devices().find((d) => d.spec.name === 'relays')!.model as unknown as { activeOutputs(): number };
    const pair = sim.devices().find((d) => d.spec.name === 'pair')!.model as unknown as { activeOutputs(): number };
    t.equal(relays.activeOutputs(), 1);
    t.equal(pair.activeOutputs(), 1);
    t.equal(sim.gpio.physical(5), 0);
    t.equal(sim.gpio.physical(6), 0, 'pump off while running');

    let atOffline: unknown = null;
    const mqtt = s.app.mqtt;
    const stop = mqtt.stop.bind(mqtt);
    t.capture(mqtt, 'stop', async () => {
      atOffline = {
        relays: relays.activeOutputs(),
        pair: pair.activeOutputs(),
        heater: sim.gpio.physical(5),
        pump: sim.gpio.physical(6),
      };
      return stop();
    });
    await s.close();
    t.same(
      atOffline,
      { relays: 0, pair: 0, heater: 1, pump: 1 },
      'outputs were safe when the offline state was published',
    );
    t.same(
      {
        relays: relays.activeOutputs(),
        pair: pair.activeOutputs(),
        heater: sim.gpio.physical(5),
        pump: sim.gpio.physical(6),
      },
      { relays: 0, pair: 0, heater: 1, pump: 1 },
    );
  },
);

t.test('control disabled, then enabled again without a restart: the outputs follow their blocks again', async (t) => {
  const s = await discovered();
  t.teardown(() => s.close());
  const sim = s.app.hardware.sim!;
  const relays = () =>
    (
      sim.devices().find((d) => d.spec.name === 'relays')!.model as unknown as { activeOutputs(): number }
    ).activeOutputs();
  const pair = () =>
    (
      sim.devices().find((d) => d.spec.name === 'pair')!.model as unknown as { activeOutputs(): number }
    ).activeOutputs();
  await s.post('blocks/create', actuator('Heater', RELAYS, 1, 'STATE_ACTIVE'));
  await s.post('blocks/create', actuator('Cooler', PAIR, 2, 'STATE_ACTIVE'));
  await s.post('blocks/create', actuator('Backup Heater', 'GpioPins', 1, 'STATE_ACTIVE'));
  await s.run(2000);
  t.same({ relays: relays(), pair: pair(), heater: sim.gpio.physical(5) }, { relays: 1, pair: 2, heater: 0 }, 'all on');

  const put = (enabled: boolean) =>
    s.app.http.inject({ method: 'PUT', url: '/edge-one/settings/enabled', payload: { enabled } });
  t.equal((await put(false)).statusCode, 200);
  await s.run(2000);
  t.same(
    { relays: relays(), pair: pair(), heater: sim.gpio.physical(5) },
    { relays: 0, pair: 0, heater: 1 },
    'disabled: all in their safe state',
  );

  t.equal((await put(true)).statusCode, 200);
  await s.run(2000);
  t.same(
    { relays: relays(), pair: pair(), heater: sim.gpio.physical(5) },
    { relays: 1, pair: 2, heater: 0 },
    'enabled again: every output follows its block (they stayed off until a restart)',
  );
  await s.post('blocks/patch', { id: 'Heater', type: 'DigitalActuator', data: { storedState: 'STATE_INACTIVE' } });
  await s.run(1500);
  t.equal(relays(), 0, 'and follows later changes');
});
