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

const COMMA = 0x2c;

/**
 * `Buffer.from(text)` in a memory block of its own. Buffer.from puts a short text in a shared
 * 8 KB slab, and one kept piece keeps its whole slab alive: bytes kept for weeks (a cache's)
 * would pin a slab each.
 */
export function ownBytes(text: string): Buffer {
  const out = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  out.write(text);
  return out;
}

/**
 * `head + parts.join(',') + tail` as UTF-8 bytes, copied once into one buffer. The block list and
 * the history message are built this way from each block's cached bytes: their text never exists
 * on the V8 heap, where a 150 KB text kept for a cycle outlives two young collections and is
 * promoted, and the old generation's growth is what sets how often the whole heap is marked.
 */
export function joinBytes(head: string, parts: readonly Uint8Array[], tail: string): Buffer {
  let total = Buffer.byteLength(head) + Buffer.byteLength(tail) + Math.max(0, parts.length - 1);
  for (let i = 0; i < parts.length; i++) total += parts[i]!.length;
  const out = Buffer.allocUnsafe(total);
  let at = out.write(head, 0);
  for (let i = 0; i < parts.length; i++) {
    if (i > 0) out[at++] = COMMA;
    out.set(parts[i]!, at);
    at += parts[i]!.length;
  }
  out.write(tail, at);
  return out;
}
