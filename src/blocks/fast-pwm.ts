// FastPwm: an analog actuator (0-100 %) that drives one IoArray channel with hardware-speed PWM
// (80-2000 Hz) directly: no DigitalActuator, so no digital constraints, but the analog ones
// (min, max, balanced). The applied duty ramps to the setting over the soft-start duration.
// Channels: MockPins emulate any frequency; Pi GPIO lines run a software PWM at 80 or 100 Hz
// (see src/hardware/soft-pwm.ts); DS2408/DS2413 channels cannot PWM, so `value` stays null.
// A frequency the channel lacks falls back to 100 Hz. Reference §5.4.
import { f } from '../codec/fields.js';
import { analogConstrainedBy, type LegacyTable } from '../codec/legacy.js';
import { defineBlock, type UpdateContext } from '../runtime/types.js';
import { applyAnalogConstraints } from './shared/analog-constraints.js';
import { claimOwnChannel, drivenIo, outputChannelIssues, type DrivenOutput } from './shared/channel.js';
import { ChannelCapability } from './shared/enums.js';
import { analogConstraintsField, claimableFields, settingPipelineFields } from './shared/fields.js';
import { ANALOG_ACTUATOR_INTERFACES, desired, type Driven, returnToStoredOnPatch } from './shared/pipeline.js';
import {
  canPwm,
  channelCapabilities,
  DutyRamp,
  RAMP_INTERVAL_MS,
  softStartFields,
  transitionSeconds,
} from './shared/soft-start.js';

export const PwmFrequency = { PWM_FREQ_80HZ: 0, PWM_FREQ_100HZ: 1, PWM_FREQ_200HZ: 2, PWM_FREQ_2000HZ: 3 } as const;
type FrequencyName = keyof typeof PwmFrequency;

const FREQUENCIES: Record<FrequencyName, { hz: number; capability: number }> = {
  PWM_FREQ_80HZ: { hz: 80, capability: ChannelCapability.PWM_80HZ },
  PWM_FREQ_100HZ: { hz: 100, capability: ChannelCapability.PWM_100HZ },
  PWM_FREQ_200HZ: { hz: 200, capability: ChannelCapability.PWM_200HZ },
  PWM_FREQ_2000HZ: { hz: 2000, capability: ChannelCapability.PWM_2000HZ },
};

const MAX_INTERVAL_MS = 1000;

const fields = {
  enabled: f.bool({ stored: true, default: true }),
  hwDevice: f.link('IoArrayInterface', { stored: true, drives: true }),
  channel: f.number({ stored: true, integer: true, min: 0, max: 64, description: '1-based channel; 0 = none' }),
  ...settingPipelineFields(f.number, {
    setting: 'duty after clipping to 0-100 % and the constraints',
    value: 'the duty the channel achieves; null when it cannot PWM',
  }),
  invert: f.bool({ stored: true, description: 'active-low output: the pin duty is 100 % minus the setting' }),
  frequency: f.enum(PwmFrequency, {
    stored: true,
    default: 'PWM_FREQ_100HZ',
    description: 'falls back to 100 Hz where the channel lacks it',
  }),
  constraints: analogConstraintsField,
  ...softStartFields,
  ...claimableFields,
};

const legacyNames: LegacyTable = {
  constrainedBy: analogConstrainedBy,
};

interface FastPwmState extends Driven<number> {
  ramp: DutyRamp;
  /** The channel last written, to write 0 % there once when the setting goes away. */
  written: DrivenOutput | null;
}

export const FastPwm = defineBlock<typeof fields, FastPwmState>({
  type: 'FastPwm',
  role: 'output',
  fields,
  legacy: legacyNames,
  implements: [...ANALOG_ACTUATOR_INTERFACES, 'IoClaimerInterface'],
  channelVia: 'IoArrayInterface',
  checkData: outputChannelIssues,
  description: 'Fast PWM of an IO channel, with soft start',
  init: () => ({ request: null, ramp: new DutyRamp(), written: null }),
  onWrite: returnToStoredOnPatch('storedSetting'),
  onDelete(block, ctx) {
    // 0 % on the channel it drove (resolved now), once its batch is committed.
    const w = block.state.written;
    const io = w ? drivenIo(ctx, w) : null;
    ctx.afterCommit(() => {
      if (w) io?.writeDuty?.(w.channel, w.invert ? 100 : 0, 100);
      block.state.written = null;
      ctx.releaseChannels(block);
    });
  },
  update(block, ctx) {
    const d = block.data;
    const s = block.state;
    const now = ctx.now;
    d.desiredSetting = desired(block, d.storedSetting);
    const own = d.desiredSetting === null ? null : Math.min(100, Math.max(0, d.desiredSetting));
    d.setting = applyAnalogConstraints(own, d.constraints, block, ctx);
    const { array, io } = claimOwnChannel(block, ctx);
    const pwm = canPwm(array, d.channel, io);
    d.transitionDurationValue = transitionSeconds(d, pwm);
    if (s.written && (s.written.arrayId !== array?.id || s.written.channel !== d.channel || !pwm)) off(s, ctx);
    if (!io || !pwm || d.setting === null) {
      // No channel, no PWM on it, or no setting: 0 % once, from where the ramp starts again.
      off(s, ctx);
      s.ramp.set(now, 0);
      d.value = io && pwm ? 0 : null;
      return now + MAX_INTERVAL_MS;
    }
    const caps = channelCapabilities(array, d.channel);
    const wanted = FREQUENCIES[d.frequency];
    const hz = caps & wanted.capability ? wanted.hz : 100;
    const duty = s.ramp.step(now, d.setting, d.transitionDurationValue * 1000);
    io.writeDuty!(d.channel!, d.invert ? 100 - duty : duty, hz);
    s.written = { arrayId: array!.id, channel: d.channel!, invert: d.invert };
    const achieved = io.readDuty?.(d.channel!) ?? null;
    d.value = achieved === null ? null : d.invert ? 100 - achieved : achieved;
    return now + (s.ramp.ramping(d.setting) ? RAMP_INTERVAL_MS : MAX_INTERVAL_MS);
  },
});

function off(s: FastPwmState, ctx: UpdateContext): void {
  const w = s.written;
  if (!w) return;
  drivenIo(ctx, w)?.writeDuty?.(w.channel, w.invert ? 100 : 0, 100);
  s.written = null;
}
