// JSON from outside (a REST body, an MQTT payload, a websocket command), parsed one way: the size
// is checked before the text is decoded or parsed, and a `__proto__` key is refused, since it
// could poison objects later built from the value (spread, Object.assign, merges).

export type JsonResult = { ok: true; value: unknown } | { ok: false; problem: 'too large' | 'not JSON' | 'prototype key'; reason: string };

export interface JsonOptions {
  /** Largest accepted size in bytes (UTF-8). */
  maxBytes: number;
  /** What the text is, for the reason: "the body", "the payload", "the command". */
  what: string;
}

/** Why `bytes` bytes of `what` are refused under `maxBytes`, or null. The one wording of an over-size refusal. */
export function sizeProblem(what: string, bytes: number, maxBytes: number): string | null {
  return bytes > maxBytes ? `${what} is ${bytes} bytes, over the ${maxBytes}-byte limit` : null;
}

class PrototypeKeyError extends Error {}

function rejectPrototypeKeys(key: string, value: unknown): unknown {
  if (key === '__proto__') throw new PrototypeKeyError();
  return value;
}

/** Parse `input` as JSON when it is at most `maxBytes` long and has no `__proto__` key. */
export function parseJson(input: string | Buffer | Uint8Array, { maxBytes, what }: JsonOptions): JsonResult {
  const bytes = typeof input === 'string' ? Buffer.byteLength(input) : input.byteLength;
  const tooLarge = sizeProblem(what, bytes, maxBytes);
  if (tooLarge) return { ok: false, problem: 'too large', reason: tooLarge };
  const text = typeof input === 'string' ? input : Buffer.from(input.buffer, input.byteOffset, input.byteLength).toString('utf8');
  try {
    // The reviver costs more than the parse; a `__proto__` key can only be in a text that
    // spells it out or uses an escape, so only those texts need it.
    const value: unknown = text.includes('__proto__') || text.includes('\\') ? JSON.parse(text, rejectPrototypeKeys) : JSON.parse(text);
    return { ok: true, value };
  } catch (e) {
    if (e instanceof PrototypeKeyError) return { ok: false, problem: 'prototype key', reason: `${what} may not contain a "__proto__" key` };
    return { ok: false, problem: 'not JSON', reason: `${what} is not valid JSON: ${(e as Error).message}` };
  }
}

/**
 * `head + parts.join(',') + tail` as one flat string: V8 keeps `a + b` of long strings as a rope,
 * which every byte count or UTF-8 write of it copies into a flat string again (a whole state
 * message each cycle); a join is flat. `parts` is changed (its ends take the head and the tail).
 */
export function joinWrapped(head: string, parts: string[], tail: string): string {
  if (parts.length === 0) return head + tail;
  parts[0] = head + parts[0];
  parts[parts.length - 1] += tail;
  return parts.join(',');
}
