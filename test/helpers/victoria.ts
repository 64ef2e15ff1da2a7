// A real VictoriaMetrics for tests (Debian package victoria-metrics), run as Brewblox runs it
// (-influxMeasurementFieldSeparator=/), on a free port of 127.0.0.1 with a temporary data dir.
// Query caching and the 30 s latency offset are off so a test sees what it just wrote.
// A missing binary is an error, never a skip.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, waitForPort } from './mosquitto.js';
import { needTools } from './tools.js';

export interface Victoria {
  port: number;
  url: string;
  output(): string;
  stop(): Promise<void>;
}

export async function startVictoria(port?: number): Promise<Victoria> {
  needTools('victoria-metrics');
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-victoria-'));
  port ??= await freePort();
  let out = '';
  const child: ChildProcess = spawn(
    'victoria-metrics',
    [
      `-httpListenAddr=127.0.0.1:${port}`,
      `-storageDataPath=${dir}`,
      '-retentionPeriod=100y',
      '-influxMeasurementFieldSeparator=/',
      '-search.disableCache',
      '-search.latencyOffset=0s',
      '-loggerLevel=ERROR',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  let exited = false;
  child.once('exit', () => (exited = true));
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const spawnError = new Promise<never>((_, reject) =>
    child.once('error', (e: NodeJS.ErrnoException) =>
      reject(
        e.code === 'ENOENT'
          ? new Error(
              'victoria-metrics is not installed: the history contract tests need it (apt-get install -y victoria-metrics)',
            )
          : e,
      ),
    ),
  );
  const stop = async () => {
    process.off('exit', killOnExit);
    if (child.exitCode === null && child.signalCode === null) {
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGKILL');
      await gone;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await Promise.race([waitForPort(port, 15_000, () => !exited), spawnError]);
  } catch (e) {
    await stop();
    throw new Error(`${(e as Error).message}\nvictoria-metrics output:\n${out}`);
  }
  return { port, url: `http://127.0.0.1:${port}`, output: () => out, stop };
}
