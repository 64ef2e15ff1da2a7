import t from 'tap';
import { datastoreApp, ids, sortDocs } from './helpers.js';

t.test('ping answers pong without caching, and the Swagger page lists the routes', async (t) => {
  const { app, close } = await datastoreApp();
  t.teardown(close);
  const res = await app.http.inject({ method: 'GET', url: '/history/datastore/ping' });
  t.equal(res.statusCode, 200);
  t.same(res.json(), { ping: 'pong' });
  t.match(res.headers['cache-control'], /no-cache/);
  t.match(res.headers['cache-control'], /no-store/);
  t.equal(res.headers.pragma, 'no-cache');
  t.equal(res.headers.expires, '0');
  t.equal(
    (await app.http.inject({ method: 'GET', url: '/history/api/doc' })).statusCode < 400,
    true,
    'swagger UI served',
  );
  const spec = await app.http.inject({ method: 'GET', url: '/history/api/doc/json' });
  const paths = Object.keys(spec.json().paths);
  for (const op of ['ping', 'get', 'mget', 'set', 'mset', 'delete', 'mdelete'])
    t.ok(paths.includes(`/history/datastore/${op}`), `${op} documented`);
  t.notOk(
    paths.some((p) => p.startsWith('/edge-one')),
    'the block API is documented separately',
  );
  t.equal(
    (await app.http.inject({ method: 'GET', url: '/history/datastore/get' })).statusCode,
    405,
    'get is POST only',
  );
});

t.test('set stores the document as given and get reads it back; missing gives null', async (t) => {
  const { ds, events, close } = await datastoreApp();
  t.teardown(close);
  const doc = { namespace: 'n:m', id: 'x', happy: true };
  const set = await ds('set', { value: doc, ignored: 1 });
  t.equal(set.status, 200);
  t.same(set.body, { value: doc });
  t.same(events(), [{ topic: 'svc/datastore/n', payload: { changed: [doc] }, retain: false }]);
  t.same((await ds('get', { ...doc, extra: 'ignored' })).body, { value: doc }, 'a whole document works as the query');
  t.same((await ds('get', { namespace: '', id: 'x' })).body, { value: null }, 'lookup is exact');
  t.same((await ds('get', { namespace: 'n', id: 'x' })).body, { value: null });
  t.same((await ds('get', { namespace: 'n:m', id: 'y' })).body, { value: null }, 'missing is 200 null, not 404');
  t.equal((await ds('get', { namespace: 'n:m', id: 'y' })).status, 200);
});

t.test('set replaces the whole document and keeps any JSON as it was', async (t) => {
  const { ds, close } = await datastoreApp();
  t.teardown(close);
  await ds('set', { value: { namespace: 'r', id: '1', a: 1 } });
  await ds('set', { value: { namespace: 'r', id: '1', b: 2 } });
  t.same((await ds('get', { namespace: 'r', id: '1' })).body.value, { namespace: 'r', id: '1', b: 2 }, 'no merge');
  const rich = {
    namespace: 'rt',
    id: 'doc',
    nested: { list: [1, 'two', null, { x: false }], empty: {} },
    unicode: 'héllo',
    big: 1e300,
    neg: -0.5,
  };
  await ds('set', { value: rich });
  t.strictSame((await ds('get', { namespace: 'rt', id: 'doc' })).body.value, rich);
});

t.test('set in the empty namespace: the key is the id and the topic is the id', async (t) => {
  const { ds, events, close } = await datastoreApp();
  t.teardown(close);
  const doc = { namespace: '', id: 'solo', v: 1 };
  t.equal((await ds('set', { value: doc })).status, 200);
  t.same(events(), [{ topic: 'svc/datastore/solo', payload: { changed: [doc] }, retain: false }]);
  t.same((await ds('get', { namespace: '', id: 'solo' })).body.value, doc);
});

t.test('setting identical content again is not a change: no event', async (t) => {
  const { ds, events, close } = await datastoreApp();
  t.teardown(close);
  const doc = { namespace: 'same', id: 'a', v: [1, 2] };
  await ds('set', { value: doc });
  t.equal(events().length, 1);
  t.same((await ds('set', { value: doc })).body, { value: doc }, 'still echoed');
  t.same(events(), [], 'no event for a no-op set');
  await ds('mset', { values: [doc, { namespace: 'same', id: 'b' }] });
  t.same(
    events(),
    [{ topic: 'svc/datastore/same', payload: { changed: [{ namespace: 'same', id: 'b' }] }, retain: false }],
    'only the document that changed',
  );
});

