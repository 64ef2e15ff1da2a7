// Fields every I2C sensor block has: where the chip is (the same fields as the IO modules'), and
// what its polls went through; and the rule that the address is one its chip can have.
import { i2cSensorChip } from '../../drivers/i2c/chips.js';
import type { ValidationIssue } from '../codec/partial.js';
import { f } from '../codec/fields.js';
import type { Data } from '../runtime/types.js';
import { addressIssues, i2cChipFields } from './shared/i2c-io.js';

export const i2cLocationFields = {
  ...i2cChipFields,
  errors: f.number({
    readonly: true,
    integer: true,
    description: 'failed polls (CRC, NACK, bus, reset, fault) since the chip was first read',
  }),
  lastError: f.string({ readonly: true, maxLength: 200, description: 'why the last failed poll failed' }),
};

/** The address must be one the block's chip can have ("0x76 is not an address of a TMP117 (0x48-0x4B)"). */
export function sensorAddressIssues(data: Data): ValidationIssue[] {
  const chip = i2cSensorChip(String(data.chip));
  return chip ? addressIssues(data, chip) : [];
}
