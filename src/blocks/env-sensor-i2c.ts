// EnvSensorI2c: an I2C temperature sensor (the `environment` chips of drivers/i2c/chips.ts:
// SHT4x, SHT3x, BME280, BMP280, ...). value is the temperature (a TempSensorInterface,
// so setpoints and PIDs can use it); humidity (%RH) and pressure (hPa) are logged beside it
// where the chip measures them, and announced to Home Assistant only then. Everything is null
// while the chip does not answer with valid data.
import { chipCodes, i2cSensorChip } from '../../drivers/i2c/chips.js';
import type { Quantity } from '../../drivers/i2c/chip-def.js';
import { f } from '../codec/fields.js';
import { i2cSensorAccess } from '../runtime/i2c-sensors.js';
import { defineBlock } from '../runtime/types.js';
import { i2cLocationFields, sensorAddressIssues } from './i2c-fields.js';
import { TEMP_SENSOR_ENTITIES } from './shared/entities.js';
import { nextBeat } from './shared/cadence.js';

const UPDATE_MS = 200;
/** The chips it takes, by their stored number. */
export const EnvChip = chipCodes('environment');
const CHIP_NAMES = Object.keys(EnvChip).join(', ');

/** Whether the block's chip measures `q` (its entity exists only then). */
const measures = (q: Quantity) => (data: Record<string, unknown>) =>
  i2cSensorChip(String(data.chip))?.measures.includes(q) ?? false;

const fields = {
  chip: f.enum(EnvChip, { stored: true, description: `the chip: ${CHIP_NAMES}` }),
  ...i2cLocationFields,
  value: f.temp({ readonly: true, logged: true }),
  humidity: f.number({
    readonly: true,
    logged: true,
    description: 'relative humidity, % (null for a chip without a humidity sensor)',
  }),
  pressure: f.number({
    readonly: true,
    logged: true,
    description: 'barometric pressure, hPa (null for a chip without a pressure sensor)',
  }),
  offset: f.deltaTemp({ stored: true, description: 'calibration added to every temperature reading' }),
};

export const EnvSensorI2c = defineBlock<typeof fields, { pending: boolean }>({
  type: 'EnvSensorI2c',
  role: 'sensor',
  homeAssistant: [
    ...TEMP_SENSOR_ENTITIES,
    {
      component: 'sensor',
      key: 'humidity',
      field: 'humidity',
      label: 'humidity',
      kind: 'humidity',
      when: measures('humidity'),
    },
    {
      component: 'sensor',
      key: 'pressure',
      field: 'pressure',
      label: 'pressure',
      kind: 'pressure',
      when: measures('pressure'),
    },
  ],
  fields,
  implements: ['TempSensorInterface'],
  description: `An I2C temperature sensor, with humidity and pressure where the chip has them (${CHIP_NAMES})`,
  discovered: true,
  checkData: sensorAddressIssues,
  init: () => ({ pending: true }),
  pending: (block) => block.state.pending,
  update(block, ctx) {
    const d = block.data;
    const r = (d.address === null ? null : i2cSensorAccess(ctx.hardware))?.read(
      { chip: d.chip, bus: d.bus, address: d.address ?? 0 },
      ctx.now,
    );
    d.value = r && r.temperature !== null ? r.temperature + (d.offset ?? 0) : null;
    d.humidity = r?.humidity ?? null;
    d.pressure = r?.pressure ?? null;
    d.connected = r?.connected ?? false;
    d.errors = r?.errors ?? 0;
    d.lastError = r?.lastError ?? '';
    block.state.pending = d.value === null && r?.pending === true;
    return nextBeat(ctx.now, UPDATE_MS);
  },
});
