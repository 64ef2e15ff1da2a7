// A peer's flood (issue 45.1), measured: a real Mosquitto with the docs' ACL (docs/fleet/), a
// controller `ferm-1` (the built CLI, --hardware sim, 200 blocks, on that broker with its own
// account), and `ferm-2`'s account retaining a 20 MB `[{},{},...]` on each topic it may write and
// ferm-1 might read (its state, its presence, its history). Reports ferm-1's RSS, `system/ping`
// p50/max, its event-loop delay (how late any timer, the control loop's included, fired), its
// MQTT reconnects and deaths, before and during the flood.
//
//   npx tsc -p tsconfig.json && node dist/scripts/peer-flood.js [--heap 256] [--mb 20] [--seconds 40]
//       [--cli dist/src/main.js] [--json out.json]
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import mqtt from 'mqtt';
import { freePort, rssMb } from './bench/procs.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const opt = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const CLI = path.resolve(opt('cli') ?? path.join(ROOT, 'dist/src/main.js'));
const ACL = path.resolve(opt('acl') ?? path.join(ROOT, 'docs/fleet/mosquitto.acl'));
const HEAP = opt('heap');
const MB = Number(opt('mb') ?? 20);
const SECONDS = Number(opt('seconds') ?? 40);
const BLOCKS = Number(opt('blocks') ?? 200);
const jsonOut = opt('json');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? Math.round(s[Math.min(s.length - 1, Math.floor(q * s.length))]! * 10) / 10 : NaN;
};
const dir = mkdtempSync(path.join(tmpdir(), 'peer-flood-'));
const children: ChildProcess[] = [];
process.on('exit', () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});
process.on('SIGINT', () => process.exit(130));

// Written into the controller by --import: its event-loop delay, once a second, as JSON lines.
const DELAY_FILE = path.join(dir, 'loop-delay.jsonl');
const PRELOAD = path.join(dir, 'loop-delay.mjs');
writeFileSync(
  PRELOAD,
  `import { monitorEventLoopDelay } from 'node:perf_hooks';
import { appendFileSync } from 'node:fs';
const h = monitorEventLoopDelay({ resolution: 5 });
h.enable();
setInterval(() => {
  appendFileSync(${JSON.stringify(DELAY_FILE)}, JSON.stringify({ t: Date.now(), p50: h.percentile(50) / 1e6, max: h.max / 1e6 }) + '\\n');
  h.reset();
}, 1000).unref();
`,
);

