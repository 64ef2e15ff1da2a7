// Finds the sysfs GPIO number base of the Raspberry Pi header chip.
// Since kernel 6.6 the bases are dynamic (512 on a Pi 4, 571 on a Pi 5, others seen), so the
// base is read from /sys/class/gpio/gpiochipN/{base,label,ngpio}, never assumed.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

export const DEFAULT_GPIO_ROOT = '/sys/class/gpio';

/** Header pin controllers, most specific first: Pi 5, Pi 4, Pi 3 and older. */
export const PI_HEADER_LABELS: readonly string[] = ['pinctrl-rp1', 'pinctrl-bcm2711', 'pinctrl-bcm2835'];

export interface GpioChipInfo {
  /** Directory name, e.g. gpiochip512. */
  name: string;
  path: string;
  label: string;
  base: number;
  ngpio: number;
}

export interface FindChipOptions {
  /** sysfs class directory; default /sys/class/gpio. */
  root?: string;
  /** Exact label to use instead of the Pi header labels. */
  label?: string;
}

export class GpioChipError extends Error {
  override name = 'GpioChipError';
}

async function readTrimmed(path: string): Promise<string> {
  return (await readFile(path, 'utf8')).trim();
}

function parseCount(text: string, what: string): number {
  if (!/^\d+$/.test(text)) throw new GpioChipError(`${what} is not a number: "${text}"`);
  return Number(text);
}

/** Every gpiochipN directory under root that has readable base, label and ngpio files. */
export async function listGpioChips(root: string = DEFAULT_GPIO_ROOT): Promise<GpioChipInfo[]> {
  let names: string[];
  try {
    names = await readdir(root);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    throw new GpioChipError(
      `GPIO sysfs directory ${root} is not readable (${code}); the kernel needs CONFIG_GPIO_SYSFS`,
    );
  }
  const chips: GpioChipInfo[] = [];
  for (const name of names.filter((n) => /^gpiochip\d+$/.test(n)).sort()) {
    const path = join(root, name);
    try {
      const [base, label, ngpio] = await Promise.all([
        readTrimmed(join(path, 'base')),
        readTrimmed(join(path, 'label')),
        readTrimmed(join(path, 'ngpio')),
      ]);
      chips.push({
        name,
        path,
        label,
        base: parseCount(base, `${path}/base`),
        ngpio: parseCount(ngpio, `${path}/ngpio`),
      });
    } catch {
      // A half-populated or foreign entry is not a usable chip; keep looking.
    }
  }
  return chips;
}

function describe(chips: GpioChipInfo[]): string {
  if (chips.length === 0) return 'no gpiochip directories found';
  return 'found ' + chips.map((c) => `${c.name} "${c.label}" base ${c.base}`).join(', ');
}

/** The chip to use: the configured label, else the first Pi header label present. */
export async function findGpioChip(options: FindChipOptions = {}): Promise<GpioChipInfo> {
  const root = options.root ?? DEFAULT_GPIO_ROOT;
  const chips = await listGpioChips(root);
  const wanted = options.label !== undefined ? [options.label] : PI_HEADER_LABELS;
  for (const label of wanted) {
    const chip = chips.find((c) => c.label === label);
    if (chip) return chip;
  }
  const asked =
    options.label !== undefined ? `label "${options.label}"` : `a Pi header label (${PI_HEADER_LABELS.join(', ')})`;
  throw new GpioChipError(`no gpiochip with ${asked} under ${root}: ${describe(chips)}`);
}

/** The sysfs GPIO number of a line offset on a chip, checked against the chip size. */
export function gpioNumber(chip: GpioChipInfo, line: number): number {
  if (!Number.isInteger(line) || line < 0 || line >= chip.ngpio) {
    throw new GpioChipError(`line ${line} is outside ${chip.name} "${chip.label}" (0..${chip.ngpio - 1})`);
  }
  return chip.base + line;
}
