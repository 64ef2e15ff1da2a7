// The Swagger page works when tried: its "Try it out" bodies are valid requests, the OpenAPI
// document holds each block type once (shared by $ref), it is served compressed, and the page
// title names edgeblocks.
import t from 'tap';
import { gunzipSync } from 'node:zlib';
import { startApp, type RunningApp } from '../helpers/app.js';

const DOC = '/edge-one/api/doc';

async function openapi(app: RunningApp['app']) {
  const res = await app.http.inject({ method: 'GET', url: `${DOC}/json` });
  return { text: res.body, spec: JSON.parse(res.body) };
}

/** The body Swagger UI fills in for a route: the media example, else the first of the examples. */
function tryItOutBody(spec: any, route: string): any {
  const media = spec.paths[`/edge-one/${route}`].post.requestBody.content['application/json'];
  return media.example ?? Object.values(media.examples as Record<string, { value: unknown }>)[0]!.value;
}

t.test('"Try it out" defaults are valid requests, in the order a user tries them', async (t) => {
  const { app, post, close } = await startApp({}, { listen: false });
  t.teardown(close);
  const { spec } = await openapi(app);
  const create = tryItOutBody(spec, 'blocks/create');
  t.equal(create.type, 'TempSensorMock', 'the create example is a TempSensorMock');
  t.equal((await post('blocks/create', create)).status, 201, 'create example');
  t.equal(
    (await post('blocks/read', tryItOutBody(spec, 'blocks/read'))).status,
    200,
    'read example names the created block',
  );
  const patched = await post('blocks/patch', tryItOutBody(spec, 'blocks/patch'));
  t.equal(patched.status, 200, 'patch example');
  t.equal(patched.body.data.setting.value, 21.5);
  t.equal((await post('blocks/write', tryItOutBody(spec, 'blocks/write'))).status, 200, 'write example');
  t.equal((await post('blocks/delete', tryItOutBody(spec, 'blocks/delete'))).status, 200, 'delete example');
});

t.test('every create example (one per creatable type) is accepted', async (t) => {
  const { app, post, close } = await startApp({ hardware: 'sim' }, { listen: false });
  t.teardown(close);
  const { spec } = await openapi(app);
  const examples = Object.values(
    spec.paths['/edge-one/blocks/create'].post.requestBody.content['application/json'].examples as Record<
      string,
      { value: any }
    >,
  );
  const creatable = [...app.runtime.types.values()].filter((d) => !d.system).map((d) => d.type);
  t.same(examples.map((e) => e.value.type).sort(), creatable.sort(), 'one example per creatable type');
  for (const { value } of examples) {
    const res = await post('blocks/create', value);
    t.equal(res.status, 201, `${value.type}: ${res.status === 201 ? 'created' : res.raw}`);
  }
});

t.test('block types are shared components, referenced by the routes', async (t) => {
  const { app, close } = await startApp({}, { listen: false });
  t.teardown(close);
  const { text, spec } = await openapi(app);
  for (const type of app.runtime.types.keys())
    t.ok(spec.components.schemas[type]?.properties?.data, `${type} is a component`);
  const read = spec.paths['/edge-one/blocks/read'].post.responses['200'].content['application/json'].schema;
  t.same(read, { $ref: '#/components/schemas/Block' }, 'read answers a reference to Block');
  const components = JSON.stringify(spec.components.schemas).length;
  // Inlined, the type schemas would appear once per route that takes or gives a block (a dozen).
  t.ok(text.length < 2 * components, `document ${text.length} bytes, its components ${components} bytes`);
});

t.test('the document and the page are served compressed; the title names edgeblocks', async (t) => {
  const { app, close } = await startApp({}, { listen: false });
  t.teardown(close);
  const plain = await app.http.inject({ method: 'GET', url: `${DOC}/json` });
  const gz = await app.http.inject({ method: 'GET', url: `${DOC}/json`, headers: { 'accept-encoding': 'gzip' } });
  t.equal(gz.headers['content-encoding'], 'gzip');
  t.equal(gunzipSync(gz.rawPayload).toString(), plain.body, 'the same document');
  t.ok(
    gz.rawPayload.length < plain.body.length / 4,
    `${gz.rawPayload.length} bytes compressed, ${plain.body.length} plain`,
  );
  const page = await app.http.inject({ method: 'GET', url: `${DOC}/` });
  t.equal(page.statusCode, 200);
  t.match(page.body, /<title>edgeblocks edge-one API<\/title>/);
  const read = await app.http.inject({
    method: 'POST',
    url: '/edge-one/blocks/all/read',
    headers: { 'accept-encoding': 'gzip', 'content-type': 'application/json' },
    payload: '{}',
  });
  t.equal(read.headers['content-encoding'], undefined, 'block reads are not compressed');
  t.match(read.headers['content-type'], /^application\/json/);
});
