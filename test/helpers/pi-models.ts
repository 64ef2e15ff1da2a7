// Raspberry Pi models as Raspberry Pi OS Bookworm's kernel (6.6+) lays them out: the model
// string, the sysfs GPIO chips (bases from 512, the header chip found by label), the device
// nodes, and the I2C adapters with their names and device-tree compatibles. layOutPi() writes one
// into a directory as a fake root (boot, proc, sys, dev), for the GPIO, I2C, unit and doctor tests.
import { chmodSync, chownSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface PiModel {
  key: 'pi3' | 'pi4' | 'pi5' | 'zero2w';
  model: string;
  /** The header's pin controller label and its sysfs base. */
  header: { label: string; base: number };
  gpioChips: Array<{ name: string; base: number; label: string; ngpio: number }>;
  /** Device nodes under /dev that the service may use. */
  devices: string[];
  i2c: Array<{ bus: number; name: string; compatible: string[] }>;
  /** The bus a DS2482 or a sensor on pins 3 and 5 is on. */
  headerI2cBus: number;
}

const BCM2835_CHIPS = [
  { name: 'gpiochip512', base: 512, label: 'pinctrl-bcm2835', ngpio: 54 },
  { name: 'gpiochip566', base: 566, label: 'raspberrypi-exp-gpio', ngpio: 8 },
];
const PI3_I2C = [
  { bus: 1, name: 'bcm2835 (i2c@7e804000)', compatible: ['brcm,bcm2835-i2c'] },
  { bus: 2, name: 'bcm2835 (i2c@7e805000)', compatible: ['brcm,bcm2835-i2c'] },
];

/** The Pi 3 and the Zero 2 W: the same BCM2837 and the same kernel tree; only the model differs. */
const BCM2837 = {
  header: { label: 'pinctrl-bcm2835', base: 512 },
  gpioChips: BCM2835_CHIPS,
  devices: ['gpiochip0', 'gpiochip1', 'gpiomem', 'i2c-1', 'i2c-2'],
  i2c: PI3_I2C,
  headerI2cBus: 1,
};

export const PI_MODELS: PiModel[] = [
  { key: 'pi3', model: 'Raspberry Pi 3 Model B Plus Rev 1.3', ...BCM2837 },
  { key: 'zero2w', model: 'Raspberry Pi Zero 2 W Rev 1.0', ...BCM2837 },
  {
    key: 'pi4',
    model: 'Raspberry Pi 4 Model B Rev 1.5',
    header: { label: 'pinctrl-bcm2711', base: 512 },
    gpioChips: [
      { name: 'gpiochip512', base: 512, label: 'pinctrl-bcm2711', ngpio: 58 },
      { name: 'gpiochip570', base: 570, label: 'raspberrypi-exp-gpio', ngpio: 8 },
    ],
    devices: ['gpiochip0', 'gpiochip1', 'gpiomem', 'i2c-1', 'i2c-20', 'i2c-21'],
    i2c: [
      { bus: 1, name: 'bcm2835 (i2c@7e804000)', compatible: ['brcm,bcm2711-i2c', 'brcm,bcm2835-i2c'] },
      { bus: 20, name: 'fef04500.i2c', compatible: ['brcm,bcm2711-hdmi-i2c'] },
      { bus: 21, name: 'fef09500.i2c', compatible: ['brcm,bcm2711-hdmi-i2c'] },
    ],
    headerI2cBus: 1,
  },
  {
    key: 'pi5',
    model: 'Raspberry Pi 5 Model B Rev 1.0',
    header: { label: 'pinctrl-rp1', base: 571 },
    gpioChips: [
      { name: 'gpiochip512', base: 512, label: 'gpio-brcmstb@107d508500', ngpio: 32 },
      { name: 'gpiochip544', base: 544, label: 'gpio-brcmstb@107d508520', ngpio: 4 },
      { name: 'gpiochip548', base: 548, label: 'gpio-brcmstb@107d517c00', ngpio: 17 },
      { name: 'gpiochip565', base: 565, label: 'gpio-brcmstb@107d517c20', ngpio: 6 },
      { name: 'gpiochip571', base: 571, label: 'pinctrl-rp1', ngpio: 54 },
    ],
    // The RP1's GPIO registers are mapped per bank: /dev/gpiomem0 ... /dev/gpiomem4, no /dev/gpiomem.
    devices: [
      'gpiochip0',
      'gpiochip1',
      'gpiochip2',
      'gpiochip3',
      'gpiochip4',
      'gpiomem0',
      'gpiomem1',
      'gpiomem2',
      'gpiomem3',
      'gpiomem4',
      'i2c-1',
      'i2c-13',
      'i2c-14',
    ],
    i2c: [
      { bus: 1, name: 'Synopsys DesignWare I2C adapter', compatible: ['snps,designware-i2c'] },
      { bus: 13, name: '107d508200.i2c', compatible: ['brcm,brcmstb-i2c'] },
      { bus: 14, name: '107d508280.i2c', compatible: ['brcm,brcmstb-i2c'] },
    ],
    headerI2cBus: 1,
  },
];

export function piModel(key: PiModel['key']): PiModel {
  return PI_MODELS.find((m) => m.key === key)!;
}

export interface PiRoots {
  boot: string;
  proc: string;
  sys: string;
  dev: string;
  etc: string;
}

/** Raspberry Pi OS's device groups, and the service user the installer makes (in all three). */
export const PI_GROUPS = { gpio: 997, i2c: 998, dialout: 20, edgeblocks: 990 } as const;

export interface PiOptions {
  /** config.txt in /boot/firmware; default: both interfaces enabled. */
  bootConfig?: string;
  /** Kernel 1-Wire masters present in /sys/bus/w1/devices (default 1). */
  w1Masters?: number;
  /** systemd-timesyncd has synchronised the clock (default true). */
  synced?: boolean;
  /** A battery-backed RTC as the kernel names it in /sys/class/rtc/rtc0/name (default none). */
  rtc?: string;
}

export const BOTH_INTERFACES = '[all]\ndtparam=i2c_arm=on\ndtoverlay=w1-gpio\n';

/**
 * `root`/boot, /etc, /proc, /run, /sys and /dev laid out as `model`'s kernel and Raspberry Pi OS
 * do: device nodes (plain files) owned by root and the gpio or i2c group, mode 0660 (ownership
 * only when the tests run as root), the edgeblocks user in gpio, i2c and dialout.
 */
export function layOutPi(model: PiModel, root: string, options: PiOptions = {}): PiRoots {
  const roots = {
    boot: join(root, 'boot'),
    proc: join(root, 'proc'),
    sys: join(root, 'sys'),
    dev: join(root, 'dev'),
    etc: join(root, 'etc'),
  };
  for (const dir of Object.values(roots)) mkdirSync(dir, { recursive: true });
  const dt = join(roots.sys, 'firmware/devicetree/base');
  mkdirSync(dt, { recursive: true });
  writeFileSync(join(dt, 'model'), `${model.model}\0`);
  symlinkSync(join('..', 'sys/firmware/devicetree/base'), join(roots.proc, 'device-tree'));
  const gpio = join(roots.sys, 'class/gpio');
  mkdirSync(gpio, { recursive: true });
  writeFileSync(join(gpio, 'export'), '');
  writeFileSync(join(gpio, 'unexport'), '');
  for (const chip of model.gpioChips) {
    const dir = join(gpio, chip.name);
    mkdirSync(dir);
    writeFileSync(join(dir, 'base'), `${chip.base}\n`);
    writeFileSync(join(dir, 'label'), `${chip.label}\n`);
    writeFileSync(join(dir, 'ngpio'), `${chip.ngpio}\n`);
  }
  const asRoot = process.getuid?.() === 0;
  for (const node of model.devices) {
    const path = join(roots.dev, node);
    writeFileSync(path, '', { mode: 0o660 });
    chmodSync(path, 0o660);
    if (asRoot) chownSync(path, 0, node.startsWith('i2c-') ? PI_GROUPS.i2c : PI_GROUPS.gpio);
  }
  const g = PI_GROUPS;
  writeFileSync(
    join(roots.etc, 'passwd'),
    `root:x:0:0::/root:/bin/bash\nedgeblocks:x:${g.edgeblocks}:${g.edgeblocks}::/var/lib/edgeblocks:/usr/sbin/nologin\n`,
  );
  writeFileSync(
    join(roots.etc, 'group'),
    `root:x:0:\ndialout:x:${g.dialout}:pi,edgeblocks\ngpio:x:${g.gpio}:pi,edgeblocks\ni2c:x:${g.i2c}:pi,edgeblocks\nedgeblocks:x:${g.edgeblocks}:\n`,
  );
  writeFileSync(
    join(roots.etc, 'os-release'),
    'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nNAME="Debian GNU/Linux"\nVERSION_ID="12"\n',
  );
  // A 2 GB Pi 4's numbers; the doctor shows what /proc says.
  writeFileSync(
    join(roots.proc, 'meminfo'),
    'MemTotal:        1891012 kB\nMemFree:          912344 kB\nMemAvailable:    1463504 kB\n',
  );
  mkdirSync(join(roots.proc, 'sys/kernel'), { recursive: true });
  writeFileSync(join(roots.proc, 'sys/kernel/osrelease'), `6.6.51+rpt-rpi-${model.key === 'pi5' ? '2712' : 'v8'}\n`);
  for (let m = 1; m <= (options.w1Masters ?? 1); m++)
    mkdirSync(join(roots.sys, `bus/w1/devices/w1_bus_master${m}`), { recursive: true });
  if (options.synced ?? true) {
    mkdirSync(join(root, 'run/systemd/timesync'), { recursive: true });
    writeFileSync(join(root, 'run/systemd/timesync/synchronized'), '');
  }
  if (options.rtc) {
    mkdirSync(join(roots.sys, 'class/rtc/rtc0'), { recursive: true });
    writeFileSync(join(roots.sys, 'class/rtc/rtc0/name'), `${options.rtc}\n`);
  }
  for (const adapter of model.i2c) {
    const dir = join(roots.sys, 'bus/i2c/devices', `i2c-${adapter.bus}`);
    mkdirSync(join(dir, 'of_node'), { recursive: true });
    writeFileSync(join(dir, 'name'), `${adapter.name}\n`);
    writeFileSync(join(dir, 'of_node/compatible'), adapter.compatible.map((c) => `${c}\0`).join(''));
  }
  mkdirSync(join(roots.boot, 'firmware'), { recursive: true });
  writeFileSync(join(roots.boot, 'firmware/config.txt'), options.bootConfig ?? BOTH_INTERFACES);
  return roots;
}
