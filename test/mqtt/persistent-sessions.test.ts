// The embedded broker keeps no session for a client that went away. aedes keeps a persistent
// session (a CONNECT with clean session off) for good: its subscriptions, and every QoS 1 message
// on them queued in memory until the client comes back, with no limit (Mosquitto stops at 1000
// messages a client). Each client id that ever connected that way (a Node-RED flow since removed,
// `mosquitto_sub -c` with a made-up id, a script) held the controller's memory for weeks, growing
// with every QoS 1 message anyone published on its topics. The embedded broker now takes every
// session as clean: a client coming back finds no session (`sessionPresent` false, as after a
// broker restart, which MQTT clients handle by subscribing again) and nothing was queued for it.
import mqtt from 'mqtt';
import t from 'tap';
import { startApp } from '../helpers/app.js';

const CLIENTS = 10;
const MESSAGES = 20;

/** Messages on `edge-test/data` a client gets right after connecting, ended by a marker published after them. */
async function queuedFor(url: string, clientId: string): Promise<{ sessionPresent: boolean; queued: number }> {
  let queued = 0;
  const client = mqtt.connect(url, { reconnectPeriod: 0, clean: false, clientId });
  client.on('message', (topic) => {
    if (topic === 'edge-test/data') queued++;
  });
  const connack = await new Promise<mqtt.IConnackPacket>((resolve, reject) => {
    client.once('connect', resolve);
    client.once('error', reject);
  });
  await client.subscribeAsync('edge-test/marker');
  const marker = new Promise<void>((resolve) =>
    client.on('message', (topic) => topic === 'edge-test/marker' && resolve()),
  );
  await client.publishAsync('edge-test/marker', 'x');
  await marker;
  await client.endAsync();
  return { sessionPresent: connack.sessionPresent, queued };
}

t.test('clients that went away leave no session and nothing queued in the embedded broker', async (t) => {
  const rt = await startApp({ emitInterval: '200' });
  t.teardown(() => rt.close());
  const url = `mqtt://127.0.0.1:${rt.app.mqtt.brokerPort}`;
  for (let i = 0; i < CLIENTS; i++) {
    const c = await mqtt.connectAsync(url, { reconnectPeriod: 0, clean: false, clientId: `edge-test-${i}` });
    await c.subscribeAsync('edge-test/data', { qos: 1 });
    await c.endAsync();
  }
  const publisher = await mqtt.connectAsync(url, { reconnectPeriod: 0 });
  for (let i = 0; i < MESSAGES; i++) await publisher.publishAsync('edge-test/data', 'x'.repeat(1000), { qos: 1 });
  await publisher.endAsync();

  const back = [];
  for (let i = 0; i < CLIENTS; i++) back.push(await queuedFor(url, `edge-test-${i}`));
  t.same(
    back.filter((b) => b.sessionPresent).length,
    0,
    `none of ${CLIENTS} clients that went away finds a session kept`,
  );
  t.same(
    back.reduce((n, b) => n + b.queued, 0),
    0,
    `no message was held for them (${MESSAGES} QoS 1 messages published while they were away)`,
  );

  // Online, a QoS 1 subscription still works: the messages arrive as they are published.
  const live = await mqtt.connectAsync(url, { reconnectPeriod: 0, clean: false, clientId: 'edge-test-live' });
  t.teardown(() => live.end(true));
  let got = 0;
  live.on('message', () => got++);
  await live.subscribeAsync('edge-test/data', { qos: 1 });
  const sender = await mqtt.connectAsync(url, { reconnectPeriod: 0 });
  for (let i = 0; i < 3; i++) await sender.publishAsync('edge-test/data', 'y', { qos: 1 });
  await sender.endAsync();
  const deadline = Date.now() + 5000;
  while (got < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  t.equal(got, 3, 'a connected QoS 1 subscriber gets every message');
});
