// ntfy (https://ntfy.sh or self-hosted): POST the text to the topic URL; title, priority and
// tags in headers. X-Edgeblocks-Id carries the message id (ntfy keeps unknown headers out).
// The topic URL is a secret too: whoever knows a topic on ntfy.sh can read it.
import { Type } from '@sinclair/typebox';
import type { AlertMessage } from '../types.js';
import { defineChannel, EVENT_TAGS, headerValueOptions, post, SECRET, urlOptions } from './types.js';

export const ntfy = defineChannel({
  name: 'ntfy',
  title: 'ntfy push notification (phone app)',
  schema: Type.Object(
    {
      url: Type.String({
        ...urlOptions('Topic URL', 'topic URL, e.g. https://ntfy.sh/my-brewery-5f3a; secret'),
        ...SECRET,
      }),
      token: Type.Optional(
        Type.String({
          minLength: 1,
          ...headerValueOptions,
          title: 'Access token',
          description: 'access token (Bearer); secret',
          ...SECRET,
        }),
      ),
    },
    { additionalProperties: false },
  ),
  create(o, ctx) {
    const send = (m: AlertMessage) => {
      const headers: Record<string, string> = {
        'content-type': 'text/plain; charset=utf-8',
        title: encodeHeader(m.title),
        priority: String(m.priority),
        tags: [EVENT_TAGS[m.event], m.condition].join(','),
        'x-edgeblocks-id': m.id,
      };
      if (o.token) headers.authorization = `Bearer ${o.token}`;
      return post(o.url, { headers, body: m.message, timeoutMs: ctx.timeoutMs });
    };
    return { name: 'ntfy', send, test: send };
  },
});

/** Header values must be Latin-1; ntfy decodes RFC 2047 encoded words. */
function encodeHeader(text: string): string {
  return /^[\x20-\x7e]*$/.test(text) ? text : `=?UTF-8?B?${Buffer.from(text).toString('base64')}?=`;
}
