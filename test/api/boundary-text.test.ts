// What the API boundary does with values a double or UTF-8 cannot hold exactly, and how it words
// every refusal. An integer past 2^53 (9007199254740993) is read as its rounded neighbour: a
// refusal quoted "got 9007199254740992", a number the user never sent; it quotes the text sent
// now.
// Half of a surrogate pair in text kept as JSON is stored and echoed exactly on every path.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { startApp } from '../helpers/app.js';
import { createLogger } from '../../src/log.js';
import { Recorder, until, untilSubscribed } from '../mqtt/fixtures.js';

t.test('a refusal of an integer a double cannot hold quotes what was sent', async (t) => {
  const { post, app, close } = await startApp({}, { listen: false });
  t.teardown(close);
  const channel = await post(
    'blocks/create',
    undefined,
    '{"id":"Relay","type":"DigitalActuator","data":{"channel":9007199254740993}}',
  );
  t.equal(channel.status, 422, channel.raw);
  t.match(channel.body.message, 'data.channel: must be at most 64, got 9007199254740993');
  t.same(channel.body.validation, [{ path: 'data.channel', message: 'must be at most 64, got 9007199254740993' }]);
  t.notMatch(channel.raw, /9007199254740992/, 'no number the user did not send');

  // Inside a Quantity: the refusal names the field, the number is the Quantity's value.
  const pair = await post(
    'blocks/create',
    undefined,
    '{"id":"Pair","type":"SetpointSensorPair","data":{"storedSetting":{"__bloxtype":"Quantity","unit":"degC","value":-12345678901234567891}}}',
  );
  t.equal(pair.status, 422, pair.raw);
  t.match(pair.body.message, /data\.storedSetting: must be between .*, got -12345678901234567891 /);

  // A route schema's refusal (fastify's validator): the same.
  const rules = await app.http.inject({
    method: 'PUT',
    url: `/${app.config.serviceId}/alerts/rules`,
    headers: { 'content-type': 'application/json' },
    payload: '{"sensorNull":{"after":"x","band":1},"outputOn":{"after":18446744073709551617}}',
  });
  t.equal(rules.statusCode, 422, rules.body);
  t.match(rules.body, /18446744073709551617/);
  t.notMatch(rules.body, /18446744073709552000|18446744073709551616/);
});

t.test('over MQTT, the dropped block names the number as sent too', async (t) => {
  const lines: string[] = [];
  const log = createLogger('warn', {}, { write: (l: string) => lines.push(l) });
  const rt = await startApp({ topicRoot: 'svc' }, { log });
  t.teardown(() => rt.close());
  await untilSubscribed(rt.app);
  const pub = await Recorder.connect(`mqtt://127.0.0.1:${rt.app.mqtt.brokerPort}`);
  t.teardown(() => pub.end());
  await pub.publish(
    'svc/controller/blocks/create',
    `{"serviceId":"${rt.app.config.serviceId}","id":"Relay","type":"DigitalActuator","data":{"channel":9007199254740993}}`,
  );
  await until(() => lines.some((l) => l.includes('mqtt blocks/create dropped')), 'the drop to be logged');
  const line = lines.find((l) => l.includes('mqtt blocks/create dropped'))!;
  t.match(line, 'data.channel: must be at most 64, got 9007199254740993');
  t.notMatch(line, /9007199254740992/);

  // The drop line's fields name the block as sent too: its nid is the text sent, not the double read.
  await pub.publish(
    'svc/controller/blocks/delete',
    `{"serviceId":"${rt.app.config.serviceId}","nid":9007199254740993}`,
  );
  await until(() => lines.some((l) => l.includes('mqtt blocks/delete dropped')), 'the delete’s drop to be logged');
  const deleted = JSON.parse(lines.find((l) => l.includes('mqtt blocks/delete dropped'))!) as Record<string, unknown>;
  t.equal(deleted.nid, '9007199254740993', 'the nid field as sent');
  t.match(deleted.msg, 'nid: must be an integer from 1 to 2147483647, got 9007199254740993');
  t.notMatch(JSON.stringify(deleted), /9007199254740992/, 'no number the user did not send');
});

