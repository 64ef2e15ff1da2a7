import t from 'tap';
import { startApp } from '../helpers/app.js';

t.test('stored backups: save, list, download, upload, load', async (t) => {
  const { post, close } = await startApp({}, { listen: false });
  t.teardown(close);
  await post('blocks/create', { id: 'Beer Sensor', type: 'TempSensorMock', data: { setting: 18 } });
  const saved = await post('blocks/backup/stored/save', { name: 'before-brew' });
  t.equal(saved.status, 200);
  t.equal(saved.body.name, 'before-brew');
  t.equal(saved.body.blocks.length, (await post('blocks/backup/save')).body.blocks.length);
  t.same((await post('blocks/backup/stored/all')).body, [{ name: 'before-brew' }]);
  t.same((await post('blocks/backup/stored/download', { name: 'before-brew' })).body, saved.body);
  const nameless = await post('blocks/backup/stored/upload', { blocks: [] });
  t.equal(nameless.status, 422, 'upload without a name');
  t.same(nameless.body.validation, [{ path: 'name', message: nameless.body.validation[0].message }], 'names name');
  const escaping = await post('blocks/backup/stored/upload', { name: '../x', blocks: [] });
  t.equal(escaping.status, 422, 'a name that would escape');
  t.match(escaping.body.message, /name: must be 1-100 letters, digits/);
  t.equal((await post('blocks/backup/stored/save', { name: '.hidden' })).status, 422, 'a name starting with a dot');
  t.equal((await post('blocks/backup/stored/download', { name: 'nope' })).status, 404);
  await post('blocks/create', { id: 'extra', type: 'TempSensorMock', data: {} });
  const load = await post('blocks/backup/stored/load', { name: 'before-brew' });
  t.same(load.body, { messages: [], failures: [], warnings: [] });
  t.equal((await post('blocks/read', { id: 'extra' })).status, 404, 'extra is gone');
  t.equal((await post('blocks/read', { id: 'Beer Sensor' })).body.data.setting.value, 18);
  const up = await post('blocks/backup/stored/upload', { ...saved.body, name: 'copy' });
  t.equal(up.status, 200);
  t.same((await post('blocks/backup/stored/all')).body.map((b: { name: string }) => b.name).sort(), [
    'before-brew',
    'copy',
  ]);
});

t.test('an upload holding a number JSON cannot hold (1E400) is refused by name, not stored as null', async (t) => {
  const { post, close } = await startApp({}, { listen: false });
  t.teardown(close);
  await post('blocks/create', { id: 'Beer Setpoint', type: 'SetpointSensorPair', data: { storedSetting: 20 } });
  const saved = JSON.stringify({ name: 'edited', ...(await post('blocks/backup/save')).body });
  const at = saved.indexOf('"storedSetting":');
  const text = `${saved.slice(0, at)}"storedSetting":1E400${saved.slice(saved.indexOf('}', at) + 1)}`;
  // Stored as given, the file said null: its load was a clean one that set the setpoint to 0 °C.
  const up = await post('blocks/backup/stored/upload', undefined, text);
  t.equal(up.status, 422);
  t.match(up.body.validation, [{ path: /^blocks\.\d+\.data\.storedSetting$/, message: /too large for JSON/ }]);
  t.same((await post('blocks/backup/stored/all')).body, [], 'nothing stored');
  t.equal((await post('blocks/read', { id: 'Beer Setpoint' })).body.data.storedSetting.value, 20);
});
