import t from 'tap';
import { datastoreApp } from './helpers.js';

type Ds = Awaited<ReturnType<typeof datastoreApp>>['ds'];
type Asserts = Pick<typeof t, 'equal' | 'same' | 'match'>;

/** Expect a 422 whose validation list names exactly `paths`. */
async function refused(t: Asserts, ds: Ds, op: string, body: unknown, paths: string[], why = '') {
  const res = await ds(op, body);
  t.equal(res.status, 422, `${op} ${JSON.stringify(body)} is 422 ${why}`);
  t.equal(res.body?.error, 'Unprocessable Entity');
  t.same(
    (res.body?.validation ?? []).map((v: { path: string }) => v.path),
    paths,
    `names ${paths.join(', ')}`,
  );
  for (const p of paths) t.match(res.body?.message, p, 'the message names the field');
  return res.body;
}

t.test('get and delete need a namespace and a non-empty id of the spec alphabet', async (t) => {
  const { ds, close } = await datastoreApp();
  t.teardown(close);
  for (const op of ['get', 'delete']) {
    await refused(t, ds, op, { id: 'x' }, ['namespace']);
    await refused(t, ds, op, { namespace: 'n' }, ['id']);
    await refused(t, ds, op, {}, ['namespace', 'id']);
    await refused(t, ds, op, { namespace: 'n', id: '' }, ['id'], 'an empty id');
    await refused(t, ds, op, { namespace: 'n', id: 'a:b' }, ['id'], 'a colon in an id');
    await refused(t, ds, op, { namespace: 'n', id: 5 }, ['id'], 'a number id');
    await refused(t, ds, op, { namespace: null, id: 'x' }, ['namespace'], 'a null namespace');
    await refused(t, ds, op, { namespace: 'bad/ns', id: 'x' }, ['namespace']);
  }
});

t.test('mget and mdelete need a namespace; ids must be ids and filter a string', async (t) => {
  const { ds, close } = await datastoreApp();
  t.teardown(close);
  for (const op of ['mget', 'mdelete']) {
    await refused(t, ds, op, {}, ['namespace']);
    await refused(t, ds, op, { filter: '*' }, ['namespace']);
    await refused(t, ds, op, { namespace: 'ns?', filter: '*' }, ['namespace'], 'glob characters in a namespace');
    await refused(t, ds, op, { namespace: 'n', ids: 'x' }, ['ids']);
    await refused(
      t,
      ds,
      op,
      { namespace: 'n', ids: ['ok', '', 'a b', 3] },
      ['ids.1', 'ids.2', 'ids.3'],
      'every bad id named',
    );
    await refused(t, ds, op, { namespace: 'n', filter: 7 }, ['filter']);
  }
});

t.test('set refuses documents that break the spec rules, and stores and publishes nothing', async (t) => {
  const { ds, events, close } = await datastoreApp();
  t.teardown(close);
  await refused(t, ds, 'set', {}, ['value']);
  await refused(t, ds, 'set', { value: null }, ['value']);
  await refused(t, ds, 'set', { value: 'abc' }, ['value']);
  await refused(t, ds, 'set', { value: [1, 2] }, ['value']);
  await refused(t, ds, 'set', { value: { id: 'x' } }, ['value.namespace']);
  await refused(t, ds, 'set', { value: { namespace: 'n' } }, ['value.id']);
  await refused(t, ds, 'set', { value: { namespace: 'n', id: '[x]' } }, ['value.id']);
  await refused(t, ds, 'set', { value: { namespace: 'n', id: 5 } }, ['value.id']);
  await refused(t, ds, 'set', { value: { namespace: 'n', id: '' } }, ['value.id']);
  for (const id of ['a/b', 'a*', 'a#b', 'a@b', 'a,b', 'a b', 'a(1)', 'a:b', 'a+b'])
    await refused(t, ds, 'set', { value: { namespace: 'n', id } }, ['value.id'], id);
  for (const namespace of ['bad/ns', 'a b', 'a#', 'a+', 'x(y)'])
    await refused(t, ds, 'set', { value: { namespace, id: 'x' } }, ['value.namespace'], namespace);
  t.same((await ds('mget', { namespace: '', filter: '*' })).body.values, [], 'nothing stored');
  t.same(events(), [], 'nothing published');
});

