// ntfy (https://ntfy.sh or self-hosted): POST the text to the topic URL; title, priority and
// tags in headers. X-Edgeblocks-Id carries the message id (ntfy keeps unknown headers out).
import type { AlertMessage } from '../types.js';
import { EVENT_TAGS, post, type Channel } from './types.js';

export function ntfyChannel(o: { url: string; token?: string; timeoutMs: number }): Channel {
  return {
    name: 'ntfy',
    send: (m: AlertMessage) => {
      const headers: Record<string, string> = {
        'content-type': 'text/plain; charset=utf-8',
        title: encodeHeader(m.title),
        priority: String(m.priority),
        tags: [EVENT_TAGS[m.event], m.condition].join(','),
        'x-edgeblocks-id': m.id,
      };
      if (o.token) headers.authorization = `Bearer ${o.token}`;
      return post(o.url, { headers, body: m.message, timeoutMs: o.timeoutMs });
    },
  };
}

/** Header values must be Latin-1; ntfy decodes RFC 2047 encoded words. */
function encodeHeader(text: string): string {
  return /^[\x20-\x7e]*$/.test(text) ? text : `=?UTF-8?B?${Buffer.from(text).toString('base64')}?=`;
}
