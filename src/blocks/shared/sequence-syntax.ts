// The Sequence instruction language (reference §6.9, block-api §2.7): one instruction per line,
// `OPCODE key=value, key=value` or `# comment`. Temperatures carry a unit (40C, 104F; deltas
// 2dC, 3.6dF), durations are 1d2h3m4s, times ISO-8601 or epoch seconds, links are block ids,
// digital states their names, and any argument may be `$name`, a variable of the linked
// Variables block. Parsing yields a typed instruction or an error with its column; formatting
// gives the normalised line. The shape of a line (opcodes, arguments, quotes) is sequence-lines.ts,
// which the dashboard shares; what each value means is here.
import { decodeDatetime, MAX_MAGNITUDE, takesValue } from '../../codec/decode.js';
import { f, SETPOINT_RANGE_C } from '../../codec/fields.js';
import { DigitalState } from './enums.js';
import { durationSeconds } from '../../shared/duration.js';
import type { InterfaceName } from '../../runtime/interfaces.js';
import {
  formatName,
  isVariable,
  OPCODES,
  splitLine,
  type LineArgKind,
  type Opcode,
  type ParseError,
} from './sequence-lines.js';

export { formatName, OPCODES, type Opcode, type ParseError };

/** A line's argument kind (sequence-lines.ts), a block's interface named as the runtime has it. */
export type ArgKind = Exclude<LineArgKind, { link: string }> | { link: InterfaceName };

/** A literal in internal units (degC, delta degC, seconds, epoch seconds), or a variable. */
export type Arg = { var: string } | { value: number; unit?: 'C' | 'F' } | { text: string };

export interface Instruction {
  op: Opcode;
  args: Record<string, Arg>;
}

const VAR_NAME = /^[A-Za-z0-9_-]{1,16}$/;
const NUMBER = '[-+]?(?:\\d+\\.?\\d*|\\.\\d+)';
const TEMP = new RegExp(`^(${NUMBER})\\s*(?:°|deg)?([CF])$`, 'i');
const DELTA = new RegExp(`^(${NUMBER})\\s*(?:d|delta_?|Δ)(?:°|deg)?([CF])$`, 'i');

export function parseInstruction(line: string): { instruction: Instruction } | { error: ParseError } {
  const split = splitLine(line);
  if ('error' in split) return split;
  if (!('args' in split)) return { instruction: { op: 'COMMENT', args: { text: { text: split.comment } } } };
  const { op, text } = split;
  const args: Record<string, Arg> = {};
  for (const part of split.args) {
    const { key, raw, valueAt } = part;
    const arg = parseArg(raw, part.kind as ArgKind, part.quoted);
    if (typeof arg === 'string') return fail(`${key}: ${arg}`, valueAt);
    const range = op === 'SET_SETPOINT' && key === 'setting' ? setpointRangeProblem(arg) : null;
    if (range) return fail(`${key}: ${range}, got '${raw}'`, valueAt);
    args[key] = arg;
  }
  const missing = Object.keys(OPCODES[op]).filter((k) => !(k in args));
  if (missing.length) return fail(`${op} needs ${missing.join(', ')}`, text.length);
  return { instruction: { op, args } };
}

/** Why a SET_SETPOINT setting given as a literal is outside the range a setpoint takes (SETPOINT_RANGE_C), in its unit. */
function setpointRangeProblem(arg: Arg): string | null {
  if (!('value' in arg) || inSetpointRange(arg.value)) return null;
  const f = arg.unit === 'F';
  const shown = (c: number) => `${f ? formatNumber((c * 9) / 5 + 32) : formatNumber(c)}${f ? 'F' : 'C'}`;
  return `a setpoint must be between ${shown(SETPOINT_RANGE_C.min)} and ${shown(SETPOINT_RANGE_C.max)}`;
}

/** A setting (degC) a setpoint takes, as REST, MQTT and a backup check it. */
function inSetpointRange(c: number): boolean {
  return c >= SETPOINT_RANGE_C.min && c <= SETPOINT_RANGE_C.max;
}

function fail(message: string, pos: number): { error: ParseError } {
  return { error: { message, pos } };
}

/** What block data takes of a literal of each numeric kind (internal units), as decoding holds it. */
const LITERAL = { temp: f.temp().spec, deltaTemp: f.deltaTemp().spec, analog: f.number().spec } as Record<
  'temp' | 'deltaTemp' | 'analog',
  Parameters<typeof takesValue>[0]
>;

/** The literal as a value of `kind`, or why block data would not take it (it could not be written back, either). */
function literal(kind: keyof typeof LITERAL, value: number, unit: 'C' | 'F' | undefined, raw: string): Arg | string {
  if (takesValue(LITERAL[kind], value)) return unit ? { value, unit } : { value };
  if (Math.abs(value) > MAX_MAGNITUDE) return `must be between -${MAX_MAGNITUDE} and ${MAX_MAGNITUDE}, got '${raw}'`;
  return `must not be below absolute zero (-273.15C, -459.67F), got '${raw}'`;
}

