import t from 'tap';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SysfsGpioBackend } from '../../drivers/gpio/sysfs-backend.js';
import { makeGpioRoot, PI5_CHIPS } from './gpio-fixtures.js';

const text = (path: string) => readFileSync(path, 'utf8').trim();

t.test('outputs are opened at the safe physical level, at base + line', async (t) => {
  // GPIO17 and GPIO27 on a Pi 5 are sysfs 588 and 598; 588 was left ON (low) by a crash.
  const root = makeGpioRoot(PI5_CHIPS, { 588: '0', 598: '0', 576: '1' });
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const gpio = await SysfsGpioBackend.detect({ root });
  t.equal(gpio.chip.base, 571);
  const heater = await gpio.open({ name: 'heater', line: 17, direction: 'out', activeLow: true });
  t.equal(text(join(root, 'gpio588', 'direction')), 'high', 'switched to output high in one step');
  t.equal(text(join(root, 'gpio588', 'value')), '1');
  t.equal(text(join(root, 'gpio588', 'active_low')), '0', 'kernel inversion off, done in software');
  t.equal(await heater.read(), false);
  await heater.write(true);
  t.equal(text(join(root, 'gpio588', 'value')), '0');
  t.equal(await heater.read(), true);

  const lamp = await gpio.open({ name: 'lamp', line: 27, direction: 'out', safeState: true });
  t.equal(text(join(root, 'gpio598', 'direction')), 'high');
  t.equal(await lamp.read(), true);

  const door = await gpio.open({ name: 'door', line: 5, direction: 'in', activeLow: true });
  t.equal(text(join(root, 'gpio576', 'direction')), 'in');
  t.equal(await door.read(), false);
  writeFileSync(join(root, 'gpio576', 'value'), '0\n');
  t.equal(await door.read(), true);
  await t.rejects(door.write(true), /is an input/);
  await gpio.close();
  await t.rejects(heater.write(false), /closed/);
});

t.test('export is written for a line that is not exported; a line that never appears is a clear error', async (t) => {
  const root = makeGpioRoot(PI5_CHIPS);
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const gpio = new SysfsGpioBackend({
    root,
    chip: (await SysfsGpioBackend.detect({ root })).chip,
    exportTimeoutMs: 50,
  });
  await t.rejects(
    gpio.open({ name: 'heater', line: 17, direction: 'out' }),
    /GPIO "heater" \(line 17, sysfs 588\): .*gpio588\/value did not become writable after export/,
  );
  t.equal(text(join(root, 'export')), '588');
  await t.rejects(gpio.open({ name: 'x', line: 54, direction: 'out' }), /line 54 is outside gpiochip571/);
});

t.test('unreadable value reads as null', async (t) => {
  const root = makeGpioRoot(PI5_CHIPS, { 588: '1' });
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const gpio = await SysfsGpioBackend.detect({ root });
  const line = await gpio.open({ name: 'a', line: 17, direction: 'in' });
  writeFileSync(join(root, 'gpio588', 'value'), 'garbage');
  t.equal(await line.read(), null);
  rmSync(join(root, 'gpio588'), { recursive: true });
  t.equal(await line.read(), null);
});
