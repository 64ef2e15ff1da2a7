// What kind of form control a field of the API document takes, and the text in it ↔ the value
// sent. Pure (no DOM), tested under Node. Durations are written as people write them ("2 min
// 10 s", "1h30m", "90") and read by the service's own duration parser.
import { durationSeconds } from '../../src/shared/duration.js';
import { isLink, isQuantity } from './blocks.js';
import { durationText } from './durations.js';
import { typedNumber } from './typed-number.js';
import type { Schema } from './type-doc.js';

export { rangeOf } from './type-doc.js';
export { durationText, durationWords } from './durations.js';

export type Kind =
  | 'quantity'
  | 'duration'
  | 'link'
  | 'enum'
  | 'bool'
  | 'integer'
  | 'number'
  | 'string'
  | 'lines'
  | 'constraints'
  | 'json';

/** The interface a link field takes (`type` of the Link object in the schema). */
export function linkInterface(s: Schema): string | null {
  for (const v of s.anyOf ?? [s]) {
    const t = v.properties?.type;
    if (t?.const !== undefined) return String(t.const);
    if (t?.enum?.length === 1) return String(t.enum[0]);
  }
  return null;
}

/** String choices of an enum field, also when written as a union of literals (nested anyOf). */
export function enumValues(s: Schema): string[] {
  if (s.type === 'string' && s.enum) return s.enum.map(String);
  return (s.anyOf ?? []).flatMap(enumValues);
}

/** Read-only (`readOnly`) or refused as not supported / legacy (`deprecated`): not a form field. */
export const notEditable = (s: Schema) => s.readOnly === true || s.deprecated === true;

/** An object of constraints: each member an object with `enabled` (digital and analog constraints). */
function isConstraints(s: Schema): boolean {
  const members = Object.values(s.properties ?? {});
  return s.type === 'object' && members.length > 0 && members.every((m) => m.properties?.enabled !== undefined);
}

export function kindOf(s: Schema): Kind {
  const variants = s.anyOf ?? [s];
  if (variants.some((v) => v.properties?.__objtype?.enum?.includes('Quantity')))
    return s['x-unit'] === 'second' ? 'duration' : 'quantity';
  if (variants.some((v) => v.properties?.__objtype?.enum?.includes('Link'))) return 'link';
  if (enumValues(s).length) return 'enum';
  if (s.type === 'boolean') return 'bool';
  if (s.type === 'integer') return 'integer';
  if (s.type === 'number') return 'number';
  if (s.type === 'string') return 'string';
  // A list of strings (a Sequence's instructions): one per line in a text area.
  if (s.type === 'array' && s.items?.type === 'string') return 'lines';
  if (isConstraints(s)) return 'constraints';
  return 'json';
}

/** The form value of a field (strings in inputs), from the block's current data. */
export function toText(kind: Kind, v: unknown): string {
  if (v === undefined || v === null) return '';
  if (kind === 'duration') return durationText(isQuantity(v) ? v.value : typeof v === 'number' ? v : null);
  if (kind === 'quantity') return isQuantity(v) ? (v.value === null ? '' : String(v.value)) : String(v);
  if (kind === 'link') return isLink(v) ? (v.id ?? '') : String(v);
  if (kind === 'lines') return Array.isArray(v) ? v.join('\n') : String(v);
  if (kind === 'json' || kind === 'constraints') return JSON.stringify(v);
  return String(v);
}

/** A number typed in (a comma as the decimal point too), or a message in words. */
export function parseNumber(label: string, text: string, integer = false): number | null {
  const n = typedNumber(text);
  if (n === null) return null;
  if (!Number.isFinite(n)) throw new Error(`${label}: "${text}" is not a number`);
  if (integer && !Number.isInteger(n)) throw new Error(`${label}: "${text}" is not a whole number`);
  return n;
}

/**
 * A number typed in a field that must have one, or a message in words: an emptied field is not
 * sent as null, which the service takes for the field's default (a Kp of 0), not what it showed.
 */
export function requiredNumber(label: string, text: string, integer = false): number {
  const n = parseNumber(label, text, integer);
  if (n === null) throw new Error(`${label}: enter a number`);
  return n;
}

/** Seconds of a duration typed in, or a message in words (an empty one too: it is not 0 s, nor the default). */
export function parseDuration(label: string, text: string): number {
  if (text.trim() === '') throw new Error(`${label}: enter a time (0 s for none)`);
  const d = durationSeconds(text);
  if (d.error !== undefined) throw new Error(`${label}: ${d.error}`);
  return d.seconds;
}

/**
 * Lines past what the field takes (the document's maxItems, and each line's maxLength), in words
 * that count lines from 1, as the text area shows them; the server's refusal names the item by
 * its index from 0 (`instructions.1`).
 */
export function checkLines(label: string, s: Schema, lines: string[]): void {
  if (s.maxItems !== undefined && lines.length > s.maxItems)
    throw new Error(`${label}: at most ${s.maxItems} lines, got ${lines.length}`);
  const max = s.items?.maxLength;
  const long = max === undefined ? -1 : lines.findIndex((l) => l.length > max);
  if (long >= 0) throw new Error(`${label}: line ${long + 1} has ${lines[long]!.length} characters, at most ${max}`);
}

/** What to send for a field; throws a message in words for input the server would refuse anyway. */
export function fromText(kind: Kind, label: string, text: string): unknown {
  switch (kind) {
    case 'quantity':
    case 'number':
      return requiredNumber(label, text);
    case 'integer':
      return requiredNumber(label, text, true);
    case 'duration':
      return parseDuration(label, text);
    case 'link':
      return { __objtype: 'Link', id: text.trim() || null };
    case 'bool':
      return text === 'true';
    case 'lines': {
      const lines = text.split('\n').map((l) => l.trimEnd());
      while (lines.length && lines[lines.length - 1] === '') lines.pop();
      return lines;
    }
    case 'json':
    case 'constraints':
      try {
        return text.trim() === '' ? null : JSON.parse(text);
      } catch {
        throw new Error(`${label}: not valid JSON`);
      }
    default:
      return text;
  }
}
