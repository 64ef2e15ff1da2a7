// TempSensorThermocouple: a thermocouple on an I2C converter (the `thermocouple` chips of
// drivers/i2c/chips.ts: MCP9600). value is the hot junction temperature (readings of several
// hundred degC are passed on; setpoints stay limited by SETPOINT_RANGE_C). Null while the
// thermocouple is open or shorted or the chip does not answer.
import { chipCodes } from '../../drivers/i2c/chips.js';
import { f } from '../codec/fields.js';
import { i2cSensorAccess } from '../runtime/i2c-sensors.js';
import { defineBlock } from '../runtime/types.js';
import { i2cLocationFields, sensorAddressIssues } from './i2c-fields.js';
import { TEMP_SENSOR_ENTITIES } from './shared/entities.js';
import { nextBeat } from './shared/cadence.js';

const UPDATE_MS = 200;
export const ThermocoupleType = { K: 0, J: 1, T: 2, N: 3, S: 4, E: 5, B: 6, R: 7 } as const;
/** The converter chips, by their stored number. */
const ThermocoupleChip = chipCodes('thermocouple');

const fields = {
  chip: f.enum(ThermocoupleChip, { stored: true, description: 'the converter chip' }),
  ...i2cLocationFields,
  thermocoupleType: f.enum(ThermocoupleType, { stored: true, default: 'K' }),
  value: f.temp({ readonly: true, logged: true }),
  coldJunction: f.temp({ readonly: true, description: 'the converter board temperature' }),
  offset: f.deltaTemp({ stored: true, description: 'calibration added to every reading' }),
};

export const TempSensorThermocouple = defineBlock<typeof fields, { pending: boolean }>({
  type: 'TempSensorThermocouple',
  role: 'sensor',
  homeAssistant: TEMP_SENSOR_ENTITIES,
  fields,
  implements: ['TempSensorInterface'],
  description: `A thermocouple on an I2C converter (${Object.keys(ThermocoupleChip).join(', ')})`,
  discovered: true,
  checkData: sensorAddressIssues,
  init: () => ({ pending: true }),
  pending: (block) => block.state.pending,
  update(block, ctx) {
    const d = block.data;
    const r = (d.address === null ? null : i2cSensorAccess(ctx.hardware))?.read(
      { chip: d.chip, bus: d.bus, address: d.address ?? 0, thermocouple: d.thermocoupleType },
      ctx.now,
    );
    d.value = r && r.temperature !== null ? r.temperature + (d.offset ?? 0) : null;
    d.coldJunction = r?.coldJunction ?? null;
    d.connected = r?.connected ?? false;
    d.errors = r?.errors ?? 0;
    d.lastError = r?.lastError ?? '';
    block.state.pending = d.value === null && r?.pending === true;
    return nextBeat(ctx.now, UPDATE_MS);
  },
});
