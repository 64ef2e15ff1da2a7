// Fields every I2C sensor block has: where the chip is, and whether it answers.
import { f } from '../codec/fields.js';

export const i2cLocationFields = {
  bus: f.string({ stored: true, maxLength: 32, default: 'sim', description: 'I2C bus: 1 for /dev/i2c-1, sim for the emulated bus' }),
  address: f.number({ stored: true, integer: true, min: 0x08, max: 0x77, description: '7-bit I2C address (e.g. 68 = 0x44)' }),
  connected: f.bool({ readonly: true, description: 'the last poll of the chip succeeded and is fresh' }),
  errors: f.number({ readonly: true, integer: true, description: 'failed polls (CRC, NACK, bus, reset, fault) since the chip was first read' }),
  lastError: f.string({ readonly: true, maxLength: 200, description: 'why the last failed poll failed' }),
};
