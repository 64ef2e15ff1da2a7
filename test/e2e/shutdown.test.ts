// Shutdown says what it did (issue 14.2): one info line per output driven safe (block, IO block,
// channel, state) and a final "stopped: N outputs safe, ..." line, on SIGTERM and on SIGINT.
// Open dashboards (SSE streams), an /eventbus websocket and MQTT clients do not hold a stop up
// (issue 24.5): the streams get a last offline state and end, and the process exits 0 at once.
// The app is a list of subsystems (issue 25.2): each logs one stop line, in reverse start order.
// tags: slow alone (the built service stopped by signals; "exited within 2 s" on the real clock)
import t, { type Test } from 'tap';
import mqtt from 'mqtt';
import { WebSocket } from 'ws';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CLI, postJson, startDemo, startScript, type RunningCli } from '../helpers/cli.js';
import { limit } from '../helpers/limits.js';

const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-shutdown-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

interface LogLine {
  level: number;
  msg: string;
  block?: string | null;
  io?: string;
  channel?: number;
  state?: string;
}

const logLines = (out: string): LogLine[] =>
  out
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as LogLine);

/**
 * The app's last line: main.ts saves V8's code cache after the app stopped, when the start did not
 * use one (the first start of a build, or a cache another process was writing), and says so then.
 */
const lastAppLine = (lines: LogLine[]): string | undefined =>
  lines.filter((l) => !/^(no )?code cache\b/.test(l.msg)).at(-1)?.msg;

/** Logged once start() is done, the control loop running. */
const started = /start-up phases/;

async function until(what: string, cond: () => Promise<boolean>): Promise<void> {
  const end = Date.now() + limit(20000);
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

t.test('the demo on SIGTERM: one line per safe output, then the summary', async (t) => {
  const cli = await startDemo(
    ['--port', '0', '--https-port', '0', '--mqtt-port', '0', '--data-dir', path.join(dir, 'demo')],
    {},
    t,
  );
  await until(
    'the heater relay to be read back',
    async () => (await postJson(`${cli.base}/edge-one/blocks/read`, { id: 'Heater' })).body?.data?.state != null,
  );
  await until('MQTT to connect', async () => /mqtt connected/.test(cli.output()));
  await until('the start to finish', async () => started.test(cli.output()));
  cli.child.kill('SIGTERM');
  t.equal(await cli.exited, 0, 'clean exit');
  const lines = logLines(cli.output());
  const safe = lines.filter((l) => l.msg.startsWith('output safe:'));
  t.ok(
    safe.every((l) => l.level === 30),
    'at info level',
  );
  t.match(
    safe.find((l) => l.block === 'Heater'),
    {
      io: 'DS2408 00000000d001',
      channel: 1,
      state: 'off',
      msg: 'output safe: "Heater" on "DS2408 00000000d001" channel 1 off',
    },
    `the heater relay: ${JSON.stringify(safe)}`,
  );
  t.ok(
    safe.some((l) => l.block === 'Cooler' && l.io === 'DS2408 00000000d001' && l.channel === 2 && l.state === 'off'),
    'the cooler relay',
  );
  t.equal(safe.filter((l) => l.io === 'DS2408 00000000d001').length, 8, 'every DS2408 channel');
  t.ok(
    safe.some((l) => /fan|GpioPins|GPIO/.test(`${l.io}`) && l.state === 'off'),
    'the fan GPIO line',
  );
  const last = lines.filter((l) => l.msg.startsWith('stopped:'));
  t.same(
    last.map((l) => [l.level, l.msg]),
    [[30, `stopped: ${safe.length} outputs safe, state offline published, database closed`]],
  );
  t.equal(lastAppLine(lines), last[0]?.msg, `the summary is the last line (the last: ${lines.at(-1)?.msg})`);
});

t.test('the CLI on SIGINT, with an external broker that is not there', async (t) => {
  const cli = await startScript(
    CLI,
    [
      '--port',
      '0',
      '--https-port',
      '0',
      '--mqtt-url',
      'mqtt://127.0.0.1:1',
      '--hardware',
      'sim',
      '--data-dir',
      path.join(dir, 'cli'),
    ],
    {},
    t,
  );
  let status: unknown;
  await until('the 1-Wire IO modules to be found', async () => {
    status = await (await fetch(`${cli.base}/edge-one/system/status`)).json();
    const found = JSON.stringify((status as { hardware?: { onewire?: unknown } }).hardware?.onewire ?? null);
    return found.includes('2901d0000000004a') && found.includes('3a01e00000000072');
  }).catch((e: Error) => {
    throw new Error(`${e.message}: ${JSON.stringify(status)}`);
  });
  await until('the start to finish', async () => started.test(cli.output()));
  cli.child.kill('SIGINT');
  t.equal(await cli.exited, 0, 'clean exit');
  const lines = logLines(cli.output());
  const safe = lines.filter((l) => l.msg.startsWith('output safe:'));
  t.ok(safe.length >= 8 + 2 + 1, `the DS2408, the DS2413 and the fan line (${safe.length})`);
  t.same(
    lines.filter((l) => l.msg.startsWith('stopped:')).map((l) => l.msg),
    [`stopped: ${safe.length} outputs safe, state offline not published (MQTT not connected), database closed`],
  );
});

/** An open `GET /{id}/events` stream, reading everything it is sent until the server ends it. */
async function openStream(t: Test, url: string) {
  const abort = new AbortController();
  t.teardown(() => abort.abort());
  const res = await fetch(url, { signal: abort.signal });
  t.equal(res.status, 200, 'the event stream opens');
  let text = '';
  const ended = (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body!) text += decoder.decode(chunk as Uint8Array, { stream: true });
      return true;
    } catch {
      return false; // aborted by the test: the server never ended it
    }
  })();
  await until('the first state event', async () => text.includes('event: state'));
  const lastState = () => {
    const data = text.split('event: state\ndata: ').at(-1)!.split('\n')[0]!;
    return JSON.parse(data) as { status: { online: boolean } };
  };
  return { ended, lastState };
}

