// An in-process app with auth on, one user (alice, with an API token) and its log captured, for
// the auth tests; `call` speaks HTTP to it, `login` gets a session cookie.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import type { Test } from 'tap';
import { UsersFile } from '../../src/auth/users.js';
import { startApp } from '../helpers/app.js';
import { freePort } from '../helpers/mosquitto.js';

export const PASSWORD = 'correct horse battery';

export async function setup(t: Test) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'edgeblocks-auth-'));
  const users = new UsersFile(dataDir).load();
  await users.add('alice', PASSWORD);
  const token = users.createToken('alice');
  let logText = '';
  const sink = new Writable({ write: (c, _e, cb) => ((logText += c.toString()), cb()) });
  const httpsPort = await freePort();
  const rt = await startApp(
    { auth: 'true', hardware: 'sim', httpsPort: String(httpsPort), logLevel: 'trace' },
    { dataDir, log: pino({ level: 'trace' }, sink) },
  );
  t.teardown(async () => {
    await rt.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const origin = rt.base.replace(/\/[^/]+$/, '');
  const call = async (
    method: string,
    url: string,
    opts: { body?: unknown; cookie?: string; headers?: Record<string, string> } = {},
  ) => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    if (opts.cookie) headers.cookie = opts.cookie;
    const res = await fetch(url.startsWith('http') ? url : origin + url, {
      method,
      headers,
      body: opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body),
    });
    const text = await res.text();
    let body: any = text;
    try {
      body = JSON.parse(text);
    } catch {}
    return { status: res.status, body, setCookie: res.headers.get('set-cookie') };
  };
  const login = async () => {
    const res = await call('POST', '/auth/login', { body: { username: 'alice', password: PASSWORD } });
    return { ...res, cookie: res.setCookie!.split(';')[0]! };
  };
  return { rt, dataDir, users, token, origin, call, login, httpsPort, log: () => logText };
}
