// An in-process app on a temporary data dir, driven with fastify's inject().
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createApp, type App } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { silentLogger } from '../../src/log.js';

export async function httpApp(overrides: Partial<Record<keyof Config, string>> = {}, dataDir?: string): Promise<{ app: App; dataDir: string; post: Post; close: () => Promise<void> }> {
  const dir = dataDir ?? mkdtempSync(path.join(tmpdir(), 'edgeblocks-test-'));
  const config = loadConfig({ port: '0', httpsPort: '0', mqttPort: '0', dataDir: dir, logLevel: 'silent', ...overrides }, {});
  const app = await createApp(config, { log: silentLogger });
  const prefix = `/${config.serviceId}`;
  const post: Post = async (url, body, raw) => {
    const res = await app.http.inject({
      method: 'POST',
      url: url.startsWith('/') ? url : `${prefix}/${url}`,
      headers: { 'content-type': 'application/json' },
      payload: raw ?? (body === undefined ? '' : JSON.stringify(body)),
    });
    let json: any;
    try {
      json = res.body ? JSON.parse(res.body) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.statusCode, body: json, raw: res.body };
  };
  return {
    app,
    dataDir: dir,
    post,
    close: async () => {
      await app.stop();
      if (!dataDir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type Post = (url: string, body?: unknown, raw?: string) => Promise<{ status: number; body: any; raw: string }>;
