// The doctor beside a running service it cannot ask (started by hand on a port of its own flags,
// or hung), or that refuses the doctor's token: each
// is a problem of the report, and, as every problem of the report, comes with what to do, quoted
// from docs/troubleshooting.md.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import type { Config } from '../../src/config.js';
import { serviceSection } from '../../src/doctor/service.js';
import { readPage, slug } from '../helpers/markdown.js';

const anchors = readPage('docs/troubleshooting.md')
  .split('\n')
  .filter((l) => /^#+ /.test(l))
  .map((l) => slug(l.replace(/^#+ /, '')));

async function portOf(handler: Parameters<typeof createServer>[1], t: Test): Promise<number> {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => server.close());
  return (server.address() as AddressInfo).port;
}

const configAt = (port: number) => ({ host: '127.0.0.1', port, serviceId: 'edge-one' }) as unknown as Config;

t.test('a service that does not answer: the warning says to give the doctor its --port', async (t) => {
  // A port nothing listens on: one that was free a moment ago.
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const gone = (closed.address() as AddressInfo).port;
  await new Promise<void>((r) => closed.close(() => r()));
  const { section } = await serviceSection(configAt(gone), 1234, undefined);
  const warn = section.findings.find((f) => f.verdict === 'warn');
  t.match(warn?.text, new RegExp(`does not answer on http://127\\.0\\.0\\.1:${gone}/edge-one/system/status`));
  t.match(warn?.advice, /--port/, `what to do names --port: ${warn?.advice}`);
  t.match(warn?.advice, /journalctl -u edgeblocks/, 'and where a hung service says why');
  const anchor = warn?.see?.split('#')[1];
  t.ok(anchor && anchors.includes(anchor), `the advice's section exists: ${warn?.see}`);
});

t.test('a service that refuses the token: the warning says how to make one', async (t) => {
  const port = await portOf((_req, res) => {
    res.statusCode = 401;
    res.end('{}');
  }, t);
  const { section } = await serviceSection(configAt(port), 1234, 'ebt_stale');
  const warn = section.findings.find((f) => f.verdict === 'warn');
  t.match(warn?.text, /refuses the token in EDGEBLOCKS_TOKEN/);
  t.match(warn?.advice, /edgeblocks user token doctor/, `what to do: ${warn?.advice}`);
  const anchor = warn?.see?.split('#')[1];
  t.ok(anchor && anchors.includes(anchor), `the advice's section exists: ${warn?.see}`);
});
