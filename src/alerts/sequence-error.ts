// The sequence-in-error condition: a Sequence stopped in its ERROR state (a line that does not
// parse, a target block that is gone or inactive, a variable not defined, no wall clock for a
// WAIT_UNTIL) runs nothing until the cause is gone, and only its card said so: a cold crash that
// did not happen. The alert names the sequence, the line (its number and text, both user text)
// and what is wrong, and clears when the sequence leaves ERROR (it retries the line each update).
import type { AnyBlock } from '../runtime/types.js';
import type { Observation } from './types.js';

type Data = Record<string, unknown>;

export interface SequenceErrorOut {
  seen: Observation[];
  unknown: Set<string>;
}

/**
 * One Sequence `b` (enabled, its alerts not turned off in the rules). Its status is not stored:
 * UNKNOWN until it has run since the start (or since a write moved it), so not known yet, neither
 * in ERROR nor out of it: a restart neither raises nor resolves its alert before its first update.
 */
export function sequenceError(b: AnyBlock, after: number, out: SequenceErrorOut): void {
  const data = b.data as Data;
  const key = `sequence-error:${b.nid}`;
  if (data.status === 'UNKNOWN' || data.status === undefined) return void out.unknown.add(key);
  if (data.status !== 'ERROR') return;
  const index = typeof data.errorInstruction === 'number' ? data.errorInstruction : null;
  const lines = Array.isArray(data.instructions) ? (data.instructions as unknown[]) : [];
  const line = index === null ? undefined : lines[index];
  const error = typeof data.error === 'string' ? data.error : 'ERROR';
  // errorMessage begins with "instruction N: ", which the text says as the line.
  const message = typeof data.errorMessage === 'string' ? data.errorMessage.replace(/^instruction \d+: /, '') : '';
  const where = index === null ? '' : ` at line ${index + 1}${typeof line === 'string' ? ` (${line})` : ''}`;
  out.seen.push({
    key,
    kind: 'sequence-error',
    blockId: b.id,
    after,
    // It retries the line every update: a cause that comes and goes is one alert with a count.
    tolerateGaps: true,
    text: `${b.id} is stopped in ERROR${where}: ${message || error}`,
    values: { line: index === null ? null : index + 1, instruction: line ?? null, error },
  });
}
