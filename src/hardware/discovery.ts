// blocks/discover for 1-Wire: search every bus, then propose a block for every master with
// devices and every device whose address no block holds yet. Ids are short and unique: a
// temperature sensor is `Sensor 89ab` (the last four digits of its serial, as in the kernel name
// 28-0123456789ab), for the user to rename to what it measures; an IO module `DS2408 0123456789ab`.
import { isValidRom, romFamily, romToKernelName } from '../../drivers/onewire/address.js';
import { FAMILY } from '../../drivers/onewire/types.js';
import { oneWireBusBlockId } from '../blocks/one-wire-bus.js';
import type { DiscoveredBlock, Discoverer } from '../runtime/runtime.js';
import type { AnyBlock } from '../runtime/types.js';
import type { OneWireHub } from './onewire-hub.js';

/** `digits`: how many trailing digits of the serial the id carries (all when not given). */
const DEVICE_TYPES: Record<number, { type: string; label: string; digits?: number; data?: Record<string, unknown> }> = {
  [FAMILY.DS18B20]: { type: 'TempSensorOneWire', label: 'Sensor', digits: 4 },
  // MAX31850 (or DS1825): the same block type, decoded by family in the driver.
  [FAMILY.MAX31850]: { type: 'TempSensorOneWire', label: 'Thermocouple', digits: 4 },
  [FAMILY.DS2408]: { type: 'DS2408', label: 'DS2408', data: { connectMode: 'CONNECT_ACTUATOR' } },
  [FAMILY.DS2413]: { type: 'DS2413', label: 'DS2413' },
};

const ADDRESS_TYPES = new Set(Object.values(DEVICE_TYPES).map((d) => d.type));

function uniqueId(wanted: string, taken: Set<string>): string {
  let id = wanted;
  for (let n = 2; taken.has(id); n++) id = `${wanted} (${n})`;
  taken.add(id);
  return id;
}

export function deviceBlockId(address: string): string | null {
  const t = DEVICE_TYPES[romFamily(address)];
  return t
    ? `${t.label} ${romToKernelName(address)
        .slice(3)
        .slice(-(t.digits ?? 12))}`
    : null;
}

export function oneWireDiscoverer(hub: OneWireHub): Discoverer {
  return async (existing: readonly AnyBlock[]): Promise<DiscoveredBlock[]> => {
    await hub.searchAll();
    const taken = new Set(existing.map((b) => b.id));
    const haveAddress = new Set(
      existing.filter((b) => ADDRESS_TYPES.has(b.def.type)).map((b) => (b.data as { address?: string }).address),
    );
    const haveBus = new Set(
      existing.filter((b) => b.def.type === 'OneWireBus').map((b) => (b.data as { name?: string }).name),
    );
    const out: DiscoveredBlock[] = [];
    for (const bus of hub.buses()) {
      const devices = bus.addresses.filter((a) => isValidRom(a) && DEVICE_TYPES[romFamily(a)] !== undefined).sort();
      if (devices.length && !haveBus.has(bus.name)) {
        haveBus.add(bus.name);
        out.push({ type: 'OneWireBus', id: uniqueId(oneWireBusBlockId(bus.name), taken), data: { name: bus.name } });
      }
      for (const address of devices) {
        if (haveAddress.has(address)) continue;
        haveAddress.add(address);
        const t = DEVICE_TYPES[romFamily(address)]!;
        out.push({ type: t.type, id: uniqueId(deviceBlockId(address)!, taken), data: { address, ...t.data } });
      }
    }
    return out;
  };
}
