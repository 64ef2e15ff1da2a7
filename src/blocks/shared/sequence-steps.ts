// What each Sequence instruction does (reference §6.9). A SET instruction acts like a user
// write of the target's stored value (back to STORED mode only when nothing drives the target:
// claims.ts settleDrivenMode) and returns NEXT; a WAIT returns WAIT until its condition
// holds; every problem returns an error code, and the caller retries the same instruction.
import { takesValue } from '../../codec/decode.js';
import { forEachLink } from '../../codec/fields.js';
import { settleDrivenMode } from '../../runtime/claims.js';
import type { AnyBlock, UpdateContext } from '../../runtime/types.js';
import type { InterfaceName, Linked } from '../../runtime/interfaces.js';
import { variableOf, type VariableValue } from '../variables.js';
import type { Arg, ArgKind, Instruction } from './sequence-syntax.js';
import { isoTime, LAST_TIME, OPCODES } from './sequence-syntax.js';

export const SequenceError = {
  NONE: 0,
  INVALID_ARGUMENT: 1,
  INVALID_TARGET: 2,
  INACTIVE_TARGET: 3,
  DISABLED_TARGET: 4,
  SYSTEM_TIME_NOT_AVAILABLE: 5,
  VARIABLES_NOT_SUPPORTED: 6,
  UNDEFINED_VARIABLE: 7,
  INVALID_VARIABLE: 8,
} as const;
export type SequenceErrorName = keyof typeof SequenceError;

export type StepResult =
  | { kind: 'next' }
  | { kind: 'wait' }
  | { kind: 'restart' }
  | { kind: 'error'; error: SequenceErrorName; detail?: string };

export interface StepContext {
  ctx: UpdateContext;
  self: AnyBlock;
  variables: Linked<'Variables'> | null;
  /** ms the instruction has been active, paused time excluded. */
  elapsedMs: number;
  /** Blocks the sequence changed; persisted with its progress. */
  changed: { add(block: AnyBlock): void };
  /** Restart another sequence at its first instruction. */
  startSequence(target: AnyBlock): void;
}

class StepError extends Error {
  /** `detail`: what the error is about, in words (the block a target names). */
  constructor(
    readonly code: SequenceErrorName,
    readonly detail?: string,
  ) {
    super(code);
  }
}

const NEXT: StepResult = { kind: 'next' };
const WAIT: StepResult = { kind: 'wait' };

export function runInstruction(ins: Instruction, sc: StepContext): StepResult {
  try {
    return step(ins, sc);
  } catch (e) {
    if (e instanceof StepError) return { kind: 'error', error: e.code, ...(e.detail ? { detail: e.detail } : {}) };
    throw e;
  }
}

function step(ins: Instruction, sc: StepContext): StepResult {
  const { ctx } = sc;
  const num = (key: string) => numberArg(ins, key, sc);
  const target = () => targetArg(ins, sc);
  const data = (b: AnyBlock) => b.data as Record<string, any>;
  const wall = () => {
    if (ctx.wall === null) throw new StepError('SYSTEM_TIME_NOT_AVAILABLE');
    return ctx.wall / 1000;
  };
  const until = (cond: boolean) => (cond ? NEXT : WAIT);
  switch (ins.op) {
    case 'COMMENT':
      return NEXT;
    case 'RESTART':
      return { kind: 'restart' };
    case 'WAIT':
      return WAIT;
    case 'ENABLE':
    case 'DISABLE': {
      const b = target();
      change(sc, b, { enabled: ins.op === 'ENABLE' });
      return NEXT;
    }
    case 'WAIT_DURATION':
      return until(sc.elapsedMs >= num('duration') * 1000);
    case 'WAIT_UNTIL': {
      // A literal past LAST_TIME does not parse; a variable's timestamp can be (a year-5000 date):
      // a wait for ever, refused as the literal is.
      const time = num('time');
      const arg = ins.args.time!;
      if (time > LAST_TIME)
        throw new StepError(
          'INVALID_VARIABLE',
          `variable '${'var' in arg ? arg.var : ''}' is ${isoTime(time)}, past ${isoTime(LAST_TIME)}, the last time a WAIT_UNTIL holds`,
        );
      return until(wall() >= time);
    }
    case 'WAIT_TEMP_BETWEEN':
    case 'WAIT_TEMP_NOT_BETWEEN':
    case 'WAIT_TEMP_UNEXPECTED': {
      const v = data(target()).value as number | null;
      const lower = num('lower');
      const upper = num('upper');
      if (v === null) {
        if (ins.op === 'WAIT_TEMP_UNEXPECTED') return NEXT;
        throw new StepError('INACTIVE_TARGET');
      }
      const inside = v >= lower && v <= upper;
      return until(ins.op === 'WAIT_TEMP_BETWEEN' ? inside : !inside);
    }
    case 'WAIT_TEMP_ABOVE':
    case 'WAIT_TEMP_BELOW': {
      const v = data(target()).value as number | null;
      if (v === null) throw new StepError('INACTIVE_TARGET');
      return until(ins.op === 'WAIT_TEMP_ABOVE' ? v > num('value') : v < num('value'));
    }
    case 'SET_SETPOINT': {
      const b = target();
      const setting = num('setting');
      if (data(b).enabled === false) throw new StepError('DISABLED_TARGET');
      change(sc, b, { storedSetting: setting, settingMode: 'STORED' });
      return NEXT;
    }
    case 'WAIT_SETPOINT':
    case 'WAIT_SETPOINT_ABOVE':
    case 'WAIT_SETPOINT_BELOW': {
      const d = data(target());
      const precision = num('precision');
      if (d.enabled === false) throw new StepError('DISABLED_TARGET');
      if (d.value === null || d.setting === null) throw new StepError('INACTIVE_TARGET');
      if (ins.op === 'WAIT_SETPOINT') return until(Math.abs(d.value - d.setting) <= precision);
      if (ins.op === 'WAIT_SETPOINT_ABOVE') return until(d.value >= d.setting - precision);
      return until(d.value <= d.setting + precision);
    }
    case 'SET_DIGITAL': {
      const b = target();
      change(sc, b, { storedState: textArg(ins, 'setting', sc), settingMode: 'STORED' });
      return NEXT;
    }
    case 'WAIT_DIGITAL': {
      const d = data(target());
      if (d.state === null || d.state === undefined) throw new StepError('INACTIVE_TARGET');
      return until(d.desiredState !== null && d.state === d.desiredState);
    }
    case 'WAIT_DIGITAL_EQUALS': {
      const d = data(target());
      if (d.state === null || d.state === undefined) throw new StepError('INACTIVE_TARGET');
      return until(d.state === textArg(ins, 'state', sc));
    }
    case 'SET_PWM': {
      const b = target();
      const setting = num('setting');
      if (data(b).enabled === false) throw new StepError('DISABLED_TARGET');
      change(sc, b, { storedSetting: setting, settingMode: 'STORED' });
      return NEXT;
    }
    case 'START_PROFILE': {
      const b = target();
      change(sc, b, { start: Math.floor(wall()) });
      return NEXT;
    }
    case 'WAIT_PROFILE': {
      const d = data(target());
      const now = wall();
      if (d.start === null) throw new StepError('INACTIVE_TARGET');
      const times = (d.points as Array<{ time: number | null }>).map((p) => p.time ?? 0);
      return until(now >= d.start + Math.max(0, ...times));
    }
    case 'START_SEQUENCE': {
      // Brewblox's START_SEQUENCE resets its target to the first instruction: naming the
      // sequence itself, that is a RESTART (with its pause), not a step on to the next line.
      const other = target();
      if (other === sc.self) return { kind: 'restart' };
      sc.startSequence(other);
      return NEXT;
    }
    case 'WAIT_SEQUENCE':
      return until(data(target()).status === 'END');
  }
}

