// The one HTTP request every HTTP channel (ntfy, webhook) and the heartbeat make. A redirect is
// never followed: fetch would send the same headers (a webhook's secret header, the ntfy token)
// to whatever host the receiver names, so a 3xx is an error naming only where it pointed. What
// the receiver answers is read only as far as a short text needs (an endless or huge answer is
// cut off, not buffered), and kept as plain text: HTML without its markup, no control
// characters, binary as its size and type.

/** Bytes of an answer read at most; the rest is not received. */
const ANSWER_READ_BYTES = 4096;
/** Characters of an answer kept in the history and the test result. */
const ANSWER_KEEP_CHARS = 200;

export interface HttpCall {
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  timeoutMs: number;
}

/** Resolves with `HTTP <status>` for a 2xx; throws an Error naming the status (and a short answer) otherwise. */
export async function httpCall(url: string, call: HttpCall): Promise<string> {
  const signal = AbortSignal.timeout(call.timeoutMs);
  let res: Response;
  try {
    res = await fetch(url, { method: call.method, headers: call.headers, body: call.body, redirect: 'manual', signal });
  } catch (e) {
    throw new Error(failure(e, call.timeoutMs));
  }
  if (res.status >= 300 && res.status < 400) {
    await res.body?.cancel().catch(() => undefined);
    const to = origin(res.headers.get('location'), url);
    throw new Error(
      `HTTP ${res.status}: redirects are not followed${to ? ` (it points to ${to})` : ''}; set the final URL`,
    );
  }
  if (res.ok) {
    await res.body?.cancel().catch(() => undefined);
    return `HTTP ${res.status}`;
  }
  throw new Error(`HTTP ${res.status}${await answerText(res)}`);
}

function failure(e: unknown, timeoutMs: number): string {
  const err = e as Error & { cause?: { code?: string } };
  if (err.name === 'TimeoutError') return `no answer within ${timeoutMs} ms`;
  // fetch's own message quotes the header it refused, which may be the token or a secret header:
  // this text goes to the log and the alert history.
  if (!err.cause?.code && /^Headers\./.test(err.message))
    return 'the request was not sent: a header name or value is not valid HTTP (not shown: it may be a secret); check the channel settings';
  return `cannot connect (${err.cause?.code ?? err.message})`;
}

/** Scheme, host and port of a Location (never its path or query, which may carry a token). */
function origin(location: string | null, base: string): string | null {
  if (!location) return null;
  try {
    return new URL(location, base).origin;
  } catch {
    return null;
  }
}

/** `: <short text>`, ` (<n> bytes of <type>)`, or '' for an empty answer. */
async function answerText(res: Response): Promise<string> {
  const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  const { bytes, complete } = await readSome(res, ANSWER_READ_BYTES);
  if (bytes.length === 0) return '';
  const textual = type === '' || type.startsWith('text/') || /[/+](json|xml)$/.test(type);
  if (!textual) return ` (${complete ? bytes.length : `${bytes.length}+`} bytes of ${type})`;
  let text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  if (type === 'text/html' || type.endsWith('xml'))
    text = text.replace(/<(script|style)\b[\s\S]*?(<\/\1\s*>|$)/gi, ' ').replace(/<[^>]*>?/g, ' ');
  text = text
    .replace(/\u001b\[[0-9;]*[A-Za-z]/g, ' ')
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (!text) return '';
  return `: ${text.length > ANSWER_KEEP_CHARS ? `${text.slice(0, ANSWER_KEEP_CHARS - 1)}…` : text}`;
}

/** At most `max` bytes of the body; the rest is cancelled (the connection closes). */
async function readSome(res: Response, max: number): Promise<{ bytes: Uint8Array; complete: boolean }> {
  if (!res.body) return { bytes: new Uint8Array(0), complete: true };
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let complete = false;
  try {
    while (size < max) {
      const { done, value } = await reader.read();
      if (done) {
        complete = true;
        break;
      }
      chunks.push(value);
      size += value.length;
    }
  } catch {
    // A body cut off (time limit, reset) still has a status; what arrived is enough.
  } finally {
    if (!complete) await reader.cancel().catch(() => undefined);
  }
  const out = new Uint8Array(Math.min(size, max));
  let at = 0;
  for (const c of chunks) {
    const part = c.subarray(0, out.length - at);
    out.set(part, at);
    at += part.length;
    if (at >= out.length) break;
  }
  return { bytes: out, complete };
}
