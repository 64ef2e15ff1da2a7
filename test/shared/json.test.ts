// One rule for JSON from outside (src/shared/json.ts): the size is checked before the text is
// parsed, and a `__proto__` key is refused, by REST, the MQTT block API and the history ingest alike.
import { pino } from 'pino';
import t from 'tap';
import { parseHistoryMessage } from '../../src/history/flatten.js';
import type { Logger } from '../../src/log.js';
import { handleControllerMessage } from '../../src/mqtt/controller-topics.js';
import type { BlockRuntime } from '../../src/runtime/runtime.js';
import { parseJson } from '../../src/shared/json.js';
import { BODY_LIMIT } from '../../src/shared/limits.js';

const PROTO_TEXTS = [
  '{"id":"x","serviceId":"svc","type":"TempSensorMock","data":{"__proto__":{"setting":1}}}',
  '{"id":"x","serviceId":"svc","type":"TempSensorMock","data":{"\\u005f_proto\\u005f_":{"setting":1}}}',
];

t.test('parseJson: a value, from a string or a Buffer', async (t) => {
  t.same(parseJson('{"a":[1,"\\u0041"]}', { maxBytes: 100, what: 'the body' }), { ok: true, value: { a: [1, 'A'] } });
  t.same(parseJson(Buffer.from('[true,null]'), { maxBytes: 100, what: 'the payload' }), {
    ok: true,
    value: [true, null],
  });
});

t.test('parseJson: too large is refused before parsing, with the size and the limit', async (t) => {
  const r = parseJson(Buffer.alloc(2000, '{'), { maxBytes: 1000, what: 'the payload' });
  t.same(r, { ok: false, problem: 'too large', reason: 'the payload is 2000 bytes, over the 1000-byte limit' });
  const multibyte = parseJson('"ééé"', { maxBytes: 6, what: 'the body' });
  t.equal(multibyte.ok, false, 'the limit counts UTF-8 bytes, not characters');
});

t.test('parseJson: not JSON names what and why', async (t) => {
  const r = parseJson('{"id": ', { maxBytes: 100, what: 'the command' });
  t.equal(r.ok, false);
  if (!r.ok) {
    t.equal(r.problem, 'not JSON');
    t.match(r.reason, /^the command is not valid JSON: /);
  }
});

t.test('parseJson: a __proto__ key is refused, plain or escaped, at any depth', async (t) => {
  for (const text of [...PROTO_TEXTS, '[{"a":{"__proto__":1}}]']) {
    const r = parseJson(text, { maxBytes: 1000, what: 'the body' });
    t.same(r, { ok: false, problem: 'prototype key', reason: 'the body may not contain a "__proto__" key' }, text);
  }
  t.same(
    parseJson('{"text":"__proto__"}', { maxBytes: 1000, what: 'the body' }),
    { ok: true, value: { text: '__proto__' } },
    'the word as a value is fine',
  );
});

t.test('the MQTT block API refuses a __proto__ key as REST does, and never hands it to the runtime', async (t) => {
  let applied = 0;
  const runtime = { serviceId: 'svc', create: () => (applied++, { id: 'x' }) } as unknown as BlockRuntime;
  const log = pino({ level: 'silent' }) as unknown as Logger;
  for (const text of PROTO_TEXTS) {
    const dropped = handleControllerMessage(runtime, 'create', Buffer.from(text), log);
    t.match(dropped?.message, /mqtt blocks\/create dropped: the payload may not contain a "__proto__" key/, text);
  }
  t.equal(applied, 0);
  const big = handleControllerMessage(runtime, 'create', Buffer.alloc(BODY_LIMIT + 1, 32), log);
  t.match(
    big?.message,
    new RegExp(`the payload is ${BODY_LIMIT + 1} bytes, over the ${BODY_LIMIT}-byte limit \\(the same as REST\\)`),
  );
  t.equal(
    handleControllerMessage(runtime, 'create', Buffer.from('{"serviceId":"svc","id":"ok"}'), log),
    null,
    'a good message is applied',
  );
  t.equal(applied, 1);
});

t.test('the history ingest refuses a __proto__ key and names the size limit the same way', async (t) => {
  const r = parseHistoryMessage('{"key":"k","data":{"__proto__":{"a":1}}}');
  t.same(r, { ok: false, reason: 'not JSON', detail: 'the payload may not contain a "__proto__" key' });
  const big = parseHistoryMessage(Buffer.alloc(300 * 1024, 32), { maxBytes: 1000, maxFields: 10, maxNameLength: 10 });
  t.same(big, {
    ok: false,
    reason: 'too large',
    detail: `the payload is ${300 * 1024} bytes, over the 1000-byte limit`,
  });
});
