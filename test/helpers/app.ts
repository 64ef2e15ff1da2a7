// A started in-process app (HTTP on a free port of 127.0.0.1, temporary data dir, silent log
// unless one is given), for tests that need real sockets (MQTT, websockets, the gateway).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createApp, type App } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { silentLogger, type Logger } from '../../src/log.js';

export interface RunningApp {
  app: App;
  dataDir: string;
  /** http://127.0.0.1:<port>/<serviceId> */
  base: string;
  post(route: string, body?: unknown): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

export async function startApp(overrides: Partial<Record<keyof Config, string>> = {}, opts: { dataDir?: string; log?: Logger } = {}): Promise<RunningApp> {
  const dataDir = opts.dataDir ?? mkdtempSync(path.join(tmpdir(), 'edgeblocks-app-'));
  const config = loadConfig({ host: '127.0.0.1', port: '0', httpsPort: '0', mqttPort: '0', dataDir, logLevel: 'silent', ...overrides }, {});
  const app = await createApp(config, { log: opts.log ?? silentLogger });
  try {
    await app.start();
  } catch (e) {
    await app.stop().catch(() => undefined);
    throw e;
  }
  const base = app.url;
  let closed = false;
  return {
    app,
    dataDir,
    base,
    post: async (route, body) => {
      const res = await fetch(`${base}/${route}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    },
    async close() {
      if (closed) return;
      closed = true;
      await app.stop();
      if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
