// Real receivers for alert tests: an HTTP server (ntfy, webhook, heartbeat) that can go down
// and come back on the same port, and an SMTP server (smtp-server) with a login.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export class HttpReceiver {
  readonly got: Received[] = [];
  private server: Server | null = null;
  port = 0;

  async start(port = this.port): Promise<void> {
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        this.got.push({ path: req.url ?? '', headers: req.headers, body, at: Date.now() });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      });
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  async stop(): Promise<void> {
    const s = this.server;
    this.server = null;
    if (!s) return;
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  json(path: string): any[] {
    return this.got.filter((r) => r.path === path).map((r) => JSON.parse(r.body));
  }
}

export interface Mail {
  user: string | undefined;
  raw: string;
}

export async function startSmtp(
  user: string,
  password: string,
): Promise<{ port: number; mails: Mail[]; close(): Promise<void> }> {
  const mails: Mail[] = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: false,
    onAuth(auth, _session, cb) {
      if (auth.username === user && auth.password === password) cb(null, { user: auth.username });
      else cb(new Error('bad login'));
    },
    onData(stream, session, cb) {
      let raw = '';
      stream.on('data', (c: Buffer) => (raw += c.toString()));
      stream.on('end', () => {
        mails.push({ user: session.user as string | undefined, raw });
        cb();
      });
    },
    logger: false,
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return { port, mails, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

export async function until<T>(
  what: string,
  limitMs: number,
  fn: () => T | undefined | false | Promise<T | undefined | false>,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${limitMs} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
