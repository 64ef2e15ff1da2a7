// A block deleted while the broker is away: the empty retained messages that remove its entity
// cannot go out then, so at the next connect its config (swept as gone) and its retained state
// topic must both be cleared; the state topic stayed on the broker for good before.
// tags: slow (a real Mosquitto killed and restarted with its retained messages)
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { startApp } from '../helpers/app.js';
import { startMosquitto } from '../helpers/mosquitto.js';
import { Recorder, until } from '../mqtt/fixtures.js';

t.test('a block deleted while the broker is down leaves no retained config or state', async (t) => {
  const store = mkdtempSync(path.join(tmpdir(), 'edgeblocks-ha-outage-'));
  t.teardown(() => rmSync(store, { recursive: true, force: true }));
  chmodSync(store, 0o777); // mosquitto started as root writes as its own user
  // Every retained change is saved at once, so a kill -9 of the broker keeps them.
  const broker = await startMosquitto(undefined, [
    'persistence true',
    `persistence_location ${store}/`,
    'autosave_on_changes true',
    'autosave_interval 1',
  ]);
  t.teardown(() => broker.stop());
  const rt = await startApp({ mqttUrl: broker.url, homeAssistant: 'true', emitInterval: '200' });
  t.teardown(() => rt.close());
  const kept = await rt.post('blocks/create', { id: 'Kept', type: 'TempSensorMock', data: { setting: 20 } });
  const gone = await rt.post('blocks/create', { id: 'Gone', type: 'TempSensorMock', data: { setting: 21 } });
  t.equal(gone.status, 201, JSON.stringify(gone.body));
  const config = (nid: number) => `homeassistant/sensor/edgeblocks_edge-one/${nid}_value/config`;
  const state = (nid: number) => `svc/ha/edge-one/${nid}`;
  const watch = await Recorder.connect(broker.url);
  t.teardown(() => watch.end());
  await watch.subscribe(config(gone.body.nid), state(gone.body.nid), state(kept.body.nid));
  await watch.waitFor((m) => m.topic === state(gone.body.nid) && m.payload.length > 0, 'the state retained');
  await watch.waitFor((m) => m.topic === config(gone.body.nid) && m.payload.length > 0, 'the config retained');

  await broker.kill();
  await until(() => !rt.app.mqtt.connected, 'the service sees the broker gone');
  t.equal((await rt.post('blocks/delete', { id: 'Gone' })).status, 200);
  const from = watch.messages.length;
  await broker.restart();
  await until(() => rt.app.mqtt.connected, 'the service connected again', 15_000);
  // The watcher reconnects too and reads what the broker kept.
  await watch.waitFor((m) => m.topic === state(kept.body.nid), 'the kept block still announced', 15_000, from);
  await watch.waitFor(
    (m) => m.topic === config(gone.body.nid) && m.payload.length === 0,
    'the config cleared',
    10_000,
    from,
  );
  await watch.waitFor(
    (m) => m.topic === state(gone.body.nid) && m.payload.length === 0,
    'the state topic cleared',
    10_000,
    from,
  );
  const late = await Recorder.connect(broker.url);
  t.teardown(() => late.end());
  await late.subscribe(state(kept.body.nid), state(gone.body.nid));
  await late.waitFor((m) => m.topic === state(kept.body.nid), 'the kept state');
  t.same(
    late.on(state(gone.body.nid)).filter((m) => m.payload.length > 0),
    [],
    'a new subscriber finds no state of the deleted block',
  );
});