t.test('mset stores all, echoes in request order and groups events by top-level namespace', async (t) => {
  const { ds, events, close } = await datastoreApp();
  t.teardown(close);
  const values = [
    { namespace: 'b', id: '2' },
    { namespace: 'a:x', id: '1' },
    { namespace: 'a', id: '3' },
    { namespace: '', id: 'a' },
  ];
  const res = await ds('mset', { values });
  t.equal(res.status, 200);
  t.same(res.body, { values }, 'request order');
  const got = events().sort((x, y) => (x.topic < y.topic ? -1 : 1));
  t.same(
    got,
    [
      {
        topic: 'svc/datastore/a',
        payload: {
          changed: [
            { namespace: '', id: 'a' },
            { namespace: 'a', id: '3' },
            { namespace: 'a:x', id: '1' },
          ],
        },
        retain: false,
      },
      { topic: 'svc/datastore/b', payload: { changed: [{ namespace: 'b', id: '2' }] }, retain: false },
    ],
    'one event per top-level namespace (nested and bare keys counted under it), sorted by key',
  );
  for (const v of values) t.same((await ds('get', v)).body.value, v);
});

t.test('mset with an empty list stores nothing and publishes nothing', async (t) => {
  const { ds, events, close } = await datastoreApp();
  t.teardown(close);
  t.same((await ds('mset', { values: [] })).body, { values: [] });
  t.same(events(), []);
});

t.test('mset with the same key twice keeps the last', async (t) => {
  const { ds, events, close } = await datastoreApp();
  t.teardown(close);
  const values = [
    { namespace: 'd', id: 'k', v: 1 },
    { namespace: 'd', id: 'k', v: 2 },
  ];
  t.same((await ds('mset', { values })).body, { values });
  t.same((await ds('get', { namespace: 'd', id: 'k' })).body.value, values[1]);
  t.same(events(), [{ topic: 'svc/datastore/d', payload: { changed: [values[1]] }, retain: false }]);
});

t.test('mget: whole namespace, ids, filters, unions, missing ids, empty ids', async (t) => {
  const { ds, close } = await datastoreApp();
  t.teardown(close);
  const docs = [
    ...['0', '1'].map((id) => ({ namespace: 'ns1', id, idx: Number(id) })),
    ...['0', '1', '2', 'k0', 'k1', 'k2'].map((id) => ({ namespace: 'ns2', id, idx: Number(id.replace('k', '')) })),
  ];
  await ds('mset', { values: docs });
  const mget = async (body: unknown) => (await ds('mget', body)).body.values as { namespace: string; id: string }[];
  t.same(sortDocs(await mget({ namespace: 'ns1' })), docs.slice(0, 2), 'neither ids nor filter: the whole namespace');
  t.same(await mget({ namespace: 'ns2', ids: ['0'] }), [docs[2]]);
  t.same(ids(await mget({ namespace: 'ns2', filter: '*' })), ['ns2:0', 'ns2:1', 'ns2:2', 'ns2:k0', 'ns2:k1', 'ns2:k2']);
  t.same(
    ids(await mget({ namespace: 'ns2', ids: ['2'], filter: 'k*' })),
    ['ns2:2', 'ns2:k0', 'ns2:k1', 'ns2:k2'],
    'ids and filter: the union',
  );
  t.same(await mget({ namespace: 'ns2', ids: ['0', 'nope'] }), [docs[2]], 'missing ids left out, no null');
  t.same(await mget({ namespace: 'ns2', ids: [] }), [], 'an empty ids list does not mean everything');
  t.same(
    await mget({ namespace: 'ns2', ids: null, filter: null }),
    await mget({ namespace: 'ns2' }),
    'null counts as absent',
  );
  t.same(
    (await mget({ namespace: 'ns2', ids: ['k1', '0', 'k1'], filter: 'k?' })).map((d) => d.id),
    ['k1', '0', 'k0', 'k2'],
    'ids in request order first, then filter matches, each once',
  );
  t.same(ids(await mget({ namespace: 'ns2', filter: '?' })), ['ns2:0', 'ns2:1', 'ns2:2']);
  t.same(ids(await mget({ namespace: 'ns2', filter: 'k[01]' })), ['ns2:k0', 'ns2:k1']);
  t.same(await mget({ namespace: 'nothing' }), [], 'an unknown namespace is empty, not an error');
  t.same(ids(await mget({ namespace: '', filter: '*' })), ids(docs), 'empty namespace with * spans the store');
});

