// 100 malformed payloads on each controller topic are counted, logged (once per topic) and dropped; the service still
// answers over REST and MQTT afterwards, and nothing was created, changed or deleted.
import t from 'tap';
import { pino } from 'pino';
import { Writable } from 'node:stream';
import { startApp } from '../helpers/app.js';
import { controllerTopic, Recorder, SERVICE_ID, topic, until, untilSubscribed, VARIANTS } from './fixtures.js';

const ACTIONS = ['create', 'write', 'patch', 'delete'] as const;
const PER_TOPIC = 100;

/** The i-th malformed payload for `action`: never a valid block operation for this service. */
function malformed(i: number, action: string): string | Buffer {
  const ours = { serviceId: SERVICE_ID };
  // 'Keep' exists: naming it makes a create conflict and a write or patch invalid, but a delete valid.
  const existing = action === 'delete' ? 'Missing Block' : 'Keep';
  const kinds: Array<() => string | Buffer> = [
    () => '',
    () => '{',
    () => `{"id": "x${i}", "serviceId": "${SERVICE_ID}", `,
    () => Buffer.from([0xff, 0xfe, i & 0xff, 0x00, 0x7b]),
    () => 'null',
    () => String(i),
    () => `"text ${i}"`,
    () => JSON.stringify([ours]),
    () => JSON.stringify({ ...ours }),
    () => JSON.stringify({ ...ours, id: `Nope ${i}`, type: 'TempSensorMock' }),
    () => JSON.stringify({ ...ours, id: `Nope ${i}`, type: 'NoSuchType', data: {} }),
    () => JSON.stringify({ ...ours, id: `Nope ${i}`, type: 'TempSensorMock', data: 'not an object' }),
    () => JSON.stringify({ ...ours, id: `Nope ${i}`, type: 'TempSensorMock', data: { setting: 'hot' } }),
    () => JSON.stringify({ ...ours, id: `Nope ${i}`, type: 'TempSensorMock', data: { noSuchField: 1 } }),
    () => JSON.stringify({ ...ours, id: `Nope ${i}`, nid: -i, type: 'TempSensorMock', data: {} }),
    () => JSON.stringify({ ...ours, id: 42, type: 'TempSensorMock', data: {} }),
    // A valid block in ISO-8859-1 (a Windows script's default): decoded as UTF-8 it became 'Bi\uFFFDre N'.
    () => Buffer.from(JSON.stringify({ ...ours, id: `Bi\u00e8re ${i}`, type: 'TempSensorMock', data: {} }), 'latin1'),
    () => JSON.stringify({ ...ours, id: existing, type: 'TempSensorMock', data: { 'setting[furlongs]': 3 } }),
    () => JSON.stringify({ ...ours, id: existing, type: 'SetpointSensorPair', data: {} }),
    () => JSON.stringify({ ...ours, id: 'SysInfo', nid: 2, type: 'SysInfo', data: { timeZone: 7 } }),
    () => JSON.stringify({ ...ours, nid: 99999, type: 'TempSensorMock', data: {} }),
    () =>
      JSON.stringify({ ...ours, id: existing, type: 'TempSensorMock', data: { 'sensorId<>': 'Missing' }, meta: 'x' }),
    () =>
      JSON.stringify({
        ...ours,
        id: `Deep ${i}`,
        type: 'TempSensorMock',
        data: JSON.parse('['.repeat(50) + ']'.repeat(50)),
      }),
  ];
  return kinds[i % kinds.length]!();
}

for (const variant of VARIANTS) {
  t.test(variant.name, async (t) => {
    const bus = await variant.setup();
    t.teardown(() => bus.close());
    const lines: any[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const rt = await startApp({ ...bus.overrides, emitInterval: '5000' }, { log: pino({ level: 'warn' }, sink) });
    t.teardown(() => rt.close());
    await until(() => rt.app.mqtt.connected, 'the runtime to connect');
    t.equal(
      (await rt.post('blocks/create', { id: 'Keep', type: 'TempSensorMock', data: { setting: 12 } })).status,
      201,
    );
    const before = (await rt.post('blocks/all/read')).body;

    const sub = await Recorder.connect(bus.brokerUrl(rt.app));
    t.teardown(() => sub.end());
    await untilSubscribed(rt.app);
    await sub.subscribe(topic('patch'));
    for (const action of ACTIONS) {
      for (let i = 0; i < PER_TOPIC; i++)
        await sub.publish(controllerTopic(action), malformed(i + ACTIONS.indexOf(action), action));
    }
    // Valid operations on every topic, sent after the flood: the subscription survived.
    const ops: Array<[string, object]> = [
      ['create', { id: 'After', serviceId: SERVICE_ID, type: 'TempSensorMock', data: { setting: 30 } }],
      ['write', { id: 'After', serviceId: SERVICE_ID, type: 'TempSensorMock', data: { setting: 31 } }],
      ['patch', { id: 'After', serviceId: SERVICE_ID, type: 'TempSensorMock', data: { setting: 32 } }],
      ['delete', { id: 'After', serviceId: SERVICE_ID }],
    ];
    for (const [action, body] of ops) await sub.publish(controllerTopic(action), JSON.stringify(body));
    await sub.waitFor((m) => m.json().data.deleted.includes('After'), 'the patch of the final MQTT delete', 5000);
    const afterPatches = sub.on(topic('patch')).map((m) => m.json());
    t.same(
      afterPatches.map((p) => (p.data.deleted.length ? 'deleted' : p.data.changed[0].data.setting.value)),
      [30, 31, 32, 'deleted'],
      'each valid MQTT operation after the flood was applied, and only those',
    );

    t.equal((await rt.post('system/ping')).status, 200, 'REST still answers');
    t.same(
      (await rt.post('blocks/all/read')).body.filter((b: any) => b.id !== 'SysInfo'),
      before.filter((b: any) => b.id !== 'SysInfo'),
      'no block created, changed or deleted by the flood',
    );
    t.equal(rt.app.mqtt.connected, true, 'still connected');

    const logged = lines.filter((l) => /^mqtt blocks\/\w+ dropped/.test(l.msg));
    // Everything addressed to us or unreadable is counted; the log gets one line per topic a
    // minute (src/log/limit.ts), with its reason.
    const counted = (rt.app.status().mqtt as { dropped: { blockApi: number } }).dropped.blockApi;
    t.ok(counted >= ACTIONS.length * PER_TOPIC * 0.8, `${counted} dropped messages counted`);
    t.ok(logged.length >= 1 && logged.length <= ACTIONS.length, `${logged.length} lines logged, at most one per topic`);
    t.ok(
      logged.every((l) => typeof l.reason === 'string' && l.reason.length > 0),
      'each with its reason',
    );
  });
}
