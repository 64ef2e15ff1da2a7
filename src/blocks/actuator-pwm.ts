// ActuatorPwm: turns a 0-100 % setting into timed on/off of a claimed digital actuator, with a
// period of seconds (heaters) to tens of minutes (compressors). Reference §5.4, §6.3.
import { f } from '../codec/fields.js';
import { analogConstrainedBy, legacy, type LegacyTable } from '../codec/legacy.js';
import { defineBlock, type AnyBlock, type UpdateContext } from '../runtime/types.js';
import type { Linked } from '../runtime/interfaces.js';
import { historyOf } from './digital-actuator.js';
import { applyAnalogConstraints } from './shared/analog-constraints.js';
import { analogConstraintsField, claimableFields, settingPipelineFields } from './shared/fields.js';
import {
  ANALOG_ACTUATOR_INTERFACES,
  desired,
  drive,
  type Driven,
  returnToStoredOnPatch,
  type Tracking,
} from './shared/pipeline.js';
import { PwmCycle } from './shared/pwm-cycle.js';

const MAX_INTERVAL_MS = 1000;
const MIN_PERIOD_S = 1;

const fields = {
  enabled: f.bool({ stored: true, default: true }),
  actuatorId: f.link('ActuatorDigitalInterface', { stored: true, drives: true }),
  ...settingPipelineFields(f.number, {
    desiredSetting:
      "the claimer's request (a PID output) or the stored setting, before clipping: it may lie outside 0-100 % (a PID asking for more than full power, or less than none) and is kept as asked, like the reference; setting is what is applied",
    setting: 'duty cycle after clipping to 0-100 % and the constraints',
    value: 'achieved duty cycle over about two periods',
  }),
  period: f.duration({ stored: true, default: 4, description: 'PWM period; at least 1 s' }),
  constraints: analogConstraintsField,
  ...claimableFields,
};

export interface PwmState extends Driven<number> {
  cycle: PwmCycle;
  /** Read by a driving PID's anti-windup. */
  tracking: Tracking | null;
  /** Whether the actuator was already switched off for a null setting. */
  parked: boolean;
}

const legacyNames: LegacyTable = {
  constrainedBy: analogConstrainedBy,
  drivenActuatorId: legacy.ignore('older firmware: read-only link to the driven actuator'),
};

export const ActuatorPwm = defineBlock<typeof fields, PwmState>({
  type: 'ActuatorPwm',
  role: 'output',
  homeAssistant: [
    { component: 'sensor', key: 'value', field: 'value', kind: 'percent' },
    // The setting asked for, as Brewblox's PWM widget shows it ('Desired'): the PID's while it
    // drives the PWM (a command is refused then), none (unknown) when let go or disabled; not the
    // stored setting as if it were used. Its constraints' limit shows in the value.
    {
      component: 'number',
      key: 'setting',
      field: 'desiredSetting',
      label: 'setting',
      kind: 'percent',
      write: 'storedSetting',
      min: 0,
      max: 100,
      step: 1,
    },
  ],
  fields,
  legacy: legacyNames,
  implements: ANALOG_ACTUATOR_INTERFACES,
  description: 'Pulse width modulation of a digital actuator',
  init: () => ({ request: null, cycle: new PwmCycle(), tracking: null, parked: false }),
  onWrite: returnToStoredOnPatch('storedSetting'),
  update(block, ctx) {
    const d = block.data;
    const s = block.state;
    d.desiredSetting = desired(block, d.storedSetting);
    const own = d.desiredSetting === null ? null : Math.min(100, Math.max(0, d.desiredSetting));
    d.setting = applyAnalogConstraints(own, d.constraints, block, ctx);
    const actuator = ctx.resolve(d.actuatorId, 'ActuatorDigitalInterface');
    if (!d.enabled || !actuator) {
      // Disabled: the claim is already released (runtime); switch the actuator off once.
      if (actuator && !s.parked) park(actuator, block, ctx, false);
      s.parked = !!actuator;
      d.value = null;
      s.tracking = null;
      return ctx.now + MAX_INTERVAL_MS;
    }
    const periodMs = Math.max(MIN_PERIOD_S, d.period ?? 0) * 1000;
    const decision = s.cycle.step(ctx.now, d.setting === null ? null : d.setting / 100, periodMs, historyOf(actuator));
    const known = actuator.data.state !== null;
    d.value = known ? s.cycle.value : null;
    s.tracking = known ? s.cycle.tracking : null;
    if (d.setting === null) {
      if (!s.parked) park(actuator, block, ctx, true);
      s.parked = true;
      return ctx.now + MAX_INTERVAL_MS;
    }
    s.parked = false;
    const want = decision.want ? 'STATE_ACTIVE' : 'STATE_INACTIVE';
    const askedBefore = actuator.data.claimedBy === block.id && actuator.state.request === want;
    if (!drive(ctx, actuator, block, want)) {
      d.value = null;
      s.tracking = null;
    }
    if (decision.wait > 0) return ctx.now + Math.min(MAX_INTERVAL_MS, decision.wait);
    // Overdue and asked before: a constraint holds the actuator. It wakes this PWM when it
    // switches, so the PWM does not ask again every millisecond meanwhile.
    return ctx.now + (askedBefore ? MAX_INTERVAL_MS : 1);
  },
});

/**
 * Switch the actuator off and make OFF its stored state, persisted, so that a restart does not
 * bring back an old ON (reference §6.3, §8.1). Not when another block drives it now.
 */
function park(
  actuator: Linked<'ActuatorDigitalInterface'>,
  pwm: AnyBlock,
  ctx: UpdateContext,
  keepClaim: boolean,
): void {
  const a = actuator.data;
  if (a.claimedBy !== null && a.claimedBy !== pwm.id) return;
  if (keepClaim) drive(ctx, actuator, pwm, 'STATE_INACTIVE');
  else ctx.wake(actuator);
  a.storedState = 'STATE_INACTIVE';
  ctx.persist(actuator);
}