/** SIGTERM/SIGINT with 3 dashboard streams open; resolves with the ms until exit. */
async function stopWithStreams(t: Test, cli: RunningCli, signal: NodeJS.Signals) {
  await until('the start to finish', async () => started.test(cli.output()));
  const streams = await Promise.all([1, 2, 3].map(() => openStream(t, `${cli.base}/edge-one/events`)));
  const sent = Date.now();
  cli.child.kill(signal);
  const code = await Promise.race([cli.exited, sleep(limit(10000)).then(() => 'still running')]);
  const ms = Date.now() - sent;
  t.equal(code, 0, `exit code 0 after ${signal}`);
  for (const [i, s] of streams.entries()) {
    t.equal(
      await Promise.race([s.ended, sleep(limit(2000)).then(() => 'open')]),
      true,
      `stream ${i + 1} was ended by the server`,
    );
    t.equal(s.lastState().status.online, false, `stream ${i + 1}: the last state says offline`);
  }
  const out = cli.output();
  t.notMatch(out, /took too long/, 'no forced exit');
  t.notMatch(out, /Reply was already sent/, 'no "Reply was already sent" warning');
  t.match(out, /"stopped: \d+ outputs safe, [^"]*database closed"/, 'the database was closed');
  return { ms, lines: logLines(out) };
}

/**
 * The subsystems of the CLI's app (embedded history; Home Assistant off, which still starts to
 * clear a device it published while on), in start order.
 */
const SUBSYSTEMS = [
  'store',
  'clock',
  'auth',
  'http',
  'https gateway',
  'history',
  'mqtt',
  'hardware',
  'home assistant',
  'control',
  'backups',
  'alerts',
  'fleet',
  'event streams',
];

function checkStopLines(t: Test, lines: LogLine[]) {
  const steps = lines.filter((l) => /^stop [\w ]+: /.test(l.msg));
  t.same(
    steps.map((l) => /^stop ([\w ]+): /.exec(l.msg)![1]),
    [...SUBSYSTEMS].reverse(),
    'one stop line per subsystem, in reverse start order',
  );
  t.ok(
    steps.every((l) => / done \(\d+ ms\)$/.test(l.msg)),
    `every step done within its limit: ${steps.map((l) => l.msg).join('; ')}`,
  );
  const at = (re: RegExp) => lines.findIndex((l) => re.test(l.msg));
  t.ok(
    at(/^output safe:/) > at(/^stop control: /) && at(/^output safe:/) < at(/^stop hardware: /),
    'outputs go safe in the hardware step, after control stopped',
  );
  t.ok(at(/^stop mqtt: /) > at(/^stop hardware: /), 'MQTT (the offline state) after the outputs are safe');
  t.equal(
    lastAppLine(lines)?.startsWith('stopped:'),
    true,
    `the summary is the last line (the last: ${lines.at(-1)?.msg})`,
  );
}

/** A websocket on the history stream, with a live ranges stream running. */
async function openHistoryStream(t: Test, port: number) {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/history/timeseries/stream`);
  t.teardown(() => ws.terminate());
  await new Promise<void>((resolve, reject) => (ws.once('open', () => resolve()), ws.once('error', reject)));
  ws.send(JSON.stringify({ id: 'live', command: 'ranges', query: { fields: ['x'], duration: '10m' } }));
  return { closed: new Promise<number>((resolve) => ws.once('close', (code) => resolve(code))) };
}

t.test('the CLI on SIGTERM with dashboards, an /eventbus websocket and an MQTT client open', async (t) => {
  const cli = await startScript(
    CLI,
    [
      '--port',
      '0',
      '--https-port',
      '0',
      '--mqtt-port',
      '0',
      '--hardware',
      'sim',
      '--data-dir',
      path.join(dir, 'streams'),
    ],
    {},
    t,
  );
  await until('MQTT to connect', async () => /mqtt connected/.test(cli.output()));
  const brokerPort = Number(/mqtt broker listening on [^:]+:(\d+)/.exec(cli.output())![1]);
  const clients = [
    mqtt.connect(`ws://127.0.0.1:${cli.port}/eventbus`, { reconnectPeriod: 0 }),
    mqtt.connect(`mqtt://127.0.0.1:${brokerPort}`, { reconnectPeriod: 0 }),
  ];
  t.teardown(() => clients.forEach((c) => c.end(true)));
  await until('the MQTT clients to connect', async () => clients.every((c) => c.connected));
  const history = await openHistoryStream(t, cli.port);
  const { ms, lines } = await stopWithStreams(t, cli, 'SIGTERM');
  t.ok(ms < limit(2000), `exited within 2 s (${ms} ms)`);
  t.ok(
    await Promise.race([history.closed.then(() => true), sleep(limit(2000)).then(() => false)]),
    'the history stream websocket was ended by the server',
  );
  t.ok(
    clients.every((c) => !c.connected),
    'the MQTT clients (TCP and /eventbus) were disconnected',
  );
  checkStopLines(t, lines);
});

t.test('the demo on SIGINT with dashboards open', async (t) => {
  const cli = await startDemo(
    ['--port', '0', '--https-port', '0', '--mqtt-port', '0', '--data-dir', path.join(dir, 'demo-streams')],
    {},
    t,
  );
  const { ms } = await stopWithStreams(t, cli, 'SIGINT');
  t.ok(ms < limit(2000), `exited within 2 s (${ms} ms)`);
});
