// Fake /sys/class/gpio trees for the GPIO tests (and the failsafe test).
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface FakeChip {
  name: string;
  base: number;
  label: string;
  ngpio: number;
}

export const PI4_CHIPS: FakeChip[] = [
  { name: 'gpiochip512', base: 512, label: 'pinctrl-bcm2711', ngpio: 58 },
  { name: 'gpiochip570', base: 570, label: 'raspberrypi-exp-gpio', ngpio: 8 },
];

export const PI5_CHIPS: FakeChip[] = [
  { name: 'gpiochip512', base: 512, label: 'gpio-brcmstb@107d508500', ngpio: 32 },
  { name: 'gpiochip544', base: 544, label: 'gpio-brcmstb@107d508520', ngpio: 4 },
  { name: 'gpiochip548', base: 548, label: 'gpio-brcmstb@107d517c00', ngpio: 17 },
  { name: 'gpiochip565', base: 565, label: 'gpio-brcmstb@107d517c20', ngpio: 6 },
  { name: 'gpiochip571', base: 571, label: 'pinctrl-rp1', ngpio: 54 },
];

/** A temp dir laid out like /sys/class/gpio; `exported` sysfs numbers get gpioN/ with the given value. */
export function makeGpioRoot(chips: FakeChip[], exported: Record<number, '0' | '1'> = {}): string {
  const root = mkdtempSync(join(tmpdir(), 'eb-gpio-'));
  writeFileSync(join(root, 'export'), '');
  writeFileSync(join(root, 'unexport'), '');
  for (const chip of chips) {
    const dir = join(root, chip.name);
    mkdirSync(dir);
    writeFileSync(join(dir, 'base'), `${chip.base}\n`);
    writeFileSync(join(dir, 'label'), `${chip.label}\n`);
    writeFileSync(join(dir, 'ngpio'), `${chip.ngpio}\n`);
  }
  for (const [number, value] of Object.entries(exported)) {
    const dir = join(root, `gpio${number}`);
    mkdirSync(dir);
    writeFileSync(join(dir, 'value'), `${value}\n`);
    writeFileSync(join(dir, 'direction'), 'in\n');
    writeFileSync(join(dir, 'active_low'), '0\n');
  }
  return root;
}
