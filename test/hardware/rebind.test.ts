// Stored hardware blocks find their devices again after a restart (same data dir), by address,
// and a device that is absent at start is picked up when it appears.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { q, simApp } from './sim-app.js';

const sim = (airPlugged: boolean) => ({
  plant: { ambient: 20, initial: { beer: 17, air: 21 } },
  ds2482: [
    {
      address: 24,
      variant: 'ds2482-100',
      channels: [
        [
          { name: 'beer', type: 'DS18B20', address: '28-0000000000b1', sense: 'beer' },
          { name: 'air', type: 'DS18B20', address: '28-0000000000a1', sense: 'air', plugged: airPlugged },
          { name: 'relays', type: 'DS2408', address: '29-0000000000d1', outputs: { '3': 'heater' } },
        ],
      ],
    },
  ],
});
const BEER = 'Sensor 00b1';
const AIR = 'Sensor 00a1';
const RELAYS = 'DS2408 0000000000d1';

t.test('after a restart the stored blocks re-bind by address; a device absent at start is found later', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-rebind-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));

  const first = await simApp({ sim: sim(true), dataDir });
  const found = (await first.post('blocks/discover')).body.map((b: any) => b.id).sort();
  t.same(found, [RELAYS, 'OneWire Bus ds2482-sim-0x18-ch0', AIR, BEER].sort());
  await first.post('blocks/patch', { id: BEER, type: 'TempSensorOneWire', data: { 'offset[delta_degC]': 0.5 } });
  await first.post('blocks/create', {
    id: 'Heater',
    type: 'DigitalActuator',
    data: { 'hwDevice<>': RELAYS, channel: 3, storedState: 'STATE_ACTIVE' },
  });
  await first.run(2000);
  t.ok(
    Math.abs(q(first.data(AIR).value)! - first.app.hardware.sim!.plant.air) <= 1 / 16,
    'air sensor reads before the restart',
  );
  await first.close();

  // Same data dir, fresh hardware (relays power up with every latch off), air sensor unplugged.
  const second = await simApp({ sim: sim(false), dataDir, start: 50 });
  t.teardown(() => second.close());
  const hw = second.app.hardware.sim!;
  const relays = hw.devices().find((d) => d.spec.name === 'relays')!.model as unknown as { activeOutputs(): number };
  t.equal(relays.activeOutputs(), 0, 'nothing on at power-up');
  await second.run(3000);
  t.equal(q(second.data(BEER).value), 17.5, 'stored sensor reads again, offset kept');
  t.equal(second.data(BEER).connected, true);
  t.equal(second.data(BEER).oneWireBusId.id, 'OneWire Bus ds2482-sim-0x18-ch0');
  t.equal(second.data(RELAYS).connected, true);
  t.equal(relays.activeOutputs(), 0b100, 'the stored actuator drives its latch again');
  t.equal(hw.plantStatus().heaterOn, true);
  t.equal(q(second.data(AIR).value), null, 'the absent sensor keeps its block and reads null');
  t.equal(second.data(AIR).connected, false);
  t.same((await second.post('blocks/discover')).body, [], 'nothing to discover: every device has its block');

  await second.post('sim/devices/air/plug');
  const t0 = second.clock.now();
  while (q(second.data(AIR).value) === null && second.clock.now() - t0 < 40_000) await second.run(500, 100);
  const took = second.clock.now() - t0;
  t.ok(took <= 31_000, `found by the periodic re-search after ${took} ms`);
  t.equal(second.data(AIR).connected, true);
  t.ok(Math.abs(q(second.data(AIR).value)! - hw.plant.air) <= 1 / 16, 'and reads the plant');
});
