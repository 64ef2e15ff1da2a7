// Issue 45 item 5: webhook, ntfy and heartbeat requests never follow a redirect (a 307 would
// carry the webhook's secret headers and the ntfy token to another host), and what a receiver
// answers is read only as far as a short text needs, kept short, and kept as text.
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import pino from 'pino';
import { heartbeat, type Heartbeat } from '../../src/alerts/channels/heartbeat.js';
import { ntfy } from '../../src/alerts/channels/ntfy.js';
import { webhook } from '../../src/alerts/channels/webhook.js';
import { testMessage } from '../../src/alerts/messages.js';
import { until } from './receivers.js';

const SECRET = 'hook-key-s3cret-307';
const log = pino({ level: 'silent' });
const ctx = (timeoutMs: number) => ({ timeoutMs, controlRuns: () => true, log });
const webhookChannel = (o: { url: string; headers?: Record<string, string>; timeoutMs: number }) =>
  webhook.create({ url: o.url, headers: o.headers }, ctx(o.timeoutMs)) as Required<ReturnType<typeof webhook.create>>;
const ntfyChannel = (o: { url: string; token?: string; timeoutMs: number }) =>
  ntfy.create({ url: o.url, token: o.token }, ctx(o.timeoutMs)) as Required<ReturnType<typeof ntfy.create>>;

interface Seen {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
}

/** A local HTTP server whose answer the test decides; it records every request it gets. */
async function server(answer: (res: ServerResponse, path: string) => void): Promise<{
  url: (path: string) => string;
  seen: Seen[];
  close: () => Promise<void>;
}> {
  const seen: Seen[] = [];
  const s: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      seen.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers });
      answer(res, req.url ?? '');
    });
  });
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as AddressInfo).port;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    seen,
    close: async () => {
      s.closeAllConnections();
      await new Promise<void>((resolve) => s.close(() => resolve()));
    },
  };
}

t.test('a 307 is not followed: the secret never reaches the other host', async (t) => {
  const other = await server((res) => res.writeHead(200).end('took it'));
  t.teardown(other.close);
  const first = await server((res, path) => res.writeHead(307, { location: other.url(`${path}?from=first`) }).end());
  t.teardown(first.close);

  const hook = webhookChannel({ url: first.url('/hook'), headers: { 'X-Gotify-Key': SECRET }, timeoutMs: 5000 });
  await t.rejects(hook.send(testMessage('edge-one', Date.now())), /HTTP 307.*not followed/, 'the webhook send fails');
  const ntfy = ntfyChannel({ url: first.url('/ntfy/topic'), token: SECRET, timeoutMs: 5000 });
  await t.rejects(ntfy.send(testMessage('edge-one', Date.now())), /HTTP 307.*not followed/, 'the ntfy send fails');

  const beat = heartbeat.create({ url: first.url(`/hb/${SECRET}`), intervalSeconds: 1 }, ctx(5000)) as Heartbeat;
  beat.start();
  await until('a heartbeat attempt', 5000, () => beat.counts.failed >= 1);
  await t.rejects(beat.test(), /HTTP 307.*not followed/, "the heartbeat's test call fails too");
  beat.close();
  t.match(beat.lastError, /HTTP 307.*not followed/, 'the heartbeat counts the redirect as a failure');
  t.equal(beat.counts.sent, 0, 'a redirect is not a heartbeat sent');

  t.ok(first.seen.length >= 4, 'the first host got the requests');
  t.equal(other.seen.length, 0, 'the host the redirect points to got no request at all');
  for (const s of other.seen) t.notOk(JSON.stringify(s).includes(SECRET), 'and so never the secret');
});

t.test("a receiver's answer is read short and kept as short text", async (t) => {
  let closedEarly = 0;
  let bytesWritten = 0;
  // An endless answer: the channel must stop reading it, not wait for the time limit.
  const endless = await server((res, path) => {
    const status = path.startsWith('/fail') ? 500 : 200;
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
    const chunk = `line\u0000with\u001b[31mcontrol\r\n${'x'.repeat(4000)}\n`;
    const pump = () => {
      while (!res.destroyed && res.write(chunk)) bytesWritten += chunk.length;
      if (!res.destroyed) res.once('drain', pump);
    };
    res.on('close', () => {
      if (!res.writableEnded) closedEarly++;
    });
    pump();
  });
  t.teardown(endless.close);
  const timeoutMs = 20_000;

  const started = performance.now();
  const hook = webhookChannel({ url: endless.url('/ok'), timeoutMs });
  const answer = await hook.send(testMessage('edge-one', Date.now()));
  t.match(answer, /^HTTP 200/, 'a 2xx is taken');
  t.ok(answer.length <= 300, `the answer kept is short (${answer.length} characters)`);

  const failing = webhookChannel({ url: endless.url('/fail'), timeoutMs });
  const failed = await failing.send(testMessage('edge-one', Date.now())).then(
    () => null,
    (e: Error) => e.message,
  );
  t.ok(failed, 'a 500 is an error');
  t.match(failed!, /^HTTP 500: line with/, 'naming the status and the start of the answer');
  t.ok(failed!.length <= 300, `short (${failed!.length} characters)`);
  t.notMatch(failed!, /[\u0000-\u001f\u007f]/, 'control characters are not kept (it is shown as text)');
  const elapsed = performance.now() - started;
  t.ok(elapsed < timeoutMs, `neither send waited for the time limit (${Math.round(elapsed)} ms)`);
  await until('the receiver sees the connections closed', 5000, () => closedEarly >= 2);
  t.ok(closedEarly >= 2, 'the channel closed each endless answer instead of reading it');
  t.ok(bytesWritten < 64 * 1024 * 1024, 'well before 64 MB of it');
});

t.test('a binary or HTML answer is not kept as its bytes', async (t) => {
  const html = await server((res, path) => {
    if (path === '/png') res.writeHead(502, { 'content-type': 'image/png' }).end(Buffer.from([0x89, 0x50, 0, 1, 2]));
    else
      res
        .writeHead(503, { 'content-type': 'text/html' })
        .end('<html><body><script>alert(1)</script><h1>Service unavailable</h1></body></html>');
  });
  t.teardown(html.close);
  const png = await webhookChannel({ url: html.url('/png'), timeoutMs: 5000 })
    .send(testMessage('edge-one', Date.now()))
    .catch((e: Error) => e.message);
  t.match(png, /^HTTP 502 \(5 bytes of image\/png\)$/, 'binary: its size and type, not its bytes');
  const page = await webhookChannel({ url: html.url('/page'), timeoutMs: 5000 })
    .send(testMessage('edge-one', Date.now()))
    .catch((e: Error) => e.message);
  t.match(page, /^HTTP 503: Service unavailable/, 'HTML: its text, without the markup');
  t.notMatch(page, /<|script/, 'no markup and no script kept');
});
