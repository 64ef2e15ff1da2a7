// blocks/discover for the I2C IO chips: probe every bus again (reads only), then propose a
// block for every MCP23017, PCF8574 and PCA9685 whose bus and address no block holds yet.
// Ids name the chip, bus and address: `MCP23017 1-0x20`.
import { access } from 'node:fs/promises';
import type { ProbeI2cIoOptions } from '../../drivers/i2c/io-probe.js';
import type { DiscoveredBlock, Discoverer } from '../runtime/runtime.js';
import type { AnyBlock } from '../runtime/types.js';
import type { I2cIoHub } from './i2c-io-hub.js';

const TYPES = { mcp23017: 'MCP23017', pcf8574: 'PCF8574', pca9685: 'PCA9685' } as const;
const BLOCK_TYPES = new Set<string>(Object.values(TYPES));

const hex = (a: number) => `0x${a.toString(16).padStart(2, '0')}`;

export function i2cIoDiscoverer(hub: I2cIoHub): Discoverer {
  return async (existing: AnyBlock[]): Promise<DiscoveredBlock[]> => {
    await hub.probeAll();
    const taken = new Set(existing.map((b) => b.id));
    const held = new Set(existing.filter((b) => BLOCK_TYPES.has(b.def.type)).map((b) => `${(b.data as { bus?: string }).bus}/${(b.data as { address?: number }).address}`));
    const out: DiscoveredBlock[] = [];
    for (const c of hub.found()) {
      if (c.status !== 'found' || !c.kind || held.has(`${c.bus}/${c.address}`)) continue;
      let id = `${TYPES[c.kind]} ${c.bus}-${hex(c.address)}`;
      for (let n = 2; taken.has(id); n++) id = `${TYPES[c.kind]} ${c.bus}-${hex(c.address)} (${n})`;
      taken.add(id);
      out.push({ type: TYPES[c.kind], id, data: { bus: c.bus, address: c.address } });
    }
    return out;
  };
}

/** Linux: an address a kernel driver is bound to has /sys/bus/i2c/devices/<bus>-00<aa>/driver. */
export function sysfsClaimed(busNumber: number, root = '/sys/bus/i2c/devices'): ProbeI2cIoOptions['claimed'] {
  return async (address) => {
    try {
      await access(`${root}/${busNumber}-${address.toString(16).padStart(4, '0')}/driver`);
      return true;
    } catch {
      return false;
    }
  };
}
