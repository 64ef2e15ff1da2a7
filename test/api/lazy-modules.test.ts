// Start-up cost: @fastify/swagger, Swagger UI, compression and mqtt.js are not loaded by
// building the app; the docs page loads its part on the first request and answers as before.
import t from 'tap';
import { createRequire } from 'node:module';
import { startApp } from '../helpers/app.js';

const loaded = (pkg: string) =>
  Object.keys(createRequire(import.meta.url).cache).some((f) => f.includes(`/node_modules/${pkg}/`));

t.test('docs and mqtt.js load only when used', async (t) => {
  const { app, close } = await startApp({}, { listen: false });
  t.teardown(close);
  for (const pkg of ['@fastify/swagger', '@fastify/swagger-ui', '@fastify/compress', 'mqtt'])
    t.notOk(loaded(pkg), `${pkg} not loaded by createApp`);
  const page = await app.http.inject({ method: 'GET', url: '/edge-one/api/doc/' });
  t.equal(page.statusCode, 200);
  t.match(page.body, /<title>edgeblocks edge-one API<\/title>/);
  for (const pkg of ['@fastify/swagger', '@fastify/swagger-ui'])
    t.ok(loaded(pkg), `${pkg} loaded by the first docs request`);
  const doc = JSON.parse((await app.http.inject({ method: 'GET', url: '/edge-one/api/doc/json' })).body);
  t.ok(doc.paths['/edge-one/blocks/read'], 'the OpenAPI document has the routes declared before it was loaded');
  t.ok(doc.components.schemas.Pid, 'and the shared schemas, named by their $id');
  const missing = await app.http.inject({ method: 'GET', url: '/edge-one/api/doc/no-such-file' });
  t.equal(missing.statusCode, 404);
  t.match(JSON.parse(missing.body), { message: /no route/ }, "the app's own 404 envelope");
});
