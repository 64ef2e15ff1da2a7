// The shape of a Sequence instruction line (reference §6.9, block-api §2.7): `OPCODE key=value,
// key='value'` or `# comment`, the opcodes and their arguments, which arguments name a block, and
// where each value is. What a value means (a temperature, a duration) is sequence-syntax.ts's.
// Portable (scripts/layers.mjs): the dashboard finds the block names of a line with it
// (lineNames), as the service does, so a line naming a deleted block is marked where it is.

/** What an argument holds; `link`: a block name, of a block implementing that interface. */
export type LineArgKind =
  | 'temp'
  | 'deltaTemp'
  | 'duration'
  | 'datetime'
  | 'digital'
  | 'analog'
  | 'text'
  | { link: string };

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
} as const satisfies Record<string, Record<string, LineArgKind>>;

export type Opcode = keyof typeof OPCODES;

export interface ParseError {
  message: string;
  /** 0-based column in the trimmed line. */
  pos: number;
}

export interface ArgText {
  key: string;
  /** The argument's kind (OPCODES). */
  kind: LineArgKind;
  raw: string;
  /** In single quotes: taken as written (a name with a comma, or one that starts with $, ' or "). */
  quoted: boolean;
  at: number;
  valueAt: number;
  /** Where the value ends: after its closing quote, or its last character. */
  valueEnd: number;
  /** In double quotes (inDoubleQuotes): the line does not parse, but names what is inside them. */
  doubled?: true;
}

/** A line split into its opcode and arguments, not yet read; a comment is its text. */
export type SplitLine = { op: 'COMMENT'; comment: string } | { op: Opcode; args: ArgText[]; text: string };

const fail = (message: string, pos: number): { error: ParseError } => ({ error: { message, pos } });

/** An argument that names a variable of the linked Variables block (`$name`), not a literal. */
export const isVariable = (a: Pick<ArgText, 'raw' | 'quoted'>): boolean => a.raw.startsWith('$') && !a.quoted;

/** The opcode and its arguments, each once and known to the opcode; not whether they are all there. */
export function splitLine(line: string): SplitLine | { error: ParseError } {
  const split = splitNaming(line);
  if (!('doubledError' in split)) return split;
  const { doubledError, ...plain } = split;
  return doubledError ?? plain;
}

/**
 * splitLine, but a value in double quotes (an error of the line, inDoubleQuotes) is kept as an
 * argument marked `doubled`, the first such error beside it: what the line names, for lineNames
 * and renameInLine, is read through it.
 */
function splitNaming(line: string): (SplitLine & { doubledError?: { error: ParseError } }) | { error: ParseError } {
  const text = line.trim();
  // The dashboard and the Brewblox UI edit the instructions as the lines of a text area: an item
  // with a line break in it shows as several lines, and must not run as one (a script sent as one
  // item, "# note\nSET_SETPOINT ...", would be one comment that runs nothing). A note of comment
  // lines only shows as comments, and is one, as it was before this check (a stored sequence runs on).
  const brk = text.search(/[\r\n]/);
  const notes = brk >= 0 && text.split(/\r\n|\r|\n/).every((l) => l.trim() === '' || l.trim().startsWith('#'));
  if (brk >= 0 && !notes)
    return fail('a line break inside one instruction: give each instruction as an item of its own', brk);
  if (text.startsWith('#')) return { op: 'COMMENT', comment: text.slice(1).trim() };
  const head = /^([A-Za-z_]+)(\s+|$)/.exec(text);
  if (!head)
    return fail(text === '' ? 'empty instruction' : `expected an instruction name, got '${text.split(/\s/)[0]}'`, 0);
  const op = head[1]!.toUpperCase();
  if (!Object.hasOwn(OPCODES, op)) return fail(`unknown instruction '${head[1]}'`, 0);
  const spec = OPCODES[op as Opcode] as Record<string, LineArgKind>;
  const pos = head[0].length;
  const rest = text.slice(pos);
  if (op === 'COMMENT' && !/^text\s*=/.test(rest)) return { op: 'COMMENT', comment: rest };
  const args: ArgText[] = [];
  let doubledError: { error: ParseError } | undefined;
  for (const part of splitArgs(rest, pos)) {
    if ('error' in part) return doubledError ?? part;
    const kind = Object.hasOwn(spec, part.key) ? spec[part.key]! : undefined;
    if (!kind)
      return (
        doubledError ??
        fail(
          `${op} has no argument '${part.key}'${Object.keys(spec).length ? `; it takes ${Object.keys(spec).join(', ')}` : '; it takes none'}`,
          part.at,
        )
      );
    if (args.some((a) => a.key === part.key))
      return doubledError ?? fail(`argument '${part.key}' given twice`, part.at);
    const doubled = inDoubleQuotes({ ...part, kind });
    if (doubled) doubledError ??= fail(doubled, part.valueAt);
    args.push(doubled ? { ...part, kind, doubled: true } : { ...part, kind });
  }
  return { op: op as Opcode, args, text, doubledError };
}

