// What sensor blocks may ask of the I2C sensors (the sensor chips of drivers/i2c/chips.ts).
// Synchronous, from caches: the hardware layer polls the chips in the background on one
// transaction queue per bus, so a slow or stuck bus never holds a tick.
import type { Hardware } from './hardware.js';

export interface I2cSensorRequest {
  /** The chip's name in the registry (drivers/i2c/chips.ts), e.g. `BME280`. */
  chip: string;
  /** Bus name: `1` for /dev/i2c-1, `sim` for the emulated bus. */
  bus: string;
  address: number;
  /** ADS1x15 input 0..3. */
  channel?: number;
  /** ADS1x15 PGA code 0..5 (±6.144 .. ±0.256 V). */
  gain?: number;
  /** Thermocouple type letter. */
  thermocouple?: string;
}

export interface I2cSensorReading {
  /** The last poll succeeded and its values are fresh. */
  connected: boolean;
  temperature: number | null;
  humidity: number | null;
  pressure: number | null;
  volts: number | null;
  coldJunction: number | null;
  /** Failed polls since the device was first asked for (CRC, NACK, bus, reset, fault). */
  errors: number;
  /** No poll of it has finished since it was first asked for: a null is no fault yet. */
  pending?: boolean;
  lastError: string | null;
}

export interface I2cSensorAccess {
  read(request: I2cSensorRequest, now: number): I2cSensorReading;
}

export function i2cSensorAccess(hardware: Hardware): I2cSensorAccess | null {
  return hardware.services.i2cSensors ?? null;
}
