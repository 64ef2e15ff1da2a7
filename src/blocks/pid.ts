// Pid: drives an analog actuator (PWM, setpoint driver, ...) to bring a setpoint's filtered
// sensor value to its setting. Algorithm in shared/pid-math.ts; reference §5.3, §6.1. Its gains
// can be found by a relay autotune (shared/autotune/, the `tuning` object), which drives the
// output (and a heat/cool pair's) while it measures and proposes gains applied on confirmation.
import { f } from '../codec/fields.js';
import { legacy, type LegacyTable } from '../codec/legacy.js';
import { defineBlock, type AnyBlock, type UpdateContext } from '../runtime/types.js';
import type { Linked } from '../runtime/interfaces.js';
import { FilterChoice, FilterChoiceAliases } from './shared/enums.js';
import { derivativeStageForTd, integralFor, pidStep, rescaleIntegral, type PidParams } from './shared/pid-math.js';
import { drive } from './shared/pipeline.js';
import { nextInterval } from './shared/cadence.js';
import { tuningField } from './shared/autotune/fields.js';
import { runTuningCommand, tuningCommandIssues } from './shared/autotune/commands.js';
import { newTuningVolatile, type TunedPid, type TuningVolatile } from './shared/autotune/pid-state.js';
import { tuningRequest } from './shared/autotune/tuner.js';

const INTERVAL_MS = 1000;
/** Longest time step integrated at once, should the loop stall. */
const MAX_DT_S = 10;

const fields = {
  inputId: f.link('SetpointSensorPairInterface', { stored: true }),
  outputId: f.link('ActuatorAnalogInterface', { stored: true, drives: true }),
  inputValue: f.temp({ readonly: true, logged: true }),
  inputSetting: f.temp({ readonly: true, logged: true }),
  outputValue: f.number({ readonly: true, logged: true }),
  outputSetting: f.number({ readonly: true, logged: true }),
  enabled: f.bool({ logged: true, stored: true, default: true }),
  active: f.bool({ readonly: true, logged: true }),
  kp: f.quantity('inverseTemp', { stored: true, description: 'output per degC of error; negative for cooling' }),
  ti: f.duration({ stored: true, description: 'integral time; 0 disables the integral' }),
  td: f.duration({ stored: true, description: 'derivative time; 0 disables the derivative' }),
  p: f.number({ readonly: true, logged: true }),
  i: f.number({ readonly: true, logged: true }),
  d: f.number({ readonly: true, logged: true }),
  error: f.deltaTemp({ readonly: true, logged: true, description: 'setting minus filtered value' }),
  integral: f.number({
    readonly: true,
    logged: true,
    description: 'integral of the derivative-corrected error, degC*s',
  }),
  derivative: f.number({ readonly: true, logged: true, description: 'rate of change of the input, degC per second' }),
  integralReset: f.number({ logged: true, description: 'write a non-zero value to set I to it (0.001 means zero)' }),
  boilPointAdjust: f.deltaTemp({ stored: true, description: 'boil mode is active at a setting of 100 degC plus this' }),
  boilMinOutput: f.number({ stored: true, description: 'minimum output while boiling' }),
  boilModeActive: f.bool({ readonly: true, logged: true }),
  derivativeFilter: f.enumOrNull(FilterChoice, {
    readonly: true,
    description: 'the input filter stage the derivative is taken from',
  }),
  derivativeFilterChoice: f.enum(FilterChoice, {
    stored: true,
    aliases: FilterChoiceAliases,
    description: 'FILTER_NONE: chosen from Td',
  }),
  tuning: tuningField,
};

interface PidState {
  integral: number;
  lastT: number | null;
  /** The output requested in the previous step (null when inactive). */
  requested: number | null;
  /** The output block driven in the previous step. */
  outputId: string | null;
  started: boolean;
  due: number;
  tuning: TuningVolatile;
}

const params = (d: { kp: number | null; ti: number | null; td: number | null }): PidParams => ({
  kp: d.kp ?? 0,
  ti: d.ti ?? 0,
  td: d.td ?? 0,
});

const legacyNames: LegacyTable = {
  drivenOutputId: legacy.ignore('older firmware: read-only link to the driven output'),
  filter: legacy.ignore('older firmware: the input filter moved to the SetpointSensorPair'),
  filterThreshold: legacy.ignore('older firmware: the input filter moved to the SetpointSensorPair'),
  ambientId: legacy.unsupported('feed-forward from an ambient sensor'),
  kff: legacy.unsupported('feed-forward from an ambient sensor'),
  ff: legacy.notReported('feed-forward part, read-only'),
  ambientValue: legacy.notReported('feed-forward input, read-only'),
  ambientOffset: legacy.notReported('feed-forward offset, read-only'),
};

