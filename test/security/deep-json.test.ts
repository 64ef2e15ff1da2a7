// Deep JSON is a 400, never a 500 (issue 45.6): 150,000 levels of nesting parse, then overflowed the
// stack of the schema walk (TypeBox Value.Clone) in PUT /alerts/rules and /history/datastore/set.
// One depth limit (MAX_JSON_DEPTH, src/shared/json.ts) is checked before any parse, for every input
// from outside: REST bodies, MQTT payloads, the history stream's commands, config files.
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import WebSocket from 'ws';
import { loadConfig } from '../../src/config.js';
import { parseHistoryMessage } from '../../src/history/flatten.js';
import { nestsDeeper, parseJson } from '../../src/shared/json.js';
import { BACKUP_JSON_DEPTH, MAX_JSON_DEPTH, MAX_META_DEPTH } from '../../src/shared/limits.js';
import { startApp } from '../helpers/app.js';
import { Recorder, SERVICE_ID, sleep, until, untilSubscribed } from '../mqtt/fixtures.js';

const nested = (levels: number, inner = '1') => '['.repeat(levels) + inner + ']'.repeat(levels);
const objects = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
const DEEP = nested(150_000);

t.test('parseJson: up to MAX_JSON_DEPTH levels parse, one more is refused before the parse', async (t) => {
  t.ok(parseJson(nested(MAX_JSON_DEPTH), { maxBytes: 1e6, what: 'the body' }).ok, `${MAX_JSON_DEPTH} arrays`);
  t.ok(parseJson(objects(MAX_JSON_DEPTH), { maxBytes: 1e6, what: 'the body' }).ok, `${MAX_JSON_DEPTH} objects`);
  t.same(parseJson(objects(MAX_JSON_DEPTH + 1), { maxBytes: 1e6, what: 'the body' }), {
    ok: false,
    problem: 'too deep',
    reason: `the body nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep`,
  });
  t.equal((parseJson(DEEP, { maxBytes: 1e6, what: 'the payload' }) as { problem: string }).problem, 'too deep');
  // Brackets in strings, escaped quotes included, are not nesting.
  const text = JSON.stringify({ s: '['.repeat(500), q: '"[[[', n: [[1]] });
  t.notOk(nestsDeeper(text, 3), 'strings do not count');
  t.ok(parseJson(text, { maxBytes: 1e6, what: 'the body', maxDepth: 3 }).ok);
  t.ok(MAX_META_DEPTH + 4 <= MAX_JSON_DEPTH, 'the deepest meta fits in a batch of blocks');
});

t.test('REST: deep bodies are 400 on every route that takes JSON, and change nothing', async (t) => {
  const { app, close } = await startApp({}, { listen: false });
  t.teardown(close);
  const routes: Array<[string, string]> = [
    ['PUT', '/edge-one/alerts/rules'],
    ['POST', '/history/datastore/set'],
    ['POST', '/edge-one/blocks/create'],
    ['POST', '/edge-one/blocks/backup/load'],
    ['POST', '/history/timeseries/ranges'],
  ];
  for (const [method, url] of routes) {
    for (const body of [DEEP, `{"value":${nested(150_000)}}`]) {
      const res = await app.http.inject({
        method: method as 'PUT',
        url,
        headers: { 'content-type': 'application/json' },
        payload: body,
      });
      t.equal(res.statusCode, 400, `${method} ${url}: 400`);
      // A backup may nest a little deeper (BACKUP_JSON_DEPTH): it holds documents set by bodies of their own.
      const depth = url.includes('backup') ? BACKUP_JSON_DEPTH : MAX_JSON_DEPTH;
      t.equal(JSON.parse(res.body).message, `the body nests objects and arrays more than ${depth} levels deep`);
    }
  }
  t.equal((await app.http.inject({ method: 'GET', url: '/edge-one/system/ping' })).statusCode, 200, 'still up');
});

t.test('MQTT: deep payloads on every subscribed topic are dropped; the service goes on', async (t) => {
  const rt = await startApp({ homeAssistant: 'true' });
  t.teardown(() => rt.close());
  await untilSubscribed(rt.app);
  const pub = await Recorder.connect(`mqtt://127.0.0.1:${rt.app.mqtt.brokerPort}`);
  t.teardown(() => pub.end());
  const deep = nested(100_000);
  for (const topic of [
    'svc/controller/blocks/create',
    'svc/spark/blocks/write',
    'svc/history/other',
    'svc/fleet/other',
  ])
    await pub.publish(topic, deep);
  // Also through the service's own link: the message reaches the datastore's handler whatever the
  // broker's rules.
  rt.app.mqtt.publish(`svc/datastore/${SERVICE_ID}`, deep);
  await pub.publish(
    'svc/controller/blocks/create',
    JSON.stringify({ serviceId: SERVICE_ID, id: 'After', type: 'TempSensorMock', data: {} }),
  );
  await until(() => rt.app.runtime.find('After') !== undefined, 'the block sent after them');
  await until(() => (rt.app.status() as any).mqtt.dropped.other >= 1, 'the datastore drop counted');
  const status = rt.app.status() as any;
  t.ok(status.mqtt.dropped.blockApi >= 2, 'block API drops counted');
  t.ok(status.fleet.ignored >= 1, 'fleet drop counted');
  t.match(parseHistoryMessage(deep), { ok: false, detail: /more than 64 levels deep/ }, 'history refuses it');
});

t.test('the history stream: a deep command is answered with an error, not a crash', async (t) => {
  const rt = await startApp();
  t.teardown(() => rt.close());
  const origin = rt.base.slice(0, rt.base.length - SERVICE_ID.length - 1);
  const ws = new WebSocket(`${origin.replace('http', 'ws')}/history/timeseries/stream`);
  t.teardown(() => ws.terminate());
  await new Promise((r) => ws.once('open', r));
  const answer = new Promise<string>((r) => ws.once('message', (d) => r(d.toString())));
  ws.send(`{"id":"x","command":"ranges","query":${nested(20_000)}}`);
  t.match(await answer, /more than 64 levels deep/);
  await sleep(50);
  t.equal(ws.readyState, WebSocket.OPEN, 'the socket stays open for the next command');
});

t.test('a deep config file is a configuration error, not a stack overflow', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-deep-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'config.json');
  writeFileSync(file, `{"alerts":${objects(200_000)}}`);
  t.throws(() => loadConfig({ config: file }, {}), { name: 'ConfigError', message: /more than 64 levels deep/ });
});
