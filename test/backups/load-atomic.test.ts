// A backup load replaces the blocks and the controller's datastore documents (its units, its alert
// rules): one change to the brewer. They were committed in two transactions, blocks first, so a
// write failing between them (the card full or failing just then, a kill -9 in between) left the
// backup's blocks beside the old documents, in memory and after a restart, while the answer said
// the load had failed. Here the documents table refuses the write (a trigger on the real
// database file, as a failing card would refuse it).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import Database from '../../src/store/sqlite.js';
import { startApp } from '../helpers/app.js';

t.test('a backup load whose documents cannot be written changes nothing, not just the blocks', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-load-atomic-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  let app = await startApp({}, { dataDir, listen: false });
  const units = (temperature: string) => ({ namespace: 'edge-one', id: 'units', temperature });
  await app.post('blocks/create', { id: 'From Backup', type: 'TempSensorMock', data: { setting: 20 } });
  t.equal((await app.post('/history/datastore/set', { value: units('degF') })).status, 200);
  const backup = (await app.post('blocks/backup/save')).body;
  await app.post('blocks/delete', { id: 'From Backup' });
  await app.post('blocks/create', { id: 'Now', type: 'TempSensorMock', data: { setting: 18 } });
  t.equal((await app.post('/history/datastore/set', { value: units('degC') })).status, 200);
  const before = (await app.post('blocks/all/read/stored')).body;

  const db = new Database(path.join(dataDir, 'edgeblocks.db'));
  db.exec(`CREATE TRIGGER refuse BEFORE UPDATE ON documents BEGIN SELECT RAISE(ABORT, 'refused'); END`);
  const load = await app.post('blocks/backup/load', backup);
  t.not(load.status, 200, `the load fails (${load.status} ${load.body?.message})`);
  t.equal((await app.post('blocks/read', { id: 'From Backup' })).status, 404, 'the running blocks are as they were');
  t.same((await app.post('blocks/all/read/stored')).body, before, 'the blocks are as they were');
  t.same((await app.post('/history/datastore/get', units('')).then((r) => r.body)).value, units('degC'));
  await app.close();
  db.exec('DROP TRIGGER refuse');
  db.close();

  app = await startApp({}, { dataDir, listen: false });
  t.teardown(() => app.close());
  t.same((await app.post('blocks/all/read/stored')).body, before, 'after a restart too');
  t.same((await app.post('/history/datastore/get', units('')).then((r) => r.body)).value, units('degC'));
  t.equal((await app.post('blocks/backup/load', backup)).status, 200, 'once the write goes through, it loads');
  t.equal((await app.post('blocks/read', { id: 'From Backup' })).status, 200);
  t.equal((await app.post('blocks/read', { id: 'Now' })).status, 404);
});

t.test("a backup load tells of its documents' changes only once they are committed", async (t) => {
  const app = await startApp({}, { listen: false });
  t.teardown(() => app.close());
  await app.post('blocks/create', { id: 'Probe', type: 'TempSensorMock', data: {} });
  const value = { namespace: 'edge-one', id: 'units', temperature: 'degF' };
  t.equal((await app.post('/history/datastore/set', { value })).status, 200);
  const backup = (await app.post('blocks/backup/save')).body;
  t.equal((await app.post('/history/datastore/set', { value: { ...value, temperature: 'degC' } })).status, 200);
  // The units and alert rules apply a change, and MQTT publishes it, as they hear of it: heard
  // inside the load's transaction, a commit that then failed would leave them applied, unstored.
  const heard: boolean[] = [];
  app.app.documents.on('changed', () => heard.push(app.app.db.inTransaction));
  t.equal((await app.post('blocks/backup/load', backup)).status, 200);
  t.same(heard, [false], 'heard once, outside the transaction');
  t.equal((await app.post('/history/datastore/get', value)).body.value.temperature, 'degF');
});
