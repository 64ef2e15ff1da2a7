// EnvSensorI2c: an SHT4x, SHT3x, BME280 or BMP280 on an I2C bus. value is the temperature (a
// TempSensorInterface, so setpoints and PIDs can use it); humidity (%RH) and pressure (hPa)
// are logged beside it. Everything is null while the chip does not answer with valid data.
import { f } from '../codec/fields.js';
import { i2cSensorAccess } from '../runtime/i2c-sensors.js';
import { defineBlock } from '../runtime/types.js';
import { i2cLocationFields } from './i2c-fields.js';
import { TEMP_SENSOR_ENTITIES } from './shared/entities.js';
import { nextBeat } from './shared/cadence.js';

const UPDATE_MS = 200;
export const EnvChip = { SHT4X: 0, SHT3X: 1, BME280: 2, BMP280: 3 } as const;

const fields = {
  chip: f.enum(EnvChip, { stored: true, default: 'SHT4X' }),
  ...i2cLocationFields,
  value: f.temp({ readonly: true, logged: true }),
  humidity: f.number({ readonly: true, logged: true, description: 'relative humidity, % (null for a BMP280)' }),
  pressure: f.number({ readonly: true, logged: true, description: 'barometric pressure, hPa (BME280/BMP280 only)' }),
  offset: f.deltaTemp({ stored: true, description: 'calibration added to every temperature reading' }),
};

export const EnvSensorI2c = defineBlock<typeof fields, { pending: boolean }>({
  type: 'EnvSensorI2c',
  role: 'sensor',
  homeAssistant: [
    ...TEMP_SENSOR_ENTITIES,
    { component: 'sensor', key: 'humidity', field: 'humidity', label: 'humidity', kind: 'humidity' },
    { component: 'sensor', key: 'pressure', field: 'pressure', label: 'pressure', kind: 'pressure' },
  ],
  fields,
  implements: ['TempSensorInterface'],
  description: 'An SHT4x/SHT3x/BME280/BMP280 temperature, humidity and pressure sensor on I2C',
  discovered: true,
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
