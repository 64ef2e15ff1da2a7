// Idle cost, side by side: what the controller costs a Pi all day while nobody calls it. The
// built CLI, started as plain `node dist/src/main.js` (no shebang flags, as a user running it
// by hand would), with 200 restored user blocks (100 TempSensorMock + 100 SetpointSensorPair),
// once with `--hardware linux` (no buses on this machine) and once with `--hardware sim`, and once
// more with linux and the same blocks at rest (no value changes); a bare
// fastify server with a 10 Hz timer is the reference. CPU is the time the process's threads
// were on a CPU (/proc/<pid>/task/*/schedstat, in ns; /proc/<pid>/stat's user + system counts in
// 10 ms ticks, too coarse for a process that is busy 0.2 % of the time) over a window after a
// settle time; wake-ups are its voluntary context switches; RSS from /proc/<pid>/status at its end.
// A fifth run is a fermentation Pi as plugged in: four DS18B20s on a kernel w1 master (the
// kernel's sysfs tree, emulated in a directory), discovered, with a setpoint pair on each.
// With `--profile`, each edgeblocks run is also started with --cpu-prof and its samples are
// summarised by the part of the service they fell in (profile-summary.ts). Starting the servers
// and filling their data dirs is idle-setup.ts.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { memoryMap, type MemoryPart } from './memory-map.js';
import { cpuSeconds, freePort, rssMb, voluntarySwitches } from './procs.js';
import { summariseProfile, type ProfileShare } from './profile-summary.js';
import { bundleCommonJs } from '../bundle.js';
import { CLI, PI_SENSORS, piTree, populatePi, populate, sleep, spawnKept, stop, waitFor } from './idle-setup.js';

export { populate };

const HERE = path.dirname(fileURLToPath(import.meta.url));
const BARE = path.join(HERE, 'bare-idle.js');

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

interface Run {
  name: string;
  args: string[];
  readyUrl: string;
  pinned?: boolean;
  env?: Record<string, string>;
}

/**
 * Start every run at once (on CPU 0 only when `pinned`), let them settle, and measure each one's
 * CPU over the same window: they idle below 2 % each, so they hardly disturb each other, and a
 * machine that gets busier during the bench moves all of them alike (the bare server is then a
 * reference for the same seconds, not for other ones).
 */
async function measureTogether(runs: Run[], settleMs: number, windowMs: number): Promise<IdleFigures[]> {
  const children = runs.map((r) => {
    const env = { ...process.env, ...r.env };
    return r.pinned
      ? spawnKept('taskset', ['-c', '0', process.execPath, ...r.args], env)
      : spawnKept(process.execPath, r.args, env);
  });
  try {
    await Promise.all(runs.map((r, i) => waitFor(r.readyUrl, children[i]!)));
    await sleep(settleMs);
    const before = children.map((c) => ({ cpu: cpuSeconds(c.pid!), wakes: voluntarySwitches(c.pid!) }));
    const t0 = performance.now();
    await sleep(windowMs);
    const seconds = (performance.now() - t0) / 1000;
    return runs.map((r, i) => {
      const pid = children[i]!.pid!;
      const cpu = cpuSeconds(pid) - before[i]!.cpu;
      const wakes = voluntarySwitches(pid) - before[i]!.wakes;
      return {
        name: r.name,
        cpuPercent: (100 * cpu) / seconds,
        wakesPerSecond: wakes / seconds,
        rssMb: rssMb(pid),
        memory: memoryMap(pid),
      };
    });
  } finally {
    await Promise.all(children.map(stop));
  }
}

