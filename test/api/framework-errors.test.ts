// Two refusals came from fastify's router before any hook or error handler ran, in its own body:
// a path with a %-escape that is not UTF-8 (`/edge-one/blocks/%ff`) and a path parameter over the
// router's length (a sim device name of 3000 characters, 414). The 414 said "error": "Bad
// Request", and both carried fastify's `code` where every other refusal has the envelope
// {statusCode, error (the status's reason phrase), message}. They go through the same envelope now.
import { STATUS_CODES } from 'node:http';
import t from 'tap';
import { startApp } from '../helpers/app.js';

t.test('a bad %-escape and an over-long path parameter are refused in the error envelope', async (t) => {
  const { app, close } = await startApp({ hardware: 'sim' }, { listen: false });
  t.teardown(close);
  const cases: Array<[string, string, number, RegExp]> = [
    ['POST', '/edge-one/blocks/%ff', 400, /%ff/],
    ['GET', '/%E2%82', 400, /%E2%82/],
    ['GET', `/edge-one/sim/devices/${'x'.repeat(3000)}`, 414, /longer than/],
  ];
  for (const [method, url, status, says] of cases) {
    const res = await app.http.inject({ method: method as 'GET', url });
    const at = `${method} ${url.slice(0, 40)}`;
    t.equal(res.statusCode, status, at);
    const body = JSON.parse(res.body);
    t.same(Object.keys(body).sort(), ['error', 'message', 'statusCode'], `${at}: the envelope's keys`);
    t.equal(body.statusCode, status, at);
    t.equal(body.error, STATUS_CODES[status], `${at}: the reason phrase of ${status}`);
    t.match(body.message, says, `${at}: says what is wrong`);
    t.ok(body.message.length < 400, `${at}: a path of any length is quoted cut short`);
  }
});
