// A refusal made before any route runs quotes what the request's line or headers held: the path
// of a 404, the Host of a 421, the Origin or Referer of a cross-site 403, the content-type of a
// 415. Bodies' text is cut short in messages (drivers/quoted-text.ts, long-name-echo.test.ts);
// these were quoted whole, so a request of some kilobytes of path or header came back as large,
// the Host twice. Each is now cut the same way.
import type { InjectOptions } from 'fastify';
import t from 'tap';
import { startApp } from '../helpers/app.js';

const LONG = 'x'.repeat(5000);
/** A run of the long text longer than any of these quotes keeps (a path: 120), plain or %-escaped. */
const ECHOED = /x{300}|(%78){100}/;
const SMALL = 1500;

t.test('refusals made from the request line and headers do not echo them whole', async (t) => {
  const a = await startApp({ hardware: 'sim' }, { listen: false });
  t.teardown(() => a.close());
  const json = { 'content-type': 'application/json' };
  const cases: [string, InjectOptions, number][] = [
    ['a path no route serves', { method: 'GET', url: `${a.base}/${LONG}` }, 404],
    ['a path no route serves, %-escaped', { method: 'GET', url: `${a.base}/${'%78'.repeat(2000)}` }, 404],
    ['a Host not known', { method: 'GET', url: `${a.base}/blocks/all`, headers: { host: `${LONG}.example` } }, 421],
    [
      'an Origin of another site',
      { method: 'POST', url: `${a.base}/blocks/read`, headers: { ...json, origin: `http://${LONG}` }, payload: '{}' },
      403,
    ],
    [
      'an Origin that is no URL',
      { method: 'POST', url: `${a.base}/blocks/read`, headers: { ...json, origin: LONG }, payload: '{}' },
      403,
    ],
    [
      'a content-type not JSON',
      {
        method: 'POST',
        url: `${a.base}/blocks/read`,
        headers: { 'content-type': `application/${LONG}` },
        payload: '{}',
      },
      415,
    ],
  ];
  for (const [what, request, status] of cases) {
    const r = await a.app.http.inject(request);
    t.equal(r.statusCode, status, `${what}: ${status}`);
    t.ok(r.body.length < SMALL, `${what}: ${r.body.length} characters`);
    t.notMatch(r.body, ECHOED, `${what}: not echoed whole`);
  }

  // A short one is still quoted whole: it can be read and copied.
  const short = await a.app.http.inject({ method: 'GET', url: `${a.base}/nothing-here` });
  t.match(JSON.parse(short.body).message, `no route GET ${a.base}/nothing-here`);
  const host = await a.app.http.inject({
    method: 'GET',
    url: `${a.base}/blocks/all`,
    headers: { host: 'brewery.lan' },
  });
  t.match(JSON.parse(host.body).message, /Host "brewery.lan" .*EDGEBLOCKS_ALLOWED_HOSTS=brewery.lan$/);
});
