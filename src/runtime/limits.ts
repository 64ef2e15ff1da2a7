// Checks of what a block may store, so that no block (and no state message, backup or MQTT
// payload built from blocks) can outgrow the 1 MiB request limit (the numbers: shared/limits.ts). Stored data is bounded
// by the field tables (strings have a maxLength, arrays a maxItems); `meta` is free-form JSON
// and gets its own cap; the whole stored record is checked again when it is written.
import type { ValidationIssue } from '../codec/partial.js';
import { MAX_META_BYTES, MAX_RECORD_BYTES } from '../shared/limits.js';
import { invalid } from './errors.js';

/** The issue with `meta`'s size, if it is too large. */
export function metaSizeIssue(meta: Record<string, unknown>): ValidationIssue | null {
  const bytes = Buffer.byteLength(JSON.stringify(meta));
  return bytes > MAX_META_BYTES
    ? { path: 'meta', message: `must be at most ${MAX_META_BYTES} bytes of JSON, got ${bytes}` }
    : null;
}

/** Throws (422) when the stored form of a block is over the limit. */
export function checkRecordSize(id: string, record: string): void {
  const bytes = Buffer.byteLength(record);
  if (bytes > MAX_RECORD_BYTES)
    throw invalid(`block '${id}' would take ${bytes} bytes when stored; a block may take at most ${MAX_RECORD_BYTES}`, [
      { path: '', message: `stored block too large (${bytes} bytes)` },
    ]);
}
