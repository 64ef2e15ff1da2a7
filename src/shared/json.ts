// JSON from outside (a REST body, an MQTT payload, a websocket command), parsed one way: the size
// is checked before the text is decoded, the nesting depth before it is parsed (a value nested
// 150,000 deep parses, then overflows the stack of whatever walks it: a schema check, a clone),
// and a `__proto__` key is refused, since it could poison objects later built from the value
// (spread, Object.assign, merges).
import { isUtf8 } from 'node:buffer';
import { exactInteger, TOO_LARGE_FOR_JSON, unholdable } from '../../drivers/json-number.js';
import { CONFIG_FILE_BYTES, MAX_JSON_DEPTH } from './limits.js';

export type JsonResult =
  | { ok: true; value: unknown }
  | { ok: false; problem: 'too large' | 'too deep' | 'not JSON' | 'prototype key'; reason: string };

/** A refusal's field (dotted: `data.instructions.1`; '' for the value itself) and what is wrong with it. */
export interface Issue {
  path: string;
  message: string;
}

/** Issues in one line, the one wording of every refusal: `enabled: must be true or false, got "yes"; key: required`. */
export function issuesText(issues: readonly Issue[]): string {
  return issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ');
}

export interface JsonOptions {
  /** Largest accepted size in bytes (UTF-8). */
  maxBytes: number;
  /** What the text is, for the reason: "the body", "the payload", "the command". */
  what: string;
  /** Deepest accepted nesting of objects and arrays (default MAX_JSON_DEPTH). */
  maxDepth?: number;
  /**
   * Keep the integer literals a double cannot hold (inexactIntegers) with the value parsed, for a
   * refusal of it to quote as sent (sentNumbersOf, quoteAsSent): for what a user sends and may be
   * told about (a body, a websocket command, a backup), not for every payload.
   */
  sent?: boolean;
  /**
   * With `sent`, keep the text itself with the value (sentTextOf) when it holds such an integer:
   * for what is stored or sent back as given (a backup uploaded, a stored backup downloaded), which
   * JSON.stringify of the value would write with other digits than the user's.
   */
  keepText?: boolean;
}

/** Why `bytes` bytes of `what` are refused under `maxBytes`, or null. The one wording of an over-size refusal. */
export function sizeProblem(what: string, bytes: number, maxBytes: number): string | null {
  return bytes > maxBytes ? `${what} is ${bytes} bytes, over the ${maxBytes}-byte limit` : null;
}

/**
 * Why `bytes` of `what` are not UTF-8 text, or null. JSON from outside is UTF-8 (RFC 8259);
 * decoded as UTF-8 anyway, each byte of another encoding becomes U+FFFD without a word (a body
 * Windows PowerShell 5 sent as ISO-8859-1: a block "Bière" was created as "Bi\uFFFDre").
 */
export function utf8Problem(what: string, bytes: Uint8Array): string | null {
  // UTF-16 (Windows Notepad's "Unicode"): a byte-order mark, or the NUL bytes of its ASCII
  // letters, which UTF-8 allows but JSON text never holds.
  const bom = (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff);
  if (bom || bytes.includes(0)) return `${what} is UTF-16 text, not UTF-8: save or send it as UTF-8`;
  return isUtf8(bytes) ? null : `${what} is not UTF-8 text (Latin-1?): save or send it as UTF-8`;
}

/**
 * A JSON file a user edits (the config file, the sim config): its bytes as read, refused with
 * what to do when they are not UTF-8 text (decoded anyway, they were a parse error quoting
 * U+FFFD, or a value with one in it), then parsed as parseJson does, under CONFIG_FILE_BYTES.
 */
