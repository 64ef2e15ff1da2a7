// A generic JSON webhook: the whole message as JSON. `title`, `message` and `priority` are the
// fields Gotify reads; Home Assistant webhooks, n8n and IFTTT take any JSON.
import type { AlertMessage } from '../types.js';
import { post, type Channel } from './types.js';

export function webhookChannel(o: { url: string; headers?: Record<string, string>; timeoutMs: number }): Channel {
  return {
    name: 'webhook',
    send: (m: AlertMessage) =>
      post(o.url, {
        headers: { ...(o.headers ?? {}), 'content-type': 'application/json', 'x-edgeblocks-id': m.id },
        body: JSON.stringify(m),
        timeoutMs: o.timeoutMs,
      }),
  };
}
