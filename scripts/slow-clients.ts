// Clients that never read (issue 45.3), measured on the built CLI (--hardware sim, 200 blocks):
// (a) a history stream websocket that stops reading and sends 3000 `ranges` commands, then closes;
// (b) 100 `/events` streams that never read, for a minute. Reports the controller's RSS before,
// at its peak and after, and what system/status counted.
//
// The controller emits every 500 ms (--emit-interval): history builds up faster, and the event
// streams carry ten times the default traffic.
//
//   npm run build && node dist/scripts/slow-clients.js [--cli dist/src/main.js] [--seconds 60]
//       [--emit-interval 500] [--events 100] [--json out.json]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { freePort, rssMb } from './bench/procs.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const opt = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const CLI = path.resolve(opt('cli') ?? path.join(ROOT, 'dist/src/main.js'));
const SECONDS = Number(opt('seconds') ?? 60);
const EMIT_MS = Number(opt('emit-interval') ?? 500);
/** Event streams in (b); 0 measures the controller alone over the same time (a baseline). */
const EVENT_CLIENTS = Number(opt('events') ?? 100);
const jsonOut = opt('json');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main() {
  const dir = mkdtempSync(path.join(tmpdir(), 'slow-clients-'));
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const ctl = spawn(
    process.execPath,
    [
      CLI,
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--https-port',
      '0',
      '--mqtt-port',
      '0',
      '--emit-interval',
      String(EMIT_MS),
    ],
    { stdio: 'ignore', env: { ...process.env, EDGEBLOCKS_DATA_DIR: dir, EDGEBLOCKS_HARDWARE: 'sim' } },
  );
  process.on('exit', () => {
    ctl.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });
  for (let i = 0; !(await fetch(`${origin}/edge-one/system/ping`).catch(() => null))?.ok; i++) {
    if (i > 300) throw new Error('the controller did not start');
    await sleep(100);
  }
  const post = (route: string, body: unknown) =>
    fetch(`${origin}${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  await post(
    '/edge-one/blocks/batch/create',
    Array.from({ length: 200 }, (_, i) => ({ id: `Sensor ${i}`, type: 'TempSensorMock', data: { setting: 20 } })),
  );
  await sleep(30_000); // history points to answer with
  const rss = () => Math.round(rssMb(ctl.pid!));
  const status = async () => (await (await fetch(`${origin}/edge-one/system/status`)).json()) as any;
  const fields = Array.from({ length: 50 }, (_, i) => `edge-one/Sensor ${i}/value[degC]`);

  // (a) the history stream
  const a = { before: rss(), peak: 0, afterClose: 0 };
  const ws = new WebSocket(`ws://127.0.0.1:${port}/history/timeseries/stream`);
  await new Promise((r) => ws.once('open', r));
  (ws as unknown as { _socket: Socket })._socket.pause();
  for (let i = 0; i < 3000; i++)
    ws.send(JSON.stringify({ id: `q${i % 100}`, command: 'ranges', query: { fields, duration: '1h' } }));
  for (let i = 0; i < 20; i++) {
    await sleep(1000);
    a.peak = Math.max(a.peak, rss());
  }
  ws.terminate();
  await sleep(5000);
  a.afterClose = rss();
  const sa = await status();

  // (b) 100 event streams that never read
  const b = { before: rss(), peak: 0, end: 0 };
  const sockets: Socket[] = [];
  for (let i = 0; i < EVENT_CLIENTS; i++) {
    const s = connect(port, '127.0.0.1');
    s.on('error', () => undefined);
    s.write(`GET /edge-one/events HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    s.pause();
    sockets.push(s);
  }
  for (let t = 0; t < SECONDS; t += 2) {
    await sleep(2000);
    b.peak = Math.max(b.peak, rss());
  }
  b.end = rss();
  const sb = await status();
  for (const s of sockets) s.destroy();

  const report = {
    cli: path.relative(process.cwd(), CLI),
    historyStream3000Ranges: { rssMb: a, slowClosed: sa.history?.stream?.slowClosed ?? null },
    eventsNeverRead: { clients: EVENT_CLIENTS, seconds: SECONDS, rssMb: b, status: sb.events ?? null },
  };
  console.log(JSON.stringify(report, null, 2));
  if (jsonOut) writeFileSync(jsonOut, JSON.stringify(report, null, 2));
  ctl.kill('SIGTERM');
  await sleep(500);
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