/** The runs again under --cpu-prof (which costs CPU of its own, so they are not the measured runs), side by side. */
async function profileTogether(runs: Run[], settleMs: number, windowMs: number): Promise<ProfileShare[][]> {
  const dirs = runs.map(() => mkdtempSync(path.join(tmpdir(), 'edgeblocks-prof-')));
  const t0 = performance.now();
  // The plain modules, so each sample is named by the file it fell in (the bundle is one file).
  const children = runs.map((r, i) =>
    spawnKept(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${dirs[i]}`, ...r.args], {
      ...process.env,
      EDGEBLOCKS_MODULES: 'plain',
    }),
  );
  try {
    await Promise.all(runs.map((r, i) => waitFor(r.readyUrl, children[i]!)));
    await sleep(settleMs);
    const skip = performance.now() - t0;
    await sleep(windowMs);
    await Promise.all(children.map(stop));
    return dirs.map((dir) => {
      const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
      if (!file) throw new Error('no .cpuprofile was written');
      return summariseProfile(JSON.parse(readFileSync(path.join(dir, file), 'utf8')), skip, windowMs);
    });
  } finally {
    await Promise.all(children.map(stop));
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}

async function serviceRun(
  name: string,
  hardware: string,
  dataDir: string,
  pinned = false,
  env?: Record<string, string>,
): Promise<Run> {
  const port = await freePort();
  const args = [
    CLI,
    '--hardware',
    hardware,
    '--data-dir',
    dataDir,
    '--port',
    String(port),
    '--https-port',
    '0',
    '--mqtt-port',
    String(await freePort()),
    '--log-level',
    'warn',
  ];
  return { name, args, readyUrl: `http://127.0.0.1:${port}/edge-one/system/ping`, pinned, env };
}

/** The floor (floor-idle.ts), bundled as the service is, so the packages weigh the same in both. */
async function floorRun(dataDir: string): Promise<Run> {
  const dir = FLOOR_DIR;
  await bundleCommonJs({ floor: path.join(HERE, 'floor-idle.js') }, dir);
  const port = await freePort();
  return {
    name: FLOOR_RUN,
    args: [path.join(dir, 'floor.cjs'), String(port), dataDir],
    readyUrl: `http://127.0.0.1:${port}/ping`,
  };
}

/** Inside dist, so that its require() finds node_modules; removed after the runs (dist is what an install copies). */
const FLOOR_DIR = path.join(HERE, '../../bench-floor');

/** The name of the floor's run: the service's packages started with nothing of its own (floor-idle.ts). */
export const FLOOR_RUN = 'floor: the packages alone, 10 Hz timer';

async function bareRun(name: string, pinned = false): Promise<Run> {
  const port = await freePort();
  return { name, args: [BARE, String(port)], readyUrl: `http://127.0.0.1:${port}/ping`, pinned };
}

/**
 * How long each run settles before its window: past the first run of every task that runs at
 * least once a minute (the history flush first runs 60 s after start). A task's first run
 * includes the JIT compiling it (the first flush: some 50 ms of TurboFan on the helper threads),
 * which a controller running for weeks pays once; with a 60 s settle it fell inside the window.
 */
export const IDLE_SETTLE_MS = 90_000;

/**
 * The idle figures, in a steady state: the first minute and a half after start includes the JIT
 * compiling what runs and the first full collections, which a controller running for weeks does
 * not pay again, so each run settles `settleMs` (IDLE_SETTLE_MS) before its 60 s window. Measured side by side:
 * linux, sim, linux with the blocks at rest, the Pi, the bare server and the floor (the packages alone, floor-idle.ts) in one window; with `pinned`,
 * linux and the bare server again on one core (`taskset -c 0`, as a Pi's single core would run
 * Node and its helper threads), named "..., one core", for the Pi-class figure; with `profile`,
 * linux and sim under --cpu-prof.
 */
export async function idleBench(
  opts: { windowMs?: number; settleMs?: number; profile?: boolean; pinned?: boolean } = {},
): Promise<IdleFigures[]> {
  const windowMs = opts.windowMs ?? 60_000;
  const settleMs = opts.settleMs ?? IDLE_SETTLE_MS;
  const dataDirs = {
    linux: mkdtempSync(path.join(tmpdir(), 'edgeblocks-idle-')),
    sim: mkdtempSync(path.join(tmpdir(), 'edgeblocks-idle-sim-')),
    rest: mkdtempSync(path.join(tmpdir(), 'edgeblocks-idle-rest-')),
    pinned: mkdtempSync(path.join(tmpdir(), 'edgeblocks-idle-pin-')),
    pi: mkdtempSync(path.join(tmpdir(), 'edgeblocks-idle-pi-')),
    floor: mkdtempSync(path.join(tmpdir(), 'edgeblocks-idle-floor-')),
  };
  const tree = piTree();
  try {
    // One data dir each: a data dir is locked by the service that runs on it.
    await Promise.all([
      populate(dataDirs.linux),
      populate(dataDirs.sim),
      populate(dataDirs.rest, false),
      populate(dataDirs.pinned),
      populatePi(dataDirs.pi, tree.root),
    ]);
    const services = [
      await serviceRun('edgeblocks --hardware linux', 'linux', dataDirs.linux),
      await serviceRun('edgeblocks --hardware sim', 'sim', dataDirs.sim),
    ];
    const rest = await serviceRun('edgeblocks --hardware linux, blocks at rest', 'linux', dataDirs.rest);
    const pi = await serviceRun(
      `edgeblocks --hardware linux, ${PI_SENSORS} DS18B20 on w1`,
      'linux',
      dataDirs.pi,
      false,
      { EDGEBLOCKS_W1_ROOT: tree.root },
    );
    const out = await measureTogether(
      [...services, rest, pi, await bareRun('bare fastify, 10 Hz timer'), await floorRun(dataDirs.floor)],
      settleMs,
      windowMs,
    );
    if (opts.pinned)
      out.push(
        ...(await measureTogether(
          [
            await serviceRun('edgeblocks --hardware linux, one core', 'linux', dataDirs.pinned, true),
            await bareRun('bare fastify, 10 Hz timer, one core', true),
          ],
          settleMs,
          windowMs,
        )),
      );
    if (opts.profile) {
      const profiles = await profileTogether(services, settleMs, windowMs);
      for (const [i, s] of services.entries()) out.find((f) => f.name === s.name)!.profile = profiles[i];
    }
    return out;
  } finally {
    tree.close();
    for (const dir of [...Object.values(dataDirs), FLOOR_DIR]) rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const windowMs = Number(process.env.IDLE_WINDOW_MS ?? 60_000);
  const figures = await idleBench({
    windowMs,
    settleMs: Number(process.env.IDLE_SETTLE_MS ?? IDLE_SETTLE_MS),
    profile: process.argv.includes('--profile'),
    pinned: process.argv.includes('--pinned'),
  });
  for (const f of figures) {
    console.log(
      `${f.name.padEnd(28)} CPU ${f.cpuPercent.toFixed(3)} % of one core, ${f.wakesPerSecond.toFixed(1)} wake-ups/s, RSS ${f.rssMb.toFixed(1)} MB`,
    );
    for (const p of f.profile ?? [])
      console.log(`    ${p.part.padEnd(40)} ${p.percentOfCore.toFixed(3)} % (${p.share.toFixed(1)} % of samples)`);
  }
}
