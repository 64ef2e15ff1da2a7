// The idle bench's servers (scripts/bench/idle.ts): started with their output kept, waited for and
// stopped; and the data dirs they run on, filled by the CLI itself (200 blocks, or a Pi's w1 sensors).
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeRom } from '../../drivers/onewire/address.js';
import { OneWireSegment, SimDs18b20 } from '../../drivers/sim/onewire-wire.js';
import { W1Tree } from '../../drivers/sim/w1-tree.js';
import { freePort } from './procs.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
/** The built CLI, started as plain `node`. */
export const CLI = path.resolve(HERE, '../../src/main.js');
export const PAIRS = 100;

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function post(url: string, body?: unknown): Promise<{ status: number; text: string }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body ?? {}),
  });
  return { status: res.status, text: await res.text() };
}

/** The last of what each child started by spawnKept wrote, for the error when it exits early. */
const outputs = new WeakMap<ChildProcess, string>();

/** Spawns with stdout and stderr kept (their last 4 KB), so a server that exits says why. */
export function spawnKept(command: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
  outputs.set(child, '');
  const keep = (chunk: Buffer) => outputs.set(child, (outputs.get(child)! + chunk.toString()).slice(-4096));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  return child;
}

export async function waitFor(url: string, child: ChildProcess): Promise<void> {
  for (let i = 0; ; i++) {
    if (child.exitCode !== null)
      throw new Error(
        `${url}: the server exited with ${child.exitCode}${outputs.get(child) ? `:\n${outputs.get(child)}` : ''}`,
      );
    try {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      if (res.status < 500) return;
    } catch {
      if (i > 3000) throw new Error(`${url} did not answer`);
    }
    await sleep(10);
  }
}

export async function stop(child: ChildProcess): Promise<void> {
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
  await withCli(dataDir, process.env, (url) => createPairs(url, moving));
}

/** PAIRS TempSensorMock (`s0`...) and SetpointSensorPair (`p0`...), each pair on its sensor, through the API at `url`. */
export async function createPairs(url: string, moving: boolean): Promise<void> {
  for (let i = 0; i < PAIRS; i++) {
    const s = await post(`${url}/blocks/create`, {
      id: `s${i}`,
      type: 'TempSensorMock',
      data: { setting: 19 + (i % 5), fluctuations: moving ? [{ amplitude: 0.5, period: 600 }] : [] },
    });
    const p = await post(`${url}/blocks/create`, {
      id: `p${i}`,
      type: 'SetpointSensorPair',
      data: { enabled: true, storedSetting: 20, sensorId: { __objtype: 'Link', id: `s${i}` }, filter: 'FILTER_15s' },
    });
    if (s.status !== 201 || p.status !== 201)
      throw new Error(`populate: ${s.status} ${s.text} / ${p.status} ${p.text}`);
  }
}

export const PI_SENSORS = 4;

/** The kernel w1 tree of a Pi with PI_SENSORS DS18B20s on its one master, rendered in a temporary directory. */
export function piTree(): W1Tree {
  const segment = new OneWireSegment({ name: 'w1' });
  for (let i = 0; i < PI_SENSORS; i++)
    segment.attach(new SimDs18b20({ address: makeRom(0x28, 0x7100 + i), temperature: 18 + i / 4 }));
  return new W1Tree({ masters: [segment] });
}

/** The Pi's blocks in `dataDir`: its sensors, discovered on `w1Root`, and a setpoint pair on each. */
export async function populatePi(dataDir: string, w1Root: string): Promise<void> {
  await withCli(dataDir, { ...process.env, EDGEBLOCKS_W1_ROOT: w1Root }, async (url) => {
    const found = JSON.parse((await post(`${url}/blocks/discover`)).text) as Array<{ id: string; type: string }>;
    const sensors = found.filter((b) => b.type === 'TempSensorOneWire');
    if (sensors.length !== PI_SENSORS)
      throw new Error(`populatePi: discovered ${sensors.length} sensors, not ${PI_SENSORS}`);
    for (const [i, sensor] of sensors.entries()) {
      const p = await post(`${url}/blocks/create`, {
        id: `Setpoint ${i + 1}`,
        type: 'SetpointSensorPair',
        data: {
          enabled: true,
          storedSetting: 20,
          sensorId: { __objtype: 'Link', id: sensor.id },
          filter: 'FILTER_15s',
        },
      });
      if (p.status !== 201) throw new Error(`populatePi: ${p.status} ${p.text}`);
    }
  });
}

/** The CLI on `dataDir` (no hardware but what `env` points it at) while `fill` writes blocks through its API. */
async function withCli(dataDir: string, env: NodeJS.ProcessEnv, fill: (url: string) => Promise<void>): Promise<void> {
  const port = await freePort();
  const args = ['--hardware', 'linux', '--data-dir', dataDir, '--port', String(port), '--https-port', '0'];
  const child = spawnKept(process.execPath, [CLI, ...args, '--mqtt-port', '0', '--log-level', 'warn'], env);
  const url = `http://127.0.0.1:${port}/edge-one`;
  try {
    await waitFor(`${url}/blocks/all/read`, child);
    await fill(url);
  } finally {
    await stop(child);
  }
}
