// What a tuning's result was measured on, as the result records it: the PID's input and output,
// its pair and the pair's output (by nid, which a rename keeps), and the chain's timings the gains
// depend on (PWM periods, the actuators' minimum and delay times, the mutex and its hold time).
// One function reads it off the blocks, at the end of a run and again at an APPLY, so the two
// compare; `setupChange` says in words what differs (commands.ts refuses the APPLY then).
import type { Look } from './chain.js';
import type { TuningData } from './fields.js';

type Result = TuningData['result'];
export type Setup = Pick<Result, 'inputNid' | 'outputNid' | 'pairNid' | 'pairOutputNid' | 'setup'>;

/** The longest `setup` text: two sides of 8 short tokens each. */
export const SETUP_TEXT_MAX = 240;

interface Block {
  id: string;
  nid: number;
  def: { type: string };
  data: unknown;
}
type Timed = { enabled?: boolean | null; duration?: number | null } | null | undefined;
interface ActuatorData {
  constraints?: {
    minOff?: Timed;
    minOn?: Timed;
    delayedOn?: Timed;
    delayedOff?: Timed;
    mutexed?: { enabled?: boolean | null; mutexId?: string | null; extraHoldTime?: number | null } | null;
  } | null;
}
interface PidLinks {
  inputId?: string | null;
  outputId?: string | null;
  tuning?: { pairId?: string | null };
}

const secs = (v: number | null | undefined) => String(Math.round((v ?? 0) * 1000) / 1000);
const timed = (c: Timed) => (c?.enabled ? secs(c.duration) : '-');

/** Each token of a side, in the order a refusal looks at them: what it is called and whose it is. */
const TOKENS = {
  a: { words: 'the actuator', of: 'output' },
  p: { words: 'the PWM period', of: 'output' },
  on: { words: 'the minimum on time', of: 'actuator' },
  off: { words: 'the minimum off time', of: 'actuator' },
  don: { words: 'the delay before switching on', of: 'actuator' },
  doff: { words: 'the delay before switching off', of: 'actuator' },
  mx: { words: 'the mutex', of: 'actuator' },
  hold: { words: 'the mutex hold time', of: 'actuator' },
} as const;
type Token = keyof typeof TOKENS;

const actuatorOf = (output: Block | null, look: Look): Block | null =>
  output?.def.type === 'ActuatorPwm'
    ? look.resolve((output.data as { actuatorId?: string | null }).actuatorId, 'ActuatorDigitalInterface')
    : null;

/** The timings of one side: its output (a PWM's period) and, behind a PWM, its digital actuator. */
function sideTiming(output: Block | null, look: Look): Record<Token, string> {
  const t: Record<Token, string> = { a: '-', p: '0', on: '-', off: '-', don: '-', doff: '-', mx: '-', hold: '-' };
  const actuator = actuatorOf(output, look);
  if (output?.def.type === 'ActuatorPwm') {
    t.p = secs(Math.max(1, (output.data as { period?: number | null }).period ?? 0));
    t.a = actuator ? String(actuator.nid) : '-';
  }
  const c = actuator?.def.type === 'DigitalActuator' ? (actuator.data as ActuatorData).constraints : null;
  if (c) {
    t.on = timed(c.minOn);
    t.off = timed(c.minOff);
    t.don = timed(c.delayedOn);
    t.doff = timed(c.delayedOff);
    if (c.mutexed?.enabled) {
      t.mx = String(look.resolve(c.mutexed.mutexId, 'MutexInterface')?.nid ?? '-');
      t.hold = secs(c.mutexed.extraHoldTime);
    }
  }
  return t;
}

const text = (t: Record<Token, string>) => (Object.keys(TOKENS) as Token[]).map((k) => `${k}=${t[k]}`).join(' ');
const parse = (side: string | undefined): Partial<Record<Token, string>> =>
  Object.fromEntries((side ?? '').split(' ').map((kv) => kv.split('=')));

/**
 * The pair of the PID `id` (with `data` as a write leaves it) on its input, as a START finds it:
 * the PID named in tuning.pairId, else the one other enabled PID on the same setpoint.
 */
