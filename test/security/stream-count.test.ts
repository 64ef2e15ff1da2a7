// How many clients may hold a stream at once is bounded, per kind: /events streams
// (MAX_EVENT_STREAMS), websockets of any route (MAX_WEBSOCKETS) and MQTT connections to the embedded
// broker (MAX_BROKER_CLIENTS). Each client's queue is bounded already (slow-clients.test.ts), but
// without a bound on their number, ten thousand clients that never read would hold gigabytes on a
// Pi. One past the bound is refused with the reason, the open ones go on, and a freed place is
// taken again.
import { connect } from 'node:net';
import mqtt, { MqttClient } from 'mqtt';
import t from 'tap';
import WebSocket from 'ws';
import { MAX_BROKER_CLIENTS, MAX_EVENT_STREAMS, MAX_WEBSOCKETS } from '../../src/shared/limits.js';
import { EmbeddedBroker } from '../../src/mqtt/broker.js';
import { memoryPair } from '../../src/mqtt/memory-pair.js';
import { silentLogger } from '../../src/log.js';
import { startApp } from '../helpers/app.js';
import { SERVICE_ID, sleep, until } from '../mqtt/fixtures.js';

/** `attempt` until it gives something (a place is freed once the server has seen the close). */
async function retry<T>(attempt: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 50; i++) {
    const got = await attempt();
    if (got !== undefined) return got;
    await sleep(100);
  }
  throw new Error('no place was freed');
}

t.test('/events: one stream past the bound is answered 503 with the reason; a closed one frees a place', async (t) => {
  const rt = await startApp({ emitInterval: '200' });
  t.teardown(() => rt.close());
  const streams = await Promise.all(
    Array.from({ length: MAX_EVENT_STREAMS }, () => fetch(`${rt.base}/events`).then((r) => r.body!.getReader())),
  );
  t.teardown(() => Promise.all(streams.map((s) => s.cancel().catch(() => undefined))));
  const status = () => (rt.app.status() as any).events;
  t.equal(status().clients, MAX_EVENT_STREAMS, `${MAX_EVENT_STREAMS} open`);

  const refused = await fetch(`${rt.base}/events`);
  t.equal(refused.status, 503, 'one more is refused');
  t.equal(refused.headers.get('retry-after'), '10', 'with a time to try again');
  const body = (await refused.json()) as { message: string };
  t.match(body.message, `${MAX_EVENT_STREAMS} event streams are open`, 'naming the bound');
  t.match(status(), { clients: MAX_EVENT_STREAMS, refused: 1 }, 'counted in system/status');

  // The open ones go on: a state arrives on the first.
  const decoder = new TextDecoder();
  let text = '';
  while (!/event: state/.test(text)) text += decoder.decode((await streams[0]!.read()).value);
  t.pass('an open stream still gets states');

  await streams.pop()!.cancel();
  await until(() => status().clients === MAX_EVENT_STREAMS - 1, 'the closed stream left');
  const again = await fetch(`${rt.base}/events`);
  t.equal(again.status, 200, 'a freed place is taken again');
  await again.body!.cancel();
});

/** Open a websocket; resolves with it when open, or with the refusal's status and text. */
function openSocket(url: string, protocol?: string): Promise<WebSocket | { status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, protocol);
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (d: Buffer) => {
        text += d.toString();
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    ws.once('error', reject);
  });
}

