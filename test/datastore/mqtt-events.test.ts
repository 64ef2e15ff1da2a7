// End to end over a real broker (the embedded one): REST calls -> change events on the bus,
// and units events from another datastore -> live block output.
import t from 'tap';
import mqtt from 'mqtt';
import { setTimeout as sleep } from 'node:timers/promises';
import { limit } from '../helpers/limits.js';
import { datastoreApp } from './helpers.js';

async function until(what: string, cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + limit(ms);
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

async function observer(url: string, filter: string) {
  const client = await mqtt.connectAsync(url, { protocolVersion: 4, reconnectPeriod: 0 });
  const messages: { topic: string; payload: any; retain: boolean }[] = [];
  client.on('message', (topic, payload, packet) =>
    messages.push({ topic, payload: JSON.parse(payload.toString()), retain: packet.retain }),
  );
  await client.subscribeAsync(filter, { qos: 0 });
  return { client, messages };
}

t.test('datastore calls publish change events on the broker', async (t) => {
  const h = await datastoreApp({ host: '127.0.0.1', mqttUrl: 'embedded', mqttPort: '0' });
  t.teardown(h.close);
  await h.app.start();
  await until('the app to connect', () => h.app.mqtt.connected);
  const url = `mqtt://127.0.0.1:${h.app.mqtt.brokerPort}`;
  const obs = await observer(url, 'svc/datastore/#');
  t.teardown(() => obs.client.endAsync());

  await h.ds('mset', {
    values: [
      { namespace: 'ui', id: 'a', n: 1 },
      { namespace: 'ui:dash', id: 'b' },
      { namespace: 'tool', id: 'c' },
    ],
  });
  await until('two events', () => obs.messages.length >= 2);
  await h.ds('set', { value: { namespace: 'ui', id: 'a', n: 1 } });
  await h.ds('delete', { namespace: 'ui', id: 'missing' });
  await h.ds('mdelete', { namespace: 'ui' });
  await h.ds('mdelete', { namespace: '', filter: 'ui*' });
  await until('the delete event', () => obs.messages.length >= 3);
  await sleep(300);
  const sorted = (m: typeof obs.messages) => [...m].sort((a, b) => (a.topic < b.topic ? -1 : 1));
  t.same(
    sorted(obs.messages.slice(0, 2)),
    [
      { topic: 'svc/datastore/tool', payload: { changed: [{ namespace: 'tool', id: 'c' }] }, retain: false },
      {
        topic: 'svc/datastore/ui',
        payload: {
          changed: [
            { namespace: 'ui', id: 'a', n: 1 },
            { namespace: 'ui:dash', id: 'b' },
          ],
        },
        retain: false,
      },
    ],
    'one changed event per top-level namespace',
  );
  t.same(
    obs.messages.slice(2),
    [{ topic: 'svc/datastore/ui', payload: { deleted: ['ui:a', 'ui:dash:b'] }, retain: false }],
    'the no-op set, delete and mdelete published nothing',
  );

  const late = await observer(url, 'svc/datastore/#');
  t.teardown(() => late.client.endAsync());
  await sleep(300);
  t.same(late.messages, [], 'events are not retained');
});

t.test('a units event from another datastore switches block output; it is not re-published', async (t) => {
  const h = await datastoreApp({ host: '127.0.0.1', mqttUrl: 'embedded', mqttPort: '0' });
  t.teardown(h.close);
  await h.post('blocks/create', { id: 'sp', type: 'SetpointSensorPair', data: { storedSetting: 20 } });
  await h.app.start();
  await until('the app to connect', () => h.app.mqtt.connected);
  const url = `mqtt://127.0.0.1:${h.app.mqtt.brokerPort}`;
  const obs = await observer(url, 'svc/datastore/#');
  t.teardown(() => obs.client.endAsync());

  const setting = async () => (await h.post('blocks/read', { id: 'sp' })).body.data.storedSetting;
  const remote = JSON.stringify({ changed: [{ namespace: 'edge-one', id: 'units', temperature: 'degF' }] });
  let sent = 0;
  // The app's subscription is made on connect; repeat until it has seen the event.
  await until('the units to switch', () => {
    if (h.app.units.prefs.temperature === 'degF') return true;
    sent++;
    void obs.client.publishAsync('svc/datastore/edge-one', remote);
    return false;
  });
  t.same(await setting(), { __objtype: 'Quantity', __bloxtype: 'Quantity', unit: 'degF', value: 68 });
  await sleep(300);
  t.equal(
    obs.messages.filter((m) => m.topic === 'svc/datastore/edge-one').length,
    sent,
    'only our own publishes: nothing echoed back by the app',
  );

  await obs.client.publishAsync('svc/datastore/edge-one', JSON.stringify({ deleted: ['edge-one:units'] }));
  await until('the units to reset', () => h.app.units.prefs.temperature === 'degC');
  t.same(await setting(), { __objtype: 'Quantity', __bloxtype: 'Quantity', unit: 'degC', value: 20 });
});
