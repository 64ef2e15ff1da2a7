// What is on the I2C buses, in one place: blocks/discover for the sensors and the IO chips,
// and the `i2c` section of system/status. Discovery probes again, reads only where a write
// could change an output: the sensor probes check identities at the sensor addresses (see
// PROBES in i2c-sensors.ts), the IO probe (drivers/i2c/io-probe.ts) uses plain reads at
// 0x20-0x27 and skips 0x70. A block is proposed for every found chip whose bus and address
// no block holds yet; an ADC is proposed with input 0 (add more by hand).
// Ids are short, as 1-Wire ones: the chip and its address (`BME280 0x76`, `MCP23017 0x20`), for
// the user to rename to what it measures (i2cBlockId).
import { access } from 'node:fs/promises';
import type { ProbeI2cIoOptions } from '../../drivers/i2c/io-probe.js';
import type { QueuedI2cBus } from '../../drivers/i2c/queue.js';
import type { I2cSensorChip } from '../runtime/i2c-sensors.js';
import type { DiscoveredBlock, Discoverer } from '../runtime/runtime.js';
import type { AnyBlock } from '../runtime/types.js';
import type { I2cIoHub } from './i2c-io-hub.js';
import type { I2cSensorHub } from './i2c-sensors.js';

const SENSOR_BLOCK: Record<I2cSensorChip, { type: string; data: Record<string, unknown> }> = {
  SHT4X: { type: 'EnvSensorI2c', data: { chip: 'SHT4X' } },
  SHT3X: { type: 'EnvSensorI2c', data: { chip: 'SHT3X' } },
  BME280: { type: 'EnvSensorI2c', data: { chip: 'BME280' } },
  BMP280: { type: 'EnvSensorI2c', data: { chip: 'BMP280' } },
  ADS1115: { type: 'AnalogSensorI2c', data: { chip: 'ADS1115', channel: 0 } },
  ADS1015: { type: 'AnalogSensorI2c', data: { chip: 'ADS1015', channel: 0 } },
  MCP9600: { type: 'TempSensorThermocouple', data: {} },
};
const IO_BLOCK = { mcp23017: 'MCP23017', pcf8574: 'PCF8574', pca9685: 'PCA9685' } as const;

/** Every block type that holds an I2C bus and address. */
const I2C_BLOCK_TYPES = new Set<string>([
  ...Object.values(SENSOR_BLOCK).map((b) => b.type),
  ...Object.values(IO_BLOCK),
]);

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
    const propose = (bus: string, address: number, name: string, type: string, data: Record<string, unknown>) => {
      if (held.has(`${bus}/${address}`)) return;
      held.add(`${bus}/${address}`);
      out.push({ type, id: i2cBlockId(name, bus, address, taken), data: { ...data, bus, address } });
    };
    for (const f of sensorChips)
      propose(f.bus, f.address, f.chip, SENSOR_BLOCK[f.chip].type, SENSOR_BLOCK[f.chip].data);
    for (const c of io.found())
      if (c.status === 'found' && c.kind) propose(c.bus, c.address, IO_BLOCK[c.kind], IO_BLOCK[c.kind], {});
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
  return {
    buses: buses.map((q) => ({
      name: q.name,
      ...q.stats,
      busyMs: Math.round(q.stats.busyMs * 10) / 10,
      wireMs: Math.round(q.wireMs * 10) / 10,
    })),
    found: [
      ...s.found,
      ...ioFound.filter((c) => c.status !== 'claimed').map((c) => ({ ...c, address: hex(c.address) })),
    ],
    claimed: [...claimed.values()],
    devices: [...s.devices, ...io.devices()],
    missing: i2cMissing(sensors, io),
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
