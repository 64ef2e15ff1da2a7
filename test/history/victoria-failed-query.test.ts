// Query requests to VictoriaMetrics take turns for all queries together (VICTORIA_QUERY_REQUESTS).
// A ranges query that has failed (one of its fields answered an error) must give its turns back:
// its other fields' requests, still waiting for a turn, are no use to anyone. They went on, one
// after the other, and every query asked after it (another client's graph) waited behind them.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import t from 'tap';
import { VictoriaStore } from '../../src/history/victoria-store.js';

const log = pino({ level: 'silent' });
const ANSWER_MS = 100;
const FIELDS = 40;

t.test('a failed ranges query gives its turns back at once', async (t) => {
  let asked = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      asked++;
      const query = decodeURIComponent(new URLSearchParams(body).get('query') ?? '');
      if (query.includes('bad')) {
        res.writeHead(422, { 'content-type': 'application/json' });
        return void res.end('{"status":"error","error":"cannot parse"}');
      }
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ status: 'success', data: { result: [{ values: [[1, '1']] }] } }));
      }, ANSWER_MS);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  const store = new VictoriaStore({
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    log,
    timeoutMs: 10_000,
  });
  const now = Date.now();
  const fields = ['k/bad', ...Array.from({ length: FIELDS }, (_, i) => `k/f${i}`)];
  await t.rejects(store.ranges(fields, now - 3_600_000, now, 10), /answered 422/, 'the query fails');
  const askedAtFailure = asked;
  const started = Date.now();
  const other = await store.ranges(['other/f'], now - 3_600_000, now, 10);
  const took = Date.now() - started;
  t.equal(other.length, 1, 'the next query is answered');
  t.ok(took < 5 * ANSWER_MS, `the next query did not wait for the failed one's fields (${took} ms)`);
  await new Promise((r) => setTimeout(r, 3 * ANSWER_MS));
  t.ok(asked - askedAtFailure <= 5, `few of the failed query's fields were still asked (${asked - askedAtFailure})`);
});
