// A generic JSON webhook: the whole message as JSON. `title`, `message` and `priority` are the
// fields Gotify reads; Home Assistant webhooks, n8n and IFTTT take any JSON. The URL is a secret
// (a Home Assistant webhook id is the only thing guarding it), and so are the extra headers.
import { Type } from '@sinclair/typebox';
import type { AlertMessage } from '../types.js';
import { defineChannel, post, SECRET, urlOptions } from './types.js';

export const webhook = defineChannel({
  name: 'webhook',
  title: 'JSON webhook (Home Assistant, Gotify, n8n)',
  schema: Type.Object(
    {
      url: Type.String({ ...urlOptions('URL', 'receives a JSON POST per message; secret'), ...SECRET }),
      headers: Type.Optional(
        Type.Record(Type.String({ pattern: '^[A-Za-z0-9-]+$' }), Type.String(), {
          title: 'Extra headers',
          description: 'extra headers (e.g. X-Gotify-Key); secret',
          ...SECRET,
        }),
      ),
    },
    { additionalProperties: false },
  ),
  create(o, ctx) {
    const send = (m: AlertMessage) =>
      post(o.url, {
        headers: { ...(o.headers ?? {}), 'content-type': 'application/json', 'x-edgeblocks-id': m.id },
        body: JSON.stringify(m),
        timeoutMs: ctx.timeoutMs,
      });
    return { name: 'webhook', send, test: send };
  },
});
