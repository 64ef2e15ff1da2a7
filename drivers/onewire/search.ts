// ROM search (Search ROM 0xF0 / Alarm Search 0xEC) over any OneWireMaster.
import { bytesToRom, isValidRomBytes } from './address.js';
import type { OneWireMaster, RomAddress } from './types.js';

export {
  bytesToRom,
  romToBytes,
  romFamily,
  makeRom,
  isValidRom,
  isRomAddressSyntax,
  romToKernelName,
  kernelNameToRom,
  isKernelSlaveName,
} from './address.js';

export const SEARCH_ROM = 0xf0;
export const ALARM_SEARCH = 0xec;

export interface SearchOptions {
  /** 0xF0 (default) or 0xEC for alarm search. */
  command?: number;
  /** Only return devices of this family (targeted search: starts at the family, stops past it). */
  family?: number;
  /** Upper bound on passes, a guard against a bus that changes under the search. Default 256. */
  maxDevices?: number;
}

function bitsToBytes(bits: ArrayLike<number>): Uint8Array {
  const out = new Uint8Array(8);
  for (let i = 0; i < 64; i++) if (bits[i]) out[i >> 3]! |= 1 << (i & 7);
  return out;
}

/**
 * Finds every device on the bus. Returns CRC-valid addresses only (a pass that yields a bad
 * CRC, e.g. from noise, is dropped but the search goes on), in discovery order, without
 * duplicates. A bus with no presence gives [].
 */
export async function searchRoms(master: OneWireMaster, options: SearchOptions = {}): Promise<RomAddress[]> {
  const command = options.command ?? SEARCH_ROM;
  const maxPasses = options.maxDevices ?? 256;
  const found: RomAddress[] = [];
  const seen = new Set<RomAddress>();
  const rom = new Uint8Array(64);
  // 1-based bit index of the last branch where the 0 path was taken; 0 = none left.
  let lastDiscrepancy = 0;
  if (options.family !== undefined) {
    for (let i = 0; i < 8; i++) rom[i] = (options.family >> i) & 1;
    lastDiscrepancy = 64;
  }

  for (let pass = 0; pass < maxPasses; pass++) {
    const directions = new Uint8Array(64);
    for (let i = 1; i <= 64; i++) {
      directions[i - 1] = i < lastDiscrepancy ? rom[i - 1]! : i === lastDiscrepancy ? 1 : 0;
    }
    let lastZero = 0;
    if (master.searchPass) {
      const result = await master.searchPass(command, directions);
      if (!result) break;
      for (let i = 0; i < 64; i++) {
        rom[i] = result.bits[i]! ? 1 : 0;
        if (result.conflicts[i] && !result.bits[i]) lastZero = i + 1;
      }
    } else {
      if (!(await master.reset())) break;
      await master.writeByte(command);
      let nobody = false;
      for (let i = 0; i < 64; i++) {
        const t = await master.triplet(directions[i] as 0 | 1);
        if (t.id === 1 && t.cmp === 1) {
          nobody = true; // every device dropped out: the bus changed during the pass
          break;
        }
        if (t.id === 0 && t.cmp === 0 && t.dir === 0) lastZero = i + 1;
        rom[i] = t.dir;
      }
      if (nobody) break;
    }
    const bytes = bitsToBytes(rom);
    if (options.family !== undefined && bytes[0] !== options.family) break;
    if (isValidRomBytes(bytes)) {
      const address = bytesToRom(bytes);
      if (!seen.has(address)) {
        seen.add(address);
        found.push(address);
      }
    }
    lastDiscrepancy = lastZero;
    if (lastDiscrepancy === 0) break;
  }
  return found;
}
