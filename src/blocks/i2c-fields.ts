// Fields every I2C sensor block has: where the chip is (the same fields as the IO modules'), and
// what its polls went through.
import { f } from '../codec/fields.js';
import { i2cChipFields } from './shared/i2c-io.js';

export const i2cLocationFields = {
  ...i2cChipFields,
  errors: f.number({
    readonly: true,
    integer: true,
    description: 'failed polls (CRC, NACK, bus, reset, fault) since the chip was first read',
  }),
  lastError: f.string({ readonly: true, maxLength: 200, description: 'why the last failed poll failed' }),
};
