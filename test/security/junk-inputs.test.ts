// Every log line a remote can cause is limited (issue 45.4): junk sent to every input surface (each
// REST route, each MQTT topic the service subscribes, the websockets, the broker's ports, Home
// Assistant commands and configs) leaves a handful of lines, one per kind a minute, not one per
// message. Before, 20,000 Home Assistant commands to unknown entities wrote 20,000 warnings.
import { connect } from 'node:net';
import t from 'tap';
import WebSocket from 'ws';
import { createLogger } from '../../src/log.js';
import { startApp } from '../helpers/app.js';
import { Recorder, SERVICE_ID, sleep, untilSubscribed } from '../mqtt/fixtures.js';

const concrete = (url: string) => url.replace(/:[^/]+/g, 'x').replace(/\*$/, 'index.html');
const deep = '['.repeat(100_000) + ']'.repeat(100_000);

t.test('junk on every input surface leaves a few limited lines, not one per message', async (t) => {
  const lines: Array<{ level: number; msg: string }> = [];
  const log = createLogger('info', {}, { write: (s: string) => lines.push(JSON.parse(s)) });
  const rt = await startApp({ homeAssistant: 'true', emitInterval: '1000' }, { log });
  t.teardown(() => rt.close());
  await untilSubscribed(rt.app);
  await rt.post('blocks/create', { id: 'Beer Sensor', type: 'TempSensorMock', data: { setting: 20 } });
  await sleep(500);
  const from = lines.length;
  let sent = 0;

  // REST: bodies no parser takes (not JSON, too deep, too large) on every route that takes one, junk
  // queries on the others. Refused before any handler runs: nothing changes, nothing restarts.
  const http = rt.app.http;
  for (const route of http.routeTable()) {
    const url = concrete(route.url);
    if (route.method === 'HEAD' || url.endsWith('/events') || url === '/eventbus' || url.endsWith('/stream')) continue;
    if (route.method === 'GET') {
      for (let i = 0; i < 20; i++, sent++) await http.inject({ method: 'GET', url: `${url}?%zz=${i}&a[=]` });
      continue;
    }
    for (const payload of ['{"id": ', deep, `"${'x'.repeat(1.2e6)}"`, '<xml/>'])
      for (let i = 0; i < 5; i++, sent++)
        await http.inject({
          method: route.method as 'POST',
          url,
          headers: { 'content-type': 'application/json' },
          payload,
        });
  }

  // MQTT: junk on each subscribed topic, 20,000 Home Assistant commands to unknown entities,
  // foreign configs under this controller's node, and a message over the read limit.
  const pub = await Recorder.connect(`mqtt://127.0.0.1:${rt.app.mqtt.brokerPort}`);
  t.teardown(() => pub.end());
  const junk = ['{', 'null', '[1,2]', deep, JSON.stringify({ serviceId: SERVICE_ID, id: 42 })];
  const topics = [
    ...['create', 'write', 'patch', 'delete'].flatMap((a) => [`svc/controller/blocks/${a}`, `svc/spark/blocks/${a}`]),
    `svc/datastore/${SERVICE_ID}`,
    'svc/history/junk',
    'svc/fleet/junk',
    `svc/fleet/${'x'.repeat(500)}`,
  ];
  for (const topic of topics) for (let i = 0; i < 200; i++, sent++) await pub.publish(topic, junk[i % junk.length]!);
  for (let i = 0; i < 20_000; i++, sent++) void pub.publish(`svc/ha/${SERVICE_ID}/${1000 + i}/set/setting`, '21');
  for (let i = 0; i < 500; i++, sent++) void pub.publish(`svc/ha/${SERVICE_ID}/100/set/setting`, 'hot');
  for (let i = 0; i < 500; i++, sent++)
    void pub.publish(`homeassistant/sensor/edgeblocks_${SERVICE_ID}/${5000 + i}_value/config`, '{}', true);
  for (let i = 0; i < 3; i++, sent++) await pub.publish('svc/controller/blocks/create', Buffer.alloc(1.5e6, 0x20));

  // Websockets: junk commands on the history stream; /eventbus and the broker's port: bytes that
  // are not MQTT, and packets announced over the broker's limit.
  const origin = rt.base.slice(0, rt.base.length - SERVICE_ID.length - 1).replace(/^http/, 'ws');
  const ws = new WebSocket(`${origin}/history/timeseries/stream`);
  await new Promise((r) => ws.once('open', r));
  for (let i = 0; i < 300; i++, sent++)
    ws.send(
      [
        'nope',
        deep.slice(0, 20_000) + deep.slice(-20_000),
        '{"id":"a","command":"ranges","query":{"fields":"x"}}',
        '{"x":1}',
      ][i % 4]!,
    );
  for (let i = 0; i < 20; i++, sent++) {
    const bus = new WebSocket(`${origin}/eventbus`, 'mqtt');
    bus.on('error', () => undefined);
    await new Promise((r) => bus.once('open', r));
    bus.send(Buffer.from('GET / HTTP/1.1\r\n\r\n'));
    const tcp = connect(rt.app.mqtt.brokerPort!, '127.0.0.1');
    tcp.on('error', () => undefined);
    tcp.write(Buffer.from([0x30, 0xff, 0xff, 0xff, 0x7f])); // a PUBLISH announcing 256 MB
    await sleep(10);
    bus.terminate();
    tcp.destroy();
  }
  await new Promise((r) => setTimeout(r, 2000));
  ws.terminate();

  const caused = lines.slice(from).filter((l) => l.level >= 30);
  const byMessage = new Map<string, number>();
  for (const l of caused) {
    const kind = l.msg.replace(/\d+/g, 'N').slice(0, 60);
    byMessage.set(kind, (byMessage.get(kind) ?? 0) + 1);
  }
  t.ok(sent > 25_000, `${sent} junk messages and requests sent`);
  t.ok(
    caused.length <= 40,
    `${caused.length} lines logged:\n${[...byMessage].map(([m, n]) => `${n} x ${m}`).join('\n')}`,
  );
  t.ok(
    [...byMessage.values()].every((n) => n <= 3),
    'no kind of line more than a few times',
  );
  t.match(
    caused.map((l) => l.msg).join('\n'),
    /home assistant command on .* dropped: no such entity/,
    'the unknown entities are still reported',
  );
  t.equal((await rt.post('system/ping')).status, 200, 'and the service answers');
});
