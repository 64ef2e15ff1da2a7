// An /eventbus client that never reads, bridged to an external broker (a real Mosquitto): the
// embedded broker closes such a subscriber past MQTT_CLIENT_QUEUE_BYTES (slow-clients.test.ts),
// the bridge piped the broker's bytes to it and simply stopped reading from the broker when it
// stalled. The client stayed connected for ever, and what it did not take piled up in the broker,
// which every other client uses (often on the same Pi). It is closed and counted the same way now.
import type { Socket } from 'node:net';
import mqttPacket from 'mqtt-packet';
import t from 'tap';
import WebSocket from 'ws';
import { MQTT_CLIENT_QUEUE_BYTES } from '../../src/shared/limits.js';
import { startApp } from '../helpers/app.js';
import { startMosquitto } from '../helpers/mosquitto.js';
import { Recorder, SERVICE_ID, sleep } from '../mqtt/fixtures.js';

t.test('an /eventbus subscriber bridged to Mosquitto that never reads is closed and counted', async (t) => {
  const broker = await startMosquitto();
  t.teardown(() => broker.stop());
  const rt = await startApp({ mqttUrl: broker.url });
  t.teardown(() => rt.close());
  const publisher = await Recorder.connect(broker.url);
  t.teardown(() => publisher.end());
  const reader = await Recorder.connect(broker.url);
  t.teardown(() => reader.end());
  await reader.subscribe('flood/#');

  const ws = new WebSocket(rt.base.replace(/^http/, 'ws').replace(`/${SERVICE_ID}`, '/eventbus'), 'mqtt');
  t.teardown(() => ws.terminate());
  await new Promise((r) => ws.once('open', r));
  let closed = false;
  ws.once('close', () => (closed = true));
  ws.send(
    Buffer.concat([
      mqttPacket.generate({
        cmd: 'connect',
        clientId: 'slow-ws',
        protocolVersion: 4,
        clean: true,
        keepalive: 0,
      } as any),
      mqttPacket.generate({ cmd: 'subscribe', messageId: 1, subscriptions: [{ topic: 'flood/#', qos: 0 }] } as any),
    ]),
  );
  await sleep(300);
  (ws as unknown as { _socket: Socket })._socket.pause();

  // Many times the limit, more than the sockets' buffers on the way take.
  const payload = Buffer.alloc(64 * 1024, 'x');
  const total = 40 * MQTT_CLIENT_QUEUE_BYTES;
  for (let sent = 0; sent < total && (rt.app.status() as any).mqtt.slowClientsClosed === 0; sent += payload.length)
    await publisher.publish('flood/big', payload);
  const deadline = Date.now() + 10_000;
  while ((rt.app.status() as any).mqtt.slowClientsClosed === 0 && Date.now() < deadline) await sleep(100);
  t.equal((rt.app.status() as any).mqtt.slowClientsClosed, 1, 'the client that does not read is closed, counted');
  (ws as unknown as { _socket: Socket })._socket.resume();
  const until = Date.now() + 5000;
  while (!closed && Date.now() < until) await sleep(50);
  t.ok(closed, 'its websocket is closed');

  const from = reader.messages.length;
  await publisher.publish('flood/after', 'still here');
  await reader.waitFor((m) => m.topic === 'flood/after', 'a reading client of the broker goes on', 5000, from);
  t.pass('the broker serves its other clients');
});
