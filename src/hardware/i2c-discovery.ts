// What is on the I2C buses, in one place: blocks/discover for the sensors and the IO chips,
// and the `i2c` section of system/status. Discovery probes again with each chip's read-only
// identity check (drivers/i2c/probe.ts), at the addresses the chip can have only. A block is
// proposed for every found chip whose bus and address no block holds yet: the block type
// follows from the kind of chip (an IO chip's block is named as the chip), never from its name;
// an ADC is proposed with input 0 (add more by hand).
// Ids are short, as 1-Wire ones: the chip and its address (`BME280 0x76`, `MCP23017 0x20`), for
// the user to rename to what it measures (i2cBlockId).
import { access } from 'node:fs/promises';
import type { I2cChipDef } from '../../drivers/i2c/chip-def.js';
import { I2C_CHIPS, i2cChip } from '../../drivers/i2c/chips.js';
import type { ProbeOptions } from '../../drivers/i2c/probe.js';
import type { QueuedI2cBus } from '../../drivers/i2c/queue.js';
import type { DiscoveredBlock, Discoverer } from '../runtime/runtime.js';
import type { AnyBlock } from '../runtime/types.js';
import type { I2cIoHub } from './i2c-io-hub.js';
import type { I2cSensorHub } from './i2c-sensors.js';

/** The block a found chip becomes, by its kind: its type, the data it starts with, its id's first word. */
const SENSOR_BLOCKS: Record<string, { type: string; data: Record<string, unknown> }> = {
  environment: { type: 'EnvSensorI2c', data: {} },
  adc: { type: 'AnalogSensorI2c', data: { channel: 0 } },
  thermocouple: { type: 'TempSensorThermocouple', data: {} },
};

function blockFor(chip: I2cChipDef): { type: string; name: string; data: Record<string, unknown> } {
  if (chip.role === 'io') return { type: chip.name, name: chip.name, data: {} };
  const b = SENSOR_BLOCKS[chip.kind]!;
  return { type: b.type, name: chip.name, data: { ...b.data, chip: chip.name } };
}

/** Every block type that holds an I2C bus and address. */
const I2C_BLOCK_TYPES = new Set<string>(I2C_CHIPS.map((c) => blockFor(c).type));

const hex = (a: number) => `0x${a.toString(16).padStart(2, '0')}`;

/** `BME280 0x76`; the bus is named only when that is taken (the same chip on two buses): `BME280 0x76 on bus 3`. */
export function i2cBlockId(chip: string, bus: string, address: number, taken: Set<string>): string {
  const short = `${chip} ${hex(address)}`;
  let id = taken.has(short) ? `${short} on bus ${bus}` : short;
  for (let n = 2; taken.has(id); n++) id = `${short} on bus ${bus} (${n})`;
  taken.add(id);
  return id;
}

export function i2cDiscoverer(sensors: I2cSensorHub, io: I2cIoHub): Discoverer {
  return async (existing: readonly AnyBlock[]): Promise<DiscoveredBlock[]> => {
    await io.probeAll();
    const sensorChips = await sensors.discover();
    const taken = new Set(existing.map((b) => b.id));
    const held = new Set(
      existing
        .filter((b) => I2C_BLOCK_TYPES.has(b.def.type))
        .map((b) => {
          const d = b.data as { bus?: string; address?: number };
          return `${d.bus}/${d.address}`;
        }),
    );
    const out: DiscoveredBlock[] = [];
    const propose = (bus: string, address: number, chip: I2cChipDef) => {
      if (held.has(`${bus}/${address}`)) return;
      held.add(`${bus}/${address}`);
      const { type, name, data } = blockFor(chip);
      out.push({ type, id: i2cBlockId(name, bus, address, taken), data: { ...data, bus, address } });
    };
    for (const f of sensorChips) {
      const chip = i2cChip(f.chip);
      if (chip) propose(f.bus, f.address, chip);
    }
    for (const c of io.found()) if (c.status === 'found' && c.chip) propose(c.bus, c.address, c.chip);
    return out;
  };
}

type Missing = { bus: string; address: string; kind: string; lastError: string | null };

/** Chips a block asks for that do not answer: sensors and IO chips. */
export function i2cMissing(sensors: I2cSensorHub, io: I2cIoHub): Missing[] {
  return [...sensors.missing(), ...io.missing()];
}

/** The `i2c` section of system/status: every bus with its queue's counters, found chips, kernel-claimed addresses, polled and missing chips. */
export function i2cStatus(buses: QueuedI2cBus[], sensors: I2cSensorHub, io: I2cIoHub): Record<string, unknown> {
  const s = sensors.status();
  const ioFound = io.found();
  const claimed = new Map<string, { bus: string; address: string }>();
  for (const c of [
    ...s.claimed,
    ...ioFound.filter((c) => c.status === 'claimed').map((c) => ({ bus: c.bus, address: hex(c.address) })),
  ])
    claimed.set(`${c.bus}/${c.address}`, c);
  const ioRow = ({ chip, candidates, ...c }: (typeof ioFound)[number]) => ({
    ...c,
    address: hex(c.address),
    kind: chip?.name ?? null,
    ...(candidates ? { candidates: candidates.map((x) => x.name) } : {}),
  });
  return {
    buses: buses.map((q) => ({
      name: q.name,
      ...q.stats,
      busyMs: Math.round(q.stats.busyMs * 10) / 10,
      wireMs: Math.round(q.wireMs * 10) / 10,
    })),
    found: [...s.found, ...ioFound.filter((c) => c.status !== 'claimed').map(ioRow)],
    claimed: [...claimed.values()],
    devices: [...s.devices, ...io.devices()],
    missing: i2cMissing(sensors, io),
  };
}

/** Linux: an address a kernel driver is bound to has /sys/bus/i2c/devices/<bus>-00<aa>/driver. */
export function sysfsClaimed(busNumber: number, root = '/sys/bus/i2c/devices'): ProbeOptions['claimed'] {
  return async (address) => {
    try {
      await access(`${root}/${busNumber}-${address.toString(16).padStart(4, '0')}/driver`);
      return true;
    } catch {
      return false;
    }
  };
}
