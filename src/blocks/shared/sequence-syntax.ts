// The Sequence instruction language (reference §6.9, block-api §2.7): one instruction per line,
// `OPCODE key=value, key=value` or `# comment`. Temperatures carry a unit (40C, 104F; deltas
// 2dC, 3.6dF), durations are 1d2h3m4s, times ISO-8601 or epoch seconds, links are block ids,
// digital states their names, and any argument may be `$name`, a variable of the linked
// Variables block. Parsing yields a typed instruction or an error with its column; formatting
// gives the normalised line.
import { decodeDatetime, MAX_MAGNITUDE, takesValue } from '../../codec/decode.js';
import { f, SETPOINT_RANGE_C } from '../../codec/fields.js';
import { DigitalState } from './enums.js';
import { durationSeconds } from '../../shared/duration.js';
import type { InterfaceName } from '../../runtime/interfaces.js';

export type ArgKind =
  | 'temp'
  | 'deltaTemp'
  | 'duration'
  | 'datetime'
  | 'digital'
  | 'analog'
  | 'text'
  | { link: InterfaceName };

/** Argument names and kinds per opcode, in their normalised order. */
export const OPCODES = {
  RESTART: {},
  ENABLE: { target: { link: 'EnablerInterface' } },
  DISABLE: { target: { link: 'EnablerInterface' } },
  WAIT: {},
  WAIT_DURATION: { duration: 'duration' },
  WAIT_UNTIL: { time: 'datetime' },
  WAIT_TEMP_BETWEEN: { target: { link: 'TempSensorInterface' }, lower: 'temp', upper: 'temp' },
  WAIT_TEMP_NOT_BETWEEN: { target: { link: 'TempSensorInterface' }, lower: 'temp', upper: 'temp' },
  WAIT_TEMP_UNEXPECTED: { target: { link: 'TempSensorInterface' }, lower: 'temp', upper: 'temp' },
  WAIT_TEMP_ABOVE: { target: { link: 'TempSensorInterface' }, value: 'temp' },
  WAIT_TEMP_BELOW: { target: { link: 'TempSensorInterface' }, value: 'temp' },
  SET_SETPOINT: { target: { link: 'SetpointSensorPairInterface' }, setting: 'temp' },
  WAIT_SETPOINT: { target: { link: 'SetpointSensorPairInterface' }, precision: 'deltaTemp' },
  WAIT_SETPOINT_ABOVE: { target: { link: 'SetpointSensorPairInterface' }, precision: 'deltaTemp' },
  WAIT_SETPOINT_BELOW: { target: { link: 'SetpointSensorPairInterface' }, precision: 'deltaTemp' },
  SET_DIGITAL: { target: { link: 'ActuatorDigitalInterface' }, setting: 'digital' },
  WAIT_DIGITAL: { target: { link: 'ActuatorDigitalInterface' } },
  WAIT_DIGITAL_EQUALS: { target: { link: 'DigitalInterface' }, state: 'digital' },
  SET_PWM: { target: { link: 'ActuatorAnalogInterface' }, setting: 'analog' },
  START_PROFILE: { target: { link: 'SetpointProfile' } },
  WAIT_PROFILE: { target: { link: 'SetpointProfile' } },
  START_SEQUENCE: { target: { link: 'Sequence' } },
  WAIT_SEQUENCE: { target: { link: 'Sequence' } },
  COMMENT: { text: 'text' },
} as const satisfies Record<string, Record<string, ArgKind>>;

export type Opcode = keyof typeof OPCODES;

/** A literal in internal units (degC, delta degC, seconds, epoch seconds), or a variable. */
export type Arg = { var: string } | { value: number; unit?: 'C' | 'F' } | { text: string };

export interface Instruction {
  op: Opcode;
  args: Record<string, Arg>;
}

export interface ParseError {
  message: string;
  /** 0-based column in the trimmed line. */
  pos: number;
}

const VAR_NAME = /^[A-Za-z0-9_-]{1,16}$/;
const NUMBER = '[-+]?(?:\\d+\\.?\\d*|\\.\\d+)';
const TEMP = new RegExp(`^(${NUMBER})\\s*(?:°|deg)?([CF])$`, 'i');
const DELTA = new RegExp(`^(${NUMBER})\\s*(?:d|delta_?|Δ)(?:°|deg)?([CF])$`, 'i');

