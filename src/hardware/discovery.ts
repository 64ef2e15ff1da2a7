// blocks/discover for 1-Wire: search every bus, then propose a block for every master with
// devices and every device of a known family (drivers/onewire/families.ts) whose address no
// block holds yet: a temperature sensor becomes a TempSensorOneWire, an IO module the block type
// named as its family. Ids are short and unique: a temperature sensor is `Sensor 89ab` (the
// family's label and the last four digits of its serial, as in the kernel name 28-0123456789ab),
// for the user to rename to what it measures; an IO module `DS2408 0123456789ab`.
import { isValidRom, romToKernelName } from '../../drivers/onewire/address.js';
import { familyOf, ONEWIRE_FAMILIES, type OneWireFamilyDef } from '../../drivers/onewire/families.js';
import type { DiscoveredBlock, Discoverer } from '../runtime/runtime.js';
import type { AnyBlock } from '../runtime/types.js';
import { oneWireBusBlockId } from '../runtime/hardware.js';
import type { OneWireHub } from './onewire-hub.js';

/** The block type a device of the family becomes. */
const blockType = (f: OneWireFamilyDef) => (f.kind === 'temperature' ? 'TempSensorOneWire' : f.name);

const ADDRESS_TYPES = new Set(ONEWIRE_FAMILIES.map(blockType));

function uniqueId(wanted: string, taken: Set<string>): string {
  let id = wanted;
  for (let n = 2; taken.has(id); n++) id = `${wanted} (${n})`;
  taken.add(id);
  return id;
}

export function deviceBlockId(address: string): string | null {
  const f = familyOf(address);
  return f
    ? `${f.label} ${romToKernelName(address)
        .slice(3)
        .slice(-(f.idDigits ?? 12))}`
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
      const devices = bus.addresses.filter((a) => isValidRom(a) && familyOf(a) !== undefined).sort();
      if (devices.length && !haveBus.has(bus.name)) {
        haveBus.add(bus.name);
        out.push({ type: 'OneWireBus', id: uniqueId(oneWireBusBlockId(bus.name), taken), data: { name: bus.name } });
      }
      for (const address of devices) {
        if (haveAddress.has(address)) continue;
        haveAddress.add(address);
        out.push({
          type: blockType(familyOf(address)!),
          id: uniqueId(deviceBlockId(address)!, taken),
          data: { address },
        });
      }
    }
    return out;
  };
}
