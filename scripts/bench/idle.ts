// Idle cost, side by side: what the controller costs a Pi all day while nobody calls it. The
// built CLI, started as plain `node dist/src/main.js` (no shebang flags, as a user running it
// by hand would), with 200 restored user blocks (100 TempSensorMock + 100 SetpointSensorPair),
// once with `--hardware linux` (no buses on this machine) and once with `--hardware sim`, and once
// more with linux and the same blocks at rest (no value changes); a bare
// fastify server with a 10 Hz timer is the reference. CPU is the time the process's threads
// were on a CPU (/proc/<pid>/task/*/schedstat, in ns; /proc/<pid>/stat's user + system counts in
// 10 ms ticks, too coarse for a process that is busy 0.2 % of the time) over a window after a
// settle time; wake-ups are its voluntary context switches; RSS from /proc/<pid>/status at its end.
// With `--profile`, each edgeblocks run is also started with --cpu-prof and its samples are
// summarised by the part of the service they fell in (profile-summary.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { memoryMap, type MemoryPart } from './memory-map.js';
import { cpuSeconds, freePort, rssMb, voluntarySwitches } from './procs.js';
import { summariseProfile, type ProfileShare } from './profile-summary.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const CLI = path.resolve(HERE, '../../src/main.js');
const BARE = path.join(HERE, 'bare-idle.js');
const PAIRS = 100;

export interface IdleFigures {
  name: string;
  cpuPercent: number;
  /** Times a second the process went to sleep and was woken again. */
  wakesPerSecond: number;
  rssMb: number;
  /** Resident MB by part (smaps) at the end of the window. */
  memory: Record<MemoryPart, number>;
  profile?: ProfileShare[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));


async function post(url: string, body?: unknown): Promise<{ status: number; text: string }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body ?? {}) });
  return { status: res.status, text: await res.text() };
}

async function waitFor(url: string, child: ChildProcess): Promise<void> {
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`${url}: the server exited with ${child.exitCode}`);
    try {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      if (res.status < 500) return;
    } catch {
      if (i > 3000) throw new Error(`${url} did not answer`);
    }
    await sleep(10);
  }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const gone = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const t = setTimeout(() => child.kill('SIGKILL'), 5000);
  await gone;
  clearTimeout(t);
}

/**
 * 100 TempSensorMock and 100 SetpointSensorPair in `dataDir`, written by the CLI itself. Moving:
 * each mock follows a slow sine, so every block has new values every 5 s cycle (what real sensors
 * do); at rest: the mocks hold their setting, so nothing changes.
 */
