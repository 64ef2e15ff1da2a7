// The MQTT state's short hardware summary (HardwareLayer.summary) counts a 1-Wire device that
// answers but whose every reply fails its CRC check as garbled, not as missing: the count a user
// reads as "unplugged" holds only the devices no bus answers for. The emulated DS2482, real
// drivers, a manual clock.
import t from 'tap';
import { oneWireSim } from './relay-boards.js';
import { simApp } from './sim-app.js';

const SIM = oneWireSim([
  { name: 'beer', type: 'DS18B20', address: '28-0000000000b1', sense: 'beer' },
  { name: 'air', type: 'DS18B20', address: '28-0000000000a1', sense: 'air' },
]);

t.test('a garbled sensor is counted as garbled, an unplugged one as missing', async (t) => {
  const s = await simApp({ sim: SIM });
  t.teardown(() => s.close());
  t.equal((await s.post('blocks/discover')).status, 200);
  await s.run(3000);
  const summary = () => s.app.hardware.summary() as { missing: number; garbled?: number };
  t.match(summary(), { missing: 0, garbled: 0 }, 'all read at first');

  t.equal((await s.post('sim/devices/beer/fault', { fault: 'crc', count: 'always' })).status, 200);
  await s.run(5000);
  t.match(summary(), { missing: 0, garbled: 1 }, 'the garbled sensor is not counted missing');

  t.equal((await s.post('sim/devices/air/unplug')).status, 200);
  await s.run(5000);
  t.match(summary(), { missing: 1, garbled: 1 }, 'the unplugged one is');
});
