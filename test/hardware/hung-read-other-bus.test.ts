// A kernel w1 read that blocks (hung-read-outputs.test.ts) holds its own bus, not the other
// 1-Wire buses: a relay board's DS2408 on a DS2482 must still switch, and its sensors still read,
// while a sensor read on the Pi's w1-gpio bus waits in the kernel.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import type { OneWireBus } from '../../drivers/onewire/types.js';
import { loadConfig } from '../../src/config.js';
import { HardwareLayer } from '../../src/hardware/layer.js';
import { silentLogger } from '../../src/log.js';
import { ManualClock } from '../../src/runtime/clock.js';

const KERNEL_SENSOR = '28a10100000000b8';

t.test('a DS2408 on a DS2482 switches while a read on the kernel w1 bus blocks', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-hung2-'));
  const simConfig = path.join(dir, 'sim.json');
  writeFileSync(
    simConfig,
    JSON.stringify({
      w1: [[{ name: 'beer', type: 'DS18B20', address: '28-0000000001a1', temperature: 20 }]],
      ds2482: [
        {
          address: 24,
          variant: 'ds2482-100',
          channels: [[{ name: 'relays', type: 'DS2408', address: '29-0000000000d1' }]],
        },
      ],
    }),
  );
  const clock = new ManualClock(1000);
  const layer = await HardwareLayer.create({
    config: loadConfig({ hardware: 'sim', simConfig, dataDir: dir }, {}),
    clock,
    log: silentLogger,
    hungBusMs: 300,
  });
  const gates: Array<() => void> = [];
  const alive = setInterval(() => {}, 1000);
  t.teardown(async () => {
    for (const open of gates.splice(0)) open();
    clearInterval(alive);
    await layer.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const board = layer.sim!.devices().find((d) => d.spec.name === 'relays')!.model as unknown as {
    activeOutputs(): number;
  };
  const step = async (ms = 100) => {
    clock.advance(ms);
    await layer.service(clock.now());
  };
  for (let i = 0; i < 10 && !layer.onewire.buses().some((b) => b.addresses.some((a) => a.startsWith('29'))); i++)
    await step();
  const RELAYS = layer.onewire
    .buses()
    .flatMap((b) => b.addresses)
    .find((a) => a.startsWith('29'))!;
  const relays = () => layer.onewire.io(RELAYS, 'DS2408');
  for (
    let i = 0;
    i < 40 && (layer.onewire.temperature(KERNEL_SENSOR, clock.now()).value === null || !relays()?.connected);
    i++
  )
    await step();
  t.equal(layer.onewire.temperature(KERNEL_SENSOR, clock.now()).value, 20, 'the kernel bus reads');
  t.ok(relays()?.connected, 'the relay board answers');

  const pollers = (layer.onewire as unknown as { pollers: Array<{ bus: OneWireBus }> }).pollers;
  const kernel = pollers.find((p) => p.bus.name.startsWith('w1-'))!.bus;
  const read = kernel.readTemperature.bind(kernel);
  kernel.readTemperature = (address: string) =>
    new Promise<void>((resolve) => gates.push(resolve)).then(() => read(address));
  for (let i = 0; i < 20; i++) await step();
  t.ok(gates.length > 0, 'a kernel read blocks');
  for (const latches of [0x01, 0x00, 0x03]) {
    layer.onewire.setLatches(RELAYS, 'DS2408', latches);
    for (let i = 0; i < 5; i++) await step();
    t.equal(board.activeOutputs(), latches, `the relays follow (0x${latches.toString(16)}) within 500 ms`);
  }
});
