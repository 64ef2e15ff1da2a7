// An in-process app on emulated hardware (--hardware sim, or linux with `config`) with a manual clock: the real
// drivers run on the emulation, and `run(ms)` advances the clock, the hardware and the
// scheduler together, so seconds of control take milliseconds. Not a test file itself.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createApp, type App } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { silentLogger } from '../../src/log.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { runFor, type TickHook } from '../../src/runtime/loop.js';

export interface SimApp {
  app: App;
  clock: ManualClock;
  dataDir: string;
  /** POST (or GET with method) under /{serviceId}/, JSON in and out. */
  call(method: 'GET' | 'POST', route: string, body?: unknown): Promise<{ status: number; body: any }>;
  post(route: string, body?: unknown): Promise<{ status: number; body: any }>;
  get(route: string): Promise<{ status: number; body: any }>;
  /** Advance the manual clock by `ms`, servicing the hardware and ticking every `step` ms. */
  run(ms: number, step?: number): Promise<void>;
  /** A block's data (default read mode, degC). */
  data(id: string): any;
  close(): Promise<void>;
}

export interface SimAppOptions {
  /** Sim config JSON (default: the built-in demo). */
  sim?: unknown;
  dataDir?: string;
  config?: Partial<Record<keyof Config, string>>;
  /** Start time of the manual clock. */
  start?: number;
  /** The manual clock itself (its wall clock where a test wants it: on after a restart, not set); `start` is then unused. */
  clock?: ManualClock;
  /** Extra hooks run before the app's hardware service on every step. */
  hooks?: TickHook[];
}

export async function simApp(opts: SimAppOptions = {}): Promise<SimApp> {
  const dataDir = opts.dataDir ?? mkdtempSync(path.join(tmpdir(), 'edgeblocks-hw-'));
  let simDir: string | null = null;
  const values: Partial<Record<keyof Config, string>> = {
    port: '0',
    httpsPort: '0',
    mqttPort: '0',
    dataDir,
    logLevel: 'silent',
    hardware: 'sim',
    ...opts.config,
  };
  if (opts.sim !== undefined) {
    simDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-simcfg-'));
    values.simConfig = path.join(simDir, 'sim.json');
    writeFileSync(values.simConfig, JSON.stringify(opts.sim));
  }
  const config = loadConfig(values, {});
  const clock = opts.clock ?? new ManualClock(opts.start ?? 1000);
  const cleanup = () => {
    if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    if (simDir) rmSync(simDir, { recursive: true, force: true });
  };
  let app: App;
  try {
    app = await createApp(config, { clock, log: silentLogger });
  } catch (e) {
    cleanup();
    throw e;
  }
  const prefix = `/${config.serviceId}`;
  const call: SimApp['call'] = async (method, route, body) => {
    const res = await app.http.inject({
      method,
      url: `${prefix}/${route}`,
      ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) }),
    });
    return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : undefined };
  };
  // Waits for real IO (files, a pty) too, so every step sees the hardware at `now`.
  const serviced = async (now: number) => {
    await app.hardware.service(now);
    await app.hardware.idle();
  };
  let closed = false;
  return {
    app,
    clock,
    dataDir,
    call,
    post: (route, body) => call('POST', route, body),
    get: (route) => call('GET', route),
    run: (ms, step = 100) => runFor(app.runtime, clock, ms, step, [...(opts.hooks ?? []), serviced]),
    data: (id) => app.runtime.read({ id }).json().data,
    async close() {
      if (closed) return;
      closed = true;
      await app.stop();
      cleanup();
    },
  };
}

/** Quantity value of a field, e.g. q(data.value). */
export const q = (field: any): number | null => (field && typeof field === 'object' ? field.value : field) ?? null;

/** An MCP23017 relay board ('Relays', 0x20 on the sim bus, active low) with 'Heater' on channel 1, asked on. */
export async function heaterOnRelayBoard(s: SimApp): Promise<void> {
  await s.post('blocks/create', {
    id: 'Relays',
    type: 'MCP23017',
    data: { bus: 'sim', address: 0x20, activeLow: true },
  });
  await s.post('blocks/create', {
    id: 'Heater',
    type: 'DigitalActuator',
    data: { hwDevice: { __objtype: 'Link', id: 'Relays' }, channel: 1, storedState: 'STATE_ACTIVE' },
  });
}
