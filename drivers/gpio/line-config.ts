// The one schema of a GPIO line in a JSON config: the service's config file, the failsafe
// (which reads the same file) and the sim config (which adds keys of its own) all check a line
// with it, so a line one of them accepts the others accept too.
import { Type, type Static } from '@sinclair/typebox';
import { checkAgainst } from '../schema-check.js';
import type { GpioLineConfig } from './types.js';

export const GPIO_LINE_PROPERTIES = {
  name: Type.String({ minLength: 1, description: 'name shown in the GpioPins block, e.g. "heater"' }),
  line: Type.Integer({ minimum: 0, maximum: 127, description: 'BCM line number on the header chip (GPIO17 -> 17)' }),
  direction: Type.Union([Type.Literal('out'), Type.Literal('in')], {
    default: 'out',
    description: "'out' (relay, SSR) or 'in' (switch, door contact)",
  }),
  activeLow: Type.Boolean({ default: false, description: 'relay boards that switch on a low level' }),
  safeState: Type.Boolean({ default: false, description: 'logical level the failsafe drives an output to' }),
};

export const GpioLineSchema = Type.Object(GPIO_LINE_PROPERTIES, { additionalProperties: false });
export type GpioLine = Static<typeof GpioLineSchema>;

export interface ParsedLineConfigs {
  lines: GpioLineConfig[];
  /** One readable message per rejected entry: `gpio[1].line: must be ...`. */
  errors: string[];
  /** The same, as path and message. */
  issues: Array<{ path: string; message: string }>;
}

/** Names and line numbers are unique in a list of lines: what `line` repeats of `earlier`, if anything. */
export function duplicateLine(
  line: { name: string; line: number },
  earlier: Array<{ name: string; line: number }>,
): { key: 'name' | 'line'; message: string } | undefined {
  const sameName = earlier.find((o) => o.name === line.name);
  if (sameName) return { key: 'name', message: `"${line.name}" is used twice` };
  const sameLine = earlier.find((o) => o.line === line.line);
  if (sameLine) return { key: 'line', message: `${line.line} is already used by "${sameLine.name}"` };
  return undefined;
}

/**
 * Checks the `gpio` array of a config file entry by entry (missing means no lines): the failsafe
 * drives the good entries of a list with a bad one; the service refuses the list.
 */
export function parseGpioLineConfigs(value: unknown, path = 'gpio'): ParsedLineConfigs {
  const lines: GpioLineConfig[] = [];
  const issues: ParsedLineConfigs['issues'] = [];
  if (!Array.isArray(value)) {
    if (value !== undefined && value !== null)
      issues.push({
        path,
        message: `must be a list of line objects {name, line, direction, activeLow, safeState}, got ${JSON.stringify(value)}`,
      });
  } else {
    value.forEach((raw, index) => {
      const at = `${path}[${index}]`;
      const checked = checkAgainst<GpioLine>(GpioLineSchema, raw, at);
      if (checked.issue) return void issues.push(checked.issue);
      const twice = duplicateLine(checked.value, lines);
      if (twice) issues.push({ path: `${at}.${twice.key}`, message: twice.message });
      else lines.push(checked.value);
    });
  }
  return { lines, issues, errors: issues.map((i) => `${i.path}: ${i.message}`) };
}
