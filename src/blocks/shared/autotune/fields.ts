// The `tuning` object of a Pid block: the brewer's settings and command, what the tuning keeps
// across a restart (read-only, stored: its state, the result it proposes, the gains it replaced)
// and its progress. REST, MQTT, backups, Swagger and the dashboard all take it from here.
import { f, type DataOf } from '../../../codec/fields.js';
import { RULE_TEXT_MAX } from './rule.js';
import { SETUP_TEXT_MAX } from './setup.js';

export const TuningState = {
  IDLE: 0,
  /** The relay runs and measures. */
  RUNNING: 1,
  /** Done: a result waits to be applied or discarded. */
  PROPOSED: 2,
  /** The result is in kp/ti/td; `previous` holds what it replaced (UNDO). */
  APPLIED: 3,
  /** Stopped before a result; `message` says why. The gains were never changed. */
  ABORTED: 4,
} as const;
export type TuningStateName = keyof typeof TuningState;

export const TuningCommand = {
  NONE: 0,
  START: 1,
  STOP: 2,
  APPLY: 3,
  DISCARD: 4,
  UNDO: 5,
} as const;
export type TuningCommandName = keyof typeof TuningCommand;

export const RelayPhase = { NONE: 0, UP: 1, DOWN: 2 } as const;

const owned = { readonly: true, stored: true } as const;
/** A value inside a stored read-only object: unknown (null) until the block sets it. */
const kept = (description?: string) => ({ stored: true, default: null, description });
const gains = {
  kp: f.quantity('inverseTemp', kept()),
  ti: f.duration(kept()),
  td: f.duration(kept()),
  pairKp: f.quantity('inverseTemp', kept('for the paired PID')),
  pairTi: f.duration(kept()),
  pairTd: f.duration(kept()),
  pair: f.string({ stored: true, description: 'the paired PID' }),
  pairNid: f.number({ ...kept(), integer: true }),
};

export const tuningField = f.object(
  {
    command: f.enum(TuningCommand, {
      description:
        'write START to begin (the PID must be active; its pair, if any, is tuned with it), STOP to abort, ' +
        'APPLY or DISCARD a PROPOSED result, UNDO an APPLIED one; read back as NONE',
    }),
    amplitude: f.quantity('deltaTemp', {
      stored: true,
      default: 0.5,
      min: 0.05,
      max: 10,
      description: 'how far the temperature may swing around the setting while tuning (0.5 for beer, 1-2 for a kettle)',
    }),
    hysteresis: f.quantity('deltaTemp', {
      stored: true,
      default: 0.1,
      min: 0.01,
      max: 5,
      description: 'the relay switches only this far past the setting, so sensor noise does not switch it',
    }),
    band: f.quantity('deltaTemp', {
      stored: true,
      default: 2,
      min: 0.2,
      max: 30,
      description: 'the tuning aborts when the temperature gets this far from the setting',
    }),
    cycles: f.number({
      stored: true,
      integer: true,
      min: 2,
      max: 10,
      default: 4,
      description: 'oscillation cycles that must agree before the tuning concludes',
    }),
    maxDuration: f.quantity('duration', {
      stored: true,
      default: 48 * 3600,
      min: 600,
      max: 14 * 24 * 3600,
      description: 'the tuning aborts when it has run this long',
    }),
    maxOutput: f.number({
      stored: true,
      default: 100,
      min: 1,
      max: 100,
      description: 'the highest output (%) the tuning may ask of either side',
    }),
    pairId: f.link('Pid', {
      stored: true,
      description:
        'the PID on the same setpoint that drives the other way (heat/cool), tuned together; when empty, found by itself',
    }),
    state: f.enum(TuningState, { ...owned, description: 'IDLE, RUNNING, PROPOSED, APPLIED or ABORTED' }),
    message: f.string({ ...owned, maxLength: 300, description: 'what happened last, in words' }),
    startedAt: f.datetime({ ...owned }),
    setting: f.temp({ ...owned, description: 'the setting the tuning runs at' }),
    elapsed: f.duration({ ...owned, description: 'time spent tuning (stored every 5 minutes)' }),
    levels: f.object(
      {
        up: f.number(kept('output (%) while the temperature is to rise')),
        down: f.number(kept('output (%) while it is to fall')),
      },
      { ...owned, description: "the relay's output levels (the tuned PID's; a pair's are each side's)" },
    ),
    result: f.object(
      {
        ...gains,
        period: f.duration(kept('measured oscillation period')),
        amplitude: f.deltaTemp(kept('measured swing around the setting')),
        gain: f.deltaTemp(kept('model: steady-state change per % of output')),
        pairGain: f.deltaTemp(kept("model: the pair's change per % of its output")),
        timeConstant: f.duration(kept('model: the slow lag (the beer)')),
        lag: f.duration(kept('model: the fast lag (chamber air, jacket)')),
        deadTime: f.duration(kept('dead time the gains allow for: the plant, its probe and filter, the PWM')),
        fit: f.number(kept('share of the measured swing the model explains, %')),
        settling: f.duration(kept('expected: time to settle within 0.2 degC after a 2 degC step')),
        overshoot: f.deltaTemp(kept('expected overshoot of a 2 degC step')),
        shortestRun: f.deltaTemp(
          kept('model: how far one shortest run (minimum on time, full output) of a pulsed output moves it'),
        ),
        rule: f.string({ stored: true, maxLength: RULE_TEXT_MAX }),
        // What the gains were measured on: APPLY is refused when it has changed since.
        inputNid: f.number({ ...kept('the setpoint the result was measured on'), integer: true }),
        outputNid: f.number({ ...kept("the tuned PID's output then"), integer: true }),
        pairOutputNid: f.number({ ...kept("the pair's output then"), integer: true }),
        setup: f.string({
          stored: true,
          maxLength: SETUP_TEXT_MAX,
          description: "the chain's timings then (PWM periods, minimum and delay times, mutex), compact",
        }),
      },
      { ...owned, description: 'the proposed gains and what they were computed from' },
    ),
    previous: f.object(gains, { ...owned, description: 'the gains a tuning replaced (UNDO puts them back)' }),
    cycle: f.number({ readonly: true, integer: true, description: 'counted cycles so far' }),
    phase: f.enum(RelayPhase, { readonly: true, description: 'UP while the relay makes the temperature rise' }),
    timeLeft: f.duration({ readonly: true, description: 'estimated time to the result; null before a first cycle' }),
    tunedBy: f.link('Pid', { readonly: true, description: 'the PID whose tuning drives this one as its pair' }),
  },
  { stored: true, description: 'relay autotune of kp, ti and td' },
);

export type TuningData = DataOf<{ t: typeof tuningField }>['t'];
