import t from 'tap';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findGpioChip, gpioNumber, listGpioChips } from '../../drivers/gpio/chip-base.js';
import { makeGpioRoot, PI4_CHIPS, PI5_CHIPS } from './gpio-fixtures.js';

t.test('Pi 5 on kernel 6.6+: the rp1 chip among several, base 571', async (t) => {
  const root = makeGpioRoot(PI5_CHIPS);
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const chip = await findGpioChip({ root });
  t.equal(chip.label, 'pinctrl-rp1');
  t.equal(chip.base, 571);
  t.equal(chip.name, 'gpiochip571');
  t.equal(gpioNumber(chip, 17), 588);
  t.equal((await listGpioChips(root)).length, PI5_CHIPS.length);
});

t.test('Pi 4 on kernel 6.6+: bcm2711 at 512, not the expander chip', async (t) => {
  const root = makeGpioRoot(PI4_CHIPS);
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const chip = await findGpioChip({ root });
  t.equal(chip.label, 'pinctrl-bcm2711');
  t.equal(gpioNumber(chip, 4), 516);
});

t.test('older kernel: bcm2835 at base 0; odd bases are read, not assumed', async (t) => {
  const root = makeGpioRoot([
    { name: 'gpiochip504', base: 504, label: 'raspberrypi-exp-gpio', ngpio: 8 },
    { name: 'gpiochip0', base: 0, label: 'pinctrl-bcm2835', ngpio: 54 },
  ]);
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  t.equal((await findGpioChip({ root })).base, 0);
  const other = makeGpioRoot([{ name: 'gpiochip522', base: 522, label: 'pinctrl-bcm2711', ngpio: 58 }]);
  t.teardown(() => rmSync(other, { recursive: true, force: true }));
  t.equal(gpioNumber(await findGpioChip({ root: other }), 17), 539);
});

t.test('an explicit label wins over the Pi labels', async (t) => {
  const root = makeGpioRoot(PI4_CHIPS);
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const chip = await findGpioChip({ root, label: 'raspberrypi-exp-gpio' });
  t.equal(chip.base, 570);
  t.equal(gpioNumber(chip, 7), 577);
  t.throws(() => gpioNumber(chip, 8), /line 8 is outside gpiochip570/);
});

t.test('clear errors when nothing matches', async (t) => {
  const root = makeGpioRoot([{ name: 'gpiochip0', base: 0, label: 'some-usb-expander', ngpio: 16 }]);
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  await t.rejects(
    findGpioChip({ root }),
    /no gpiochip with a Pi header label .*found gpiochip0 "some-usb-expander" base 0/,
  );
  await t.rejects(findGpioChip({ root, label: 'pinctrl-rp1' }), /no gpiochip with label "pinctrl-rp1"/);
  await t.rejects(findGpioChip({ root: join(root, 'missing') }), /not readable \(ENOENT\).*CONFIG_GPIO_SYSFS/);
  const empty = makeGpioRoot([]);
  t.teardown(() => rmSync(empty, { recursive: true, force: true }));
  await t.rejects(findGpioChip({ root: empty }), /no gpiochip directories found/);
});

t.test('half-populated chip directories are skipped', async (t) => {
  const root = makeGpioRoot(PI4_CHIPS);
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(join(root, 'gpiochip600'));
  writeFileSync(join(root, 'gpiochip600', 'label'), 'pinctrl-rp1\n');
  writeFileSync(join(root, 'gpiochip600', 'base'), 'garbage\n');
  writeFileSync(join(root, 'gpiochip600', 'ngpio'), '54\n');
  const chip = await findGpioChip({ root });
  t.equal(chip.label, 'pinctrl-bcm2711', 'the broken rp1 entry is not used');
});
