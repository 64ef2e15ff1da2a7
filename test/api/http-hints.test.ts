// Helpful HTTP errors (issue 14.6): 405 with Allow for a GET on a POST route, 415 naming
// content-type: application/json, and GET / answering a JSON index of the APIs.
import t from 'tap';
import type { InjectOptions } from 'fastify';
import { buildServer } from '../../src/api/server.js';
import { silentLogger } from '../../src/log.js';
import { startApp } from '../helpers/app.js';

t.test('the app', async (t) => {
  const h = await startApp({ hardware: 'sim' }, { listen: false });
  t.teardown(() => h.close());
  const inject = (o: InjectOptions) => h.app.http.inject(o);

  t.test('GET on a POST-only route: 405, Allow: POST, and a message saying to POST', async (t) => {
    for (const url of ['/edge-one/blocks/read', '/history/datastore/get', '/edge-one/sim/devices/beer/temperature']) {
      const res = await inject({ method: 'GET', url });
      t.equal(res.statusCode, 405, url);
      t.equal(res.headers.allow, 'POST');
      t.same(res.json(), {
        statusCode: 405,
        error: 'Method Not Allowed',
        message: `GET is not allowed on ${url}: send a POST with a JSON body (content-type: application/json)`,
      });
    }
    // A route that takes no body does not ask for one (it said "send a POST with a JSON body").
    for (const url of ['/edge-one/blocks/all/read', '/edge-one/blocks/all/read/stored']) {
      const res = await inject({ method: 'GET', url });
      t.equal(res.statusCode, 405, url);
      t.equal(res.json().message, `GET is not allowed on ${url}: send a POST (it takes no body, or {})`);
    }
    const unknown = await inject({ method: 'GET', url: '/edge-one/blocks/nothing' });
    t.equal(unknown.statusCode, 404, 'an unknown path stays a 404');
    t.equal(unknown.headers.allow, undefined);
  });

  t.test('a body without the JSON content type: 415 naming content-type: application/json', async (t) => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ 'content-type': 'application/x-www-form-urlencoded' }, 'got content-type: application/x-www-form-urlencoded'],
      [{ 'content-type': 'text/plain' }, 'got content-type: text/plain'],
      [{}, 'no content-type was sent'],
    ];
    for (const [headers, detail] of cases) {
      const res = await inject({
        method: 'POST',
        url: '/edge-one/blocks/create',
        headers,
        payload: '{"id": "x", "type": "TempSensorMock", "data": {}}',
      });
      t.equal(res.statusCode, 415, detail);
      t.same(res.json(), {
        statusCode: 415,
        error: 'Unsupported Media Type',
        message: `the body must be JSON sent with the header content-type: application/json (${detail})`,
      });
    }
    t.equal((await h.post('blocks/all/read')).status, 200, 'JSON still works');
    const bare = await inject({ method: 'POST', url: '/edge-one/blocks/all/read' });
    t.equal(bare.statusCode, 200, 'a POST without a body needs no content type');
  });

  t.test('GET /api is a JSON index of the APIs and their docs; GET / the dashboard', async (t) => {
    const page = await inject({ method: 'GET', url: '/' });
    t.equal(page.statusCode, 200);
    t.match(page.headers['content-type'], /text\/html/, 'the built dashboard answers /');
    const res = await inject({ method: 'GET', url: '/api' });
    t.equal(res.statusCode, 200);
    t.match(res.headers['content-type'], /application\/json/);
    const index = res.json();
    t.match(index, { name: 'edgeblocks', version: String });
    t.same(
      index.apis.map((a: { prefix: string; docs: string }) => [a.prefix, a.docs]),
      [
        ['/edge-one', '/edge-one/api/doc'],
        ['/history', '/history/api/doc'],
        ['', '/api/doc'],
      ],
    );
    for (const api of index.apis)
      t.equal((await inject({ method: 'GET', url: api.openapi })).statusCode, 200, `${api.openapi} is there`);
  });
});

t.test('a page already served at / (the dashboard) is left alone', async (t) => {
  const app = await buildServer(silentLogger, [
    { prefix: '/x', title: 'x', description: 'x', plugins: [async (p) => void p.get('/', async () => 'dashboard')] },
  ]);
  t.teardown(() => app.close());
  // The plugin above registers GET /x/; a dashboard at the root:
  const withRoot = await buildServer(silentLogger, [
    {
      prefix: '',
      title: 'root',
      description: 'root',
      plugins: [async (p) => void p.get('/', async () => 'dashboard')],
    },
  ]);
  t.teardown(() => withRoot.close());
  t.equal((await withRoot.inject({ method: 'GET', url: '/' })).body, 'dashboard');
  t.equal((await app.inject({ method: 'GET', url: '/' })).json().name, 'edgeblocks', 'without one, the index');
});
