// `--hardware linux`: what it finds is what the machine has. A kernel w1 tree (emulated here in
// a directory) is found through w1Root; missing buses, modules and GPIO are normal.
import { createHook } from 'node:async_hooks';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { makeRom } from '../../drivers/onewire/address.js';
import { OneWireSegment, SimDs18b20, SimDs2408 } from '../../drivers/sim/onewire-wire.js';
import { W1Tree } from '../../drivers/sim/w1-tree.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { startApp } from '../helpers/app.js';
import { ManualTimers } from '../helpers/manual-timers.js';
import { q, simApp } from './sim-app.js';

t.test('a machine without 1-Wire, I2C or GPIO starts, discovers nothing, and says so in status', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-linux-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const configFile = path.join(dir, 'config.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      gpio: [{ name: 'heater', line: 17, activeLow: true }],
      gpioChipLabel: 'no-such-chip',
      w1Root: path.join(dir, 'no-w1'),
      i2cBuses: ['/dev/i2c-99'],
    }),
  );
  const s = await simApp({ config: { hardware: 'linux', config: configFile } });
  t.teardown(() => s.close());
  t.same((await s.post('blocks/discover')).body, []);
  await s.run(2000);
  const pins = s.data('GpioPins');
  t.same(
    pins.lines.map((l: any) => [l.name, l.line, l.active]),
    [['heater', 17, null]],
    'the configured line is listed, unreadable',
  );
  const status = (await s.get('system/status')).body.hardware;
  t.equal(status.mode, 'linux');
  t.same(status.onewire.buses, []);
  t.equal(status.gpio[0].open, false);
  t.ok(status.gpio[0].lastError, 'and why');
  await s.post('blocks/create', {
    id: 'Heater',
    type: 'DigitalActuator',
    data: { 'hwDevice<>': 'GpioPins', channel: 1, storedState: 'STATE_ACTIVE' },
  });
  await s.run(1500);
  t.equal(s.data('Heater').state, null, 'an actuator on it shows an unknown state, nothing crashes');
});

t.test(
  'with nothing attached the hardware hook is never due, sets no timer (an idle Pi is not woken for it) and skips the hubs',
  async (t) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-linux-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const s = await simApp({ config: { hardware: 'linux', w1Root: path.join(dir, 'no-w1'), i2cBuses: '/dev/i2c-99' } });
    t.teardown(() => s.close());
    const layer = s.app.hardware;
    t.equal(layer.nextServiceAt(0), Infinity, 'never due');
    let timers = 0;
    let immediates = 0;
    const hook = createHook({
      init: (_id, type) => void (type === 'Timeout' ? timers++ : type === 'Immediate' && immediates++),
    }).enable();
    try {
      for (let i = 0; i < 5; i++) await layer.service(i * 1000);
    } finally {
      hook.disable();
    }
    // A timer cleared before it fires still wakes node's event loop when it was due.
    t.equal(timers, 0, 'five hook runs made no timer');
    // The hubs' refresh would find nothing to do; waiting for it cost a setImmediate a step.
    t.equal(immediates, 0, 'nor an immediate: the hubs were not refreshed');
  },
);

t.test('kernel w1 masters under w1Root are found, discovered and polled', async (t) => {
  const segment = new OneWireSegment({ name: 'w1' });
  const sensor = segment.attach(new SimDs18b20({ address: makeRom(0x28, 0x5150), temperature: 63.5 }));
  segment.attach(new SimDs2408({ address: makeRom(0x29, 0x5151) }));
  const tree = new W1Tree({ masters: [segment] });
  t.teardown(() => tree.close());
  const s = await simApp({
    config: { hardware: 'linux', w1Root: tree.root, i2cBuses: '/dev/i2c-99' },
    hooks: [() => tree.refresh()],
  });
  t.teardown(() => s.close());
  const found = (await s.post('blocks/discover')).body.map((b: any) => b.id).sort();
  t.same(found, ['DS2408 000000005151', 'OneWire Bus w1-w1_bus_master1', 'Sensor 5150']);
  await s.run(3000);
  t.equal(q(s.data('Sensor 5150').value), 63.5);
  t.equal(s.data('DS2408 000000005151').connected, true);
  sensor.setTemperature(-4.25);
  await s.run(2000);
  t.equal(q(s.data('Sensor 5150').value), -4.25);
  t.equal(s.data('OneWire Bus w1-w1_bus_master1').kind, 'w1');
});

t.test('a Pi with 1-Wire sensors is woken for their conversions and reads, not ten times a second', async (t) => {
  const segment = new OneWireSegment({ name: 'w1' });
  const sensors = [0x5160, 0x5161].map((serial) =>
    segment.attach(new SimDs18b20({ address: makeRom(0x28, serial), temperature: 20.5 })),
  );
  const tree = new W1Tree({ masters: [segment] });
  t.teardown(() => tree.close());
  // The started service (its control loop, the kernel files read by the real driver) on a
  // manual clock and its timers: the kernel's tree is refreshed every 50 ms of that clock.
  const clock = new ManualClock(1000);
  const timers = new ManualTimers(clock);
  const rt = await startApp({ hardware: 'linux', w1Root: tree.root, i2cBuses: '/dev/i2c-99' }, { clock, timers });
  t.teardown(() => rt.close());
  const run = async (ms: number) => {
    for (let done = 0; done < ms; done += 50) {
      tree.refresh();
      await timers.advance(50);
    }
  };
  t.same(
    (await rt.post('blocks/discover')).body
      .map((b: any) => b.id)
      .filter((id: string) => id.startsWith('Sensor'))
      .sort(),
    ['Sensor 5160', 'Sensor 5161'],
  );
  const value = async (id: string) => q((await rt.post('blocks/read', { id })).body.data.value);
  await run(3000);
  t.same([await value('Sensor 5160'), await value('Sensor 5161')], [20.5, 20.5], 'the first readings');

  let steps = 0;
  const count = () => void steps++;
  rt.app.runtime.on('tick', count);
  const windowMs = 4000;
  sensors[0]!.setTemperature(18.75);
  await run(windowMs);
  rt.app.runtime.off('tick', count);
  // A conversion, its read 750 ms later and the sensor blocks' own 1 s updates: three a second at
  // most (the 10 Hz poll of old made 40 in this window).
  t.ok(steps <= (3 * windowMs) / 1000 + 1, `${steps} steps in ${windowMs} ms`);
  t.ok(steps >= windowMs / 1000, 'the sensors are still read every second');
  t.equal(await value('Sensor 5160'), 18.75, 'the change was read within the window');
});