t.test('the spec alphabet is accepted: letters, digits, _ - . ~ and : in namespaces', async (t) => {
  const { ds, close } = await datastoreApp();
  t.teardown(close);
  const good = [
    { namespace: 'n', id: 'a.b-c_d~e' },
    { namespace: 'n', id: 'UPPER123' },
    { namespace: 'a:b:c', id: 'x' },
    { namespace: '', id: '~' },
    { namespace: 'brauerei', id: 'müller' },
    { namespace: 'a:', id: 'trailing' },
  ];
  for (const value of good) {
    const res = await ds('set', { value });
    t.equal(res.status, 200, `${value.namespace} / ${value.id}`);
    t.same((await ds('get', value)).body.value, value);
  }
});

t.test('one bad document fails the whole mset: nothing stored, nothing published', async (t) => {
  const { ds, events, close } = await datastoreApp();
  t.teardown(close);
  await ds('set', { value: { namespace: 'n', id: 'keep', v: 1 } });
  events();
  const body = await refused(
    t,
    ds,
    'mset',
    {
      values: [
        { namespace: 'n', id: 'x' },
        { namespace: 'n', id: 'keep', v: 2 },
        { id: 'y' },
        { namespace: 'm', id: 'z!' },
      ],
    },
    ['values.2.namespace', 'values.3.id'],
  );
  t.match(body.message, /values\.2\.namespace/);
  t.same(
    (await ds('get', { namespace: 'n', id: 'x' })).body,
    { value: null },
    'the good document before the bad one is not stored',
  );
  t.same((await ds('get', { namespace: 'n', id: 'keep' })).body.value.v, 1, 'an existing document is not overwritten');
  t.same(events(), []);
  await refused(t, ds, 'mset', {}, ['values']);
  await refused(t, ds, 'mset', { values: { namespace: 'n', id: 'x' } }, ['values']);
  await refused(t, ds, 'mset', { values: [null] }, ['values.0']);
});

t.test('a body that is not JSON is 400; one that is not an object is 400', async (t) => {
  const { app, ds, close } = await datastoreApp();
  t.teardown(close);
  for (const op of ['get', 'mget', 'set', 'mset', 'delete', 'mdelete']) {
    const bad = await ds(op, '{"namespace": "n", ');
    t.equal(bad.status, 400, `${op}: broken JSON`);
    t.match(bad.body.message, /not valid JSON/);
    t.equal((await ds(op, '[1, 2]')).status, 400, `${op}: an array body`);
    t.equal((await ds(op, '"text"')).status, 400, `${op}: a string body`);
    t.equal((await ds(op)).status, 400, `${op}: no body`);
  }
  const text = await app.http.inject({
    method: 'POST',
    url: '/history/datastore/get',
    headers: { 'content-type': 'text/plain' },
    payload: 'namespace=n',
  });
  t.equal(text.statusCode, 415, 'a text body is refused: a POST must be JSON');
  t.match(JSON.parse(text.body).message, /content-type: application\/json/);
  t.same((await ds('mget', { namespace: '', filter: '*' })).body.values, []);
});

t.test('bodies over the limit are 413 and store nothing', async (t) => {
  const { ds, close } = await datastoreApp();
  t.teardown(close);
  const res = await ds('set', { value: { namespace: 'big', id: 'x', blob: 'x'.repeat(1024 * 1024) } });
  t.equal(res.status, 413);
  t.same((await ds('get', { namespace: 'big', id: 'x' })).body, { value: null });
});

