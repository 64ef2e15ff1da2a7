// A real Mosquitto broker for tests, started on a free (or given) port of 127.0.0.1 with a
// temporary config. A missing mosquitto binary is an error, never a skip.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, waitForPort as waitPort } from '../../scripts/ports.js';
import { killAndWait, spawnOwned } from './children.js';
import { limit } from './limits.js';
import { needTools } from './tools.js';
import { until } from './until.js';

const START_TIMEOUT_MS = 5000;

export interface Mosquitto {
  port: number;
  url: string;
  /** Everything mosquitto wrote so far. */
  output(): string;
  /** SIGKILL: clients see their connection drop, nothing is flushed. */
  kill(): Promise<void>;
  /** SIGSTOP: the broker hangs; its connections stay open and the kernel keeps buffering for it. */
  pause(): void;
  /** SIGCONT after pause(). */
  resume(): void;
  /** SIGHUP: the broker reads its password and ACL files again (retained messages and connections stay); resolves once it says so, which needs `log_type information` among the extra lines. */
  reload(): Promise<void>;
  /** Start again on the same port (after kill or stop). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export { freePort };

export function waitForPort(port: number, timeoutMs = limit(START_TIMEOUT_MS), alive: () => boolean = () => true) {
  return waitPort(port, timeoutMs, alive);
}

/** `extra` config lines go after the listener's own (e.g. TLS settings of that listener, a password file). */
export async function startMosquitto(port?: number, extra: string[] = []): Promise<Mosquitto> {
  needTools('mosquitto');
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-mosquitto-'));
  const conf = path.join(dir, 'mosquitto.conf');
  const chosen = port ?? (await freePort());
  writeFileSync(
    conf,
    [
      `listener ${chosen} 127.0.0.1`,
      'allow_anonymous true',
      'persistence false',
      'log_dest stderr',
      'log_type error',
      'log_type warning',
      ...extra,
      '',
    ].join('\n'),
  );
  let child: ChildProcess | null = null;
  let out = '';

  const launch = async () => {
    const proc = spawnOwned('mosquitto', ['-c', conf], { stdio: ['ignore', 'pipe', 'pipe'] });
    child = proc;
    let exited = false;
    const spawnError = new Promise<never>((_, reject) =>
      proc.once('error', (e: NodeJS.ErrnoException) =>
        reject(
          e.code === 'ENOENT'
            ? new Error(
                'mosquitto is not installed: the MQTT tests need a real broker (apt-get install -y mosquitto mosquitto-clients)',
              )
            : e,
        ),
      ),
    );
    proc.once('exit', () => (exited = true));
    proc.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    proc.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    try {
      await Promise.race([waitForPort(chosen, limit(START_TIMEOUT_MS), () => !exited), spawnError]);
    } catch (e) {
      await killAndWait(proc);
      throw new Error(`${(e as Error).message}\nmosquitto output:\n${out}`);
    }
  };
  const terminate = async (signal: NodeJS.Signals) => {
    const proc = child;
    child = null;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const gone = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    proc.kill('SIGCONT'); // a paused broker would not act on SIGTERM
    proc.kill(signal);
    await gone;
  };

  await launch();
  return {
    port: chosen,
    url: `mqtt://127.0.0.1:${chosen}`,
    output: () => out,
    kill: () => terminate('SIGKILL'),
    pause: () => void child?.kill('SIGSTOP'),
    resume: () => void child?.kill('SIGCONT'),
    async reload() {
      const reloads = () => out.match(/Reloading config/g)?.length ?? 0;
      const before = reloads();
      child?.kill('SIGHUP');
      await until(
        () => reloads() > before,
        'mosquitto to reload its config (it says so with the extra line log_type information)',
      );
    },
    restart: launch,
    async stop() {
      await terminate('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
