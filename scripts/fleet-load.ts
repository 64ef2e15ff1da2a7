// Fleet load (issue 29.7): N controllers (the built CLI, --hardware sim, B blocks each) against one
// Mosquitto and one single-node VictoriaMetrics on this machine, all on 127.0.0.1. Reports broker
// messages/s and bytes/s, history points/s (VictoriaMetrics' own row counter), ingest lag (a
// history point's receipt on the broker until VictoriaMetrics answers it), the dashboard's
// cross-controller graph time (one controller's /history/timeseries/ranges over fields of three
// others), the controllers' emission lateness and the CPU of each part.
//
//   npm run build && node dist/scripts/fleet-load.js [--controllers 50] [--blocks 200]
//       [--seconds 60] [--emit-interval 5000] [--json out.json] [--cli other/dist/src/main.js]
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import mqtt from 'mqtt';
import { cpuSeconds } from './bench/procs.js';
import { freePort } from './ports.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cliAt = process.argv.indexOf('--cli');
/** The controller to run: this checkout's build, or another (`--cli other/dist/src/main.js`, to compare versions). */
const CLI = cliAt > 0 ? path.resolve(process.argv[cliAt + 1]!) : path.join(ROOT, 'dist/src/main.js');

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i > 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isFinite(v) || v <= 0) throw new Error(`--${name} must be a positive number`);
  return v;
}
const N = arg('controllers', 50);
const BLOCKS = arg('blocks', 200);
const SECONDS = arg('seconds', 60);
const EMIT_MS = arg('emit-interval', 5000);
const jsonOut = process.argv.includes('--json') ? process.argv[process.argv.indexOf('--json') + 1] : undefined;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const children: ChildProcess[] = [];
const dirs: string[] = [];
const cleanup = () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
};
process.on('exit', cleanup);
process.on('SIGINT', () => process.exit(130));

const tmp = (name: string) => {
  const d = mkdtempSync(path.join(tmpdir(), `fleet-load-${name}-`));
  dirs.push(d);
  return d;
};
function start(cmd: string, args: string[]): ChildProcess {
  const c = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  c.stderr!.on('data', (b: Buffer) => (err = (err + b.toString()).slice(-2000)));
  c.once('exit', (code, sig) => {
    if (!stopping) console.error(`${cmd} exited early (${code ?? sig}): ${err}`);
  });
  children.push(c);
  return c;
}
let stopping = false;

async function until(what: string, ok: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ok().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await sleep(200);
  }
}

const rssMb = (pid: number | undefined) => {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
  } catch {
    return 0;
  }
};
const pct = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))]! : NaN;
};
const json = async (url: string, body?: unknown) => {
  const res = await fetch(
    url,
    body === undefined
      ? {}
      : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
  );
  if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return res.json() as Promise<any>;
};

