// A block id holding half of a surrogate pair ("half \ud83c", an emoji cut in two by a client
// that truncates UTF-16) was accepted by REST and the MQTT block API, shown and controlled
// under that name, and stored as UTF-8, which cannot hold it: after a restart the block was
// "half \ufffd\ufffd\ufffd", and every graph, alert and reference by the old id lost it. Such
// an id is refused now, by create, rename, MQTT and backup load alike (they share the body check).
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startApp } from '../helpers/app.js';
import { Recorder, until, untilSubscribed } from '../mqtt/fixtures.js';

const HALF = 'half \ud83c';

t.test('an id with a lone surrogate is refused, naming the field; whole emoji stay ids', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-surrogate-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const rt = await startApp({ topicRoot: 'svc' }, { dataDir });
  t.teardown(() => rt.close());
  const { post, app } = rt;

  for (const id of [HALF, '\udc00 low first', `${'🍺'.repeat(99)}\ud83c`]) {
    const created = await post('blocks/create', { id, type: 'TempSensorMock', data: {} });
    t.equal(created.status, 422, `create ${JSON.stringify(id)}: ${created.raw}`);
    t.same(
      created.body.validation?.map((v: { path: string }) => v.path),
      ['id'],
    );
    t.match(created.body.message, /surrogate/);
  }

  t.equal((await post('blocks/create', { id: 'Beer 🍺', type: 'TempSensorMock', data: {} })).status, 201);
  const renamed = await post('blocks/rename', { existing: 'Beer 🍺', desired: HALF });
  t.equal(renamed.status, 422, renamed.raw);

  const backup = (await post('blocks/backup/save')).body;
  backup.blocks.push({ id: HALF, nid: 300, type: 'TempSensorMock', data: {} });
  const load = await post('blocks/backup/load', backup);
  t.equal(load.status, 200, load.raw);
  t.match(load.body.failures, [/id: must be/]);

  // Over MQTT: dropped and counted, as any invalid block.
  await untilSubscribed(app);
  const client = await Recorder.connect(`mqtt://127.0.0.1:${app.mqtt.brokerPort}`);
  t.teardown(() => client.end());
  const dropped = () => (app.status().mqtt as { dropped: { blockApi: number } }).dropped.blockApi;
  const before = dropped();
  await client.publish(
    'svc/controller/blocks/create',
    JSON.stringify({ serviceId: 'edge-one', id: HALF, type: 'TempSensorMock', data: {} }),
  );
  await until(() => dropped() > before, 'the MQTT create to be dropped');
  const ids = (await post('blocks/all/read')).body.map((b: { id: string }) => b.id);
  t.notOk(ids.includes(HALF), 'no block with the half emoji');

  // The ids it holds are the ones it shows after a restart.
  await rt.close();
  const again = await startApp({ topicRoot: 'svc' }, { dataDir, listen: false });
  t.teardown(() => again.close());
  const after = (await again.post('blocks/all/read')).body.map((b: { id: string }) => b.id);
  t.same(after.sort(), ids.sort(), 'the same ids after a restart');
});
