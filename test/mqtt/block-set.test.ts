// The block set's id (`blockSet`) on MQTT as on the event stream: a backup load keeps the
// backup's nids and a new data dir numbers from 100 again, so a client that remembers blocks by
// nid (Brewblox UI, another dashboard reading the broker) needs it to tell a rename from another
// block that took the nid. The event stream's state and patch carried it; the retained state and
// the patch on the broker did not. The spec leaves the state data free (`data`: "the state
// data", an object), and Brewblox readers take the fields they know. A real Mosquitto, the app
// on a real data dir, the event stream read over a socket for comparison.
import t from 'tap';
import { startApp } from '../helpers/app.js';
import { readEvents } from '../helpers/event-stream.js';
import { startMosquitto } from '../helpers/mosquitto.js';
import { Recorder, topic, untilSubscribed } from './fixtures.js';

const INTERVAL = 200;
const SENSOR = 'Brew "Kettle" <b>🍺</b>';
const OTHER = "Fridge 'Sensor' 🧊 </script>";

t.test('the state and the patch on the broker carry the block set, new after a backup load', async (t) => {
  const broker = await startMosquitto();
  t.teardown(() => broker.stop());
  const rt = await startApp({ mqttUrl: broker.url, emitInterval: String(INTERVAL), history: 'off' });
  t.teardown(() => rt.close());
  await untilSubscribed(rt.app);
  t.equal((await rt.post('blocks/create', { id: SENSOR, type: 'TempSensorMock', data: {} })).status, 201);

  const streamSet = async () =>
    (await readEvents(`${rt.base}/events`, (ev) => ev.length >= 1)).events[0]!.data.blockSet as string;
  const set = await streamSet();

  const sub = await Recorder.connect(broker.url);
  t.teardown(() => sub.end());
  await sub.subscribe(topic('state'), topic('patch'));
  const retained = (await sub.waitFor((m) => m.retain && m.topic === topic('state'), 'the retained state')).json();
  t.equal(retained.data.blockSet, set, 'the retained state has the block set of the event stream');
  const withSensor = (
    await sub.waitFor(
      (m) => m.topic === topic('state') && m.json().data.blocks.some((b: { id: string }) => b.id === SENSOR),
      'a state with the block',
    )
  ).json();
  t.equal(withSensor.data.blockSet, set, 'beside the blocks it numbers');

  const renamedFrom = sub.messages.length;
  t.equal((await rt.post('blocks/rename', { existing: SENSOR, desired: OTHER })).status, 200);
  const renamed = await sub.waitFor((m) => m.topic.endsWith('/patch'), 'the rename patch', 5000, renamedFrom);
  t.equal(renamed.json().data.blockSet, set, 'a rename keeps it, in the patch');

  // Another controller's backup: its block has nid 100 too, under another name.
  const backup = (await rt.post('blocks/backup/save')).body as { blocks: Array<{ id: string; nid: number }> };
  const other = { ...backup, blocks: backup.blocks.map((b) => (b.id === OTHER ? { ...b, id: SENSOR } : b)) };
  const loadFrom = sub.messages.length;
  t.equal((await rt.post('blocks/backup/load', other)).status, 200);
  const patch = (await sub.waitFor((m) => m.topic.endsWith('/patch'), 'the load patch', 5000, loadFrom)).json();
  t.ok(patch.data.deleted.includes(OTHER), 'the load deleted the block');
  t.ok(
    patch.data.changed.some((b: { id: string; nid: number }) => b.id === SENSOR && b.nid === 100),
    'and brought another under its nid',
  );
  t.type(patch.data.blockSet, 'string');
  t.not(patch.data.blockSet, set, "the load's own patch has a new block set");
  const next = (
    await sub.waitFor(
      (m) =>
        m.topic === topic('state') &&
        m.json().data.blocks.some((b: { id: string; nid: number }) => b.id === SENSOR && b.nid === 100),
      'a state after the load',
      5000,
      loadFrom,
    )
  ).json();
  t.equal(next.data.blockSet, patch.data.blockSet, 'the states after it have the new one');
  t.equal(await streamSet(), patch.data.blockSet, 'as the event stream has');
});