const HALF = '\ud800';

// Half of a surrogate pair in text kept as JSON (block meta, a Sequence line, a datastore
// document) is stored and echoed exactly, JSON-escaped, on every path (REST, MQTT, a restart); it
// is refused where text becomes a name in a store that is not JSON: a block id (refused by the
// API), a history field or key from another publisher (history/flatten.test.ts).
t.test('half of a surrogate pair in text kept as JSON survives every path exactly', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-half-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const rt = await startApp({ topicRoot: 'svc', emitInterval: '200' }, { dataDir });
  t.teardown(() => rt.close());
  const { post, app } = rt;
  const meta = { note: `cut ${HALF}`, [`k${HALF}`]: 1 };
  const lines = ['WAIT_DURATION duration=1h', `# ${HALF} half`];
  t.equal((await post('blocks/create', { id: 'P', type: 'TempSensorMock', data: {}, meta })).status, 201);
  const seq = await post('blocks/create', {
    id: 'Seq',
    type: 'Sequence',
    data: { enabled: true, instructions: lines },
  });
  t.equal(seq.status, 201, seq.raw);
  const doc = { namespace: 'n', id: 'x', title: `a${HALF}b` };
  t.equal((await post('/history/datastore/set', { value: doc })).status, 200);

  await untilSubscribed(app);
  const sub = await Recorder.connect(`mqtt://127.0.0.1:${app.mqtt.brokerPort}`);
  t.teardown(() => sub.end());
  await sub.subscribe('svc/state/#');
  const state = (
    await sub.waitFor((m) => m.json().data?.blocks?.some((b: { id: string }) => b.id === 'Seq'), 'a state', 5000)
  ).json();
  const byId = (id: string) => state.data.blocks.find((b: { id: string }) => b.id === id);
  t.same(byId('P').meta, meta, 'MQTT state: meta exactly');
  t.same(byId('Seq').data.instructions, lines, 'MQTT state: the Sequence lines exactly');

  await rt.close();
  const again = await startApp({ topicRoot: 'svc' }, { dataDir, listen: false });
  t.teardown(() => again.close());
  t.same((await again.post('blocks/read', { id: 'P' })).body.meta, meta, 'after a restart: meta exactly');
  t.same((await again.post('blocks/read', { id: 'Seq' })).body.data.instructions, lines, 'the lines exactly');
  t.same(
    (await again.post('/history/datastore/get', { namespace: 'n', id: 'x' })).body.value,
    doc,
    'the document exactly',
  );
});

// An ident ({id} or {nid}) took nid 0 as a nid to look up, where a block body (a create or a
// write) takes it, as Brewblox does, for "none": a read or delete of {id: "Probe", nid: 0} was a
// 404 "no block with nid 0" with Probe there. And a nid past any block's was looked up too: a
// 404 naming it as read ("no block with nid 9007199254740992"), never as sent.
t.test("an ident's nid: 0 is none, as in a block body; one no block can have is a 422 quoting it", async (t) => {
  const { post, close } = await startApp({}, { listen: false });
  t.teardown(close);
  t.equal((await post('blocks/create', { id: 'Probe', type: 'TempSensorMock', data: {} })).status, 201);
  const read = await post('blocks/read', { id: 'Probe', nid: 0 });
  t.equal(read.status, 200, read.raw);
  t.equal(read.body.id, 'Probe');
  const none = await post('blocks/read', { nid: 0 });
  t.equal(none.status, 422, none.raw);
  t.match(none.body.message, /^id: required/);
  const far = await post('blocks/read', undefined, '{"nid":9007199254740993}');
  t.equal(far.status, 422, far.raw);
  t.match(far.body.message, 'nid: must be an integer from 1 to 2147483647, got 9007199254740993');
  const del = await post('blocks/delete', { id: 'Probe', nid: 0 });
  t.equal(del.status, 200, del.raw);
});