/**
 * Why a value in double quotes is refused, with how to write it; null for any other. Quotes here
 * are single, as in Brewblox: its Spark service strips only those, so `target="Beer Setpoint"`
 * there names a block with the quotes in its id (which its ids cannot start with), and here it
 * stopped the sequence with "no block". A value starting with `"` does not parse, the message
 * saying how to write it; a block whose id starts with one is named in single quotes (formatName).
 * A comment's text is text.
 */
function inDoubleQuotes(a: Omit<ArgText, 'at' | 'valueEnd'>): string | null {
  if (a.quoted || a.kind === 'text' || !a.raw.startsWith('"')) return null;
  const inner = a.raw.replace(/^"|"$/g, '');
  const what = typeof a.kind === 'object' ? 'names' : 'values';
  return `${a.key}: ${a.raw} is in double quotes: ${what} are written bare or in 'single quotes' (${a.key}='${inner.replaceAll("'", "''")}')`;
}

/** A block argument given by name, not by a variable. */
const namesBlock = (a: ArgText): boolean => typeof a.kind === 'object' && !isVariable(a) && a.raw !== '';

/**
 * The blocks a line names (its block arguments given by name, not by a variable): what a rename
 * rewrites and a delete leaves naming nothing. A line whose other values do not parse (a setting
 * mistyped) names its blocks all the same; one that does not split names none.
 */
export function lineNames(line: string): Array<{ key: string; id: string }> {
  const split = splitNaming(line);
  if ('error' in split || !('args' in split)) return [];
  return split.args.filter(namesBlock).map((a) => ({ key: a.key, id: nameIn(a) }));
}

/** The block id a block argument gives: a name in double quotes is what is inside them. */
const nameIn = (a: ArgText): string => (a.doubled ? a.raw.replace(/^"|"$/g, '') : a.raw);

/**
 * A block argument naming `to`: as formatName writes it, or, where the line had it in double
 * quotes, in double quotes still (the line's error is the user's to fix, and says how).
 */
function nameAs(a: ArgText, to: string): string {
  if (!a.doubled) return formatName(to);
  return `"${to}${a.raw.length > 1 && a.raw.endsWith('"') ? '"' : ''}`;
}

/**
 * Double quotes cannot hold a name with a comma or a double quote (it would end there). Such an
 * argument is left as written: in single quotes the line would become valid, and a sequence
 * stopped on it would run it at the rename, a moment the brewer did not choose.
 */
const canHold = (a: ArgText, to: string) => !a.doubled || !/[,"]/.test(to);

/**
 * The line (trimmed) with each block argument that names `from` (lineNames) naming `to`, the rest
 * of it as written, parsed or not; null when none names it (or none it names can, canHold).
 */
export function renameInLine(line: string, from: string, to: string): string | null {
  const split = splitNaming(line);
  if ('error' in split || !('args' in split)) return null;
  const named = split.args.filter((a) => namesBlock(a) && nameIn(a) === from && canHold(a, to));
  if (!named.length) return null;
  let text = split.text;
  // From the last, so the places of the ones before it hold.
  for (const a of named.reverse()) text = text.slice(0, a.valueAt) + nameAs(a, to) + text.slice(a.valueEnd);
  return text;
}

/** A block id as an argument: in quotes when it would not read back as itself (quote doubled; one starting with a double quote, inDoubleQuotes). */
export function formatName(id: string): string {
  return /,/.test(id) || /^['$"]/.test(id) || id !== id.trim() || id === '' ? `'${id.replaceAll("'", "''")}'` : id;
}

/**
 * `key=value, key='value'` into its arguments; `offset` is the column where `rest` starts. A value
 * in single quotes (as Brewblox writes a name with a space) runs to the quote that ends it, one
 * followed by a comma or the end of the line; inside, '' is one quote and a lone one is kept.
 */
function splitArgs(rest: string, offset: number): Array<Omit<ArgText, 'kind'> | { error: ParseError }> {
  const out: Array<Omit<ArgText, 'kind'> | { error: ParseError }> = [];
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
    let valueEnd: number;
    if (rest[j] === "'") {
      quoted = true;
      const value = inQuotes(rest, j, false) ?? inQuotes(rest, j, true);
      if (!value) return [...out, fail(`${key}: a value in quotes needs its closing quote`, valueAt)];
      raw = value.text;
      valueEnd = offset + value.end + 1;
      i = value.end + 1 + (/^\s*/.exec(rest.slice(value.end + 1))?.[0].length ?? 0);
    } else {
      const end = rest.indexOf(',', j);
      raw = rest.slice(j, end < 0 ? undefined : end).trim();
      valueEnd = valueAt + raw.length;
      i = end < 0 ? rest.length : end;
    }
    out.push({ key, raw, quoted, at, valueAt, valueEnd });
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
