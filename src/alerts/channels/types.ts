// A delivery channel: sends one message, resolves with what the receiver said, throws when it
// did not take it (the outbox retries). Errors never carry secrets.
import type { AlertMessage } from '../types.js';

export interface Channel {
  readonly name: string;
  send(message: AlertMessage): Promise<string>;
  close?(): Promise<void> | void;
}

/** POST with a time limit; a non-2xx answer is an error naming the status. */
export async function post(
  url: string,
  init: { headers: Record<string, string>; body: string; timeoutMs: number },
): Promise<string> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: init.headers,
      body: init.body,
      signal: AbortSignal.timeout(init.timeoutMs),
    });
  } catch (e) {
    const err = e as Error & { cause?: { code?: string } };
    throw new Error(
      err.name === 'TimeoutError'
        ? `no answer within ${init.timeoutMs} ms`
        : `cannot connect (${err.cause?.code ?? err.message})`,
    );
  }
  const text = (await res.text().catch(() => '')).slice(0, 200);
  if (!res.ok) throw new Error(`HTTP ${res.status}${text ? `: ${text}` : ''}`);
  return `HTTP ${res.status}`;
}

export const EVENT_TAGS: Record<AlertMessage['event'], string> = {
  fired: 'warning',
  reminder: 'hourglass',
  resolved: 'white_check_mark',
  acknowledged: 'ok_hand',
  test: 'test_tube',
};
