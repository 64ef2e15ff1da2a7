// A kernel w1 read that blocks (a sensor's conversion, a bus that hangs) runs in libuv's thread
// pool and may take seconds or never end. GPIO and I2C outputs are other buses: a heater's PWM on
// a GPIO relay must go on switching while a 1-Wire read waits, and a stop must still drive the
// GPIO lines safe. Here the kernel w1 bus of the emulation reads as usual until its reads are
// made to wait, as a read waiting in the thread pool does, until the test lets them go on.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import type { OneWireBus } from '../../drivers/onewire/types.js';
import { loadConfig } from '../../src/config.js';
import { HardwareLayer } from '../../src/hardware/layer.js';
import { silentLogger } from '../../src/log.js';
import { ManualClock } from '../../src/runtime/clock.js';

/** The sensor's directory in the kernel tree, and its ROM as the drivers name it. */
const KERNEL_NAME = '28-0000000001a1';
const SENSOR = '28a10100000000b8';

async function rig(t: Test, hungBusMs?: number) {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-hung-'));
  const simConfig = path.join(dir, 'sim.json');
  writeFileSync(
    simConfig,
    JSON.stringify({
      w1: [
        [
          { name: 'beer', type: 'DS18B20', address: KERNEL_NAME, temperature: 20 },
          { name: 'relays', type: 'DS2408', address: '29-0000000000d1' },
        ],
      ],
      gpio: [{ name: 'heater', line: 17, direction: 'out' }],
    }),
  );
  const clock = new ManualClock(1000);
  const layer = await HardwareLayer.create({
    config: loadConfig({ hardware: 'sim', simConfig, dataDir: dir }, {}),
    clock,
    log: silentLogger,
    ...(hungBusMs === undefined ? {} : { hungBusMs }),
  });
  const sim = layer.sim!;
  t.teardown(async () => {
    await layer.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const step = async (ms = 100) => {
    clock.advance(ms);
    await layer.service(clock.now());
  };
  // Read normally first.
  for (let i = 0; i < 40 && layer.onewire.temperature(SENSOR, clock.now()).value === null; i++) await step();
  t.equal(layer.onewire.temperature(SENSOR, clock.now()).value, 20, 'the sensor reads through the kernel tree');

  /** From now on the sensor's reads wait, as a kernel read waits in the thread pool, until `release()`. */
  const gates: Array<() => void> = [];
  const bus = (layer.onewire as unknown as { pollers: Array<{ bus: OneWireBus }> }).pollers[0]!.bus;
  const read = bus.readTemperature.bind(bus);
  const hang = () => {
    bus.readTemperature = (address: string) =>
      new Promise<void>((resolve) => gates.push(resolve)).then(() => read(address));
  };
  const release = () => {
    bus.readTemperature = read;
    for (const open of gates.splice(0)) open();
  };
  t.teardown(release);
  // The service's own wait is an unref'd timer; a service's control loop keeps the process alive.
  const alive = setInterval(() => {}, 1000);
  t.teardown(() => clearInterval(alive));
  return { layer, sim, clock, step, hang, release };
}

t.test('a GPIO output switches while a 1-Wire read blocks in the kernel', async (t) => {
  const { layer, sim, step, hang } = await rig(t);
  hang();
  // Let a round of reads start and block.
  for (let i = 0; i < 20; i++) await step();
  for (const active of [true, false, true]) {
    layer.gpio.write('heater', active);
    for (let i = 0; i < 3; i++) await step();
    t.equal(sim.gpio.logical(17), active, `the heater's line is ${active ? 'on' : 'off'} within 300 ms`);
  }
});

t.test('a stop drives the GPIO lines safe while a 1-Wire read blocks, and waits for the bus', async (t) => {
  const { layer, sim, step, hang, release } = await rig(t);
  layer.gpio.write('heater', true);
  await step();
  t.equal(sim.gpio.logical(17), true, 'on before');
  hang();
  for (let i = 0; i < 20; i++) await step();
  let done = false;
  const safe = layer.safeState().finally(() => {
    done = true;
  });
  for (let i = 0; i < 50 && sim.gpio.logical(17); i++) await new Promise((r) => setTimeout(r, 10));
  t.equal(sim.gpio.logical(17), false, 'the heater is off while the 1-Wire read still blocks');
  t.equal(done, false, 'the stop waits for the 1-Wire bus');
  release();
  const driven = await safe;
  t.same(
    driven.gpio.map((g) => [g.name, g.active]),
    [['heater', false]],
  );
  t.same(
    driven.io.map((m) => m.kind),
    ['DS2408'],
    'once the read returned, the IO module on that bus is switched off',
  );
  t.same(driven.unreached, []);
});

t.test('a 1-Wire read that never returns does not keep a stop waiting for ever', async (t) => {
  const { layer, sim, step, hang } = await rig(t, 300);
  layer.gpio.write('heater', true);
  await step();
  hang();
  for (let i = 0; i < 20; i++) await step();
  const driven = await layer.safeState();
  t.equal(sim.gpio.logical(17), false, 'the heater is off');
  t.same(driven.io, [], 'its IO module is not reported off');
  t.same(driven.unreached, ['w1-w1_bus_master1'], 'the bus that did not answer is named');
});
