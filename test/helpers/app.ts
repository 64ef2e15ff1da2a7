// The one in-process app of the tests: temporary data dir (removed on close unless given),
// silent log unless one is given. Started on free ports of 127.0.0.1 for tests that need real
// sockets (MQTT, websockets, the gateway), or with `listen: false` only created and driven with
// fastify's inject().
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createApp, type App } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { silentLogger, type Logger } from '../../src/log.js';
import type { Clock, Timers } from '../../src/runtime/clock.js';

export interface AppOptions {
  /** Use this data dir (kept after close) instead of a temporary one. */
  dataDir?: string;
  log?: Logger;
  /** false: create the app without starting it (no sockets); `post` goes through inject(). */
  listen?: boolean;
  /** A ManualClock and its timers (test/helpers/manual-timers.ts): the control loop and the alert checks run on them. */
  clock?: Clock;
  timers?: Timers;
}

/**
 * POST JSON to `route`: relative to the service (`blocks/read`) or absolute from the root
 * (`/history/datastore/get`); `raw` is sent as the body instead of `body` when given. `body` of
 * the answer is its parsed JSON (undefined when it is not JSON), `raw` its text.
 */
export type Post = (route: string, body?: unknown, raw?: string) => Promise<{ status: number; body: any; raw: string }>;

export interface RunningApp {
  app: App;
  dataDir: string;
  /** http://127.0.0.1:<port>/<serviceId> when listening, /<serviceId> otherwise. */
  base: string;
  post: Post;
  close(): Promise<void>;
}

export async function startApp(
  overrides: Partial<Record<keyof Config, string>> = {},
  opts: AppOptions = {},
): Promise<RunningApp> {
  const dataDir = opts.dataDir ?? mkdtempSync(path.join(tmpdir(), 'edgeblocks-app-'));
  const config = loadConfig(
    { host: '127.0.0.1', port: '0', httpsPort: '0', mqttPort: '0', dataDir, logLevel: 'silent', ...overrides },
    {},
  );
  const app = await createApp(config, { log: opts.log ?? silentLogger, clock: opts.clock, timers: opts.timers });
  const listen = opts.listen ?? true;
  if (listen) {
    try {
      await app.start();
    } catch (e) {
      await app.stop().catch(() => undefined);
      throw e;
    }
  }
  const base = listen ? app.url : `/${config.serviceId}`;
  const origin = base.slice(0, base.length - config.serviceId.length - 1);
  const post: Post = async (route, body, raw) => {
    const url = route.startsWith('/') ? origin + route : `${base}/${route}`;
    const payload = raw ?? (body === undefined ? undefined : JSON.stringify(body));
    const headers = { 'content-type': 'application/json' };
    if (listen) {
      const res = await fetch(url, { method: 'POST', headers, body: payload });
      const text = await res.text();
      return { status: res.status, body: parseJson(text), raw: text };
    }
    const res = await app.http.inject({ method: 'POST', url, headers, payload: payload ?? '' });
    return { status: res.statusCode, body: parseJson(res.body), raw: res.body };
  };
  let closed = false;
  return {
    app,
    dataDir,
    base,
    post,
    async close() {
      if (closed) return;
      closed = true;
      await app.stop();
      if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function parseJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}
