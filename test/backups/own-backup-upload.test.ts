// A backup the controller answered to blocks/backup/save loads back through blocks/backup/load and
// stored/upload (moving to another Pi: download, then upload there), whatever its datastore
// documents make of it: the datastore takes documents up to 1 MiB each, as deep as a body may
// nest, so the backup holding them is larger and one level deeper than any one request that set them.
import t, { type Test } from 'tap';
import { request } from 'node:http';
import { MAX_JSON_DEPTH } from '../../src/shared/limits.js';
import { startApp } from '../helpers/app.js';

const docsOf = (backup: { store?: { namespace: string; id: string }[] }) =>
  (backup.store ?? []).map((d) => `${d.namespace}:${d.id}`).sort();

async function roundTrip(t: Test, values: Record<string, unknown>[]) {
  const { post, close } = await startApp({}, { listen: false });
  t.teardown(close);
  for (const value of values)
    t.equal((await post('/history/datastore/set', { value })).status, 200, 'the datastore takes the document');
  const saved = await post('blocks/backup/save', {});
  t.equal(saved.status, 200);
  const want = values.map((v) => `${v.namespace}:${v.id}`).sort();
  t.same(docsOf(saved.body), want);

  const load = await post('blocks/backup/load', saved.body);
  t.equal(load.status, 200, `blocks/backup/load takes it (${load.body?.message ?? 'ok'})`);
  const upload = await post('blocks/backup/stored/upload', { ...saved.body, name: 'moved' });
  t.equal(upload.status, 200, `stored/upload takes it (${upload.body?.message ?? 'ok'})`);
  t.equal((await post('/history/datastore/mdelete', { namespace: 'edge-one', filter: '*' })).status, 200);
  const stored = await post('blocks/backup/stored/load', { name: 'moved' });
  t.equal(stored.status, 200, `the uploaded backup loads (${stored.body?.message ?? 'ok'})`);
  const back = await post('/history/datastore/mget', { namespace: 'edge-one' });
  t.same(back.body.values, values, 'every document is back as it was set');
}

t.test('a backup of documents adding up to more than a request body loads back', async (t) => {
  const values = [1, 2, 3].map((i) => ({ namespace: 'edge-one', id: `layout-${i}`, s: 'x'.repeat(500_000) }));
  await roundTrip(t, values);
});

t.test('a backup of a document nested as deep as the datastore takes loads back', async (t) => {
  // The body {value: {..., x: {a: {a: ...}}}} nests exactly as deep as a body may (MAX_JSON_DEPTH);
  // in a backup the document sits one level deeper ({store: [doc]}).
  let x: unknown = 1;
  for (let i = 0; i < MAX_JSON_DEPTH - 2; i++) x = { a: x };
  await roundTrip(t, [{ namespace: 'edge-one', id: 'deep-layout', x }]);
});

t.test('other routes keep the request limits', async (t) => {
  const { post, close } = await startApp({}, { listen: false });
  t.teardown(close);
  const big = await post('/history/datastore/set', { value: { namespace: 'a', id: 'b', s: 'x'.repeat(1_100_000) } });
  t.equal(big.status, 413);
  let x: unknown = 1;
  for (let i = 0; i < MAX_JSON_DEPTH; i++) x = { a: x };
  const deep = await post('/history/datastore/set', { value: { namespace: 'a', id: 'b', x } });
  t.equal(deep.status, 400);
  t.match(deep.body.message, /more than 64 levels deep/);
});

t.test(
  'one backup body at a time: another is answered 503 before its body is read, and the slot comes back',
  async (t) => {
    const { base, post, close } = await startApp({});
    t.teardown(close);
    const { hostname, port, pathname } = new URL(base);
    // A client that sends the head of a large backup and then stalls, as a slow phone upload does.
    const slow = request({
      host: hostname,
      port,
      method: 'POST',
      path: `${pathname}/blocks/backup/load`,
      headers: { 'content-type': 'application/json', 'content-length': String(4_000_000) },
    });
    const slowAnswer = new Promise<number>((resolve) => {
      slow.on('response', (res) => resolve(res.statusCode ?? 0));
      slow.on('error', () => resolve(-1));
    });
    slow.write('{"blocks": [');
    // The slow body holds the slot once the server has its head: wait until a second one is refused.
    let second = await post('blocks/backup/stored/upload', { name: 'other', blocks: [] });
    for (let i = 0; second.status !== 503 && i < 50; i++) {
      await new Promise((r) => setTimeout(r, 20));
      second = await post('blocks/backup/stored/upload', { name: 'other', blocks: [] });
    }
    t.equal(second.status, 503, 'a second backup while the first is received');
    t.match(second.body.message, /another backup is being received/);
    t.equal((await post('blocks/backup/save', {})).status, 200, 'other routes go on');
    slow.destroy();
    t.equal(await slowAnswer, -1, 'the slow client went away');
    let third = await post('blocks/backup/stored/upload', { name: 'other', blocks: [] });
    for (let i = 0; third.status === 503 && i < 50; i++) {
      await new Promise((r) => setTimeout(r, 20));
      third = await post('blocks/backup/stored/upload', { name: 'other', blocks: [] });
    }
    t.equal(third.status, 200, `after it went away the next backup is taken (${third.body?.message ?? 'ok'})`);
  },
);