t.test('the Swagger body schemas are the checked schemas: what the document states is what is enforced', async (t) => {
  const { app, ds, close } = await datastoreApp();
  t.teardown(close);
  const { datastoreSchemas } = await import('../../src/api/datastore-schemas.js');
  const rules = await import('../../src/store/datastore-validate.js');
  t.equal(datastoreSchemas.keyQuery, rules.KeyQuerySchema, 'get/delete document the schema they check');
  t.equal(datastoreSchemas.setQuery, rules.SetQuerySchema, 'mget/mdelete document the schema they check');
  t.equal(datastoreSchemas.valueBody, rules.ValueBodySchema, 'set documents the schema it checks');
  t.equal(datastoreSchemas.valuesBody, rules.ValuesBodySchema, 'mset documents the schema it checks');
  const spec = JSON.parse((await app.http.inject({ method: 'GET', url: '/history/api/doc/json' })).body);
  const body = (op: string) =>
    spec.paths[`/history/datastore/${op}`].post.requestBody.content['application/json'].schema;
  const id = body('get').properties.id;
  t.match(
    id,
    { type: 'string', pattern: rules.ID_RULE, minLength: 1, maxLength: rules.MAX_ID_LENGTH },
    'the documented id rule',
  );
  t.equal(
    (await ds('get', { namespace: 'n', id: 'i'.repeat(id.maxLength + 1) })).status,
    422,
    'the documented maxLength is enforced',
  );
  t.equal((await ds('get', { namespace: 'n', id: 'i'.repeat(id.maxLength) })).status, 200, 'up to it is fine');
  t.equal(body('mget').properties.filter.maxLength, rules.MAX_FILTER_LENGTH);
  t.same(body('mget').required, ['namespace'], 'only the namespace is required for mget');
  t.same(body('set').properties.value.required, ['namespace', 'id'], 'a document needs namespace and id');
});

t.test('a number too large for JSON to hold (1E400) is refused by name, never stored as null', async (t) => {
  const { ds, close } = await datastoreApp();
  t.teardown(close);
  // JSON.parse reads 1E400 as Infinity, which JSON.stringify writes as null: stored, it would
  // come back as null with a 200, the value lost without a word.
  const set = await ds('set', '{"value":{"namespace":"n","id":"x","deep":{"list":[1,1E400]}}}');
  t.equal(set.status, 422);
  t.same(
    set.body.validation.map((v: { path: string }) => v.path),
    ['value.deep.list.1'],
  );
  t.match(set.body.message, /value\.deep\.list\.1: .*too large/);
  t.same((await ds('get', { namespace: 'n', id: 'x' })).body, { value: null }, 'nothing stored');
  const mset = await ds(
    'mset',
    '{"values":[{"namespace":"n","id":"ok","v":1e308},{"namespace":"n","id":"bad","v":-1e999}]}',
  );
  t.equal(mset.status, 422);
  t.same(
    mset.body.validation.map((v: { path: string }) => v.path),
    ['values.1.v'],
  );
  t.same((await ds('mget', { namespace: 'n' })).body, { values: [] }, 'all or nothing: nothing stored');
  const fine = await ds('set', '{"value":{"namespace":"n","id":"ok","v":1e308,"w":-1.5e-300}}');
  t.equal(fine.status, 200, 'large and small numbers a double holds are fine');
  t.same((await ds('get', { namespace: 'n', id: 'ok' })).body.value, {
    namespace: 'n',
    id: 'ok',
    v: 1e308,
    w: -1.5e-300,
  });
});

t.test('strings come back exactly: NUL, unpaired surrogates, in values and member names', async (t) => {
  const { ds, close } = await datastoreApp();
  t.teardown(close);
  const value = { namespace: 'n', id: 'odd', v: 'a\u0000b', half: '\ud800', '\udc00k': ['\udfff', 'x\u0000'], e: '😀' };
  t.equal((await ds('set', { value })).status, 200);
  t.same((await ds('get', { namespace: 'n', id: 'odd' })).body.value, value);
  t.same((await ds('mget', { namespace: 'n' })).body.values, [value]);
});
