// A generic JSON webhook: the whole message as JSON. `title`, `message` and `priority` are the
// fields Gotify reads; Home Assistant webhooks, n8n and IFTTT take any JSON. The URL is a secret
// (a Home Assistant webhook id is the only thing guarding it), and so are the extra headers.
import { Type } from '@sinclair/typebox';
import type { AlertMessage } from '../types.js';
import { defineChannel, HEADER_NAME_PATTERN, headerValueOptions, post, SECRET, urlOptions } from './types.js';

export const webhook = defineChannel({
  name: 'webhook',
  title: 'JSON webhook (Home Assistant, Gotify, n8n)',
  schema: Type.Object(
    {
      url: Type.String({ ...urlOptions('URL', 'receives a JSON POST per message; secret'), ...SECRET }),
      headers: Type.Optional(
        // Without additionalProperties the name pattern only chose which names the value rule
        // applies to: "X Gotify Key" (the form's line "X Gotify Key: ...") was stored, and every
        // send failed naming the header.
        Type.Record(Type.String({ pattern: HEADER_NAME_PATTERN }), Type.String(headerValueOptions), {
          title: 'Extra headers',
          description: 'extra headers (e.g. X-Gotify-Key); secret',
          additionalProperties: false,
          keyMessage: 'is not a header name (an HTTP token: no space, colon or other separator)',
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
