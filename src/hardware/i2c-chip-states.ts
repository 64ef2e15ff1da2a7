// Which I2C chips the blocks ask for are missing or not known yet, by the key the alerts use
// (i2cChipKey). Apart from i2c-discovery.ts, which the failsafe command imports: the key lives
// with the runtime, which that command must not load.
import { i2cChipKey } from '../runtime/hardware.js';
import { i2cMissing } from './i2c-discovery.js';
import type { I2cIoHub } from './i2c-io-hub.js';
import type { I2cSensorHub } from './i2c-sensors.js';

/**
 * The chips blocks ask for that are missing (polled and not answering) and those not known yet
 * (not polled since they were asked for), as i2cChipKey names them; `reasons`, of a missing chip
 * that another IO chip answers for, what it is (the IO hub's words, as its lastError has them).
 */
export function i2cChipStates(
  sensors: I2cSensorHub,
  io: I2cIoHub,
): { missing: string[]; pending: string[]; reasons: Record<string, string> } {
  const key = (c: { bus: string; address: number }) => i2cChipKey(c.bus, c.address);
  const pending = [...sensors.pending(), ...io.pending()].map(key);
  const missing = i2cMissing(sensors, io).map((m) => key({ bus: m.bus, address: parseInt(m.address, 16) }));
  const reasons = Object.fromEntries(io.wrongChips().map((c) => [key(c), c.text]));
  return { missing: missing.filter((k) => !pending.includes(k)), pending, reasons };
}