t.test('delete removes one document; a repeat counts 0 and publishes nothing', async (t) => {
  const { ds, events, close } = await datastoreApp();
  t.teardown(close);
  await ds('mset', {
    values: [
      { namespace: 'ns1', id: 'id1' },
      { namespace: 'ns1', id: 'id2' },
      { namespace: 'ns2', id: 'id1' },
      { namespace: 'ns2', id: 'id2' },
    ],
  });
  events();
  t.same((await ds('delete', { namespace: 'ns1', id: 'id1' })).body, { count: 1 });
  t.same(events(), [{ topic: 'svc/datastore/ns1', payload: { deleted: ['ns1:id1'] }, retain: false }]);
  t.same((await ds('get', { namespace: 'ns1', id: 'id1' })).body, { value: null });
  t.same((await ds('delete', { namespace: 'ns1', id: 'id1' })).body, { count: 0 });
  t.same(events(), [], 'nothing deleted: no event (the spec, not the reference)');
  t.same((await ds('delete', { namespace: 'ns1:id2', id: 'x' })).body, { count: 0 });
  t.equal((await ds('mget', { namespace: 'ns2' })).body.values.length, 2, 'other namespaces untouched');
  t.same((await ds('delete', { namespace: '', id: 'ns1' })).body, { count: 0 }, 'a namespace is not a document');
});

t.test('mdelete: no default, ids, filters, mixed namespaces, only deleted keys reported', async (t) => {
  const { ds, events, close } = await datastoreApp();
  t.teardown(close);
  const setup = [
    ...['id1', 'id2'].map((id) => ({ namespace: 'ns1', id })),
    ...['id1', 'id2'].map((id) => ({ namespace: 'ns2', id })),
    ...['id1', 'id2', 'id3'].map((id) => ({ namespace: 'ns3', id })),
  ];
  await ds('mset', { values: setup });
  events();

  t.same((await ds('mdelete', { namespace: 'ns1' })).body, { count: 0 }, 'neither ids nor filter deletes nothing');
  t.same(events(), []);
  t.equal((await ds('mget', { namespace: 'ns1' })).body.values.length, 2);

  t.same((await ds('mdelete', { namespace: 'ns1', ids: ['id2', 'id1', 'id3'] })).body, { count: 2 });
  t.same(
    events(),
    [{ topic: 'svc/datastore/ns1', payload: { deleted: ['ns1:id1', 'ns1:id2'] }, retain: false }],
    'sorted, and only keys that existed',
  );

  t.same((await ds('mdelete', { namespace: '', ids: ['x'], filter: '*2' })).body, { count: 2 });
  const got = events().sort((a, b) => (a.topic < b.topic ? -1 : 1));
  t.same(
    got,
    [
      { topic: 'svc/datastore/ns2', payload: { deleted: ['ns2:id2'] }, retain: false },
      { topic: 'svc/datastore/ns3', payload: { deleted: ['ns3:id2'] }, retain: false },
    ],
    'one event per top-level namespace, none for the missing key x',
  );

  t.same((await ds('mdelete', { namespace: 'ns3', filter: '*' })).body, { count: 2 });
  t.same(events(), [{ topic: 'svc/datastore/ns3', payload: { deleted: ['ns3:id1', 'ns3:id3'] }, retain: false }]);
  t.same((await ds('mdelete', { namespace: 'ns3', filter: '*' })).body, { count: 0 });
  t.same((await ds('mdelete', { namespace: 'n', ids: [] })).body, { count: 0 });
  t.same(events(), [], 'no-op mdeletes publish nothing');
  t.same(ids((await ds('mget', { namespace: '', filter: '*' })).body.values), ['ns2:id1'], 'exactly the rest survives');
});

t.test('mdelete with the empty namespace and * clears the store in one event per top level', async (t) => {
  const { ds, events, close } = await datastoreApp();
  t.teardown(close);
  await ds('mset', {
    values: [
      { namespace: 'a', id: '1' },
      { namespace: 'a:b', id: '2' },
      { namespace: '', id: 'a' },
      { namespace: 'c', id: '3' },
    ],
  });
  events();
  t.same((await ds('mdelete', { namespace: '', filter: '*' })).body, { count: 4 });
  const got = events().sort((x, y) => (x.topic < y.topic ? -1 : 1));
  t.same(got, [
    { topic: 'svc/datastore/a', payload: { deleted: ['a', 'a:1', 'a:b:2'] }, retain: false },
    { topic: 'svc/datastore/c', payload: { deleted: ['c:3'] }, retain: false },
  ]);
  t.same((await ds('mget', { namespace: '', filter: '*' })).body.values, []);
});

t.test('events go under the configured topic root', async (t) => {
  const { ds, events, close } = await datastoreApp({ topicRoot: 'brew/cast' });
  t.teardown(close);
  await ds('set', { value: { namespace: 'x:y', id: 'z' } });
  t.same(
    events().map((e) => e.topic),
    ['brew/cast/datastore/x'],
  );
});