export const Pid = defineBlock<typeof fields, PidState>({
  type: 'Pid',
  role: 'controller',
  fields,
  legacy: legacyNames,
  implements: ['EnablerInterface', 'Pid'],
  description: 'PID controller',
  underway: (b) =>
    b.data.tuning.state === 'RUNNING'
      ? `a tuning (cycle ${b.data.tuning.cycle ?? 0} of ${b.data.tuning.cycles})`
      : null,
  init: () => ({
    integral: 0,
    lastT: null,
    requested: null,
    outputId: null,
    started: false,
    due: -Infinity,
    tuning: newTuningVolatile(),
  }),
  checkData: tuningCommandIssues,
  onWrite(block, info, ctx) {
    const s = block.state;
    const d = block.data;
    // What the hook changes besides the data (a batch that fails puts the data back itself):
    // a STOP or START in it would otherwise leave a tuning that runs on without its relay.
    const kept = { integral: s.integral, tuning: { ...s.tuning } };
    ctx.undoable(() => {
      s.integral = kept.integral;
      Object.assign(s.tuning, kept.tuning);
    });
    // First: APPLY and UNDO change the gains, which the integral is rescaled for below.
    runTuningCommand(block as unknown as TunedPid, ctx);
    if (info.previous) s.integral = rescaleIntegral(s.integral, params(info.previous as typeof d), params(d));
    if (d.integralReset) {
      s.integral = integralFor(d.integralReset, params(d));
      d.integralReset = 0;
    }
  },
  update(block, ctx) {
    const d = block.data;
    const s = block.state;
    const now = ctx.now;
    const dt = s.lastT === null ? 0 : Math.min(MAX_DT_S, (now - s.lastT) / 1000);
    s.lastT = now;
    const due = now >= s.due ? (s.due = nextInterval(s.due, now, INTERVAL_MS)) : s.due;
    const prm = params(d);
    d.derivativeFilter =
      d.derivativeFilterChoice === 'FILTER_NONE' ? derivativeStageForTd(prm.td) : d.derivativeFilterChoice;

    const input = ctx.resolve(d.inputId, 'SetpointSensorPairInterface');
    d.inputSetting = input?.data.setting ?? null;
    d.inputValue = input?.data.value ?? null;
    const output = ctx.resolve(d.outputId, 'ActuatorAnalogInterface');
    if (s.outputId !== null && s.outputId !== (output?.id ?? null)) s.requested = null;
    s.outputId = output?.id ?? null;
    readOutput(block, output);

    const wasActive = d.active;
    // A tuning (of this PID, or of its pair) drives the output instead; the gains and the
    // integral stay as they were until it hands control back.
    const tuned = tuningRequest(block as unknown as TunedPid, ctx);
    if (tuned !== null && output && drive(ctx, output, block, tuned)) {
      s.requested = null;
      d.active = true;
      d.error = d.inputSetting !== null && d.inputValue !== null ? d.inputSetting - d.inputValue : null;
      d.p = d.d = d.derivative = null;
      d.i = prm.ti > 0 && prm.kp !== 0 ? (s.integral * prm.kp) / prm.ti : 0;
      d.integral = s.integral;
      d.boilModeActive = false;
      if (d.active !== wasActive || !s.started) onActiveChange(output, ctx);
      s.started = true;
      return due;
    }
    if (!d.enabled || !output || d.inputSetting === null || d.inputValue === null) {
      deactivate(block, output, ctx, dt, prm);
      if (d.active !== wasActive || !s.started) onActiveChange(output, ctx);
      s.started = true;
      return due;
    }
    const feedback = {
      requested: s.requested,
      setting: d.outputSetting,
      value: d.outputValue,
      tracking: output.state.tracking ?? null,
    };
    const derivative = input!.state.filter.derivative(d.derivativeFilter) ?? 0;
    const terms = pidStep(
      prm,
      s.integral,
      {
        setting: d.inputSetting,
        value: d.inputValue,
        derivative,
        dt,
        boilPointAdjust: d.boilPointAdjust ?? 0,
        boilMinOutput: d.boilMinOutput ?? 0,
      },
      feedback,
    );
    const held = drive(ctx, output, block, terms.output);
    if (!held) {
      // Another block drives the output: stay inactive and do not wind up.
      deactivate(block, output, ctx, dt, prm, false);
    } else {
      s.integral = terms.integral;
      s.requested = terms.output;
      d.active = true;
      d.error = terms.error;
      d.p = terms.p;
      d.i = terms.i;
      d.d = terms.d;
      d.derivative = derivative;
      d.boilModeActive = terms.boil;
    }
    d.integral = s.integral;
    if (d.active !== wasActive || !s.started) onActiveChange(output, ctx);
    s.started = true;
    return due;
  },
});

type AnalogOutput = Linked<'ActuatorAnalogInterface'>;

function readOutput(block: AnyBlock, output: AnalogOutput | null): void {
  const d = block.data as { outputSetting: number | null; outputValue: number | null };
  d.outputSetting = output?.data.setting ?? null;
  d.outputValue = output?.data.value ?? null;
}

/**
 * Inactive: no output. The integral decays with time constant Ti rather than resetting, so a
 * short sensor outage does not throw away hours of integral; disabling resets it.
 */
function deactivate(
  block: AnyBlock,
  output: AnalogOutput | null,
  ctx: UpdateContext,
  dt: number,
  prm: PidParams,
  release = true,
): void {
  const d = block.data as Record<string, unknown> & { enabled: boolean };
  const s = block.state as PidState;
  if (!d.enabled) s.integral = 0;
  else if (prm.ti > 0) s.integral *= Math.exp(-dt / Math.max(prm.ti, 60));
  d.active = false;
  d.error = d.p = d.d = d.derivative = null;
  d.i = prm.ti > 0 && prm.kp !== 0 ? (s.integral * prm.kp) / prm.ti : 0;
  d.integral = s.integral;
  d.boilModeActive = false;
  s.requested = null;
  if (release && output && output.data.claimedBy === block.id) {
    if (d.enabled) drive(ctx, output, block, null);
    else ctx.wake(output);
  }
}

/**
 * When the PID switches between active and inactive its output is persisted: the output's
 * stored data (settingMode CLAIMED) must not let a restart bring back an old setting.
 */
function onActiveChange(output: AnyBlock | null, ctx: UpdateContext): void {
  if (!output) return;
  ctx.wake(output);
  ctx.persist(output);
}
