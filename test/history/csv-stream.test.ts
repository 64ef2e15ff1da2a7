// The CSV export read every point of the query into memory before the first byte went out: a
// client that read slowly (or not at all, until the stall limit cut it) made the service hold
// the whole export, tens of megabytes on a Pi. The export now streams: the store hands out its
// points a slice at a time as the client takes the answer, with backpressure.
//
// A real HTTP client asks for a large export and stops reading after the first bytes: the
// points the store handed to the route meanwhile are counted (a spy on the store), then the
// client reads the rest, which must be whole and in order. What the route held while the client
// did not read is the points handed out less those whose lines the server's socket had passed on
// to the kernel: the kernel's buffers (the server's send buffer and the client's receive buffer,
// up to net.ipv4.tcp_wmem/tcp_rmem's max, a few MB here, tens on another kernel) are no part of it.
import http from 'node:http';
import type { Socket } from 'node:net';
import t from 'tap';
import { RAW_SLICE_POINTS } from '../../src/history/limits.js';
import type { RawSeries } from '../../src/history/store.js';
import { startApp } from '../helpers/app.js';
import { sleep } from '../mqtt/fixtures.js';

const KEY = 'export';
const FIELDS = 40;
const POINTS = 30_000;
/** The store flushes every this many times; a second key is written just after, at the same time. */
const FLUSH_EVERY = 1000;

const count = (series: RawSeries[]) => series.reduce((n, s) => n + s.t.length, 0);

t.test('a CSV export streams: a client that stops reading holds a part of it, then gets it whole', async (t) => {
  const rt = await startApp();
  t.teardown(() => rt.close());
  const store = rt.app.history!.store;
  const start = Date.now() - 3_600_000;
  const at = (i: number) => start + i * 100;
  for (let i = 0; i < POINTS; i++) {
    store.write(
      KEY,
      Array.from({ length: FIELDS }, (_, f) => [`f${f}`, Math.PI * (i + f)] as const),
      at(i),
    );
    if (i % FLUSH_EVERY === FLUSH_EVERY - 1) {
      await store.flush();
      // The same time in the next record: still one line of the CSV, wherever the slices part.
      store.write('late', [['x', i]], at(i));
    }
  }
  await store.flush();
  const fields = [...Array.from({ length: FIELDS }, (_, f) => `${KEY}/f${f}`), 'late/x'];
  const total = POINTS * FIELDS + POINTS / FLUSH_EVERY;

  // What the store hands the route, through either of its raw queries.
  let handed = 0;
  /** The most points of one slice of the streaming query (a stored record's: some RAW_SLICE_POINTS or more). */
  let largestSlice = RAW_SLICE_POINTS;
  const spied = store as unknown as Record<string, (...a: unknown[]) => unknown>;
  for (const name of ['raw', 'rawSlices'] as const) {
    const real = spied[name]?.bind(store);
    if (!real) continue;
    spied[name] =
      name === 'raw'
        ? async (...a: unknown[]) => {
            const r = (await real(...a)) as RawSeries[];
            handed += count(r);
            return r;
          }
        : (...a: unknown[]) =>
            (async function* () {
              for await (const s of real(...a) as AsyncIterable<RawSeries[]>) {
                handed += count(s);
                largestSlice = Math.max(largestSlice, count(s));
                yield s;
              }
            })();
  }

  // The server's side of the export's connection.
  let serverSocket: Socket | null = null;
  rt.app.http.server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (req.url?.endsWith('/timeseries/csv')) serverSocket = res.socket;
  });

  const { port } = new URL(rt.base);
  const body = JSON.stringify({ fields, precision: 'ms', duration: '2h' });
  const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/history/timeseries/csv',
        headers: { 'content-type': 'application/json' },
      },
      resolve,
    );
    req.on('error', reject);
    req.end(body);
  });
  t.equal(res.statusCode, 200);
  const parts: Buffer[] = [];
  // Take the first bytes, then stop reading until the server has stopped handing out points.
  await new Promise<void>((resolve) =>
    res.once('data', (d: Buffer) => {
      parts.push(d);
      res.pause();
      resolve();
    }),
  );
  let seen = -1;
  for (let still = 0; still < 5 && handed < total; ) {
    await sleep(100);
    still = handed === seen ? still + 1 : 0;
    seen = handed;
  }
  const whilePaused = handed;
  // Bytes the server's socket passed on to the kernel (written less those it still holds itself):
  // they are on their way to the client, held by the kernels' buffers, whatever their size.
  const sock = serverSocket as Socket | null;
  t.ok(sock, 'the export had a connection');
  const passedOn = sock ? sock.bytesWritten - sock.writableLength : 0;

  // Now it reads, slowly: a pause after each piece.
  res.on('data', (d: Buffer) => {
    parts.push(d);
    res.pause();
    setTimeout(() => res.resume(), 1);
  });
  res.resume();
  await new Promise((resolve) => res.once('end', resolve));
  t.equal(handed, total, 'in the end every point was handed out');
  const text = Buffer.concat(parts).toString('utf8');
  // The points of the lines whole within the first `passedOn` bytes (they count the status line,
  // the headers and the chunks' framing too: a few more than the body's, so this is not fewer).
  const sent = text.slice(0, passedOn).split('\n').slice(1, -1);
  const cellsOf = (line: string) => line.split(',').filter((c, i) => i > 0 && c !== '').length;
  const pointsSent = sent.reduce((n, l) => n + cellsOf(l), 0);
  const held = whilePaused - pointsSent;
  t.ok(
    held <= 2 * largestSlice,
    `while the client did not read, the route held ${held} points beyond those passed on to the connection, ` +
      `at most two slices of ${largestSlice} (${whilePaused} of the ${total} handed out, ${pointsSent} in ` +
      `${passedOn} bytes passed on)`,
  );
  const lines = text.trimEnd().split('\n');
  t.equal(lines.length, POINTS + 1, 'the header and one line per time');
  t.same(lines[0]!.split(',').slice(1), fields, 'the header names the fields');
  const times = lines.slice(1).map((l) => Number(l.split(',')[0]));
  t.ok(
    times.every((x, i) => x === at(i)),
    'every time once, in order (the times written on both sides of a flush too)',
  );
  const row = (i: number) => lines[i + 1]!.split(',');
  t.same(row(1234).slice(1, 3), [String(Math.PI * 1234), String(Math.PI * 1235)], 'the values as written');
  t.equal(row(FLUSH_EVERY - 1)[FIELDS + 1], String(FLUSH_EVERY - 1), 'the late key on the line of its time');
  t.equal(row(FLUSH_EVERY)[FIELDS + 1], '', 'and not on the next');
});
