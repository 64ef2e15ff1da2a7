// A block named "__proto__" was created, but the history message is an object keyed by block id:
// that key set the object's prototype instead of adding the block, so its values were never
// stored in the controller's own history, and the published message (its bytes carry the key)
// was dropped whole by every other reader ("may not contain a __proto__ key"). The id is refused
// now, by create, rename, MQTT and backup load alike (they share the body check).
import t from 'tap';
import { startApp } from '../helpers/app.js';

t.test('"__proto__" cannot name a block: create, rename and backup load refuse it, naming the field', async (t) => {
  const { post, close } = await startApp({}, { listen: false });
  t.teardown(close);
  const created = await post('blocks/create', { id: '__proto__', type: 'TempSensorMock', data: { setting: 20 } });
  t.equal(created.status, 422, created.raw);
  t.same(
    created.body.validation.map((v: { path: string }) => v.path),
    ['id'],
  );
  t.match(created.body.message, /__proto__/);

  t.equal((await post('blocks/create', { id: 'Beer Sensor', type: 'TempSensorMock', data: {} })).status, 201);
  const renamed = await post('blocks/rename', { existing: 'Beer Sensor', desired: '__proto__' });
  t.equal(renamed.status, 422, renamed.raw);
  t.same(
    renamed.body.validation.map((v: { path: string }) => v.path),
    ['desired'],
  );

  const backup = (await post('blocks/backup/save')).body;
  backup.blocks.push({ id: '__proto__', nid: 300, type: 'TempSensorMock', data: {} });
  const load = await post('blocks/backup/load', backup);
  t.equal(load.status, 200, load.raw);
  t.match(load.body.failures, [/__proto__.*id: must be/]);

  t.equal(
    (await post('blocks/create', { id: 'proto', type: 'TempSensorMock', data: {} })).status,
    201,
    'names close to it are ids',
  );
});