async function main() {
  const port = await freePort();
  const passwd = path.join(dir, 'passwd');
  execFileSync('mosquitto_passwd', ['-b', '-c', passwd, 'ferm-1', 'ferm-1-secret'], { stdio: 'pipe' });
  execFileSync('mosquitto_passwd', ['-b', passwd, 'ferm-2', 'ferm-2-secret'], { stdio: 'pipe' });
  const acl = path.join(dir, 'acl');
  copyFileSync(ACL, acl);
  chmodSync(dir, 0o755);
  for (const f of [passwd, acl]) chmodSync(f, 0o644);
  const conf = path.join(dir, 'mosquitto.conf');
  writeFileSync(
    conf,
    [
      `listener ${port} 127.0.0.1`,
      'allow_anonymous false',
      `password_file ${passwd}`,
      `acl_file ${acl}`,
      'persistence false',
      'log_dest stderr',
      'log_type error',
      '',
    ].join('\n'),
  );
  const broker = spawn('mosquitto', ['-c', conf], { stdio: 'ignore' });
  children.push(broker);
  await sleep(500);
  const url = `mqtt://127.0.0.1:${port}`;

  const httpPort = await freePort();
  const origin = `http://127.0.0.1:${httpPort}/ferm-1`;
  const dataDir = path.join(dir, 'ferm-1');
  let ctl: ChildProcess;
  let deaths = 0;
  let stopping = false;
  const launch = () => {
    ctl = spawn(
      process.execPath,
      [
        ...(HEAP ? [`--max-old-space-size=${HEAP}`] : []),
        '--import',
        PRELOAD,
        CLI,
        ...['--service-id', 'ferm-1', '--host', '127.0.0.1', '--port', String(httpPort), '--https-port', '0'],
        ...['--data-dir', dataDir, '--hardware', 'sim', '--mqtt-url', url, '--log-level', 'warn'],
        ...['--history-ingest', 'all'],
      ],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
        env: { ...process.env, EDGEBLOCKS_MQTT_USERNAME: 'ferm-1', EDGEBLOCKS_MQTT_PASSWORD: 'ferm-1-secret' },
      },
    );
    let err = '';
    ctl.stderr!.on('data', (b: Buffer) => (err = (err + b.toString()).slice(-600)));
    children.push(ctl);
    ctl.once('exit', (code, sig) => {
      if (stopping) return;
      deaths++;
      console.error(`ferm-1 died (${code ?? sig}): ${err.trim().split('\n').slice(-3).join(' | ')}; restarting`);
      setTimeout(launch, 1000); // as systemd's Restart= would
    });
  };
  launch();
  const up = async () => {
    for (let i = 0; i < 600; i++) {
      if ((await fetch(`${origin}/system/ping`).catch(() => null))?.ok) return;
      await sleep(100);
    }
    throw new Error('ferm-1 did not answer');
  };
  await up();
  const post = (route: string, body: unknown) =>
    fetch(`${origin}/${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  await post(
    'blocks/batch/create',
    Array.from({ length: BLOCKS }, (_, i) => ({ id: `Sensor ${i}`, type: 'TempSensorMock', data: { setting: 20 } })),
  );
  const status = async () => (await (await fetch(`${origin}/system/status`)).json()) as any;

  const measure = async (seconds: number) => {
    const pings: number[] = [];
    const rss: number[] = [];
    const from = Date.now();
    let failed = 0;
    while (Date.now() - from < seconds * 1000) {
      const t = performance.now();
      const ok = (await fetch(`${origin}/system/ping`, { signal: AbortSignal.timeout(30_000) }).catch(() => null))?.ok;
      if (ok) pings.push(performance.now() - t);
      else failed++;
      try {
        if (ctl.pid && ctl.exitCode === null) rss.push(rssMb(ctl.pid));
      } catch {
        // it died between the check and the read
      }
      await sleep(200);
    }
    const delays = readFileSync(DELAY_FILE, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { t: number; p50: number; max: number })
      .filter((d) => d.t >= from);
    return {
      rssMb: { median: pct(rss.filter(Number.isFinite), 0.5), max: pct(rss.filter(Number.isFinite), 1) },
      pingMs: { p50: pct(pings, 0.5), p99: pct(pings, 0.99), max: pct(pings, 1), failed },
      loopDelayMs: {
        p50: pct(
          delays.map((d) => d.p50),
          0.5,
        ),
        max: pct(
          delays.map((d) => d.max),
          1,
        ),
      },
    };
  };

  await sleep(5000);
  const connects0 = (await status()).mqtt.connects as number;
  const before = await measure(15);

  const ferm2 = await mqtt.connectAsync(url, { username: 'ferm-2', password: 'ferm-2-secret', protocolVersion: 4 });
  const payload = Buffer.from(`[${'{},'.repeat(Math.floor((MB * 1024 * 1024) / 3) - 1)}{}]`);
  const topics = ['svc/state/ferm-2', 'svc/fleet/ferm-2', 'svc/history/ferm-2'];
  for (const topic of topics)
    await ferm2.publishAsync(topic, payload, { qos: 1, retain: topic !== 'svc/history/ferm-2' });
  // History is not retained: sent again every 5 s, as a peer flooding would.
  const again = setInterval(() => ferm2.publish('svc/history/ferm-2', payload, { qos: 0 }), 5000);
  const during = await measure(SECONDS);
  clearInterval(again);
  await up().catch(() => undefined);
  const s = await status().catch(() => null);
  for (const topic of topics) await ferm2.publishAsync(topic, '', { qos: 1, retain: true });
  await ferm2.endAsync();

  const report = {
    cli: path.relative(process.cwd(), CLI),
    heapLimitMb: HEAP ? Number(HEAP) : null,
    payloadMb: MB,
    topics,
    blocks: BLOCKS,
    before,
    during,
    mqttReconnects: s ? s.mqtt.connects - connects0 : null,
    deaths,
    dropped: s?.mqtt?.dropped ?? null,
  };
  console.log(JSON.stringify(report, null, 2));
  if (jsonOut) writeFileSync(jsonOut, JSON.stringify(report, null, 2));
  stopping = true;
  ctl!.kill('SIGTERM');
  broker.kill('SIGTERM');
  await sleep(500);
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
