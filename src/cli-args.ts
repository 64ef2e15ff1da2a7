// Command-line flags for every edgeblocks command (the service, `edgeblocks user`, the
// failsafe): node:util parseArgs, with one set of messages for an unknown flag (naming the
// closest known one) and a flag without its value.
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

/** Flags and positional words of `argv`; throws ArgumentError on an unknown flag or a missing value. */
export function parseFlags(argv: string[], flags: FlagTable): ParsedFlags {
  const { tokens } = parseArgs({ args: argv, options: flags, strict: false, allowPositionals: true, tokens: true });
  const values: ParsedFlags['values'] = {};
  const positionals: string[] = [];
  for (const token of tokens) {
    if (token.kind === 'positional') positionals.push(token.value);
    if (token.kind !== 'option') continue;
    const spec = flags[token.name];
    if (!spec) {
      const near = closestName(
        `--${token.name}`,
        Object.keys(flags).map((f) => `--${f}`),
      );
      throw new ArgumentError(token.rawName, `unknown option${near ? `; did you mean "${near}"?` : ''} (see --help)`);
    }
    if (spec.type === 'string') {
      if (token.value === undefined || token.value === '') throw new ArgumentError(token.rawName, 'needs a value');
      values[token.name] = token.value;
    } else {
      if (token.inlineValue) throw new ArgumentError(token.rawName, 'takes no value');
      values[token.name] = true;
    }
  }
  return { values, positionals };
}
