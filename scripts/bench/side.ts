// Side-by-side bench: the built CLI (sim hardware, 200 restored user blocks) against a bare
// fastify 5 server answering the same JSON bytes, both child processes, loaded by autocannon
// in a third (load.ts). Every figure is reported as a ratio edgeblocks / bare, so a regression shows
// on any machine. Also the emission's lateness while all/read is hammered.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, rssMb } from './procs.js';
import { NODE_FLAGS, RUNTIME_ENV } from '../runtime-flags.js';
import { loads, type Load, type LoadResult } from './load.js';
import { median } from './stats.js';
import { CLI, PAIRS, createPairs, post, sleep } from './idle-setup.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const BARE = path.join(HERE, 'bare-server.js');
const PROBE = path.join(HERE, 'lateness-probe.js');
const LOAD = path.join(HERE, 'load.js');
const SERVICE = 'edge-one';
const PREFIX = `/${SERVICE}`;
const CONNECTIONS = 50;
const SECONDS = 5;
const EMIT_MS = 200;
/** Starts of each server for the start figure (their median). */
const START_SAMPLES = 5;

/** Long enough for the service's lateness window (120 cycles) to hold only cycles under load. */
const LATENESS_SECONDS = 26;

export interface SideRow {
  name: string;
  edge: number;
  bare: number | null;
  unit: string;
}

interface Server {
  child: ChildProcess;
  url: string;
  startMs: number;
  output(): string;
  stop(): Promise<void>;
}

/** Spawn a server and time it from spawn to the first 200 of a block read (of the block list, for
 *  an `empty` database). Both servers get the CLI's environment (malloc arenas; scripts/runtime-flags.ts),
 *  so the ratios compare code, not settings. */
async function spawnServer(args: string[], port: number, env: NodeJS.ProcessEnv = {}, empty = false): Promise<Server> {
  const url = `http://127.0.0.1:${port}${PREFIX}`;
  const t0 = performance.now();
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...RUNTIME_ENV, ...env },
  });
  let err = '';
  let out = '';
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  let exited = false;
  const gone = new Promise<void>((r) => child.on('exit', () => ((exited = true), r())));
  for (;;) {
    if (exited) throw new Error(`${args[0]} exited before answering:\n${err}`);
    if (performance.now() - t0 > 30000) {
      child.kill('SIGKILL');
      throw new Error(`${args[0]} did not answer within 30 s:\n${err}`);
    }
    try {
      // A database without the blocks yet (empty) answers the list.
      if (
        (empty ? await post(`${url}/blocks/all/read`) : await post(`${url}/blocks/read`, { id: 's0' })).status === 200
      )
        break;
    } catch {
      // not listening yet
    }
    await sleep(2);
  }
  const startMs = performance.now() - t0;
  return {
    child,
    url,
    startMs,
    output: () => out,
    stop: async () => {
      if (!exited) child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 5000);
      await gone;
      clearTimeout(t);
    },
  };
}

/** Request counter across runs, so created ids stay unique. */
let n = 0;

/** Load `load` for `seconds` with autocannon in a child process: the load generator gets a core
 *  and heap settings of its own (this process runs with the service's small young generation,
 *  which would make autocannon the bottleneck and squeeze every ratio towards 1). */