async function main() {
  console.log(
    `fleet load: ${N} controllers x ${BLOCKS} blocks, emit every ${EMIT_MS} ms, ${SECONDS} s measured; ${cpus().length} cores`,
  );
  const mqttPort = await freePort();
  const mdir = tmp('mosquitto');
  writeFileSync(
    path.join(mdir, 'mosquitto.conf'),
    [
      `listener ${mqttPort} 127.0.0.1`,
      'allow_anonymous true',
      'persistence false',
      'max_connections -1',
      'sys_interval 5',
      'log_dest stderr',
      'log_type error',
      '',
    ].join('\n'),
  );
  const mosquitto = start('mosquitto', ['-c', path.join(mdir, 'mosquitto.conf')]);
  const vmPort = await freePort();
  const vm = start('victoria-metrics', [
    `-httpListenAddr=127.0.0.1:${vmPort}`,
    `-storageDataPath=${tmp('victoria')}`,
    '-retentionPeriod=1d',
    '-influxMeasurementFieldSeparator=/',
    '-search.disableCache',
    '-search.latencyOffset=0s',
    '-loggerLevel=ERROR',
  ]);
  const vmUrl = `http://127.0.0.1:${vmPort}`;
  await until('victoria-metrics', async () => (await fetch(`${vmUrl}/health`)).ok);

  const ctl: Array<{ id: string; origin: string; proc: ChildProcess }> = [];
  const t0 = Date.now();
  for (let i = 0; i < N; i++) {
    const id = `load-${i}`;
    const port = await freePort();
    const proc = start(process.execPath, [
      CLI,
      '--service-id',
      id,
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--https-port',
      '0',
      '--data-dir',
      tmp(id),
      '--hardware',
      'sim',
      '--mqtt-url',
      `mqtt://127.0.0.1:${mqttPort}`,
      '--history-url',
      vmUrl,
      '--history-ingest',
      'own',
      '--emit-interval',
      String(EMIT_MS),
      '--log-level',
      'warn',
    ]);
    ctl.push({ id, origin: `http://127.0.0.1:${port}`, proc });
  }
  for (const c of ctl)
    await until(`${c.id} listening`, async () => (await fetch(`${c.origin}/${c.id}/system/ping`)).ok);
  console.log(`${N} controllers up in ${((Date.now() - t0) / 1000).toFixed(1)} s; creating ${BLOCKS} blocks each`);
  for (const c of ctl)
    await json(
      `${c.origin}/${c.id}/blocks/batch/create`,
      Array.from({ length: BLOCKS }, (_, b) => ({
        id: `Sensor ${b}`,
        type: 'TempSensorMock',
        data: { setting: 15 + (b % 10) },
      })),
    );
  console.log(
    `blocks created after ${((Date.now() - t0) / 1000).toFixed(1)} s; settling ${Math.ceil((EMIT_MS * 2) / 1000)} s`,
  );
  await sleep(EMIT_MS * 2);

  // Broker traffic as a subscriber of everything sees it, and the ingest-lag probe on load-0.
  const sub = await mqtt.connectAsync(`mqtt://127.0.0.1:${mqttPort}`, { protocolVersion: 4 });
  let messages = 0;
  let bytes = 0;
  const historyArrivals: number[] = [];
  const sys: Record<string, number> = {};
  sub.on('message', (topic, payload) => {
    if (topic.startsWith('$SYS/'))
      return void (sys[topic.slice('$SYS/broker/load/'.length)] = Number(payload.toString()));
    messages++;
    bytes += payload.length;
    if (topic === 'svc/history/load-0') historyArrivals.push(Date.now());
  });
  await sub.subscribeAsync(['svc/#', '$SYS/broker/load/+/+/1min'], { qos: 0 });
  const probeField = 'load-0/Sensor 0/value[degC]';
  const lags: number[] = [];
  let lastTs = 0;
  let probing = true;
  const probe = (async () => {
    while (probing) {
      const text = await (
        await fetch(
          `${vmUrl}/api/v1/export?match[]=${encodeURIComponent(`{__name__="${probeField}"}`)}&start=${Math.floor(Date.now() / 1000) - 60}`,
        )
      )
        .text()
        .catch(() => '');
      const ts = text.trim()
        ? Math.max(
            ...text
              .trim()
              .split('\n')
              .flatMap((l) => JSON.parse(l).timestamps as number[]),
          )
        : 0;
      if (ts > lastTs) {
        // The arrival on the broker of the message that carried this point (the controller stamps at receipt).
        const arrival = historyArrivals.filter((a) => a <= ts + 50).at(-1);
        if (lastTs && arrival) lags.push(Date.now() - arrival);
        lastTs = ts;
      }
      await sleep(100);
    }
  })();

  const rows = async () => {
    const text = await (await fetch(`${vmUrl}/metrics`)).text();
    return [...text.matchAll(/^vm_rows_inserted_total\{type="influx"\} (\d+)/gm)].reduce((n, m) => n + Number(m[1]), 0);
  };
  const cpu0 = {
    ctl: ctl.reduce((s, c) => s + cpuSeconds(c.proc.pid), 0),
    mosquitto: cpuSeconds(mosquitto.pid),
    vm: cpuSeconds(vm.pid),
  };
  const rows0 = await rows();
  const m0 = messages;
  const b0 = bytes;
  const start0 = Date.now();

  // The dashboard's cross-controller graph: load-0's history API over fields of three others, 1 h.
  const graphFields = [1, 2, 3].filter((i) => i < N).map((i) => `load-${i}/Sensor 0/value[degC]`);
  const graphMs: number[] = [];
  const fieldsMs: number[] = [];
  let graphPoints = 0;
  const historyErrors: string[] = [];
  while (Date.now() - start0 < SECONDS * 1000) {
    await sleep(5000);
    if (!graphFields.length) continue;
    try {
      let t = performance.now();
      const fields = await json(`${ctl[0]!.origin}/history/timeseries/fields`, { duration: '1h' });
      fieldsMs.push(performance.now() - t);
      if (!graphFields.every((f) => fields.includes(f))) continue;
      t = performance.now();
      const ranges = await json(`${ctl[0]!.origin}/history/timeseries/ranges`, { fields: graphFields, duration: '1h' });
      graphMs.push(performance.now() - t);
      graphPoints = ranges.reduce((n: number, r: any) => n + r.values.length, 0);
    } catch (e) {
      historyErrors.push((e as Error).message.slice(0, 300));
    }
  }
  const elapsed = (Date.now() - start0) / 1000;
  const rows1 = await rows();
  probing = false;
  await probe;
  const cpu = {
    controllers: (ctl.reduce((s, c) => s + cpuSeconds(c.proc.pid), 0) - cpu0.ctl) / elapsed,
    mosquitto: (cpuSeconds(mosquitto.pid) - cpu0.mosquitto) / elapsed,
    victoria: (cpuSeconds(vm.pid) - cpu0.vm) / elapsed,
  };
  const late = await Promise.all(
    ctl.map((c) =>
      json(`${c.origin}/${c.id}/system/status`)
        .then((s) => s.mqtt.emitted.lateMs.p99 as number)
        .catch(() => NaN),
    ),
  );
  const fleetSeen = await json(`${ctl[0]!.origin}/${ctl[0]!.id}/fleet`);

  const report = {
    controllers: N,
    blocksEach: BLOCKS,
    emitIntervalMs: EMIT_MS,
    seconds: Math.round(elapsed),
    cores: cpus().length,
    brokerMessagesPerS: Math.round((messages - m0) / elapsed),
    brokerKBytesPerS: Math.round((bytes - b0) / elapsed / 1024),
    // What mosquitto sent to all its clients (its 1-minute moving average, which trails a rise).
    brokerSentPerS: {
      messages: Math.round((sys['messages/sent/1min'] ?? NaN) / 60),
      kBytes: Math.round((sys['bytes/sent/1min'] ?? NaN) / 60 / 1024),
    },
    historyPointsPerS: Math.round((rows1 - rows0) / elapsed),
    ingestLagMs: { p50: Math.round(pct(lags, 0.5)), p95: Math.round(pct(lags, 0.95)), samples: lags.length },
    crossControllerGraphMs: {
      fields: graphFields.length,
      points: graphPoints,
      p50: Math.round(pct(graphMs, 0.5)),
      max: Math.round(Math.max(...graphMs)),
      samples: graphMs.length,
    },
    fieldsListMs: { p50: Math.round(pct(fieldsMs, 0.5)), max: Math.round(Math.max(...fieldsMs)) },
    historyErrors: { count: historyErrors.length, first: historyErrors[0] ?? null },
    emissionLateP99Ms: {
      median: Math.round(pct(late, 0.5)),
      worst: Math.round(Math.max(...late.filter(Number.isFinite))),
    },
    fleetListedByLoad0: fleetSeen.controllers.length,
    cpuCores: {
      controllers: +cpu.controllers.toFixed(2),
      perController: +(cpu.controllers / N).toFixed(3),
      mosquitto: +cpu.mosquitto.toFixed(3),
      victoria: +cpu.victoria.toFixed(3),
    },
    rssMb: {
      perController: Math.round(ctl.reduce((s, c) => s + rssMb(c.proc.pid), 0) / N),
      mosquitto: Math.round(rssMb(mosquitto.pid)),
      victoria: Math.round(rssMb(vm.pid)),
    },
  };
  console.log(JSON.stringify(report, null, 2));
  if (jsonOut) writeFileSync(jsonOut, JSON.stringify(report, null, 2));
  await sub.endAsync();
  stopping = true;
  for (const c of ctl) c.proc.kill('SIGTERM');
  await Promise.all(ctl.map((c) => new Promise((r) => (c.proc.exitCode !== null ? r(null) : c.proc.once('exit', r)))));
  mosquitto.kill('SIGTERM');
  vm.kill('SIGTERM');
  await sleep(500);
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
