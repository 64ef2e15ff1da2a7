// The `ttl` of state messages: a simple duration string (`30s`, `300ms`) that the spec's
// duration-parsing consumers read back as exactly the intended number of milliseconds.
import ms from 'ms';

export const TTL_INTERVALS = 6;

export function ttlFor(emitIntervalMs: number): string {
  const total = emitIntervalMs * TTL_INTERVALS;
  const text = total % 1000 === 0 ? `${total / 1000}s` : `${total}ms`;
  if (ms(text as ms.StringValue) !== total) throw new Error(`ttl '${text}' does not parse back to ${total} ms`);
  return text;
}
