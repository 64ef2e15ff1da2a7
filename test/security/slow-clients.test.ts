// Clients that never read are bounded (issue 45.3): every stream the service writes to a client
// holds a limited number of bytes the client has not taken; past it the client is closed with a
// reason and counted in system/status, while clients that read go on. The streams: /events (SSE),
// the history stream websocket, MQTT subscribers of the embedded broker over TCP and over
// /eventbus. The states are made big (blocks with 16 KiB of meta, emitted every 100 ms) so a
// client that does not read fills the kernel's buffers within a second or two.
// RSS under the two attacks: scripts/slow-clients.ts.
import { connect, type Socket } from 'node:net';
import mqttPacket from 'mqtt-packet';
import t, { type Test } from 'tap';
import WebSocket from 'ws';
import { HISTORY_STREAM_QUERIES } from '../../src/shared/limits.js';
import { startApp, type RunningApp } from '../helpers/app.js';
import { Recorder, SERVICE_ID, sleep, until } from '../mqtt/fixtures.js';

const status = (rt: RunningApp) => rt.app.status() as any;

async function bigApp(t: Test): Promise<RunningApp> {
  const rt = await startApp({ emitInterval: '100' });
  t.teardown(() => rt.close());
  const res = await rt.post(
    'blocks/batch/create',
    Array.from({ length: 40 }, (_, i) => ({
      id: `Sensor ${i}`,
      type: 'TempSensorMock',
      data: { setting: 20 },
      meta: { note: 'x'.repeat(15_000) },
    })),
  );
  t.equal(res.status, 201, 'big blocks');
  return rt;
}

/** A TCP connection that sends `request` and never reads what comes back. */
function neverReads(port: number, request: Buffer | string): Socket {
  const s = connect(port, '127.0.0.1');
  s.on('error', () => undefined);
  s.write(request);
  s.pause();
  return s;
}

t.test('/events: clients that never read are closed and counted; a reading one goes on', async (t) => {
  const rt = await bigApp(t);
  const { port } = new URL(rt.base);
  const request = `GET /${SERVICE_ID}/events HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`;
  const server = (rt.app.http as unknown as { server: { getConnections(cb: (e: unknown, n: number) => void): void } })
    .server;
  const connections = () => new Promise<number>((r) => server.getConnections((_e, n) => r(n)));
  const before = await connections();
  const slow = Array.from({ length: 5 }, () => neverReads(Number(port), request));
  t.teardown(() => slow.forEach((s) => s.destroy()));
  const reader = await fetch(`${rt.base}/events`);
  const body = reader.body!.getReader();
  let states = 0;
  let text = '';
  const reading = (async () => {
    for (;;) {
      const { value, done } = await body.read();
      if (done) return;
      text += Buffer.from(value).toString();
      const parts = text.split('\n\n');
      text = parts.pop()!;
      states += parts.filter((p) => p.startsWith('event: state')).length;
    }
  })();
  await until(() => status(rt).events.slowClosed === 5, 'the five slow clients closed', 30_000);
  t.match(status(rt).events, { clients: 1, slowClosed: 5 }, 'counted in system/status');
  // The server's connections are gone (what the kernel still holds for them is not the service's memory).
  const deadline = Date.now() + 5000;
  while ((await connections()) > before + 1 && Date.now() < deadline) await sleep(100);
  t.equal(await connections(), before + 1, 'only the reading client is still connected');
  const seen = states;
  await sleep(500);
  t.ok(states > seen, 'the reading client still gets states');
  await body.cancel();
  await reading.catch(() => undefined);
});

t.test('the history stream: a client that stops reading is closed; queries per socket are bounded', async (t) => {
  const rt = await bigApp(t);
  const ws = (path = '/history/timeseries/stream') =>
    new WebSocket(rt.base.replace(/^http/, 'ws').replace(`/${SERVICE_ID}`, path));
  await sleep(1500); // some points

  // A client that reads: past HISTORY_STREAM_QUERIES running at once, a command is answered with an error.
  const reader = ws();
  t.teardown(() => reader.terminate());
  await new Promise((r) => reader.once('open', r));
  const answers: any[] = [];
  reader.on('message', (d) => answers.push(JSON.parse(d.toString())));
  const fields = Array.from({ length: 40 }, (_, i) => `${SERVICE_ID}/Sensor ${i}/value[degC]`);
  for (let i = 0; i < 60; i++)
    reader.send(JSON.stringify({ id: `r${i}`, command: 'ranges', query: { fields, duration: '1h' } }));
  await until(() => answers.length >= 60, 'an answer to each command', 20_000);
  const refused = answers.filter((a) => /queries of this socket are running/.test(a.error ?? ''));
  t.ok(refused.length > 0, `${refused.length} commands refused while ${HISTORY_STREAM_QUERIES} ran`);
  t.ok(answers.filter((a) => a.data?.initial).length >= HISTORY_STREAM_QUERIES, 'the others answered');

  // A client that stops reading and sends 3000 commands: closed, counted.
  const slow = ws();
  t.teardown(() => slow.terminate());
  await new Promise((r) => slow.once('open', r));
  const closed = new Promise<number>((r) => slow.once('close', (code) => r(code)));
  (slow as unknown as { _socket: Socket })._socket.pause();
  for (let i = 0; i < 3000; i++)
    slow.send(JSON.stringify({ id: `q${i % 100}`, command: 'ranges', query: { fields, duration: '1h' } }));
  await until(() => status(rt).history.stream.slowClosed >= 1, 'the slow client closed', 30_000);
  (slow as unknown as { _socket: Socket })._socket.resume();
  t.ok([1008, 1006].includes(await closed), 'its socket is closed');
  t.equal(reader.readyState, WebSocket.OPEN, 'the reading client is still open');
});

t.test('MQTT subscribers of the embedded broker that never read are closed; readers stay', async (t) => {
  const rt = await bigApp(t);
  const port = rt.app.mqtt.brokerPort!;
  const packets = Buffer.concat([
    mqttPacket.generate({ cmd: 'connect', clientId: 'slow-tcp', protocolVersion: 4, clean: true, keepalive: 0 } as any),
    mqttPacket.generate({ cmd: 'subscribe', messageId: 1, subscriptions: [{ topic: '#', qos: 0 }] } as any),
  ]);
  const reader = await Recorder.connect(`mqtt://127.0.0.1:${port}`);
  t.teardown(() => reader.end());
  await reader.subscribe('svc/state/+');
  const tcp = neverReads(port, packets);
  t.teardown(() => tcp.destroy());
  await until(() => status(rt).mqtt.slowClientsClosed >= 1, 'the TCP subscriber closed', 30_000);

  // The same over /eventbus.
  const ws = new WebSocket(rt.base.replace(/^http/, 'ws').replace(`/${SERVICE_ID}`, '/eventbus'), 'mqtt');
  t.teardown(() => ws.terminate());
  await new Promise((r) => ws.once('open', r));
  ws.send(packets);
  await sleep(200);
  (ws as unknown as { _socket: Socket })._socket.pause();
  await until(() => status(rt).mqtt.slowClientsClosed >= 2, 'the /eventbus subscriber closed', 30_000);

  const from = reader.messages.length;
  await reader.waitFor((m) => m.topic === `svc/state/${SERVICE_ID}`, 'states still reach a reader', 5000, from);
  t.pass('a reading subscriber is not closed');
});