t.test('websockets: the history stream and /eventbus share one bound; one past it is answered 503', async (t) => {
  const rt = await startApp({});
  t.teardown(() => rt.close());
  const root = rt.base.replace(/^http/, 'ws').replace(`/${SERVICE_ID}`, '');
  const open: WebSocket[] = [];
  t.teardown(() => open.forEach((ws) => ws.terminate()));
  for (let i = 0; i < MAX_WEBSOCKETS; i++) {
    const ws = await openSocket(
      i % 2 ? `${root}/eventbus` : `${root}/history/timeseries/stream`,
      i % 2 ? 'mqtt' : undefined,
    );
    if (!(ws instanceof WebSocket)) throw new Error(`socket ${i} refused: ${ws.status} ${ws.text}`);
    open.push(ws);
  }
  for (const path of ['/history/timeseries/stream', '/eventbus']) {
    const refused = await openSocket(`${root}${path}`, path === '/eventbus' ? 'mqtt' : undefined);
    t.notOk(refused instanceof WebSocket, `${path}: one more is refused`);
    if (refused instanceof WebSocket) refused.terminate();
    else {
      t.equal(refused.status, 503, `${path}: 503`);
      t.match(refused.text, `${MAX_WEBSOCKETS} websockets are open`, `${path}: naming the bound`);
    }
  }

  // An open one still answers: a history stream command gets its reply.
  const reader = open[0]!;
  const answer = new Promise<any>((r) => reader.once('message', (d) => r(JSON.parse(d.toString()))));
  reader.send(JSON.stringify({ id: 'q', command: 'ranges', query: { fields: [], duration: '1h' } }));
  t.match(await answer, { id: 'q' }, 'an open socket still answers');

  const closing = open.pop()!;
  const closed = new Promise((r) => closing.once('close', r));
  closing.close();
  await closed;
  const freed = await retry(async () => {
    const ws = await openSocket(`${root}/history/timeseries/stream`);
    return ws instanceof WebSocket ? ws : undefined;
  });
  open.push(freed);
  t.pass('a freed place is taken again');
});

t.test(
  'the embedded broker: one connection past the bound gets CONNACK 3; the service itself is never refused',
  async (t) => {
    const rt = await startApp({ emitInterval: '200' });
    t.teardown(() => rt.close());
    const url = `mqtt://127.0.0.1:${rt.app.mqtt.brokerPort}`;
    const options = { protocolVersion: 4 as const, reconnectPeriod: 0, connectTimeout: 10_000 };
    const clients: MqttClient[] = [];
    t.teardown(() => clients.forEach((c) => c.end(true)));
    for (let i = 0; i < MAX_BROKER_CLIENTS; i++) clients.push(await mqtt.connectAsync(url, options));

    const error = await mqtt.connectAsync(url, options).then(
      (c) => {
        clients.push(c);
        return null;
      },
      (e: Error & { code?: number }) => e,
    );
    t.ok(error, 'one more is refused');
    t.equal(error?.code, 3, 'with CONNACK 3, server unavailable');
    t.match((rt.app.status() as any).mqtt.refused, { connect: 1 }, 'counted in system/status');

    // The open ones go on: the service's state still reaches a client.
    const reader = clients[0]!;
    await reader.subscribeAsync(`svc/state/${SERVICE_ID}`);
    const state = await new Promise<string>((r) => reader.once('message', (topic) => r(topic)));
    t.equal(state, `svc/state/${SERVICE_ID}`, 'states still go out');

    await clients.pop()!.endAsync();
    clients.push(await retry(() => mqtt.connectAsync(url, options).catch(() => undefined)));
    t.pass('a freed place is taken again');
  },
);

t.test(
  'the embedded broker counts clients logged in: sockets that never log in take no place; its own client is never refused',
  async (t) => {
    const broker = await EmbeddedBroker.start('127.0.0.1', 0, silentLogger);
    t.teardown(() => broker.close());
    const url = `mqtt://127.0.0.1:${broker.port}`;
    const idle = Array.from({ length: MAX_BROKER_CLIENTS + 10 }, () => {
      const s = connect(broker.port, '127.0.0.1');
      s.on('error', () => undefined);
      return s;
    });
    t.teardown(() => idle.forEach((s) => s.destroy()));
    await Promise.all(idle.map((s) => new Promise((r) => s.once('connect', r))));
    const options = { protocolVersion: 4 as const, reconnectPeriod: 0, connectTimeout: 10_000 };
    const clients: MqttClient[] = [];
    t.teardown(() => clients.forEach((c) => c.end(true)));
    for (let i = 0; i < MAX_BROKER_CLIENTS; i++) clients.push(await mqtt.connectAsync(url, options));
    t.pass(`${MAX_BROKER_CLIENTS} clients log in beside ${idle.length} sockets that sent no CONNECT`);
    const refused = await mqtt.connectAsync(url, options).then(
      (c) => (clients.push(c), null),
      (e: Error & { code?: number }) => e.code,
    );
    t.equal(refused, 3, 'one more client is refused');

    const own = new MqttClient(() => {
      const [client, server] = memoryPair();
      broker.handleOwn(server);
      return client as never;
    }, options);
    t.teardown(() => own.end(true));
    await new Promise<void>((resolve, reject) => {
      own.once('connect', () => resolve());
      own.once('error', reject);
    });
    t.pass("the service's own client connects while the broker is full");
  },
);
