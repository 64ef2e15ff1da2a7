// Home Assistant entities of blocks that are gone must not stay retained on the broker. Two ways
// they stayed, each growing with ordinary churn over weeks:
// - a backup load that put a block without entities at the nid of one with entities (backups
//   carry their nids) left that block's config and state retained: Home Assistant kept showing
//   the old sensor, online, its value frozen, until the service's client next reconnected (with
//   the embedded broker: never while the service runs);
// - blocks deleted while the link to an external broker was down (the publishes that clear them
//   are dropped then) left their retained state `<root>/ha/<service>/<nid>` for good: the sweep on
//   reconnect cleared their configs only. One retained topic per such block, nids never reused.
import net from 'node:net';
import mqtt from 'mqtt';
import t, { type Test } from 'tap';
import { startApp, type RunningApp } from '../helpers/app.js';
import { startMosquitto } from '../helpers/mosquitto.js';
import { until } from '../helpers/until.js';

const NODE = 'edgeblocks_edge-one';

/** The block entities' retained topics on the broker (configs and states), read by a new subscriber. */
async function retainedEntities(url: string): Promise<string[]> {
  const client = await mqtt.connectAsync(url, { reconnectPeriod: 0 });
  const got = new Set<string>();
  client.on('message', (topic, payload, packet) => {
    if (packet.retain && payload.length > 0) got.add(topic);
  });
  await client.subscribeAsync([`homeassistant/+/${NODE}/+/config`, 'svc/ha/edge-one/+']);
  // Retained messages follow the SUBACK at once; a marker published after them ends the read.
  await client.subscribeAsync('edge-test/marker');
  const seen = new Promise<void>((resolve) =>
    client.on('message', (topic) => topic === 'edge-test/marker' && resolve()),
  );
  await client.publishAsync('edge-test/marker', 'x');
  await seen;
  await client.endAsync();
  return [...got].filter((k) => !k.includes('/alert_') && !k.endsWith('/availability')).sort();
}

async function ok(rt: RunningApp, route: string, body?: unknown): Promise<any> {
  const res = await rt.post(route, body);
  if (res.status >= 300) throw new Error(`${route}: ${res.status} ${res.raw}`);
  return res.body;
}

t.test('a backup load that puts a block without entities at a nid clears the entities there', async (t) => {
  const rt = await startApp({ homeAssistant: 'true', emitInterval: '200' });
  t.teardown(() => rt.close());
  const url = `mqtt://127.0.0.1:${rt.app.mqtt.brokerPort}`;
  await ok(rt, 'blocks/create', { id: 'pins', type: 'MockPins', data: {} });
  const pins = await ok(rt, 'blocks/backup/save');
  const nid = pins.blocks.find((b: { id: string }) => b.id === 'pins').nid as number;
  // The same backup with a sensor where the pins are: loaded in turn, as a brewer switching setups.
  const sensor = {
    ...pins,
    blocks: pins.blocks.map((b: { id: string }) =>
      b.id === 'pins' ? { ...b, id: 'Beer Sensor', type: 'TempSensorMock', data: { setting: 20 } } : b,
    ),
  };
  const sensorTopics = [`homeassistant/sensor/${NODE}/${nid}_value/config`, `svc/ha/edge-one/${nid}`];
  for (let cycle = 0; cycle < 3; cycle++) {
    await ok(rt, 'blocks/backup/load', sensor);
    await until(() => rt.app.runtime.find('Beer Sensor') !== undefined, 'the sensor loaded');
    t.same(await retainedEntities(url), sensorTopics, `cycle ${cycle}: the sensor's entity`);
    await ok(rt, 'blocks/backup/load', pins);
    t.same(
      await retainedEntities(url),
      [],
      `cycle ${cycle}: pins at nid ${nid} have no entity; the sensor's config and state are gone`,
    );
  }
});

/** A TCP link between the service and the broker that can be cut and restored (a network outage). */
async function cuttableLink(t: Test, port: number): Promise<{ url: string; cut(): void; restore(): void }> {
  let up = true;
  const open = new Set<net.Socket>();
  const server = net.createServer((inner) => {
    if (!up) return void inner.destroy();
    const outer = net.connect(port, '127.0.0.1');
    const close = () => {
      inner.destroy();
      outer.destroy();
      open.delete(inner);
      open.delete(outer);
    };
    for (const s of [inner, outer]) {
      open.add(s);
      s.on('error', close).on('close', close);
    }
    inner.pipe(outer).pipe(inner);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    for (const s of open) s.destroy();
    server.close();
  });
  return {
    url: `mqtt://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    cut() {
      up = false;
      for (const s of open) s.destroy();
    },
    restore() {
      up = true;
    },
  };
}

t.test('blocks deleted while the broker was away leave no retained state after the reconnect', async (t) => {
  const broker = await startMosquitto();
  t.teardown(() => broker.stop());
  const link = await cuttableLink(t, broker.port);
  const rt = await startApp({ mqttUrl: link.url, homeAssistant: 'true', emitInterval: '200' });
  t.teardown(() => rt.close());
  await until(() => rt.app.mqtt.connected, 'connected');
  await ok(rt, 'blocks/create', { id: 'Kept', type: 'TempSensorMock', data: { setting: 20 } });
  const kept = rt.app.runtime.find('Kept')!.nid;
  const keptTopics = [`homeassistant/sensor/${NODE}/${kept}_value/config`, `svc/ha/edge-one/${kept}`];
  for (let round = 0; round < 3; round++) {
    for (let i = 0; i < 4; i++)
      await ok(rt, 'blocks/create', { id: `churn ${round}.${i}`, type: 'TempSensorMock', data: { setting: 20 } });
    // The entities (the kept block's and four, a config and a state each) are on the broker before the link goes.
    const deadline = Date.now() + 10_000;
    while ((await retainedEntities(broker.url)).length < 2 * 5 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    link.cut();
    await until(() => !rt.app.mqtt.connected, 'the link down');
    for (let i = 0; i < 4; i++) await ok(rt, 'blocks/delete', { id: `churn ${round}.${i}` });
    link.restore();
    await until(() => rt.app.mqtt.connected, 'reconnected', 30_000);
    // The sweep's empty messages go out as the retained configs come in after the reconnect.
    const sweepDeadline = Date.now() + 10_000;
    let left = await retainedEntities(broker.url);
    while (left.length > keptTopics.length && Date.now() < sweepDeadline) {
      await new Promise((r) => setTimeout(r, 100));
      left = await retainedEntities(broker.url);
    }
    t.same(left, keptTopics, `round ${round}: only the live block's config and state are retained`);
  }
});
