// A backup load that gives the names to other nids (a backup from before two blocks' names were
// swapped, or another controller's): Home Assistant's entities are per nid, so each nid keeps its
// entity, named as the loaded block; one block's announcement must not clear another's. The
// published configs were kept by block name, and the second block cleared the first's entity.
import mqtt from 'mqtt';
import t from 'tap';
import { startApp } from '../helpers/app.js';
import { until } from '../helpers/until.js';

t.test('a backup load that swaps the nids of two names keeps both entities', async (t) => {
  const rt = await startApp({ homeAssistant: 'true', emitInterval: '200' });
  t.teardown(() => rt.close());
  const retained = new Map<string, any>();
  const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${rt.app.mqtt.brokerPort!}`, { reconnectPeriod: 0 });
  t.teardown(() => client.end(true));
  client.on('message', (topic, payload) => {
    if (topic.endsWith('/availability')) return;
    if (payload.length === 0) retained.delete(topic);
    else retained.set(topic, JSON.parse(payload.toString()));
  });
  await client.subscribeAsync(['homeassistant/sensor/+/+/config', 'svc/ha/edge-one/+']);
  const x = (await rt.post('blocks/create', { id: 'X', type: 'TempSensorMock', data: { setting: 10 } })).body;
  const y = (await rt.post('blocks/create', { id: 'Y', type: 'TempSensorMock', data: { setting: 30 } })).body;
  const config = (nid: number) => retained.get(`homeassistant/sensor/edgeblocks_edge-one/${nid}_value/config`);
  await until(() => config(x.nid)?.name === 'X' && config(y.nid)?.name === 'Y', 'both configs');

  const saved = await rt.post('blocks/backup/save');
  t.equal(saved.status, 200);
  const backup = saved.body;
  for (const b of backup.blocks) {
    if (b.id === 'X') b.nid = y.nid;
    else if (b.id === 'Y') b.nid = x.nid;
  }
  const loaded = await rt.post('blocks/backup/load', backup);
  t.equal(loaded.status, 200, JSON.stringify(loaded.body));
  t.equal((await rt.post('blocks/read', { id: 'X' })).body.nid, y.nid, 'X has the nid Y had');

  await until(() => config(x.nid)?.name === 'Y' && config(y.nid)?.name === 'X', 'configs named as loaded').catch(
    () => undefined,
  );
  t.equal(config(x.nid)?.name, 'Y', `the entity of nid ${x.nid} is there, named Y`);
  t.equal(config(y.nid)?.name, 'X', `the entity of nid ${y.nid} is there, named X`);
  await until(() => retained.get(`svc/ha/edge-one/${y.nid}`)?.value === 10, 'the state of X on its new nid').catch(
    () => undefined,
  );
  t.equal(retained.get(`svc/ha/edge-one/${y.nid}`)?.value, 10, 'each nid states its own block');
  t.equal(retained.get(`svc/ha/edge-one/${x.nid}`)?.value, 30);
});
