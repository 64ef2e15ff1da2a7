// The machine's I2C buses (/dev/i2c-N) and what each one is, from the kernel's adapter name and
// device-tree node in sysfs. On a Raspberry Pi the header's bus (pins 3 and 5) is i2c-1 on every
// model with `dtparam=i2c_arm=on`; the others belong to the display: the HDMI DDC buses (a
// monitor's EDID) are i2c-20/21 on a Pi 4, i2c-13/14 (or 11-13) on a Pi 5 and i2c-2 on a Pi 3.
// Probing those for bridges and sensors would write to a monitor, so discovery skips them unless
// the config names them.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface I2cRoots {
  /** Where the device nodes are (default /dev). */
  dev?: string;
  /** sysfs (default /sys). */
  sys?: string;
}

export type I2cBusRole = 'header' | 'display' | 'other';

export interface I2cAdapter {
  bus: number;
  /** `/dev/i2c-N` (under the dev root). */
  path: string;
  /** The kernel's adapter name, e.g. `bcm2835 (i2c@7e804000)`; '' when sysfs has none. */
  name: string;
  role: I2cBusRole;
}

/** Device-tree compatibles of the Broadcom HDMI DDC controllers (Pi 4 and Pi 5). */
const DISPLAY_COMPATIBLES = ['brcm,bcm2711-hdmi-i2c', 'brcm,bcm2712-hdmi-i2c'];
/** Adapter names of the HDMI DDC buses: Pi 4 (fef04500/fef09500), Pi 5 (107d508200/107d508280), Pi 3 (i2c2). */
const DISPLAY_NAMES = [/^fef0[49]500\.i2c$/, /^107d5082[08]0\.i2c$/, /\(i2c@7e805000\)$/];
/** The header bus's controller: BCM283x/2711 BSC1, or (Pi 5) RP1's DesignWare controller behind alias i2c1. */
const HEADER_NAMES = [/\(i2c@7e804000\)$/];

async function readText(path: string): Promise<string> {
  try {
    return (await readFile(path, 'utf8')).replace(/\0+$/, '').trim();
  } catch {
    return '';
  }
}

/** The role of bus N with adapter `name` and device-tree `compatible` (NUL-separated list). */
export function i2cBusRole(bus: number, name: string, compatible: string): I2cBusRole {
  const compatibles = compatible.split('\0').filter(Boolean);
  if (compatibles.some((c) => DISPLAY_COMPATIBLES.includes(c)) || DISPLAY_NAMES.some((re) => re.test(name)))
    return 'display';
  if (bus === 1 || HEADER_NAMES.some((re) => re.test(name))) return 'header';
  return 'other';
}

/** Every /dev/i2c-N, lowest first, with its adapter name and role. */
export async function listI2cAdapters(roots: I2cRoots = {}): Promise<I2cAdapter[]> {
  const dev = roots.dev ?? '/dev';
  const sys = roots.sys ?? '/sys';
  let names: string[];
  try {
    names = (await readdir(dev)).filter((n) => /^i2c-\d+$/.test(n));
  } catch {
    return [];
  }
  const buses = names.map((n) => Number(n.slice(4))).sort((a, b) => a - b);
  return Promise.all(
    buses.map(async (bus) => {
      const adapter = join(sys, 'bus/i2c/devices', `i2c-${bus}`);
      const name = await readText(join(adapter, 'name'));
      const compatible = await readText(join(adapter, 'of_node/compatible'));
      return { bus, path: join(dev, `i2c-${bus}`), name, role: i2cBusRole(bus, name, compatible) };
    }),
  );
}
