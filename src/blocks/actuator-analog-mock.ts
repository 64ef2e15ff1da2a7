// ActuatorAnalogMock: a simulated analog output (0-100 %) with setting and value clipping.
import { f } from '../codec/fields.js';
import { analogConstrainedBy, type LegacyTable } from '../codec/legacy.js';
import { defineBlock } from '../runtime/types.js';
import { applyAnalogConstraints } from './shared/analog-constraints.js';
import { analogConstraintsField, claimableFields, settingPipelineFields } from './shared/fields.js';
import { ANALOG_ACTUATOR_INTERFACES, desired, type Driven, returnToStoredOnPatch } from './shared/pipeline.js';
import { nextBeat } from './shared/cadence.js';

const fields = {
  enabled: f.bool({ stored: true, default: true }),
  ...settingPipelineFields(f.number, { value: 'what the simulated actuator achieves, within minValue-maxValue' }),
  minSetting: f.number({ stored: true, description: 'the setting is clipped to at least this' }),
  maxSetting: f.number({ stored: true, default: 100, description: 'the setting is clipped to at most this' }),
  minValue: f.number({ stored: true, description: 'the simulated actuator cannot go below this' }),
  maxValue: f.number({ stored: true, default: 100, description: 'the simulated actuator cannot go above this' }),
  constraints: analogConstraintsField,
  ...claimableFields,
};

const clip = (v: number, lo: number | null, hi: number | null) =>
  Math.min(Math.max(v, lo ?? -Infinity), hi ?? Infinity);

const legacyNames: LegacyTable = {
  constrainedBy: analogConstrainedBy,
};

export const ActuatorAnalogMock = defineBlock<typeof fields, Driven<number>>({
  type: 'ActuatorAnalogMock',
  role: 'output',
  fields,
  legacy: legacyNames,
  implements: ANALOG_ACTUATOR_INTERFACES,
  description: 'A simulated analog actuator',
  init: () => ({ request: null }),
  onWrite: returnToStoredOnPatch('storedSetting'),
  update(block, ctx) {
    const d = block.data;
    d.desiredSetting = desired(block, d.storedSetting);
    const own = d.desiredSetting === null ? null : clip(d.desiredSetting, d.minSetting, d.maxSetting);
    d.setting = applyAnalogConstraints(own, d.constraints, block, ctx);
    d.value = d.setting === null ? 0 : clip(d.setting, d.minValue, d.maxValue);
    return nextBeat(ctx.now, 1000);
  },
});
