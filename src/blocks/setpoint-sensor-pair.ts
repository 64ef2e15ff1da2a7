// SetpointSensorPair: a temperature setting paired with a (filtered) sensor value.
import { f, SETPOINT_RANGE_C } from '../codec/fields.js';
import { legacy, type LegacyTable } from '../codec/legacy.js';
import { defineBlock } from '../runtime/types.js';
import { FilterChoice, FilterChoiceAliases } from './shared/enums.js';
import { claimableFields, settingPipelineFields } from './shared/fields.js';
import { FilterChain } from './shared/filter-chain.js';
import { desired, type Driven, returnToStoredOnPatch } from './shared/pipeline.js';
import { nextInterval } from './shared/cadence.js';

/**
 * Consecutive failed samples after which the filtered value goes null. Sensors already ride
 * through single bad reads (a DS18B20 reads null only after 2 s without a valid conversion),
 * so the setpoint lets one sample pass and then fails safe: with 1 Hz sampling its value goes
 * null within 2 s of the sensor's, and the PID and outputs follow in the same tick.
 */
const MAX_FAILED_SAMPLES = 1;

const fields = {
  enabled: f.bool({ stored: true }),
  sensorId: f.link('TempSensorInterface', { stored: true }),
  ...settingPipelineFields((o) => (o.readonly ? f.temp(o) : f.setpointTemp(o)), {
    setting: 'the desired setting, or null when disabled',
    value: 'filtered sensor value',
  }),
  valueUnfiltered: f.temp({ readonly: true, logged: true }),
  filter: f.enum(FilterChoice, { stored: true, default: 'FILTER_15s', aliases: FilterChoiceAliases }),
  filterThreshold: f.deltaTemp({
    stored: true,
    description: 'a step at least this large bypasses the filter; 0 means 5 degC',
  }),
  resetFilter: f.bool({ description: 'write true to restart the filter from the current reading' }),
  ...claimableFields,
};

export interface SetpointState extends Driven<number> {
  /** The PID reads the derivative of the sensor value at any stage from here. */
  filter: FilterChain;
  failed: number;
  sensorId: string | null;
  /** When the next 1 Hz filter sample is due; forced updates after writes do not sample. */
  sampleDue: number;
}

const legacyNames: LegacyTable = {
  settingEnabled: legacy.rename('enabled'),
  rampLimit: legacy.unsupported('setting ramp limit'),
  rampLimitEnabled: legacy.unsupported('setting ramp limit'),
  rampDuration: legacy.unsupported('setting ramp limit'),
  updateInterval: legacy.unsupported('sensor update interval (0: the default)'),
};

export const SetpointSensorPair = defineBlock<typeof fields, SetpointState>({
  type: 'SetpointSensorPair',
  role: 'setpoint',
  homeAssistant: [
    { component: 'sensor', key: 'value', field: 'value', kind: 'temperature' },
    // The setting in use, as the dashboard shows it: a driver's (a profile's), or none (unknown
    // in Home Assistant) when a driver let go or the setpoint is off; not the stored setting as
    // if it were held. Setting it writes the stored setting, which takes over (settingMode STORED).
    {
      component: 'number',
      key: 'setting',
      field: 'setting',
      label: 'setting',
      kind: 'temperature',
      write: 'storedSetting',
      ...SETPOINT_RANGE_C,
      step: 0.1,
    },
  ],
  fields,
  legacy: legacyNames,
  implements: ['ProcessValueInterface', 'SetpointSensorPairInterface', 'EnablerInterface', 'ClaimableInterface'],
  description: 'A temperature setpoint and the filtered sensor value it is compared with',
  init: (block) => ({
    request: null,
    filter: new FilterChain(),
    failed: MAX_FAILED_SAMPLES + 1,
    sensorId: block.data.sensorId,
    sampleDue: -Infinity,
  }),
  // Not run since the start (or its creation): its setting is not known yet (alerts wait).
  pending: (block) => block.state.sampleDue === -Infinity,
  onWrite: returnToStoredOnPatch('storedSetting'),
  update(block, ctx) {
    const d = block.data;
    const s = block.state;
    if (d.sensorId !== s.sensorId || d.resetFilter) {
      s.sensorId = d.sensorId;
      s.failed = MAX_FAILED_SAMPLES + 1;
      d.resetFilter = false;
    }
    const sensor = ctx.resolve(d.sensorId, 'TempSensorInterface');
    const raw = sensor?.data.value ?? null;
    if (ctx.now >= s.sampleDue) {
      // The filter coefficients assume 1 Hz: sample on the catch-up cadence only.
      s.sampleDue = nextInterval(s.sampleDue, ctx.now, 1000);
      if (raw !== null) {
        if (s.failed > MAX_FAILED_SAMPLES) s.filter.reset(raw);
        s.filter.push(raw, d.filterThreshold ?? 0);
        s.failed = 0;
      } else {
        s.failed++;
      }
    } else if (raw !== null && s.failed > MAX_FAILED_SAMPLES) {
      s.filter.reset(raw);
      s.failed = 0;
    }
    d.valueUnfiltered = raw;
    d.value = s.failed > MAX_FAILED_SAMPLES ? null : s.filter.read(d.filter);
    d.desiredSetting = desired(block, d.storedSetting);
    d.setting = d.enabled ? d.desiredSetting : null;
    return s.sampleDue;
  },
});
