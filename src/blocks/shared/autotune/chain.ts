// What a tuning drives and what may stop it: the PID, its pair (the PID on the same setpoint
// that drives the other way), each one's output and, behind a PWM, its digital actuator and
// mutex. A tuning runs only when nothing else drives any of them; the same checks refuse a
// START (422 naming the obstacle) and abort a tuning that runs when the chain changes under it.
import type { Linked, Resolve } from '../../../runtime/interfaces.js';
import type { AnyBlock } from '../../../runtime/types.js';
import { historyOf } from '../../digital-actuator.js';
import { settingDue } from '../pipeline.js';
import { drivesOrWill } from '../profile.js';
import { onTimeBetween, type DigitalConstraints } from '../digital-constraints.js';

/** What the checks look at: linked blocks, and the blocks linking to one. */
export interface Look {
  resolve: Resolve;
  referrers(id: string): readonly AnyBlock[];
}

/** Output types the relay can drive: a 0-100 % setting. */
const DRIVABLE = ['ActuatorPwm', 'FastPwm', 'ActuatorAnalogMock'];

export interface Side {
  pid: Linked<'Pid'>;
  output: Linked<'ActuatorAnalogInterface'>;
  /** The digital actuator behind a PWM, if any. */
  actuator: Linked<'ActuatorDigitalInterface'> | null;
  /** +1 heats, -1 cools (the sign of kp). */
  sign: 1 | -1;
  /** PWM period, s (0 for a continuous output). */
  pwmPeriod: number;
  /** The actuator's constraints (minimum on/off times, mutex), which the gains must live with. */
  constraints: DigitalConstraints | null;
}

export interface Chain {
  input: Linked<'SetpointSensorPairInterface'>;
  sides: [Side] | [Side, Side];
}

const sign = (kp: number | null): 1 | -1 | 0 => (!kp ? 0 : kp > 0 ? 1 : -1);

/** What a missing reading of the setpoint is called, wherever it stands in the way. */
export const noValue = (setpoint: string) => `its setpoint ${setpoint} has no value: check the sensor`;

/** What a running tuning started with: a change of either ends it, said before what follows from it. */
export interface RunningChain {
  sign: 1 | -1;
  /** The pair's nid (which a rename keeps) and id as last seen. */
  pairNid: number | null;
  pairId: string | null;
}

/**
 * The chain a tuning of `pid` drives, or what stands in its way (in words). `gapOk`: a setpoint
 * without a value passes (a running tuning rides out a short gap in the readings itself).
 */
export function tuningChain(
  pid: Linked<'Pid'>,
  look: Look,
  opts: { gapOk?: boolean; running?: RunningChain } = {},
): Chain | string {
  const d = pid.data;
  if (!d.enabled) return `${pid.id} is disabled`;
  const own = sign(d.kp);
  if (own === 0)
    return `kp of ${pid.id} is 0: give it the sign of what its output does (positive for a heater, negative for a cooler); the tuning finds its size`;
  const input = look.resolve(d.inputId, 'SetpointSensorPairInterface');
  if (!input) return `${pid.id} has no input setpoint`;
  if (settingDue(input) === null)
    return (input.data as { enabled?: boolean }).enabled === false
      ? `its setpoint ${input.id} is disabled`
      : `its setpoint ${input.id} has no setting: write one (a setpoint a profile or a driver let go of keeps none of its own)`;
  const moved = movedBy(input, look);
  if (moved) return moved;
  if (input.data.value === null && !opts.gapOk) return noValue(input.id);
  const tunedBy = pid.data.tuning.tunedBy;
  if (tunedBy) return `${pid.id} is being tuned as the pair of ${tunedBy}`;

  const others = look
    .referrers(input.id)
    .filter((b) => b.id !== pid.id && b.def.type === 'Pid')
    .map((b) => look.resolve(b.id, 'Pid')!)
    .filter((b) => b.data.enabled && b.data.inputId === input.id);
  let pair: Linked<'Pid'> | null = null;
  const pairId = d.tuning.pairId;
  if (pairId) {
    if (pairId === pid.id) return `tuning.pairId names ${pid.id} itself: the pair is the PID that drives the other way`;
    pair = look.resolve(pairId, 'Pid');
    if (!pair) return `its pair ${pairId} does not exist`;
    if (pair.data.inputId !== input.id) return `its pair ${pair.id} reads another setpoint, not ${input.id}`;
    if (!pair.data.enabled) return `its pair ${pair.id} is disabled`;
  } else if (others.length === 1) {
    pair = others[0]!;
  }
  const extra = others.filter((b) => b !== pair);
  if (extra.length)
    return `${extra.map((b) => b.id).join(', ')} also control${extra.length > 1 ? '' : 's'} ${input.id}: disable ${extra.length > 1 ? 'them' : 'it'}${pairId ? '' : ', or name the pair in tuning.pairId'}`;
  // Before the outputs and mutexes: a pair deleted or disabled leaves its cooler on the shared
  // mutex, and that is not the news.
  const running = opts.running;
  if (running && own !== running.sign) return 'the sign of kp changed (the direction the PID drives)';
  if (running && (pair?.nid ?? null) !== running.pairNid)
    return running.pairNid === null
      ? `${pair!.id} now drives the other way on the same setpoint`
      : `its pair ${running.pairId} no longer drives the other way on ${input.id} (deleted, disabled or moved)`;
  if (pair) {
    const theirs = sign(pair.data.kp);
    if (theirs === 0) return `kp of its pair ${pair.id} is 0: give it the sign of what its output does`;
    if (theirs === own)
      return `${pair.id} drives ${input.id} the same way as ${pid.id} (kp of the same sign); a pair heats and cools`;
    if (pair.data.tuning.state === 'RUNNING') return `its pair ${pair.id} is tuning itself`;
  }

  const mine = side(pid, own, look);
  if (typeof mine === 'string') return mine;
  if (!pair) return mutexIssue([mine], look) ?? { input, sides: [mine] };
  const theirs = side(pair, own === 1 ? -1 : 1, look);
  if (typeof theirs === 'string') return theirs;
  const shared = mutexIssue([mine, theirs], look);
  if (shared) return shared;
  return { input, sides: [mine, theirs] };
}

