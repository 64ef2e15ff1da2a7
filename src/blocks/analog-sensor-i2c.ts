// AnalogSensorI2c: one input of an ADS1115/ADS1015 against GND, single-shot, with a linear
// scale from volts to the user's unit: value = valueLow + (volts - voltsLow) * (valueHigh -
// valueLow) / (voltsHigh - voltsLow). For keg pressure transducers (0.5-4.5 V -> 0-10 bar)
// and 4-20 mA temperature transmitters over a shunt.
import { chipCodes } from '../../drivers/i2c/chips.js';
import { f } from '../codec/fields.js';
import { i2cSensorAccess } from '../runtime/i2c-sensors.js';
import { defineBlock } from '../runtime/types.js';
import { i2cLocationFields, sensorAddressIssues } from './i2c-fields.js';
import { nextBeat } from './shared/cadence.js';

const UPDATE_MS = 200;
/** The ADC chips of drivers/i2c/chips.ts, by their stored number. */
export const AdcChip = chipCodes('adc');
/** Full-scale range; the code is the chip's PGA setting. */
export const AdcGain = {
  GAIN_6V144: 0,
  GAIN_4V096: 1,
  GAIN_2V048: 2,
  GAIN_1V024: 3,
  GAIN_0V512: 4,
  GAIN_0V256: 5,
} as const;
export const AnalogUnit = { VOLT: 0, BAR: 1, PSI: 2, PERCENT: 3, DEG_C: 4 } as const;

const fields = {
  chip: f.enum(AdcChip, { stored: true }),
  ...i2cLocationFields,
  channel: f.number({
    stored: true,
    integer: true,
    min: 0,
    max: 3,
    description: 'input AIN0..AIN3, measured against GND',
  }),
  gain: f.enum(AdcGain, {
    stored: true,
    default: 'GAIN_4V096',
    description: 'full-scale range; keep the input below it (and below VDD)',
  }),
  unit: f.enum(AnalogUnit, { stored: true, default: 'VOLT', description: 'what value is in' }),
  voltsLow: f.number({ stored: true, default: 0, description: 'volts at valueLow' }),
  valueLow: f.number({ stored: true, default: 0 }),
  voltsHigh: f.number({ stored: true, default: 1, description: 'volts at valueHigh' }),
  valueHigh: f.number({ stored: true, default: 1 }),
  volts: f.number({ readonly: true, logged: true }),
  value: f.number({ readonly: true, logged: true, description: 'volts scaled to the unit' }),
};

export const AnalogSensorI2c = defineBlock<typeof fields>({
  type: 'AnalogSensorI2c',
  role: 'sensor',
  fields,
  implements: [],
  description: `An I2C ADC input (${Object.keys(AdcChip).join(', ')}) with a linear scale (bar, psi, %, degC)`,
  discovered: true,
  checkData: sensorAddressIssues,
  update(block, ctx) {
    const d = block.data;
    const r = (d.address === null ? null : i2cSensorAccess(ctx.hardware))?.read(
      { chip: d.chip, bus: d.bus, address: d.address ?? 0, channel: d.channel ?? 0, gain: AdcGain[d.gain] },
      ctx.now,
    );
    const volts = r?.volts ?? null;
    const span = (d.voltsHigh ?? 1) - (d.voltsLow ?? 0);
    d.volts = volts;
    d.value =
      volts === null || span === 0
        ? null
        : (d.valueLow ?? 0) + ((volts - (d.voltsLow ?? 0)) * ((d.valueHigh ?? 1) - (d.valueLow ?? 0))) / span;
    d.connected = r?.connected ?? false;
    d.errors = r?.errors ?? 0;
    d.lastError = r?.lastError ?? '';
    return nextBeat(ctx.now, UPDATE_MS);
  },
});