export function parseInstruction(line: string): { instruction: Instruction } | { error: ParseError } {
  const text = line.trim();
  if (text.startsWith('#')) return { instruction: { op: 'COMMENT', args: { text: { text: text.slice(1).trim() } } } };
  const head = /^([A-Za-z_]+)(\s+|$)/.exec(text);
  if (!head)
    return fail(text === '' ? 'empty instruction' : `expected an instruction name, got '${text.split(/\s/)[0]}'`, 0);
  const op = head[1]!.toUpperCase();
  if (!Object.hasOwn(OPCODES, op)) return fail(`unknown instruction '${head[1]}'`, 0);
  const spec = OPCODES[op as Opcode] as Record<string, ArgKind>;
  const args: Record<string, Arg> = {};
  const pos = head[0].length;
  const rest = text.slice(pos);
  if (op === 'COMMENT' && !/^text\s*=/.test(rest))
    return { instruction: { op: 'COMMENT', args: { text: { text: rest } } } };
  for (const part of splitArgs(rest, pos)) {
    if ('error' in part) return { error: part.error };
    const { key, raw, at, valueAt } = part;
    const kind = Object.hasOwn(spec, key) ? spec[key]! : undefined;
    if (!kind)
      return fail(
        `${op} has no argument '${key}'${Object.keys(spec).length ? `; it takes ${Object.keys(spec).join(', ')}` : '; it takes none'}`,
        at,
      );
    if (key in args) return fail(`argument '${key}' given twice`, at);
    const arg = parseArg(raw, kind, part.quoted);
    if (typeof arg === 'string') return fail(`${key}: ${arg}`, valueAt);
    const range = op === 'SET_SETPOINT' && key === 'setting' ? setpointRangeProblem(arg) : null;
    if (range) return fail(`${key}: ${range}, got '${raw}'`, valueAt);
    args[key] = arg;
  }
  const missing = Object.keys(spec).filter((k) => !(k in args));
  if (missing.length) return fail(`${op} needs ${missing.join(', ')}`, text.length);
  return { instruction: { op: op as Opcode, args } };
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

interface ArgText {
  key: string;
  raw: string;
  /** In single quotes: taken as written (a name with a comma, or one that starts with $ or '). */
  quoted: boolean;
  at: number;
  valueAt: number;
}

/**
 * `key=value, key='value'` into its arguments; `offset` is the column where `rest` starts. A value
 * in single quotes (as Brewblox writes a name with a space) runs to the quote that ends it, one
 * followed by a comma or the end of the line; inside, '' is one quote and a lone one is kept.
 */
function splitArgs(rest: string, offset: number): Array<ArgText | { error: ParseError }> {
  const out: Array<ArgText | { error: ParseError }> = [];
  if (rest.trim() === '') return out;
  let i = 0;
  for (;;) {
    const at = offset + i + (rest.slice(i).length - rest.slice(i).trimStart().length);
    const comma = rest.indexOf(',', i);
    const eq = rest.indexOf('=', i);
    if (eq < 0 || (comma >= 0 && comma < eq)) {
      const part = rest.slice(i, comma < 0 ? undefined : comma).trim();
      return [...out, fail(`expected key=value, got '${part}'`, at)];
    }
    const key = rest.slice(i, eq).trim();
    let j = eq + 1;
    while (j < rest.length && /\s/.test(rest[j]!)) j++;
    const valueAt = offset + j;
    let raw = '';
    let quoted = false;
    if (rest[j] === "'") {
      quoted = true;
      const value = inQuotes(rest, j, false) ?? inQuotes(rest, j, true);
      if (!value) return [...out, fail(`${key}: a value in quotes needs its closing quote`, valueAt)];
      raw = value.text;
      i = value.end + 1 + (/^\s*/.exec(rest.slice(value.end + 1))?.[0].length ?? 0);
    } else {
      const end = rest.indexOf(',', j);
      raw = rest.slice(j, end < 0 ? undefined : end).trim();
      i = end < 0 ? rest.length : end;
    }
    out.push({ key, raw, quoted, at, valueAt });
    if (i >= rest.length) return out;
    i++; // the comma
  }
}

/**
 * The value in quotes opening at `open` and the index of its closing quote, or null when none
 * closes it. '' is one quote, as the lines are written back; `brewblox`: two quotes that end the
 * value are the name's last one and the closing one (Brewblox doubles none: 'Brewer's 'Best'').
 */
function inQuotes(rest: string, open: number, brewblox: boolean): { text: string; end: number } | null {
  const closes = (at: number) => rest[at] === "'" && /^\s*(,|$)/.test(rest.slice(at + 1));
  let text = '';
  for (let k = open + 1; k < rest.length; ) {
    if (rest[k] === "'" && rest[k + 1] === "'" && !(brewblox && closes(k + 1))) {
      text += "'";
      k += 2;
    } else if (closes(k)) return { text, end: k };
    else text += rest[k++];
  }
  return null;
}

/** A block id as an argument: in quotes when it would not read back as itself (quote doubled). */
export function formatName(id: string): string {
  return /,/.test(id) || /^['$]/.test(id) || id !== id.trim() || id === '' ? `'${id.replaceAll("'", "''")}'` : id;
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
  if (raw.startsWith('$') && !quoted) {
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
    case 'datetime': {
      const seconds = /^\d+$/.test(raw) ? decodeDatetime(Number(raw)) : decodeDatetime(raw);
      return seconds === undefined
        ? `expected an ISO-8601 date-time or epoch seconds up to the year 9999, got '${raw}'`
        : { value: seconds };
    }
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

/** The instruction with its block arguments that name `from` naming `to` (a rename); null when none does. */
export function renameTargets(ins: Instruction, from: string, to: string): Instruction | null {
  const named = blockTargets(ins).filter(([, id]) => id === from);
  if (!named.length) return null;
  const args = { ...ins.args };
  for (const [key] of named) args[key] = { text: to };
  return { op: ins.op, args };
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
      return new Date(arg.value * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    default:
      return String(arg.value);
  }
}
