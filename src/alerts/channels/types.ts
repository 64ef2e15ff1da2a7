// A delivery channel: sends one message, resolves with what the receiver said, throws when it
// did not take it (the outbox retries). Errors never carry secrets.
import type { AlertMessage } from '../types.js';
import { httpCall } from './http.js';

export interface Channel {
  readonly name: string;
  send(message: AlertMessage): Promise<string>;
  close?(): Promise<void> | void;
}

/** POST with a time limit; a non-2xx answer (a redirect too) is an error naming the status. */
export function post(
  url: string,
  init: { headers: Record<string, string>; body: string; timeoutMs: number },
): Promise<string> {
  return httpCall(url, { method: 'POST', ...init });
}

export const EVENT_TAGS: Record<AlertMessage['event'], string> = {
  fired: 'warning',
  reminder: 'hourglass',
  resolved: 'white_check_mark',
  acknowledged: 'ok_hand',
  test: 'test_tube',
};