function pairNow(id: string, data: PidLinks, input: Block | null, look: Look): Block | null {
  if (!input) return null;
  const on = look
    .referrers(input.id)
    .filter((b) => b.id !== id && b.def.type === 'Pid')
    .filter((b) => {
      const d = b.data as { inputId?: string | null; enabled?: boolean };
      return d.inputId === input.id && d.enabled;
    });
  const named = data.tuning?.pairId;
  if (named) return on.find((b) => b.id === named) ?? null;
  return on.length === 1 ? on[0]! : null;
}

interface Now {
  setup: Setup;
  input: Block | null;
  output: Block | null;
  pair: Block | null;
  pairOutput: Block | null;
}

function now(id: string, data: PidLinks, look: Look): Now {
  const input = look.resolve(data.inputId, 'SetpointSensorPairInterface');
  const output = look.resolve(data.outputId, 'ActuatorAnalogInterface');
  const pair = pairNow(id, data, input, look);
  const pairOutput = pair ? look.resolve((pair.data as PidLinks).outputId, 'ActuatorAnalogInterface') : null;
  const sides = [text(sideTiming(output, look)), ...(pair ? [text(sideTiming(pairOutput, look))] : [])];
  return {
    input,
    output,
    pair,
    pairOutput,
    setup: {
      inputNid: input?.nid ?? null,
      outputNid: output?.nid ?? null,
      pairNid: pair?.nid ?? null,
      pairOutputNid: pairOutput?.nid ?? null,
      setup: sides.join(' | '),
    },
  };
}

/** The setup of the PID `id` (its data as a write leaves it) as a result records it. */
export const setupOf = (id: string, data: PidLinks, look: Look): Setup => now(id, data, look).setup;

const shown = (k: Token, v: string | undefined) => (v === undefined || v === '-' ? 'off' : `${v} s`);

/**
 * Why result `r` cannot be applied to the PID `id` now, in words: what differs between the setup
 * it was measured on and the setup now, or that it records none (a proposal of a version before
 * the setup was recorded, kept across the upgrade or loaded from its backup: it cannot be
 * checked, so it is not applied); null when the setup is the same.
 */
export function setupChange(r: Result, id: string, data: PidLinks, look: Look): string | null {
  if (r.inputNid === null)
    return 'the result was proposed by an older version, which did not record the setup it was measured on, so it cannot be checked against the setup now';
  const changed = changeSince(r, id, data, look);
  return changed && `since the result was measured, ${changed}`;
}

function changeSince(r: Result, id: string, data: PidLinks, look: Look): string | null {
  const n = now(id, data, look);
  const was = r;
  if (n.setup.inputNid !== was.inputNid) return `the input of ${id} was relinked (now ${n.input?.id ?? 'none'})`;
  if (n.setup.outputNid !== was.outputNid) return `the output of ${id} was relinked (now ${n.output?.id ?? 'none'})`;
  if (n.setup.pairNid !== was.pairNid) {
    if (!n.pair)
      return `its pair ${was.pair} no longer drives the other way on ${n.input!.id} (deleted, disabled or moved)`;
    if (was.pairNid === null) return `${n.pair.id} now drives the other way on ${n.input!.id}`;
    return `its pair is now ${n.pair.id}, not ${was.pair}`;
  }
  if (n.setup.pairOutputNid !== was.pairOutputNid)
    return `the output of its pair ${n.pair!.id} was relinked (now ${n.pairOutput?.id ?? 'none'})`;
  const before = was.setup.split(' | ');
  const after = n.setup.setup.split(' | ');
  const outputs = [n.output, n.pairOutput];
  for (let i = 0; i < after.length; i++) {
    const [b, a] = [parse(before[i]), parse(after[i])];
    const output = outputs[i] ?? null;
    for (const k of Object.keys(TOKENS) as Token[]) {
      if (b[k] === a[k]) continue;
      const { words, of } = TOKENS[k];
      const owner = of === 'output' ? output : actuatorOf(output, look);
      const whose = `${words} of ${owner?.id ?? 'its output'}`;
      if (k === 'a' || k === 'mx') {
        const target = k === 'a' ? actuatorOf(output, look) : null;
        return `${whose} ${k === 'a' ? `was relinked (now ${target?.id ?? 'none'})` : 'changed'}`;
      }
      return `${whose} changed from ${shown(k, b[k])} to ${shown(k, a[k])}`;
    }
  }
  return null;
}
