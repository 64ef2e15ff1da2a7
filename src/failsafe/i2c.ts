// The failsafe's I2C half: every MCP23017, PCF8574 and PCA9685 the read-only probe finds on the
// configured buses (default every /dev/i2c-*) goes back to its power-on state: MCP23017 pins
// inputs, PCF8574 pins high, PCA9685 channels full off, each read back. A relay board that is
// off at power-up is off after this. Addresses a kernel driver holds are left alone.
import { expanderOffEitherWay, probeI2cIo, type FoundI2cChip } from '../../drivers/i2c/io-probe.js';
import { Mcp23017 } from '../../drivers/i2c/mcp23017.js';
import { Pca9685 } from '../../drivers/i2c/pca9685.js';
import { Pcf8574 } from '../../drivers/i2c/pcf8574.js';
import type { I2cBus } from '../../drivers/i2c/types.js';
import type { Reporter } from './onewire.js';
import { sysfsClaimed } from '../hardware/i2c-discovery.js';

const hex = (a: number) => `0x${a.toString(16).padStart(2, '0')}`;
const text = (e: unknown) => (e instanceof Error ? e.message : String(e)).split('\n')[0]!;

/** The IO chips on one bus to their safe state. Returns the number of failures. */
export async function i2cBusOutputsOff(
  bus: I2cBus,
  label: string,
  report: Reporter,
  claimed?: (address: number) => Promise<boolean>,
): Promise<number> {
  let failed = 0;
  let chips: FoundI2cChip[];
  try {
    chips = await probeI2cIo(bus, { claimed });
  } catch (err) {
    report.problem(`${label}: IO chip probe failed: ${text(err)}`);
    return 1;
  }
  for (const c of chips) {
    if (c.status === 'ambiguous') {
      try {
        const kind = await expanderOffEitherWay(bus, c.address);
        if (kind === 'mcp23017' || kind === 'pcf8574') c.kind = kind;
        else throw new Error('still neither an MCP23017 nor a PCF8574 after IODIR = 0xFF');
      } catch (err) {
        report.problem(
          `${label} ${hex(c.address)}: MCP23017 or PCF8574 with every pin low: NOT made safe: ${text(err)}`,
        );
        failed++;
        continue;
      }
    }
    if (!c.kind) {
      if (c.status === 'claimed') report.say(`${label} ${hex(c.address)}: ${c.detail}`);
      else report.problem(`${label} ${hex(c.address)}: ${c.detail}; NOT made safe`);
      if (c.status !== 'claimed') failed++;
      continue;
    }
    const chip =
      c.kind === 'mcp23017'
        ? new Mcp23017(bus, c.address)
        : c.kind === 'pcf8574'
          ? new Pcf8574(bus, c.address)
          : new Pca9685(bus, c.address);
    try {
      const heldLow = await chip.safeState();
      const note = heldLow ? `; pins held low from outside: 0x${heldLow.toString(16).padStart(2, '0')}` : '';
      report.say(`${c.kind.toUpperCase()} ${hex(c.address)} on ${label}: outputs off (power-on state)${note}`);
    } catch (err) {
      report.problem(`${c.kind.toUpperCase()} ${hex(c.address)} on ${label}: NOT made safe: ${text(err)}`);
      failed++;
    }
  }
  return failed;
}

/** Opens each bus, makes its IO chips safe, closes it. `open` is openI2cBus on Linux. */
export async function i2cOutputsOff(
  busNumbers: number[],
  open: (n: number) => Promise<I2cBus>,
  report: Reporter,
): Promise<number> {
  let failed = 0;
  for (const n of busNumbers) {
    let bus: I2cBus;
    try {
      bus = await open(n);
    } catch (err) {
      report.say(`/dev/i2c-${n}: ${text(err)}`);
      continue;
    }
    try {
      failed += await i2cBusOutputsOff(bus, `/dev/i2c-${n}`, report, sysfsClaimed(n));
    } finally {
      await bus.close().catch(() => undefined);
    }
  }
  return failed;
}
