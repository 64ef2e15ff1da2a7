// The one rule and wording of a number JSON text cannot hold. JSON.parse reads a number beyond a
// double's range (1E400) as Infinity (or -Infinity), which JSON.stringify writes as null: a value
// kept as given would read back as null, and a message quoting it would say "Infinity" or "null",
// neither of which the user sent. Every checker (the block codec, the route schemas' wording in
// drivers/schema-check.ts, the walk over free-form documents in json.ts) refuses it in these
// words. Here beside the schema wording, and portable (no imports): src/ may import it, and the
// drivers never import src/.

/** Such a number, as a message names what it got ("got a number too large for JSON to hold"). */
export const TOO_LARGE_NUMBER = 'a number too large for JSON to hold';

/** What every refusal of such a number says after the field's path. */
export const TOO_LARGE_FOR_JSON = `is ${TOO_LARGE_NUMBER} (a double holds at most ±1.7976931348623157e308)`;

/** Whether `v` is a parsed number that JSON text cannot hold (only such a number is not finite). */
export function unholdable(v: unknown): v is number {
  return typeof v === 'number' && !Number.isFinite(v);
}

/** `<rule>, got <the value as JSON>`; for a number JSON cannot hold (which JSON would write as null), the one wording instead. */
export function ruleGot(rule: string, v: unknown): string {
  return unholdable(v) ? TOO_LARGE_FOR_JSON : `${rule}, got ${JSON.stringify(v)}`;
}

/**
 * Whether the integer literal `raw` names the double `read` it parses to: the double's exact
 * value (10000000000000000000000) or the shortest text that reads back as it, which
 * JSON.stringify writes (123456789012345670000). Any other is an integer a double lost digits of.
 */
export function exactInteger(raw: string, read: number): boolean {
  if (!Number.isFinite(read)) return true; // the TOO_LARGE_FOR_JSON rule's, not this one's
  return String(read) === raw || BigInt(raw) === BigInt(read);
}
