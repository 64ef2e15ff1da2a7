// The `store` of a backup the Brewblox Spark service saved before 2023 is its block-name store,
// `[{keys: [id, nid], data: {}}]`, not datastore documents. Loading such a backup (the UI sends
// the file as it is) must keep the controller's documents: the unit preference and alert rules.
import t, { type Test } from 'tap';
import { startApp } from '../helpers/app.js';

const UNITS = { namespace: 'edge-one', id: 'units', temperature: 'degF' };
const LAYOUT_DOC = { namespace: 'edge-one', id: 'dashboard-layout', columns: 3 };

async function withDocs(t: Test) {
  const app = await startApp({}, { listen: false });
  t.teardown(app.close);
  for (const value of [UNITS, LAYOUT_DOC]) t.equal((await app.post('/history/datastore/set', { value })).status, 200);
  return app;
}

const docs = async (post: (r: string, b?: unknown) => Promise<{ body: any }>) =>
  (await post('/history/datastore/mget', { namespace: 'edge-one', filter: '*' })).body.values
    .map((d: { id: string }) => d.id)
    .sort();

const sensor = {
  id: 'Beer Sensor',
  nid: 100,
  type: 'TempSensorMock',
  groups: [0],
  data: { setting: { __bloxtype: 'Quantity', unit: 'degC', value: 19 } },
};

t.test("a Spark service backup's block-name store keeps the controller's documents", async (t) => {
  const { post } = await withDocs(t);
  const res = await post('blocks/backup/load', {
    blocks: [sensor],
    store: [
      { keys: ['Beer Sensor', 100], data: {} },
      { keys: ['ActiveGroups', 1], data: {} },
    ],
  });
  t.equal(res.status, 200);
  t.same(await docs(post), ['dashboard-layout', 'units'], 'the documents are kept');
  t.same(res.body.failures, [], 'nothing of the backup failed');
  t.match(res.body.warnings, [/store: 2 entries .*Spark service.*block names/], 'one warning says what they were');
  const read = (await post('blocks/read', { id: 'Beer Sensor' })).body;
  t.equal(read.data.setting.unit, 'degF', 'the unit preference still applies');
});

t.test('a store of which nothing can be loaded changes no document', async (t) => {
  const { post } = await withDocs(t);
  const res = await post('blocks/backup/load', { blocks: [sensor], store: [{ title: 'no namespace, no id' }] });
  t.equal(res.status, 200);
  t.same(await docs(post), ['dashboard-layout', 'units'], 'the documents are kept');
  t.match(res.body.failures, [/store\.0\..*required/, /no document of the list could be taken.*kept as they were/]);
});

t.test(
  "an old Spark backup with an empty store (its block-name store, empty) keeps the controller's documents",
  async (t) => {
    const { post } = await withDocs(t);
    const res = await post('blocks/backup/load', { blocks: [sensor], store: [] });
    t.equal(res.status, 200);
    t.same(await docs(post), ['dashboard-layout', 'units'], 'the documents are kept');
    t.same(res.body.failures, []);
    t.equal((await post('blocks/read', { id: 'Beer Sensor' })).body.data.setting.unit, 'degF', 'the units still apply');
  },
);

t.test('a newer Spark backup (name, timestamp, firmware, device) with an empty store keeps them too', async (t) => {
  const { post } = await withDocs(t);
  const res = await post('blocks/backup/load', {
    name: 'autosave_blocks_spark-one_2022-05-01',
    timestamp: '2022-05-01T10:00:00Z',
    firmware: { firmware_version: 'f27f141c', proto_version: '5f3b4ec5' },
    device: { device_id: '123456789012345678901234' },
    blocks: [sensor],
    store: [],
  });
  t.equal(res.status, 200);
  t.same(await docs(post), ['dashboard-layout', 'units']);
});

t.test(
  "this controller's own backup with an empty store still empties the namespace (it had no documents)",
  async (t) => {
    const { post } = await withDocs(t);
    const own = { timestamp: '2026-11-01T10:00:00Z', version: '0.1.0', blocks: [sensor], store: [] };
    t.equal((await post('blocks/backup/load', own)).status, 200);
    t.same(await docs(post), []);
  },
);

t.test('a backup whose store holds documents replaces the namespace with them, whoever made it', async (t) => {
  const { post } = await withDocs(t);
  const res = await post('blocks/backup/load', { blocks: [sensor], store: [{ ...UNITS, temperature: 'degC' }] });
  t.equal(res.status, 200);
  t.same(await docs(post), ['units'], 'the namespace holds what the backup holds');
});
