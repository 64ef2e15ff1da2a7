// ActuatorOffset ("Setpoint Driver"): keeps a target setpoint at a reference setpoint's setting
// (or value) plus its own setting, e.g. a beer PID driving the fridge air setpoint, or a mash
// PID driving the HLT. Its value is the achieved offset. Reference §5.4.
import { f } from '../codec/fields.js';
import { analogConstrainedBy, legacy, type LegacyTable } from '../codec/legacy.js';
import { defineBlock } from '../runtime/types.js';
import { applyAnalogConstraints } from './shared/analog-constraints.js';
import { ReferenceKind } from './shared/enums.js';
import { analogConstraintsField, claimableFields, settingPipelineFields } from './shared/fields.js';
import { ANALOG_ACTUATOR_INTERFACES, desired, drive, type Driven, returnToStoredOnPatch } from './shared/pipeline.js';
import { nextBeat } from './shared/cadence.js';

const fields = {
  enabled: f.bool({ stored: true, default: true }),
  targetId: f.link('SetpointSensorPairInterface', { stored: true, drives: true }),
  referenceId: f.link('SetpointSensorPairInterface', { stored: true }),
  ...settingPipelineFields(f.deltaTemp, { value: 'target value minus reference: the offset achieved' }),
  referenceSettingOrValue: f.enum(ReferenceKind, { stored: true }),
  constraints: analogConstraintsField,
  ...claimableFields,
};

interface OffsetState extends Driven<number> {
  /** Whether the target was already given a null setting. */
  parked: boolean;
}

const legacyNames: LegacyTable = {
  constrainedBy: analogConstrainedBy,
  drivenTargetId: legacy.ignore('older firmware: read-only link to the driven setpoint'),
};

export const ActuatorOffset = defineBlock<typeof fields, OffsetState>({
  type: 'ActuatorOffset',
  role: 'controller',
  fields,
  legacy: legacyNames,
  implements: ANALOG_ACTUATOR_INTERFACES,
  description: 'Drives a target setpoint to a reference setpoint plus an offset',
  init: () => ({ request: null, parked: false }),
  onWrite: returnToStoredOnPatch('storedSetting'),
  update(block, ctx) {
    const d = block.data;
    const s = block.state;
    d.desiredSetting = desired(block, d.storedSetting);
    d.setting = applyAnalogConstraints(d.desiredSetting, d.constraints, block, ctx);
    const reference = ctx.resolve(d.referenceId, 'SetpointSensorPairInterface');
    const ref = (d.referenceSettingOrValue === 'REF_VALUE' ? reference?.data.value : reference?.data.setting) ?? null;
    const target = ctx.resolve(d.targetId, 'SetpointSensorPairInterface');
    const targetValue = target?.data.value ?? null;
    d.value = ref !== null && targetValue !== null ? targetValue - ref : null;
    if (!target) return nextBeat(ctx.now, 1000);
    if (!d.enabled) {
      // The claim is already released (runtime); in CLAIMED mode the target goes null by itself.
      if (!s.parked) ctx.wake(target);
      s.parked = true;
      return nextBeat(ctx.now, 1000);
    }
    if (d.setting === null || ref === null) {
      // Written null once, not every tick.
      if (!s.parked && drive(ctx, target, block, null)) ctx.persist(target);
      s.parked = true;
      return nextBeat(ctx.now, 1000);
    }
    s.parked = false;
    if (!drive(ctx, target, block, ref + d.setting)) d.value = null;
    return nextBeat(ctx.now, 1000);
  },
});