async function hammer(url: string, load: Load, seconds: number): Promise<{ rps: number; p99: number }> {
  const child = spawn(
    process.execPath,
    [
      LOAD,
      JSON.stringify({
        url,
        prefix: PREFIX,
        load: load.name,
        seconds,
        connections: CONNECTIONS,
        first: n,
        pairs: PAIRS,
      }),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  const code = await new Promise<number | null>((r) => child.on('exit', r));
  if (code !== 0) throw new Error(`${load.name}: the load generator exited with ${code}`);
  const result = JSON.parse(out) as LoadResult;
  n = result.next;
  return { rps: result.rps, p99: result.p99 };
}

/** p99 of how late each state message arrived against its slot on the fixed cadence. */
function lateness(arrivals: number[]): number {
  if (arrivals.length < 3) throw new Error(`only ${arrivals.length} state messages arrived`);
  const slots = arrivals.map((t) => Math.round((t - arrivals[0]!) / EMIT_MS));
  const anchor = Math.min(...arrivals.map((t, i) => t - slots[i]! * EMIT_MS));
  const late = arrivals.map((t, i) => t - slots[i]! * EMIT_MS - anchor).sort((a, b) => a - b);
  return late[Math.min(late.length - 1, Math.floor(late.length * 0.99))]!;
}

/** How late the state messages were while all/read is hammered, two ways: as the service hands
 *  them to the broker (its own figure in /system/status, the last 120 cycles: the load runs long
 *  enough that all of them are under load), and as a subscriber in another process receives
 *  them (adds the broker hop and the OS scheduling three busy processes on the machine's cores). */
async function emissionLateness(mqttPort: number, url: string): Promise<{ published: number; arrival: number }> {
  const probe = spawn(process.execPath, [PROBE, `mqtt://127.0.0.1:${mqttPort}`, `bench/state/${SERVICE}`], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  probe.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  const done = new Promise<void>((r) => probe.on('exit', () => r()));
  try {
    for (let i = 0; !out.includes('subscribed'); i++) {
      if (i > 1000) throw new Error('lateness probe did not subscribe');
      await sleep(10);
    }
    await hammer(url, loads[1]!, LATENESS_SECONDS);
  } finally {
    probe.kill('SIGTERM');
    await done;
  }
  const status = (await (await fetch(`${url}${PREFIX}/system/status`)).json()) as {
    mqtt: { emitted: { lateMs: { p99: number; samples: number } } };
  };
  const { lateMs } = status.mqtt.emitted;
  if (lateMs.samples < 100) throw new Error(`the service reported only ${lateMs.samples} lateness samples`);
  const arrivals = JSON.parse(out.split('\n').filter(Boolean).pop()!) as number[];
  return { published: lateMs.p99, arrival: lateness(arrivals) };
}

export async function sideBySide(): Promise<SideRow[]> {
  const rows: SideRow[] = [];
  const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-side-'));
  // The code cache of the bench's own, made by the first run (src/service/code-cache.ts).
  const codeCache = { NODE_COMPILE_CACHE: path.join(dataDir, 'code-cache') };
  const servers: Server[] = [];
  let coldMs = 0;
  try {
    const mqttPort = await freePort();
    const cliArgs = async () => {
      const port = await freePort();
      return {
        port,
        args: [
          ...NODE_FLAGS,
          CLI,
          '--hardware',
          'sim',
          '--data-dir',
          dataDir,
          '--port',
          String(port),
          '--https-port',
          '0',
          '--mqtt-port',
          String(mqttPort),
          '--topic-root',
          'bench',
          '--emit-interval',
          String(EMIT_MS),
          '--log-level',
          'info',
        ],
      };
    };
    // First run: create the blocks; its stop writes the code cache, as a service's first run
    // after an install does. The measured runs restore the blocks from the database.
    {
      const { port, args } = await cliArgs();
      const first = await spawnServer(args, port, codeCache, true);
      await createPairs(first.url, true);
      await first.stop();
      if (!/code cache of \d+ file/.test(first.output()))
        throw new Error(`the first run wrote no code cache:\n${first.output()}`);
    }
    // A start without the cache: the first after an install or an upgrade.
    {
      const { port, args } = await cliArgs();
      const cold = await spawnServer(args, port, { NODE_COMPILE_CACHE: path.join(dataDir, 'no-code-cache') });
      coldMs = cold.startMs;
      await cold.stop();
    }

    let { port, args } = await cliArgs();
    let edge = await spawnServer(args, port, codeCache);
    servers.push(edge);
    // Capture the bytes edgeblocks answers; the bare server replays them.
    const read: Record<string, string> = {};
    for (let i = 0; i < PAIRS; i++) read[`s${i}`] = (await post(`${edge.url}/blocks/read`, { id: `s${i}` })).text;
    const captured = {
      prefix: PREFIX,
      read,
      all: (await post(`${edge.url}/blocks/all/read`)).text,
      patch: (await post(`${edge.url}/blocks/patch`, { id: 's0', type: 'TempSensorMock', data: { setting: 21 } })).text,
      create: (
        await post(`${edge.url}/blocks/create`, { id: 'captured', type: 'TempSensorMock', data: { setting: 20 } })
      ).text,
    };
    await post(`${edge.url}/blocks/delete`, { id: 'captured' });
    const file = path.join(dataDir, 'captured.json');
    writeFileSync(file, JSON.stringify(captured));
    let barePort = await freePort();
    let bare = await spawnServer([BARE, String(barePort), file], barePort);
    servers.push(bare);
    // One start is noisy (a 1.46-1.65x spread in three runs): the median of START_SAMPLES, the
    // two servers started in turn; the last pair stays up for the loads.
    const starts = { edge: [edge.startMs], bare: [bare.startMs] };
    while (starts.edge.length < START_SAMPLES) {
      for (const s of servers.splice(0)) await s.stop();
      ({ port, args } = await cliArgs());
      edge = await spawnServer(args, port, codeCache);
      servers.push(edge);
      barePort = await freePort();
      bare = await spawnServer([BARE, String(barePort), file], barePort);
      servers.push(bare);
      starts.edge.push(edge.startMs);
      starts.bare.push(bare.startMs);
    }

    await sleep(2000);
    global.gc?.();
    rows.push({
      name: `spawn to first 200 (200 blocks restored), median of ${START_SAMPLES}`,
      edge: median(starts.edge),
      bare: median(starts.bare),
      unit: 'ms',
    });
    rows.push({
      name: '  the same, the first start after an install (no code cache)',
      edge: coldMs,
      bare: median(starts.bare),
      unit: 'ms',
    });
    const phases = /"phases":(\{[^}]*\})/.exec(edge.output());
    for (const [phase, ms] of Object.entries(phases ? (JSON.parse(phases[1]!) as Record<string, number>) : {}))
      rows.push({ name: `  start-up phase: ${phase}`, edge: ms, bare: null, unit: 'ms' });
    rows.push({ name: 'RSS idle', edge: rssMb(edge.child.pid!), bare: rssMb(bare.child.pid!), unit: 'MB' });
    rows.push({ name: 'all/read response size', edge: captured.all.length / 1024, bare: null, unit: 'KiB' });

    const edgeBase = `http://127.0.0.1:${port}`;
    const bareBase = `http://127.0.0.1:${barePort}`;
    for (const load of loads) {
      // A short warm-up each, so both are measured with optimised code.
      await hammer(edgeBase, load, 1);
      await hammer(bareBase, load, 1);
      const e = await hammer(edgeBase, load, SECONDS);
      const b = await hammer(bareBase, load, SECONDS);
      rows.push({ name: `${load.name} throughput`, edge: e.rps, bare: b.rps, unit: 'req/s' });
      rows.push({ name: `${load.name} p99 latency`, edge: e.p99, bare: b.p99, unit: 'ms' });
      if (load.name === 'blocks/all/read') {
        const late = await emissionLateness(mqttPort, edgeBase);
        rows.push({
          name: `state emission p99 lateness under all/read load, published (${EMIT_MS} ms cadence)`,
          edge: late.published,
          bare: null,
          unit: 'ms',
        });
        rows.push({
          name: `state emission p99 lateness under all/read load, at a subscriber`,
          edge: late.arrival,
          bare: null,
          unit: 'ms',
        });
      }
    }
    rows.push({ name: 'RSS after load', edge: rssMb(edge.child.pid!), bare: rssMb(bare.child.pid!), unit: 'MB' });
  } finally {
    for (const s of servers) await s.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return rows;
}
