// Finds MCP23017, PCF8574(A) and PCA9685 chips on one I2C bus without changing anything: only
// the addresses these chips can have are scanned, identities are checked by reads (plain reads
// at 0x20-0x27, where a command byte would set a PCF8574's outputs), and an address a kernel
// driver has bound is reported as claimed, never forced.
import { identifyExpander } from './mcp23017.js';
import { isPca9685 } from './pca9685.js';
import { PCF8574A_ADDRESSES } from './pcf8574.js';
import type { I2cBus } from './types.js';

export type I2cIoKind = 'mcp23017' | 'pcf8574' | 'pca9685';

export interface FoundI2cChip {
  address: number;
  /** null: something answers but is none of these chips (or cannot be told apart). */
  kind: I2cIoKind | null;
  status: 'found' | 'claimed' | 'ambiguous' | 'unknown';
  detail?: string;
}

export interface ProbeI2cIoOptions {
  /** Whether a kernel driver holds the address (Linux: /sys/bus/i2c/devices/N-00AA/driver). */
  claimed?: (address: number) => Promise<boolean>;
}

const hex = (a: number) => `0x${a.toString(16).padStart(2, '0')}`;

function isBusy(e: unknown): boolean {
  return (e as { code?: string }).code === 'EBUSY';
}

async function identify(bus: I2cBus, address: number): Promise<FoundI2cChip> {
  if (address >= 0x20 && address <= 0x27) {
    const kind = await identifyExpander(bus, address);
    if (kind === 'mcp23017' || kind === 'pcf8574') return { address, kind, status: 'found' };
    if (kind === 'ambiguous')
      return {
        address,
        kind: null,
        status: 'ambiguous',
        detail: 'MCP23017 or PCF8574 with every pin low: cannot tell by reading; add the block by hand',
      };
    return { address, kind: null, status: 'unknown', detail: 'answers, but is neither an MCP23017 nor a PCF8574' };
  }
  if ((PCF8574A_ADDRESSES as readonly number[]).includes(address)) {
    await bus.receiveByte(address);
    return { address, kind: 'pcf8574', status: 'found', detail: 'PCF8574A' };
  }
  if (await isPca9685(bus, address)) return { address, kind: 'pca9685', status: 'found' };
  return {
    address,
    kind: null,
    status: 'unknown',
    detail: "answers, but its sub-address registers are not a PCA9685's",
  };
}

/** Every chip answering at an IO expander or PWM driver address. Chips that are not one are left out. */
/**
 * Power-on state for an expander that may be either chip (every pin low, so every relay on an
 * active-low board is on): IODIRA and IODIRB = 0xFF as register writes. A PCF8574 takes each
 * byte as its port, so it ends at 0xFF too; on the way its pins only leave the all-low state
 * towards high. Then the reads tell the chips apart again.
 */
export async function expanderOffEitherWay(
  bus: I2cBus,
  address: number,
): Promise<'mcp23017' | 'pcf8574' | 'ambiguous' | null> {
  await bus.writeByte(address, 0x00, 0xff);
  await bus.writeByte(address, 0x01, 0xff);
  return identifyExpander(bus, address);
}

export async function probeI2cIo(bus: I2cBus, options: ProbeI2cIoOptions = {}): Promise<FoundI2cChip[]> {
  const ranges: Array<[number, number]> = [
    [0x20, 0x27],
    [0x38, 0x3f],
    [0x40, 0x7f],
  ];
  const out: FoundI2cChip[] = [];
  for (const [first, last] of ranges) {
    const answering = (await bus.scan(first, last)).filter((a) => a !== 0x70);
    for (const address of answering) {
      if (await options.claimed?.(address)) {
        out.push({
          address,
          kind: null,
          status: 'claimed',
          detail: `${hex(address)} is bound to a kernel driver; not touched`,
        });
        continue;
      }
      try {
        const chip = await identify(bus, address);
        if (chip.kind || chip.status === 'ambiguous') out.push(chip);
      } catch (e) {
        if (isBusy(e))
          out.push({
            address,
            kind: null,
            status: 'claimed',
            detail: `${hex(address)} is in use by a kernel driver (EBUSY); not touched`,
          });
      }
    }
  }
  return out;
}
