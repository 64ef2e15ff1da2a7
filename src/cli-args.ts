// Command-line flags for every edgeblocks command (the service, `edgeblocks user`, the
// failsafe): node:util parseArgs, with one set of messages for an unknown flag (naming the
// closest known one) and a flag without its value. A boolean flag is a switch: `--auth` alone
// is true, `--no-auth` false, and `--auth=false` or `--auth false` say it in words.
import { parseArgs } from 'node:util';
import { closestName } from '../drivers/closest-name.js';

export class ArgumentError extends Error {
  override name = 'ArgumentError';
  constructor(
    readonly arg: string,
    message: string,
  ) {
    super(`${arg}: ${message}`);
  }
}

export type FlagTable = Record<string, { type: 'string' | 'boolean'; short?: string }>;

export interface ParsedFlags {
  /** By flag name without the dashes; the last of a repeated flag wins. */
  values: Record<string, string | boolean>;
  positionals: string[];
}

/** A number written as a value (`--port -1`), not a flag. */
const NUMBER = /^-\d+(\.\d+)?$/;

const WORDS = new Map([
  ['true', true],
  ['false', false],
]);

/** Flags and positional words of `argv`; throws ArgumentError on an unknown flag or a missing value. */
export function parseFlags(argv: string[], flags: FlagTable): ParsedFlags {
  const { tokens } = parseArgs({ args: argv, options: flags, strict: false, allowPositionals: true, tokens: true });
  const values: ParsedFlags['values'] = {};
  const positionals: string[] = [];
  /** The index of a `true`/`false` word taken as the value of the boolean flag before it. */
  const taken = new Set<number>();
  for (const token of tokens) {
    if (token.kind === 'positional' && !taken.has(token.index)) positionals.push(token.value);
    if (token.kind !== 'option') continue;
    const negated = token.name.startsWith('no-') && flags[token.name.slice(3)]?.type === 'boolean';
    const name = negated ? token.name.slice(3) : token.name;
    const spec = flags[name];
    if (!spec) {
      const near = closestName(
        `--${token.name}`,
        Object.keys(flags).map((f) => `--${f}`),
      );
      throw new ArgumentError(token.rawName, `unknown option${near ? `; did you mean "${near}"?` : ''} (see --help)`);
    }
    if (spec.type === 'string') {
      if (token.value === undefined || token.value === '') throw new ArgumentError(token.rawName, 'needs a value');
      // parseArgs (not strict) takes the next word as the value even when it is a flag: `--data-dir
      // --auth` would run on a data dir named --auth, without the login. A negative number is a value.
      if (!token.inlineValue && token.value.startsWith('-') && !NUMBER.test(token.value))
        throw new ArgumentError(
          token.rawName,
          `needs a value, got the option ${token.value} (a value that starts with - is written ${token.rawName}=-VALUE)`,
        );
      values[name] = token.value;
      continue;
    }
    if (negated) {
      if (token.inlineValue) throw new ArgumentError(token.rawName, `takes no value (--no-${name} is false)`);
      values[name] = false;
      continue;
    }
    if (token.inlineValue) {
      const word = WORDS.get(token.value ?? '');
      if (word === undefined)
        throw new ArgumentError(
          token.rawName,
          `is a switch: --${name} or --${name}=true, --no-${name} or --${name}=false; got ${JSON.stringify(token.value)}`,
        );
      values[name] = word;
      continue;
    }
    const next = WORDS.get(argv[token.index + 1] ?? '');
    if (next !== undefined) taken.add(token.index + 1);
    values[name] = next ?? true;
  }
  return { values, positionals };
}