function change(sc: StepContext, b: AnyBlock, values: Record<string, unknown>): void {
  const d = b.data as Record<string, unknown>;
  // A value from a variable outside the field's range (a setpoint of 650 °F; a literal is refused
  // when the line is parsed) is refused as REST refuses it: stored, it would keep the block from
  // loading at the next start.
  for (const [k, v] of Object.entries(values)) {
    const spec = b.def.fields[k]?.spec;
    if (typeof v !== 'number' || !spec || (spec.kind !== 'number' && spec.kind !== 'quantity')) continue;
    if (!takesValue(spec, v)) throw new StepError('INVALID_ARGUMENT');
  }
  for (const [k, v] of Object.entries(values)) if (k in b.def.fields) d[k] = v;
  // A SET on a block another block drives keeps the value for later; the block stays driven.
  settleDrivenMode(b);
  // Disabled like by a user write: the blocks it drove are free for another claimer (§4.4).
  if (values.enabled === false) {
    forEachLink(b.def.fields, d, (_path, id, field) => {
      const target = field.spec.drives ? sc.ctx.resolve(id, 'Any') : null;
      if (target) {
        sc.ctx.release(target, b);
        sc.ctx.wake(target);
      }
    });
  }
  sc.changed.add(b);
  sc.ctx.wake(b);
}

function kindOf(ins: Instruction, key: string): ArgKind {
  return (OPCODES[ins.op] as Record<string, ArgKind>)[key]!;
}

/** The variable behind `arg`, checked to be of the kind the argument needs. */
function resolveVar(arg: Arg, kind: ArgKind, sc: StepContext): VariableValue | null {
  if (!('var' in arg)) return null;
  if (!sc.variables) throw new StepError('UNDEFINED_VARIABLE');
  const v = variableOf(sc.variables, arg.var);
  if (!v) throw new StepError('UNDEFINED_VARIABLE');
  const member = typeof kind === 'object' ? 'link' : kind === 'datetime' ? 'timestamp' : kind;
  if (!(member in v)) throw new StepError('INVALID_VARIABLE');
  return v;
}

function numberArg(ins: Instruction, key: string, sc: StepContext): number {
  const arg = ins.args[key]!;
  const kind = kindOf(ins, key);
  const v = resolveVar(arg, kind, sc);
  if (v) {
    const n = (v as Record<string, unknown>)[kind === 'datetime' ? 'timestamp' : (kind as string)];
    if (typeof n !== 'number') throw new StepError('INVALID_VARIABLE');
    return n;
  }
  if ('value' in arg) return arg.value;
  throw new StepError('INVALID_ARGUMENT');
}

function textArg(ins: Instruction, key: string, sc: StepContext): string {
  const arg = ins.args[key]!;
  const v = resolveVar(arg, kindOf(ins, key), sc);
  if (v) {
    if (typeof v.digital !== 'string') throw new StepError('INVALID_VARIABLE');
    return v.digital;
  }
  if ('text' in arg) return arg.text;
  throw new StepError('INVALID_ARGUMENT');
}

function targetArg(ins: Instruction, sc: StepContext): AnyBlock {
  const arg = ins.args.target!;
  const kind = kindOf(ins, 'target') as { link: InterfaceName };
  const v = resolveVar(arg, kind, sc);
  const id = v ? v.link : 'text' in arg ? arg.text : null;
  if (!id) throw new StepError(v ? 'INVALID_VARIABLE' : 'INVALID_ARGUMENT');
  const b = sc.ctx.resolve(id, kind.link);
  if (!b) throw new StepError('INVALID_TARGET', `no block "${id}" that ${ins.op} can use`);
  return b;
}