export function parseJsonFile(bytes: Uint8Array, what: string): JsonResult {
  const tooLarge = sizeProblem(what, bytes.byteLength, CONFIG_FILE_BYTES);
  if (tooLarge) return { ok: false, problem: 'too large', reason: tooLarge };
  const notUtf8 = utf8Problem(what, bytes);
  if (notUtf8) return { ok: false, problem: 'not JSON', reason: notUtf8 };
  // Empty (a crashed editor, a `> file` by mistake): the parser would say only "end of JSON input".
  if (/^\ufeff?\s*$/.test(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')))
    return {
      ok: false,
      problem: 'not JSON',
      reason: `${what} is empty: write a JSON object in it ({} for the defaults)`,
    };
  return parseJson(bytes, { maxBytes: CONFIG_FILE_BYTES, what });
}

class PrototypeKeyError extends Error {}

function rejectPrototypeKeys(key: string, value: unknown): unknown {
  if (key === '__proto__') throw new PrototypeKeyError();
  return value;
}

/**
 * Whether the objects and arrays of a JSON text nest deeper than `max` (brackets inside strings
 * do not count). A text that is not JSON may be miscounted; the parse refuses it anyway.
 */
export function nestsDeeper(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/** Parse `input` as JSON when it is at most `maxBytes` long, nests at most `maxDepth` deep and has no `__proto__` key. */
export function parseJson(
  input: string | Buffer | Uint8Array,
  { maxBytes, what, maxDepth = MAX_JSON_DEPTH, sent = false, keepText = false }: JsonOptions,
): JsonResult {
  const bytes = typeof input === 'string' ? Buffer.byteLength(input) : input.byteLength;
  const tooLarge = sizeProblem(what, bytes, maxBytes);
  if (tooLarge) return { ok: false, problem: 'too large', reason: tooLarge };
  const decoded =
    typeof input === 'string' ? input : Buffer.from(input.buffer, input.byteOffset, input.byteLength).toString('utf8');
  // A byte-order mark, as editors on Windows save files (a config file edited there): not JSON's,
  // but nothing else a text can mean by it.
  const text = decoded.charCodeAt(0) === 0xfeff ? decoded.slice(1) : decoded;
  if (nestsDeeper(text, maxDepth))
    return {
      ok: false,
      problem: 'too deep',
      reason: `${what} nests objects and arrays more than ${maxDepth} levels deep`,
    };
  try {
    // The reviver costs more than the parse; a `__proto__` key can only be in a text that
    // spells it out or uses an escape, so only those texts need it.
    const value: unknown =
      text.includes('__proto__') || text.includes('\\') ? JSON.parse(text, rejectPrototypeKeys) : JSON.parse(text);
    if (sent && typeof value === 'object' && value !== null) {
      const numbers = inexactIntegers(text);
      if (numbers.length) sentNumbers.set(value, numbers);
      if (numbers.length && keepText) sentTexts.set(value, text);
    }
    return { ok: true, value };
  } catch (e) {
    if (e instanceof PrototypeKeyError)
      return { ok: false, problem: 'prototype key', reason: `${what} may not contain a "__proto__" key` };
    return {
      ok: false,
      problem: 'not JSON',
      reason: `${what} is not valid JSON: ${whereInText(text, (e as Error).message)}`,
    };
  }
}

/** A surrogate code unit without its other half: `\ud800` in JSON text, an emoji a client cut in two. */
export const LONE_SURROGATE = /\p{Cs}/u;

/** An integer literal of a JSON text that a double cannot hold: where it is, as sent, and as read. */
export interface SentNumber {
  /** Dotted: `data.list.1.count` ('' for the text itself). */
  path: string;
  raw: string;
  read: number;
}

const MANY_DIGITS = /\d{16}/;
/** Of the objects and arrays parseJson made with `sent`: their integer literals a double could not hold. */
const sentNumbers = new WeakMap<object, SentNumber[]>();

/**
 * The integer literals a double could not hold in the text `value` was parsed from (parseJson with
 * `sent`), paths from `value` itself: what a refusal of it quotes (quoteAsSent). Empty for a value
 * not parsed so, or a part of one.
 */
export function sentNumbersOf(value: unknown): readonly SentNumber[] {
  return (typeof value === 'object' && value !== null && sentNumbers.get(value)) || [];
}

/** Of the objects and arrays parseJson made with `sent` and `keepText`: the text, when it held such an integer. */
const sentTexts = new WeakMap<object, string>();

/**
 * The JSON text `value` was parsed from (parseJson with `sent` and `keepText`; its byte-order mark
 * left out) when it holds an integer a double cannot hold, for what is stored or answered as
 * given: JSON.stringify(value) would write that integer with other digits. Else undefined, and
 * JSON.stringify(value) is the value as sent.
 */
export function sentTextOf(value: unknown): string | undefined {
  return typeof value === 'object' && value !== null ? sentTexts.get(value) : undefined;
}

/**
 * A field of a value parsed with `sent` (sentNumbersOf of `root`), at `path`, as the user sent
 * it: the text of an integer a double could not hold (a log line's fields name what was sent, as
 * quoteAsSent its message does), else `value` as read.
 */
export function sentField(root: unknown, path: string, value: unknown): unknown {
  return sentNumbersOf(root).find((n) => n.path === path)?.raw ?? value;
}

const NUMBER = /-?\d+(\.\d+)?([eE][+-]?\d+)?/y;
/** Enough to word what is refused; a hostile text may hold thousands. */
const MAX_SENT_NUMBERS = 10;

/**
 * The integer literals of a JSON text (parsed already, so well formed) that a double cannot hold
 * exactly (9007199254740993, read as 9007199254740992), with their fields: what a refusal must
 * quote instead of the value as read (sentAsSent). A scan of the text, as only it has the digits.
 */
export function inexactIntegers(text: string): SentNumber[] {
  const found: SentNumber[] = [];
  if (!MANY_DIGITS.test(text)) return found;
  // One frame per open object or array: its key or index now, and whether a key comes next.
  const frames: Array<{ key: string | number; inObject: boolean; keyNext: boolean }> = [];
  let i = 0;
  while (i < text.length && found.length < MAX_SENT_NUMBERS) {
    const c = text[i]!;
    const top = frames[frames.length - 1];
    if (c === '"') {
      let end = i + 1;
      while (text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      if (top?.inObject && top.keyNext) {
        top.key = JSON.parse(text.slice(i, end + 1)) as string;
        top.keyNext = false;
      }
      i = end + 1;
    } else if (c === '{' || c === '[') {
      frames.push({ key: c === '{' ? '' : 0, inObject: c === '{', keyNext: c === '{' });
      i++;
    } else if (c === '}' || c === ']') {
      frames.pop();
      i++;
    } else if (c === ',') {
      if (top?.inObject) top.keyNext = true;
      else if (top) top.key = (top.key as number) + 1;
      i++;
    } else if (c === '-' || (c >= '0' && c <= '9')) {
      NUMBER.lastIndex = i;
      const raw = NUMBER.exec(text)![0];
      if (/^-?\d{16,}$/.test(raw)) {
        const read = Number(raw);
        if (!exactInteger(raw, read)) found.push({ path: frames.map((f) => f.key).join('.'), raw, read });
      }
      i += raw.length;
    } else i++;
  }
  return found;
}

/**
 * A refusal's issues and message quoting the numbers as sent: in the issue of a field that held
 * such a number (or of the object holding it), its value as read (9007199254740992) becomes the
 * text the user sent (9007199254740993), in the issue and where the message repeats it.
 */
export function quoteAsSent<T extends Issue>(
  message: string,
  issues: readonly T[],
  sent: readonly SentNumber[],
): { message: string; issues: T[] } {
  let text = message;
  const out = issues.map((issue) => {
    let said = issue.message;
    for (const n of sent) {
      if (issue.path !== '' && n.path !== issue.path && !n.path.startsWith(`${issue.path}.`)) continue;
      said = said.replace(new RegExp(`(?<![\\d.])${escapeRegExp(JSON.stringify(n.read))}(?![\\d.e])`, 'g'), n.raw);
    }
    if (said === issue.message) return issue;
    text = text.split(issue.message).join(said);
    return { ...issue, message: said };
  });
  return { message: text, issues: out };
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The first number in a parsed JSON value that JSON text cannot hold, as `{path, message}` (path
 * dotted from `base`), or null. JSON.parse reads a number beyond a double's range (1E400) as
 * Infinity, and JSON.stringify writes that as null: a value stored as given (a datastore
 * document, block meta) would read back as null with a 200. The rule of every free-form JSON
 * value the service stores; walked without recursion, as a hostile value may nest deep.
 */
export function unholdableNumber(value: unknown, base: string): { path: string; message: string } | null {
  const stack: Array<[unknown, string]> = [[value, base]];
  while (stack.length) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'number') {
      if (unholdable(v))
        return { path, message: `${TOO_LARGE_FOR_JSON}; it would read back as null: store it as a string` };
    } else if (v && typeof v === 'object') {
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, child] = entries[i]!;
        stack.push([child, path ? `${path}.${k}` : k]);
      }
    }
  }
  return null;
}

/** The parser's message with the line and column of the fault (Node 20 gives only the offset; a hand-edited file is read by lines). */
function whereInText(text: string, message: string): string {
  if (/\bline \d+/.test(message)) return message;
  const at = /at position (\d+)/.exec(message);
  const offset = at ? Number(at[1]) : /end of JSON input/.test(message) ? text.length : null;
  if (offset === null) return message;
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return `${message} (line ${line} column ${offset - before.lastIndexOf('\n')})`;
}

const COMMA = 0x2c;

/** Where a text is written to be compared with a slot's bytes; grows to the largest text seen. */
let scratch = Buffer.allocUnsafeSlow(1024);

/**
 * A text's UTF-8 bytes in a memory block of their own that later texts are written into, in
 * place, while they fit. For a cache's texts of things that change every few seconds: a new
 * block each time lives a cycle, so it and its ArrayBuffer are promoted and freed only by a
 * full collection (with 200 blocks changing, 120 blocks a second piled up in glibc's heap between
 * collections). The bytes are private: `view()` is valid until the next write; whatever leaves
 * the owner (an answer on a slow socket) must be a copy.
 */
export class ByteSlot {
  private block: Buffer;
  private used: number;

  constructor(text: string) {
    this.used = Buffer.byteLength(text);
    this.block = Buffer.allocUnsafeSlow(withRoom(this.used));
    this.block.write(text);
  }

  /** `kept` holding `text` now, or a new slot when there is none. */
  static write(kept: ByteSlot | undefined, text: string): ByteSlot {
    if (kept === undefined) return new ByteSlot(text);
    kept.set(text);
    return kept;
  }

  get length(): number {
    return this.used;
  }

  /** The bytes, as a view of the slot: changes with the next write. */
  view(): Buffer {
    return this.block.subarray(0, this.used);
  }

  set(text: string): void {
    const size = Buffer.byteLength(text);
    if (size > this.block.length) this.block = Buffer.allocUnsafeSlow(withRoom(size));
    this.block.write(text);
    this.used = size;
  }

  /** Write `text` unless the slot holds it already; whether it changed. */
  update(text: string): boolean {
    const size = Buffer.byteLength(text);
    if (size === this.used) {
      if (scratch.length < size) scratch = Buffer.allocUnsafeSlow(withRoom(size * 2));
      scratch.write(text);
      if (scratch.compare(this.block, 0, size, 0, size) === 0) return false;
      scratch.copy(this.block, 0, 0, size);
      return true;
    }
    this.set(text);
    return true;
  }
}

/** A slot's size for `size` bytes: room for a number that gains a digit or two. */
function withRoom(size: number): number {
  return size + (size >>> 3) + 16;
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
