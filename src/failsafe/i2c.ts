// The failsafe's I2C half: every IO chip of the registry (drivers/i2c/chips.ts: expanders, PWM
// drivers) the read-only probe finds on the configured buses (default every /dev/i2c-*) goes
// back to its power-on state through its driver's safeState, read back (MCP23017 pins inputs,
// PCF8574 pins high, PCA9685 channels full off). A relay board that is off at power-up is off
// after this. Addresses a kernel driver holds are left alone.
import type { I2cIoChipDef } from '../../drivers/i2c/chip-def.js';
import { I2C_IO_CHIPS } from '../../drivers/i2c/chips.js';
import { probeChips, type FoundChip } from '../../drivers/i2c/probe.js';
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
  let chips: FoundChip[];
  try {
    chips = await probeChips(bus, { claimed, chips: I2C_IO_CHIPS });
  } catch (err) {
    // No such bus (i2c-bus opens the device file on the first transfer): nothing on it to make safe.
    const code = (err as { code?: unknown }).code;
    if (code === 'ENOENT' || code === 'ENODEV') {
      report.say(`${label}: no such bus (${text(err)})`);
      return 0;
    }
    report.problem(`${label}: IO chip probe failed: ${text(err)}`);
    return 1;
  }
  for (const c of chips) {
    let chip = c.chip as I2cIoChipDef | null;
    if (c.status === 'ambiguous') {
      const names = (c.candidates ?? []).map((x) => x.name).join(' or ');
      try {
        chip = await disambiguate(bus, c.address, (c.candidates ?? []) as I2cIoChipDef[]);
      } catch (err) {
        report.problem(`${label} ${hex(c.address)}: ${names} with every pin low: NOT made safe: ${text(err)}`);
        failed++;
        continue;
      }
    }
    if (!chip) {
      report.say(`${label} ${hex(c.address)}: ${c.detail}`);
      continue;
    }
    try {
      const heldLow = await chip.create(bus, c.address).safeState();
      const note = heldLow ? `; pins held low from outside: 0x${heldLow.toString(16).padStart(2, '0')}` : '';
      report.say(`${chip.name} ${hex(c.address)} on ${label}: outputs off (power-on state)${note}`);
    } catch (err) {
      report.problem(`${chip.name} ${hex(c.address)} on ${label}: NOT made safe: ${text(err)}`);
      failed++;
    }
  }
  return failed;
}

/** An address where the reads fit several chips: their common safe write, then identify again. */
async function disambiguate(bus: I2cBus, address: number, candidates: I2cIoChipDef[]): Promise<I2cIoChipDef> {
  const safe = candidates.find((c) => c.disambiguate);
  if (!safe?.disambiguate) throw new Error('no write is known that is safe for all of them');
  await safe.disambiguate(bus, address);
  for (const c of candidates) if ((await c.identify?.(bus, address)) === true) return c;
  throw new Error(`still none of them after the safe write`);
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
