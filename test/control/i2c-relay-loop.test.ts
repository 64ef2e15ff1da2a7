// Closed loop through the I2C path: a PID holds the beer of the emulated fermenter at its
// setpoint by switching a heater relay on an active-low MCP23017 (ActuatorPwm -> DigitalActuator
// -> MCP23017 channel 1), with the beer measured by a DS18B20 behind a DS2482 on the same bus.
import t from 'tap';
import { q, simApp } from '../hardware/sim-app.js';

const link = (id: string) => ({ __objtype: 'Link', id });
const Q = (unit: string, value: number) => ({ __objtype: 'Quantity', unit, value });

const SIM = {
  // A small, quick plant: a 4 kJ/K beer with a 100 W heat wrap.
  plant: {
    ambient: 18,
    initial: { beer: 18, air: 18 },
    beer: { heatCapacity: 4000 },
    air: { heatCapacity: 1000 },
    heater: { powerW: 100, target: 'beer' },
  },
  ds2482: [
    {
      address: '0x18',
      variant: 'ds2482-100',
      channels: [[{ name: 'beer', type: 'DS18B20', address: '28-0000000000b1', sense: 'beer' }]],
    },
  ],
  i2cIo: [{ name: 'relays', type: 'MCP23017', address: '0x20', activeLow: true, outputs: { '1': 'heater' } }],
};

t.test('a PID holds the beer at its setpoint through a heater relay on an MCP23017', async (t) => {
  const s = await simApp({ sim: SIM });
  t.teardown(() => s.close());
  t.equal(
    (
      await s.post('blocks/create', {
        id: 'Relays',
        type: 'MCP23017',
        data: { bus: 'sim', address: 0x20, activeLow: true },
      })
    ).status,
    201,
  );
  const sensorId = (await s.post('blocks/discover')).body.find((b: any) => b.type === 'TempSensorOneWire').id;
  await s.post('blocks/create', {
    id: 'Beer Setpoint',
    type: 'SetpointSensorPair',
    data: { sensorId: link(sensorId), storedSetting: Q('degC', 24), enabled: true },
  });
  await s.post('blocks/create', {
    id: 'Heater',
    type: 'DigitalActuator',
    data: { hwDevice: link('Relays'), channel: 1 },
  });
  await s.post('blocks/create', {
    id: 'Heat PWM',
    type: 'ActuatorPwm',
    data: { actuatorId: link('Heater'), period: Q('s', 10) },
  });
  const pid = await s.post('blocks/create', {
    id: 'Heat PID',
    type: 'Pid',
    data: {
      inputId: link('Beer Setpoint'),
      outputId: link('Heat PWM'),
      kp: Q('1/degC', 30),
      ti: Q('s', 900),
      td: Q('s', 0),
      enabled: true,
    },
  });
  t.equal(pid.status, 201, 'PID created');

  const sim = s.app.hardware.sim!;
  let on = 0;
  let off = 0;
  const beerAt: number[] = [];
  for (let minute = 0; minute < 40; minute++) {
    for (let sec = 0; sec < 60; sec += 5) {
      await s.run(5000, 500);
      if (sim.plantStatus().heaterOn) on++;
      else off++;
    }
    beerAt.push(sim.plantStatus().beer);
  }
  const last = beerAt.slice(-10);
  t.ok(on > 0 && off > 0, `the relay switched both ways (${on} on, ${off} off samples)`);
  t.ok(beerAt[2]! > 19, `the beer warms (${beerAt[2]!.toFixed(2)} after 3 min)`);
  for (const b of last) t.ok(Math.abs(b - 24) < 0.5, `beer ${b.toFixed(2)} held within 0.5 of 24`);
  t.ok(Math.abs(q(s.data('Beer Setpoint').value)! - sim.plantStatus().beer) < 0.2, 'the sensor reads the plant');
  const mcpStatus = (await s.get('system/status')).body.hardware.i2c.devices.find((d: any) => d.address === '0x20');
  t.equal(mcpStatus.connected, true);
  t.equal(mcpStatus.verifyErrors, 0, 'every write read back as asked');
});
