// Each Raspberry Pi generation as Bookworm's kernel (6.6+) lays it out (test/helpers/pi-models.ts):
// the header's GPIO chip is found by its label with a sysfs base of 512 or more, a BCM line
// number becomes base + line, the header's I2C bus is probed and the HDMI display buses are not,
// and the systemd unit lets the service reach every GPIO and I2C device node the model has.
import t from 'tap';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findGpioChip, gpioNumber } from '../../drivers/gpio/chip-base.js';
import { SysfsGpioBackend } from '../../drivers/gpio/sysfs-backend.js';
import { listI2cAdapters } from '../../drivers/i2c/adapters.js';
import { listI2cBuses } from '../../src/hardware/masters.js';
import { ROOT } from '../helpers/cli.js';
import { layOutPi, PI_MODELS } from '../helpers/pi-models.js';

const unit = readFileSync(join(ROOT, 'systemd/edgeblocks.service'), 'utf8');
const allowed = [...unit.matchAll(/^DeviceAllow=(\S+) rw$/gm)].map((m) => m[1]!);

/** Whether DeviceAllow= admits /dev/`node`: by its path, or by its driver's class (char-gpiochip, char-i2c). */
function admitted(node: string): boolean {
  const classOf: Array<[RegExp, string]> = [
    [/^gpiochip\d+$/, 'char-gpiochip'],
    [/^i2c-\d+$/, 'char-i2c'],
  ];
  const cls = classOf.find(([re]) => re.test(node))?.[1];
  return allowed.includes(`/dev/${node}`) || (cls !== undefined && allowed.includes(cls));
}

for (const model of PI_MODELS) {
  t.test(`${model.model}: GPIO, I2C and the unit's devices`, async (t) => {
    const roots = layOutPi(model, t.testdir());
    const gpioRoot = join(roots.sys, 'class/gpio');
    const chip = await findGpioChip({ root: gpioRoot });
    t.equal(chip.label, model.header.label, `the header chip by its label ${model.header.label}`);
    t.equal(chip.base, model.header.base, `sysfs base ${model.header.base}`);
    t.ok(chip.base >= 512, 'kernel 6.6+: bases start at 512');
    t.equal(gpioNumber(chip, 17), model.header.base + 17, 'GPIO17 is base + 17');
    t.throws(() => gpioNumber(chip, chip.ngpio), /outside/, 'a line past the chip is refused');

    // The sysfs backend exports base + line: what the kernel numbers GPIO17 on this model.
    const gpio = await SysfsGpioBackend.detect({ root: gpioRoot });
    const opening = gpio.open({ name: 'heater', line: 17, direction: 'out' }).catch((e: Error) => e);
    const deadline = Date.now() + 5000;
    while (readFileSync(join(gpioRoot, 'export'), 'utf8') === '' && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 10));
    t.equal(readFileSync(join(gpioRoot, 'export'), 'utf8'), String(model.header.base + 17), 'export gets base + 17');
    await opening;
    await gpio.close();

    const adapters = await listI2cAdapters({ dev: roots.dev, sys: roots.sys });
    t.same(
      adapters.map((a) => a.bus),
      model.i2c.map((a) => a.bus),
      'every /dev/i2c-N is listed',
    );
    t.equal(
      adapters.find((a) => a.bus === model.headerI2cBus)?.role,
      'header',
      `i2c-${model.headerI2cBus} is the header's`,
    );
    t.same(
      await listI2cBuses({ dev: roots.dev, sys: roots.sys }),
      [`/dev/i2c-${model.headerI2cBus}`],
      'discovery probes the header bus, not the HDMI display buses',
    );

    for (const node of model.devices) {
      t.ok(existsSync(join(roots.dev, node)));
      if (/^(gpiochip|gpiomem|i2c-)/.test(node)) t.ok(admitted(node), `DeviceAllow admits /dev/${node}`);
    }
  });
}

t.test('a board that is not a Pi: its chip by the configured label; an unknown bus is probed', async (t) => {
  const roots = layOutPi(PI_MODELS[2]!, t.testdir());
  const chip = await findGpioChip({ root: join(roots.sys, 'class/gpio'), label: 'raspberrypi-exp-gpio' });
  t.equal(chip.base, 570);
  const { i2cBusRole } = await import('../../drivers/i2c/adapters.js');
  t.equal(i2cBusRole(3, 'i2c-gpio@1', ''), 'other');
  t.equal(i2cBusRole(0, 'some adapter', 'brcm,bcm2711-hdmi-i2c\0'), 'display', 'a DDC bus by its compatible');
});