const STEADY = 'a tuning needs a steady setting';

/**
 * What moves the setting of a tuning's setpoint besides the brewer: its claimer (a Setpoint
 * Profile, a Setpoint Driver), or an enabled profile on it that has yet to begin. A profile that
 * moves the setting under a tuning would end it hours later; refused at START, and a running
 * tuning stops as soon as one takes the setpoint.
 */
function movedBy(input: Linked<'SetpointSensorPairInterface'>, look: Look): string | null {
  const claimer = input.data.claimedBy ? look.resolve(input.data.claimedBy, 'Any') : null;
  const profile =
    claimer?.def.type === 'SetpointProfile'
      ? claimer
      : look.referrers(input.id).find((b) => {
          const d = b.data as Parameters<typeof drivesOrWill>[0] & { targetId?: string | null };
          return b.def.type === 'SetpointProfile' && d.targetId === input.id && drivesOrWill(d);
        });
  if (profile)
    return `its setpoint ${input.id} follows the Setpoint Profile ${profile.id}, and ${STEADY}: disable the profile to tune`;
  if (input.data.claimedBy)
    return `its setpoint ${input.id} is driven by ${input.data.claimedBy}, and ${STEADY}: disable ${input.data.claimedBy} to tune`;
  return null;
}

function side(pid: Linked<'Pid'>, s: 1 | -1, look: Look): Side | string {
  const output = look.resolve(pid.data.outputId, 'ActuatorAnalogInterface');
  if (!output) return `${pid.id} has no output`;
  if (!DRIVABLE.includes(output.def.type))
    return `${pid.id} drives ${output.id}, a ${output.def.type}; a tuning drives outputs of 0-100 % (${DRIVABLE.join(', ')})`;
  const od = output.data as {
    enabled?: boolean;
    claimedBy: string | null;
    period?: number | null;
    actuatorId?: string | null;
  };
  if (od.enabled === false) return `its output ${output.id} is disabled`;
  if (od.claimedBy !== null && od.claimedBy !== pid.id) return `its output ${output.id} is driven by ${od.claimedBy}`;
  let actuator: Linked<'ActuatorDigitalInterface'> | null = null;
  let pwmPeriod = 0;
  let constraints: DigitalConstraints | null = null;
  if (output.def.type === 'ActuatorPwm') {
    pwmPeriod = Math.max(1, od.period ?? 0);
    actuator = look.resolve(od.actuatorId, 'ActuatorDigitalInterface');
    if (!actuator) return `${output.id} drives no actuator`;
    const claimer = actuator.data.claimedBy;
    if (claimer !== null && claimer !== output.id) return `${actuator.id} is driven by ${claimer}, not by ${output.id}`;
    // The actuator's own rule (digital-actuator.ts): a mutex it cannot resolve keeps it off.
    const m = actuator.data.constraints?.mutexed;
    if (m?.enabled && !look.resolve(m.mutexId ?? null, 'MutexInterface'))
      return `${actuator.id}'s mutex ${m.mutexId ?? '(none named)'} does not exist, so ${actuator.id} never switches on: link it to a Mutex, or turn its mutex constraint off`;
    if (actuator.def.type === 'DigitalActuator')
      constraints = structuredClone(actuator.data.constraints) as unknown as DigitalConstraints;
  }
  return { pid, output, actuator, sign: s, pwmPeriod, constraints };
}

/**
 * A mutex of the tuned actuators that a third actuator also takes and may want: its waits would
 * spoil the measurement. One that is off and that nothing asks on does not count (a fridge's
 * cooler while only the heater is tuned); should it be asked on, the tuning stops.
 */
function mutexIssue(sides: Side[], look: Look): string | null {
  const mine = new Set(sides.map((s) => s.actuator?.id).filter(Boolean));
  for (const s of sides) {
    const m = s.actuator?.data.constraints?.mutexed;
    if (!m?.enabled || !m.mutexId) continue;
    for (const b of look.referrers(m.mutexId)) {
      if (mine.has(b.id)) continue;
      const d = b.data as {
        constraints?: { mutexed?: { enabled?: boolean; mutexId?: string | null } };
        claimedBy?: string | null;
        desiredState?: string | null;
        state?: string | null;
      };
      const c = d.constraints?.mutexed;
      const driver = d.claimedBy ? look.resolve(d.claimedBy, 'Any') : null;
      const asked = (driver?.data as { setting?: number | null } | undefined)?.setting ?? null;
      const idle = d.desiredState !== 'STATE_ACTIVE' && d.state !== 'STATE_ACTIVE' && !asked;
      if (c?.enabled && c.mutexId === m.mutexId && !idle)
        return `${s.actuator!.id}'s mutex ${m.mutexId} is also taken by ${b.id}, which the tuning does not drive`;
    }
  }
  return null;
}

/** The output (%) a side delivered between `from` and `to` (ms): its actuator's on-time, or the output's value. */
export function delivered(s: Side, from: number, to: number): number {
  if (to <= from) return 0;
  if (s.actuator) return (100 * onTimeBetween(historyOf(s.actuator as AnyBlock), from, to)) / (to - from);
  return s.output.data.value ?? 0;
}