function parseArg(raw: string, kind: ArgKind, quoted: boolean): Arg | string {
  if (isVariable({ raw, quoted })) {
    const name = raw.slice(1);
    return VAR_NAME.test(name) ? { var: name } : `invalid variable name '${raw}' (1-16 characters of A-Z a-z 0-9 _ -)`;
  }
  if (raw === '') return 'missing value';
  if (typeof kind === 'object') return { text: raw };
  switch (kind) {
    case 'text':
      return { text: raw };
    case 'temp': {
      const m = TEMP.exec(raw);
      if (!m) return `expected a temperature with unit (40C, 104F), got '${raw}'`;
      const v = Number(m[1]);
      const unit = m[2]!.toUpperCase() as 'C' | 'F';
      return literal('temp', unit === 'F' ? ((v - 32) * 5) / 9 : v, unit, raw);
    }
    case 'deltaTemp': {
      const m = DELTA.exec(raw) ?? TEMP.exec(raw);
      if (!m) return `expected a temperature difference with unit (0.5dC, 1dF), got '${raw}'`;
      const v = Number(m[1]);
      const unit = m[2]!.toUpperCase() as 'C' | 'F';
      if (v < 0) return `must not be negative, got '${raw}'`;
      return literal('deltaTemp', unit === 'F' ? (v * 5) / 9 : v, unit, raw);
    }
    case 'duration': {
      const s = parseDuration(raw);
      return s === null ? `expected a duration such as 1h30m or 45s, got '${raw}'` : { value: s };
    }
    case 'datetime':
      return datetimeArg(raw);
    case 'digital': {
      const name = raw.toUpperCase();
      const full = name.startsWith('STATE_') ? name : `STATE_${name}`;
      if (Object.hasOwn(DigitalState, full)) return { text: full };
      return `expected one of ${Object.keys(DigitalState).join(', ')}, got '${raw}'`;
    }
    case 'analog': {
      const m = new RegExp(`^(${NUMBER})\\s*%?$`).exec(raw);
      return m ? literal('analog', Number(m[1]), undefined, raw) : `expected a number, got '${raw}'`;
    }
  }
}

/** The last time Brewblox's WaitUntil holds (uint32 epoch seconds): 2106-02-07T06:28:15Z. */
export const LAST_TIME = 2 ** 32 - 1;
/** The first number read as epoch milliseconds in a line (2001-09-09): below it, seconds. */
const FIRST_MS = 1e12;

/**
 * A time: ISO-8601 (no zone: UTC, decodeDatetime), epoch seconds, or epoch milliseconds (as
 * Brewblox sends them). A number that is neither (past 2106 as seconds, before 2001 as
 * milliseconds: a WAIT_UNTIL that passes at once) and a time past what Brewblox holds (a
 * year-5000 date: a wait for ever) are refused with the reason.
 */
function datetimeArg(raw: string): Arg | string {
  const n = /^\d+$/.test(raw) ? Number(raw) : null;
  if (n !== null && n > LAST_TIME && n < FIRST_MS)
    return `'${raw}' is neither epoch seconds (up to ${LAST_TIME}) nor epoch milliseconds (from ${FIRST_MS})`;
  const seconds = decodeDatetime(n ?? raw);
  if (seconds === undefined)
    return `expected an ISO-8601 date-time (2026-12-01T18:00:00Z; with no zone it is UTC) or epoch seconds, got '${raw}'`;
  if (seconds > LAST_TIME) return `must be at most ${isoTime(LAST_TIME)}, got '${raw}'`;
  return { value: seconds };
}

export const isoTime = (seconds: number) => new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * Seconds from `1d2h3m4s`, `90s` or a bare number of seconds (src/shared/duration.ts), or null.
 * No spaces inside: in an instruction a space ends the argument, as in the Brewblox firmware.
 */
export function parseDuration(raw: string): number | null {
  return /\s/.test(raw) ? null : (durationSeconds(raw).seconds ?? null);
}

export function formatDuration(seconds: number): string {
  let rest = Math.round(seconds * 1000);
  if (rest === 0) return '0s';
  let out = '';
  for (const [unit, ms] of [
    ['d', 86400000],
    ['h', 3600000],
    ['m', 60000],
    ['s', 1000],
    ['ms', 1],
  ] as const) {
    const n = Math.floor(rest / ms);
    if (n > 0) out += `${n}${unit}`;
    rest -= n * ms;
  }
  return out;
}

/** Up to two decimals, at least one: 40 -> 40.0, 40.125 -> 40.13. */
function formatNumber(v: number): string {
  const s = (Math.round(v * 100) / 100).toFixed(2).replace(/0$/, '');
  return s;
}

/** The block arguments of an instruction that name a block by id (not by a variable): [key, id]. */
export function blockTargets(ins: Instruction): Array<[key: string, id: string]> {
  const spec = OPCODES[ins.op] as Record<string, ArgKind>;
  return Object.entries(ins.args).flatMap(
    ([key, arg]): Array<[string, string]> => (typeof spec[key] === 'object' && 'text' in arg ? [[key, arg.text]] : []),
  );
}

export function formatInstruction(ins: Instruction): string {
  if (ins.op === 'COMMENT') return `# ${(ins.args.text as { text: string }).text}`.trimEnd();
  const spec = OPCODES[ins.op] as Record<string, ArgKind>;
  const parts = Object.keys(spec).map((key) => `${key}=${formatArg(ins.args[key]!, spec[key]!)}`);
  return parts.length ? `${ins.op} ${parts.join(', ')}` : ins.op;
}

function formatArg(arg: Arg, kind: ArgKind): string {
  if ('var' in arg) return `$${arg.var}`;
  if ('text' in arg) return typeof kind === 'object' ? formatName(arg.text) : arg.text;
  switch (kind) {
    case 'temp':
      return arg.unit === 'F' ? `${formatNumber((arg.value * 9) / 5 + 32)}F` : `${formatNumber(arg.value)}C`;
    case 'deltaTemp':
      return arg.unit === 'F' ? `${formatNumber((arg.value * 9) / 5)}dF` : `${formatNumber(arg.value)}dC`;
    case 'duration':
      return formatDuration(arg.value);
    case 'datetime':
      return isoTime(arg.value);
    default:
      return String(arg.value);
  }
}
