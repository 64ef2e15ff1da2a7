// Finds the chips of the registry (chips.ts) on one I2C bus without changing anything: only the
// addresses some chip can have are touched, each is asked each chip's read-only identity check
// in registry order (the first that says yes is the chip; an address where nothing answers
// NACKs the first transfer), and an address a kernel driver has bound is reported as claimed,
// never forced. There is no scan first: a scan's plain read is NACKed by chips that only answer
// a command (the Sensirion sensors), and by addresses a kernel driver holds.
import type { I2cChipDef } from './chip-def.js';
import { I2C_CHIPS } from './chips.js';
import { errorCode } from './sensor-common.js';
import type { I2cBus } from './types.js';

export interface FoundChip {
  address: number;
  /** The chip found; null when claimed or ambiguous. */
  chip: I2cChipDef | null;
  status: 'found' | 'claimed' | 'ambiguous';
  /** Ambiguous: the chips it may be (each said 'ambiguous'). */
  candidates?: I2cChipDef[];
  detail?: string;
}

export interface ProbeOptions {
  /** Whether a kernel driver holds the address (Linux: /sys/bus/i2c/devices/N-00AA/driver). */
  claimed?: (address: number) => Promise<boolean>;
  /** The chips to look for (default: every chip of the registry). */
  chips?: readonly I2cChipDef[];
}

const hex = (a: number) => `0x${a.toString(16).padStart(2, '0')}`;

/** What answers at `address`, by the checks of the chips that can be there. */
export async function identifyAt(
  bus: I2cBus,
  address: number,
  chips: readonly I2cChipDef[],
): Promise<FoundChip | null> {
  const candidates: I2cChipDef[] = [];
  for (const chip of chips) {
    if (!chip.identify || !chip.addresses.includes(address)) continue;
    let said: Awaited<ReturnType<NonNullable<I2cChipDef['identify']>>>;
    try {
      said = await chip.identify(bus, address);
    } catch (e) {
      // The bus itself failed (stuck, gone): probing it further only repeats that.
      if (errorCode(e) === 'BUS') throw e;
      if (errorCode(e) === 'CLAIMED')
        return {
          address,
          chip: null,
          status: 'claimed',
          detail: `${hex(address)} is in use by a kernel driver (EBUSY); not touched`,
        };
      continue;
    }
    if (said === true) return { address, chip, status: 'found' };
    if (said === 'ambiguous') candidates.push(chip);
  }
  if (!candidates.length) return null;
  return {
    address,
    chip: null,
    status: 'ambiguous',
    candidates,
    detail: `${candidates.map((c) => c.name).join(' or ')}: cannot tell by reading (every pin low); add the block by hand`,
  };
}

/** Every chip of `options.chips` (default: all) answering on the bus. Addresses no chip answers for are left out. */
export async function probeChips(bus: I2cBus, options: ProbeOptions = {}): Promise<FoundChip[]> {
  const chips = options.chips ?? I2C_CHIPS;
  const addresses = [...new Set(chips.filter((c) => c.identify).flatMap((c) => [...c.addresses]))].sort(
    (a, b) => a - b,
  );
  const out: FoundChip[] = [];
  for (const address of addresses) {
    if (await options.claimed?.(address)) {
      out.push({
        address,
        chip: null,
        status: 'claimed',
        detail: `${hex(address)} is bound to a kernel driver; not touched`,
      });
      continue;
    }
    const found = await identifyAt(bus, address, chips);
    if (found) out.push(found);
  }
  return out;
}
