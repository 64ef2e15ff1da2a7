// A backup holds the datastore documents of the service that saved it, in its own namespace
// (its service id, and below it). Loaded on a controller of another service id, they are not this
// controller's documents: Brewblox's Spark service neither carries documents in a backup (its
// `store` is its block names) nor moves a namespace, so none is moved here either. What the
// user sees is one message per namespace saying why they were left out and how to keep them,
// not one puzzle per document; the controller's own documents are kept.
import t from 'tap';
import { startApp } from '../helpers/app.js';

t.test("a backup of another service's id: its documents are reported once, with how to keep them", async (t) => {
  const other = await startApp({ serviceId: 'spark-one' }, { listen: false });
  t.teardown(other.close);
  for (const value of [
    { namespace: 'spark-one', id: 'units', temperature: 'degF' },
    { namespace: 'spark-one', id: 'dashboard-layout', columns: 3 },
    { namespace: 'spark-one:notes', id: 'batch-12', text: 'dry hopped day 4' },
  ])
    t.equal((await other.post('/history/datastore/set', { value })).status, 200);
  t.equal(
    (await other.post('blocks/create', { id: 'Beer Sensor', type: 'TempSensorMock', data: { setting: 19 } })).status,
    201,
  );
  const saved = await other.post('blocks/backup/save', {});
  t.equal(saved.status, 200);
  t.equal(saved.body.store.length, 3, 'the backup carries the three documents');

  const { post, close } = await startApp({}, { listen: false });
  t.teardown(close);
  const own = { namespace: 'edge-one', id: 'units', temperature: 'degC' };
  t.equal((await post('/history/datastore/set', { value: own })).status, 200);
  const load = await post('blocks/backup/load', saved.body);
  t.equal(load.status, 200, load.raw.slice(0, 400));
  t.equal(load.body.failures.length, 1, `one message: ${load.body.failures.join(' | ')}`);
  const [message] = load.body.failures;
  t.match(message, /3 documents/, 'it counts them');
  t.match(message, /'spark-one'/, 'names their namespace');
  t.match(message, /'edge-one'/, "and this controller's");
  t.match(message, /--service-id spark-one/, 'says how to keep them: a controller of that id');
  t.match(message, /namespace.*'edge-one'.*load.*again/, "or their namespace made this controller's");
  t.match(message, /kept/, "and that the controller's documents were kept");
  const docs = (await post('/history/datastore/mget', { namespace: 'edge-one', filter: '*' })).body.values;
  t.same(docs, [own], "the controller's documents are as they were");
  t.equal((await post('blocks/read', { id: 'Beer Sensor' })).status, 200, 'the blocks loaded');
});
