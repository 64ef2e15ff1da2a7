// Validation of GpioLineConfig entries read from JSON (config file, sim config).
import { firstUnknownKey, unknownKeyMessage } from '../closest-name.js';
import type { GpioLineConfig } from './types.js';

const KEYS = ['name', 'line', 'direction', 'activeLow', 'safeState'];

export interface ParsedLineConfigs {
  lines: GpioLineConfig[];
  /** One readable message per rejected entry. */
  errors: string[];
}

function entryError(index: number, raw: unknown, message: string): string {
  const name =
    raw !== null && typeof raw === 'object' && typeof (raw as { name?: unknown }).name === 'string'
      ? ` "${(raw as { name: string }).name}"`
      : '';
  return `gpio[${index}]${name}: ${message}`;
}

function checkEntry(raw: unknown): string | GpioLineConfig {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return 'must be an object';
  const entry = raw as Record<string, unknown>;
  const unknown = firstUnknownKey(entry, KEYS);
  if (unknown !== undefined) return `${unknown}: ${unknownKeyMessage(unknown, KEYS)}`;
  if (typeof entry.name !== 'string' || entry.name.trim() === '') return 'name must be a non-empty string';
  if (typeof entry.line !== 'number' || !Number.isInteger(entry.line) || entry.line < 0) {
    return `line must be a non-negative integer, got ${JSON.stringify(entry.line)}`;
  }
  if (entry.direction !== 'out' && entry.direction !== 'in') {
    return `direction must be "out" or "in", got ${JSON.stringify(entry.direction)}`;
  }
  for (const key of ['activeLow', 'safeState'] as const) {
    if (entry[key] !== undefined && typeof entry[key] !== 'boolean') {
      return `${key} must be true or false, got ${JSON.stringify(entry[key])}`;
    }
  }
  const config: GpioLineConfig = { name: entry.name, line: entry.line, direction: entry.direction };
  if (entry.activeLow !== undefined) config.activeLow = entry.activeLow as boolean;
  if (entry.safeState !== undefined) config.safeState = entry.safeState as boolean;
  return config;
}

/** Accepts the `gpio` array of a config file; missing means no lines. */
export function parseGpioLineConfigs(value: unknown): ParsedLineConfigs {
  if (value === undefined || value === null) return { lines: [], errors: [] };
  if (!Array.isArray(value)) return { lines: [], errors: ['gpio must be an array of line objects'] };
  const lines: GpioLineConfig[] = [];
  const errors: string[] = [];
  const seen = new Map<number, string>();
  value.forEach((raw, index) => {
    const checked = checkEntry(raw);
    if (typeof checked === 'string') {
      errors.push(entryError(index, raw, checked));
      return;
    }
    const other = seen.get(checked.line);
    if (other !== undefined) {
      errors.push(entryError(index, raw, `line ${checked.line} is already used by "${other}"`));
      return;
    }
    seen.set(checked.line, checked.name);
    lines.push(checked);
  });
  return { lines, errors };
}
