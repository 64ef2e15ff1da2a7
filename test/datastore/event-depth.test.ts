// A change event carries its documents a level deeper than the `set` body that stored them
// ({changed: [doc]} vs {value: doc}): a document the datastore takes is never a message the
// controller's own bus reader refuses as too deep, whether this controller or another datastore wrote it.
import t from 'tap';
import mqtt from 'mqtt';
import { setTimeout as sleep } from 'node:timers/promises';
import { MAX_JSON_DEPTH } from '../../src/shared/limits.js';
import { limit } from '../helpers/limits.js';
import { datastoreApp } from './helpers.js';

async function until(what: string, cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + limit(ms);
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** `{a: {a: ... 1}}` such that {value: {..., x: it}} nests exactly MAX_JSON_DEPTH deep. */
function deepest(): unknown {
  let x: unknown = 1;
  for (let i = 0; i < MAX_JSON_DEPTH - 2; i++) x = { a: x };
  return x;
}

t.test('documents nested as deep as set takes travel as change events, ours and another datastore’s', async (t) => {
  const h = await datastoreApp({ host: '127.0.0.1', mqttUrl: 'embedded', mqttPort: '0' });
  t.teardown(h.close);
  await h.app.start();
  await until('the app to connect and subscribe', () => h.app.mqtt.status().subscribed);
  const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${h.app.mqtt.brokerPort}`, {
    protocolVersion: 4,
    reconnectPeriod: 0,
  });
  t.teardown(() => client.endAsync());
  const seen: string[] = [];
  client.on('message', (_topic, payload) => seen.push(payload.toString()));
  await client.subscribeAsync('svc/datastore/edge-one', { qos: 0 });

  const layout = { namespace: 'edge-one', id: 'layout', x: deepest() };
  t.equal((await h.ds('set', { value: layout })).status, 200, 'the datastore takes it');
  await until('our event on the bus', () => seen.length === 1);
  t.same(JSON.parse(seen[0]!), { changed: [layout] });

  // Another datastore's units document with the same deep member: the controller follows it.
  // (Sent after our own event went out, so the app has read that one when this one is applied.)
  const units = { namespace: 'edge-one', id: 'units', temperature: 'degF', x: deepest() };
  await client.publishAsync('svc/datastore/edge-one', JSON.stringify({ changed: [units] }));
  await until('the units to switch', () => h.app.units.prefs.temperature === 'degF');
  t.equal(h.app.mqtt.status().dropped.other, 0, 'no datastore event was dropped as too deep');
});