export async function populate(dataDir: string, moving = true): Promise<void> {
  const port = await freePort();
  const child = spawn(process.execPath, [CLI, '--hardware', 'linux', '--data-dir', dataDir, '--port', String(port), '--https-port', '0', '--mqtt-port', '0', '--log-level', 'warn'], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}/edge-one`;
  try {
    await waitFor(`${url}/blocks/all/read`, child);
    for (let i = 0; i < PAIRS; i++) {
      const s = await post(`${url}/blocks/create`, { id: `s${i}`, type: 'TempSensorMock', data: { setting: 19 + (i % 5), fluctuations: moving ? [{ amplitude: 0.5, period: 600 }] : [] } });
      const p = await post(`${url}/blocks/create`, { id: `p${i}`, type: 'SetpointSensorPair', data: { enabled: true, storedSetting: 20, sensorId: { __objtype: 'Link', id: `s${i}` }, filter: 'FILTER_15s' } });
      if (s.status !== 201 || p.status !== 201) throw new Error(`populate: ${s.status} ${s.text} / ${p.status} ${p.text}`);
    }
  } finally {
    await stop(child);
  }
}

/** Start `args` with node (on CPU 0 only when `pinned`), let it settle, and measure CPU over `windowMs`. */
async function measure(name: string, args: string[], readyUrl: string, settleMs: number, windowMs: number, pinned = false): Promise<IdleFigures> {
  const child = pinned ? spawn('taskset', ['-c', '0', process.execPath, ...args], { stdio: 'ignore' }) : spawn(process.execPath, args, { stdio: 'ignore' });
  try {
    await waitFor(readyUrl, child);
    await sleep(settleMs);
    const c0 = cpuSeconds(child.pid!);
    const w0 = voluntarySwitches(child.pid!);
    const t0 = performance.now();
    await sleep(windowMs);
    const cpu = cpuSeconds(child.pid!) - c0;
    const wakes = voluntarySwitches(child.pid!) - w0;
    const seconds = (performance.now() - t0) / 1000;
    return { name, cpuPercent: (100 * cpu) / seconds, wakesPerSecond: wakes / seconds, rssMb: rssMb(child.pid!), memory: memoryMap(child.pid!) };
  } finally {
    await stop(child);
  }
}

/** The same run under --cpu-prof (which costs CPU of its own, so it is not the measured run). */
async function profile(args: string[], readyUrl: string, settleMs: number, windowMs: number): Promise<ProfileShare[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-prof-'));
  const t0 = performance.now();
  // The plain modules, so each sample is named by the file it fell in (the bundle is one file).
  const child = spawn(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${dir}`, ...args], { stdio: 'ignore', env: { ...process.env, EDGEBLOCKS_MODULES: 'plain' } });
  try {
    await waitFor(readyUrl, child);
    await sleep(settleMs);
    const skip = performance.now() - t0;
    await sleep(windowMs);
    await stop(child);
    const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
    if (!file) throw new Error('no .cpuprofile was written');
    return summariseProfile(JSON.parse(readFileSync(path.join(dir, file), 'utf8')), skip, windowMs);
  } finally {
    await stop(child);
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The idle figures. With `pinned`, the linux run and the bare server are measured again on one
 * core (`taskset -c 0`, as a Pi's single core would run Node and its helper threads), named
 * "..., one core", for the Pi-class figure.
 */
export async function idleBench(opts: { windowMs?: number; settleMs?: number; profile?: boolean; pinned?: boolean } = {}): Promise<IdleFigures[]> {
  const windowMs = opts.windowMs ?? 60_000;
  const settleMs = opts.settleMs ?? 10_000;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-idle-'));
  const restingDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-idle-rest-'));
  const out: IdleFigures[] = [];
  try {
    await populate(dataDir);
    await populate(restingDir, false);
    for (const hardware of ['linux', 'sim']) {
      const port = await freePort();
      const args = [CLI, '--hardware', hardware, '--data-dir', dataDir, '--port', String(port), '--https-port', '0', '--mqtt-port', String(await freePort()), '--log-level', 'warn'];
      const ready = `http://127.0.0.1:${port}/edge-one/system/ping`;
      const figures = await measure(`edgeblocks --hardware ${hardware}`, args, ready, settleMs, windowMs);
      if (opts.profile) figures.profile = await profile(args, ready, settleMs, windowMs);
      out.push(figures);
    }
    const rp = await freePort();
    const resting = [CLI, '--hardware', 'linux', '--data-dir', restingDir, '--port', String(rp), '--https-port', '0', '--mqtt-port', String(await freePort()), '--log-level', 'warn'];
    out.push(await measure('edgeblocks --hardware linux, blocks at rest', resting, `http://127.0.0.1:${rp}/edge-one/system/ping`, settleMs, windowMs));
    const port = await freePort();
    out.push(await measure('bare fastify, 10 Hz timer', [BARE, String(port)], `http://127.0.0.1:${port}/ping`, settleMs, windowMs));
    if (opts.pinned) {
      const p1 = await freePort();
      const args = [CLI, '--hardware', 'linux', '--data-dir', dataDir, '--port', String(p1), '--https-port', '0', '--mqtt-port', String(await freePort()), '--log-level', 'warn'];
      out.push(await measure('edgeblocks --hardware linux, one core', args, `http://127.0.0.1:${p1}/edge-one/system/ping`, settleMs, windowMs, true));
      const p2 = await freePort();
      out.push(await measure('bare fastify, 10 Hz timer, one core', [BARE, String(p2)], `http://127.0.0.1:${p2}/ping`, settleMs, windowMs, true));
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(restingDir, { recursive: true, force: true });
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const windowMs = Number(process.env.IDLE_WINDOW_MS ?? 60_000);
  const figures = await idleBench({ windowMs, settleMs: Number(process.env.IDLE_SETTLE_MS ?? 10_000), profile: process.argv.includes('--profile'), pinned: process.argv.includes('--pinned') });
  for (const f of figures) {
    console.log(`${f.name.padEnd(28)} CPU ${f.cpuPercent.toFixed(3)} % of one core, ${f.wakesPerSecond.toFixed(1)} wake-ups/s, RSS ${f.rssMb.toFixed(1)} MB`);
    for (const p of f.profile ?? []) console.log(`    ${p.part.padEnd(40)} ${p.percentOfCore.toFixed(3)} % (${p.share.toFixed(1)} % of samples)`);
  }
}
